"""`envelope`: a result type asks for the self-describing `{"schema", "result"}` envelope.

Mirrors the .NET catalog's `[ToolResult]`: when the declared return type, or any
type reachable from it (fields of dataclasses, TypedDicts, NamedTuples and
pydantic models, items of lists and dicts, union members), is marked, the tool
sends its results with their schema, as `@tool(envelope=True)` does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import weakref
from typing import Any, TypeVar

import typing_extensions

__all__ = ("envelope", "wants_envelope")

_MARK = "__toolcast_envelope__"
T = TypeVar("T")


def envelope(cls: T) -> T:
    """Mark a result type: every tool whose result holds one sends the envelope.

    Use it as a class decorator (`@envelope` above `@dataclass`), or as
    `Annotated[T, envelope]` on a field or a return annotation.

    Raises:
        TypeError: `cls` is not a class.
    """
    if not isinstance(cls, type):
        msg = f"@envelope marks a class, not {type(cls).__name__}."
        raise TypeError(msg)
    setattr(cls, _MARK, True)
    return cls


def wants_envelope(tp: Any) -> bool:
    """True when `tp`, or a type reachable from it, carries the `envelope` marker."""
    seen: set[int] = set()
    stack = [tp]
    while stack:
        current = stack.pop()
        if current is envelope:
            return True
        origin = typing_extensions.get_origin(current)
        if origin is typing_extensions.Annotated:
            base, *extras = typing_extensions.get_args(current)
            stack.extend((base, *extras))
            continue
        if origin is typing_extensions.Literal:
            continue
        if origin is not None:
            stack.extend(typing_extensions.get_args(current))
            continue
        value = getattr(current, "__value__", None)  # `type X = ...` aliases
        if value is not None and not isinstance(current, type):
            stack.append(value)
            continue
        if not isinstance(current, type) or id(current) in seen:
            continue
        seen.add(id(current))
        if current.__dict__.get(_MARK) or getattr(current, _MARK, False) is True:
            return True
        stack.extend(_field_types(current))
    return False


_FIELD_TYPES: weakref.WeakKeyDictionary[type, tuple[Any, ...]] = weakref.WeakKeyDictionary()
"""Each class's field annotations, read once (`get_type_hints` is most of the search)."""


def _field_types(cls: type) -> tuple[Any, ...]:
    """The annotations of an object-like class's fields (empty for other classes)."""
    try:
        return _FIELD_TYPES[cls]
    except (KeyError, TypeError):  # TypeError: a class that cannot be weakly referenced
        pass
    found = _read_field_types(cls)
    # A pydantic model's fields are cheap to read and change on `model_rebuild`.
    if found is not None and not hasattr(cls, "model_fields"):
        with contextlib.suppress(TypeError):
            _FIELD_TYPES[cls] = found
    return found or ()


def _read_field_types(cls: type) -> tuple[Any, ...] | None:
    """As `_field_types`; None when the hints do not resolve (yet: not remembered)."""
    model_fields = getattr(cls, "model_fields", None)
    if isinstance(model_fields, dict) and hasattr(cls, "model_validate"):
        found: list[Any] = []
        for info in model_fields.values():
            found.append(info.annotation)
            found.extend(info.metadata)  # pydantic keeps `Annotated` extras here
        return tuple(found)
    is_object = (
        dataclasses.is_dataclass(cls)
        or typing_extensions.is_typeddict(cls)
        or (issubclass(cls, tuple) and hasattr(cls, "_fields"))
    )
    if not is_object:
        return ()
    try:
        return tuple(typing_extensions.get_type_hints(cls, include_extras=True).values())
    except Exception:  # the schema walker reports unresolvable hints itself
        return None
