"""What `Annotated[...]` metadata, pydantic `Field(...)` and defaults say about a type.

`split_annotated` peels the `Annotated` layers off an annotation and folds their
metadata (a description string, `typing_extensions.Doc`, `Injected`, pydantic
`FieldInfo`, annotated-types constraints such as `Ge` or `MaxLen`) into one `Meta`.
`json_default` decides whether a Python default can be written as a JSON Schema
`default`; `MISSING` marks "no default given", distinct from a default of None.
"""

from __future__ import annotations

import decimal
import enum
import typing
from collections import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import typing_extensions

from toolcast._context import Injected
from toolcast._define._decorator import Param
from toolcast.aliases._declare import Alias

__all__ = ("MISSING", "Meta", "guided", "json_default", "split_annotated")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""No default given (distinct from a default of None)."""


@dataclass(slots=True)
class Meta:
    """What `Annotated[...]` metadata and `Field(...)` say about a type."""

    description: str | None = None
    constraints: dict[str, Any] = field(default_factory=dict)
    injected: Injected | None = None
    default: Any = MISSING
    default_factory: Callable[[], Any] | None = None
    alias: str | None = None
    id_alias: list[str] = field(default_factory=list)
    """`Alias(prefix)` prefixes on this type (more than one is a definition problem)."""
    hidden: bool = False
    """pydantic `SkipJsonSchema`: not shown to the model, so not accepted from it either."""
    excluded: bool = False
    """pydantic `Field(exclude=True)`: left out when the value is serialised (results)."""
    model_description: str | None = None
    """`Param(description=...)`: the description the model sees, over every other."""
    note: str | None = None
    """`Param(note=...)`: appended to the description after a blank line."""
    rename: str | None = None
    """`Param(name=...)` inside `Annotated` (parameters only)."""

    def for_type(self) -> Meta:
        """What still applies to the type once a field took its own parts."""
        return Meta(
            constraints=dict(self.constraints),
            id_alias=list(self.id_alias),
            hidden=self.hidden,
            excluded=self.excluded,
        )


_CONSTRAINT_ATTRS = (
    "gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern",
)  # fmt: skip


def _is_field_info(obj: Any) -> bool:
    return type(obj).__name__ == "FieldInfo" and type(obj).__module__.startswith("pydantic")


def absorb(meta: Meta, item: Any) -> None:
    if isinstance(item, str):
        meta.description = item
    elif isinstance(item, Injected):
        meta.injected = item
    elif isinstance(item, Param):
        if item.description is not None:
            meta.model_description = item.description
        if item.note:
            meta.note = item.note
        if item.name is not None:
            meta.rename = item.name
        meta.hidden = meta.hidden or item.hidden
    elif isinstance(item, Alias):
        meta.id_alias.append(item.prefix)
    elif isinstance(item, typing_extensions.Doc):
        meta.description = item.documentation
    elif _is_field_info(item):
        if item.description:
            meta.description = item.description
        if isinstance(item.alias, str):
            meta.alias = item.alias
        if not _is_pydantic_undefined(item.default):
            meta.default = item.default
        if item.default_factory is not None:
            meta.default_factory = item.default_factory
        if item.exclude is True:
            meta.excluded = True
        for sub in item.metadata:
            absorb(meta, sub)
    elif type(item).__name__ == "SkipJsonSchema" and type(item).__module__.startswith("pydantic"):
        meta.hidden = True
    elif isinstance(item, abc.Iterable) and type(item).__module__ == "annotated_types":
        for sub in item:  # GroupedMetadata: Interval, Len
            absorb(meta, sub)
    else:
        for attr in _CONSTRAINT_ATTRS:
            value = getattr(item, attr, None)
            if value is not None:
                meta.constraints[attr] = value


def _is_pydantic_undefined(value: Any) -> bool:
    return type(value).__name__ == "PydanticUndefinedType"


_ANNOTATED: tuple[type, ...] = tuple(
    {type(typing.Annotated[int, 0]), type(typing_extensions.Annotated[int, 0])}
)
"""The classes of `Annotated[...]` forms: what `get_origin(tp) is Annotated` tests, cheaper
(this runs for every annotation, field and union member)."""


def split_annotated(tp: Any, meta: Meta | None = None) -> tuple[Any, Meta]:
    """Peel `Annotated` layers off `tp`, folding their metadata into one `Meta`."""
    meta = meta or Meta()
    while isinstance(tp, _ANNOTATED):
        annotated: Any = tp
        for item in annotated.__metadata__:
            absorb(meta, item)
        tp = annotated.__origin__
    return tp, meta


def guided(fragment: dict[str, Any], description: str | None, note: str | None) -> dict[str, Any]:
    """`fragment` with the model-only description (over any other) and note applied."""
    if description is None and not note:
        return fragment
    said = description if description is not None else fragment.get("description")
    if note:
        said = f"{said}\n\n{note}" if said else note
    out = {k: v for k, v in fragment.items() if k != "description"}
    if said:
        out["description"] = said
    return out


def json_default(value: Any) -> tuple[bool, Any]:
    """(True, json) when `value` can be written as a JSON `default`, else (False, None)."""
    if isinstance(value, enum.Enum):
        return json_default(value.value)
    if value is None or isinstance(value, (bool, int, str)):
        return value is not None, value
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf")), value
    if isinstance(value, decimal.Decimal):
        written = plain_number(value) if value.is_finite() else None
        return value.is_finite() and same_number(written, value), written
    if isinstance(value, (list, tuple)):
        items = [json_default(v) for v in value]
        return all(ok for ok, _ in items), [v for _, v in items]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        pairs = {k: json_default(v) for k, v in value.items()}
        return all(ok for ok, _ in pairs.values()), {k: v for k, (_, v) in pairs.items()}
    return False, None


def plain_number(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def exact_in_json(value: Any) -> bool:
    """Whether a constraint value survives being written as a JSON Schema number."""
    return same_number(plain_number(value), value)


def same_number(written: Any, value: Any) -> bool:
    """Whether `written` (a schema number) is exactly `value` as JSON text reads it."""
    if not isinstance(value, decimal.Decimal) or not isinstance(written, float):
        return True
    return (
        written == written
        and abs(written) != float("inf")
        and (decimal.Decimal(repr(written)) == value)
    )
