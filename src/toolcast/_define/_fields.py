"""Object-like classes: recognising them, reading their fields, and building them.

A dataclass, `TypedDict`, `NamedTuple` or pydantic model becomes a closed JSON object.
`fields_of` lists its properties as `FieldDef`s (JSON key, Python name, annotation,
required, default, description from metadata or the class docstring), honouring
`Required`/`NotRequired` and pydantic aliases. `constructor_of` and `post_object` turn
the validated dict back into an instance of the class.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import typing_extensions
from pydantic_core import SchemaValidator

from toolcast._define._annotations import MISSING, Meta, absorb, guided, split_annotated
from toolcast._define._docstring import parse_docstring
from toolcast.errors import DefinitionProblem

__all__ = ("FieldDef", "fields_of", "guided_field")


@dataclass(slots=True)
class FieldDef:
    """One property of an object (or one parameter of a function)."""

    key: str
    """The JSON property name."""
    attr: str
    """The Python name the value is passed as."""
    annotation: Any
    required: bool
    default: Any = MISSING
    description: str | None = None
    meta: Meta | None = None
    """Metadata found outside the annotation (pydantic `Field(...)` defaults)."""


def is_typeddict_class(tp: Any) -> bool:
    return typing_extensions.is_typeddict(tp)


def is_namedtuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def is_model(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_fields") and hasattr(tp, "model_validate")


def class_doc(cls: type) -> str | None:
    doc = cls.__dict__.get("__doc__")
    # dataclasses and NamedTuple invent a signature-like docstring; it says nothing.
    if not isinstance(doc, str) or not doc or doc.startswith(f"{cls.__name__}("):
        return None
    return doc


def fields_of(cls: type, path: str, problems: list[DefinitionProblem]) -> Iterator[FieldDef]:
    """The properties of object-like `cls`; what cannot be read is added to `problems`."""
    doc = parse_docstring(class_doc(cls))
    owner = f"{path}" if path else cls.__name__
    try:
        hints = typing_extensions.get_type_hints(cls, include_extras=True)
    except Exception as exc:
        problems.append(
            DefinitionProblem(
                "unresolved-annotation",
                owner,
                f"type hints of {cls.__name__} could not be resolved: {exc}",
            )
        )
        return
    if is_model(cls):
        for name, info in cls.model_fields.items():  # type: ignore[attr-defined]
            meta = Meta()
            absorb(meta, info)
            key = _model_key(cls, name, info)
            if key is None:
                problems.append(
                    DefinitionProblem(
                        "unsupported-alias",
                        f"{owner}.{name}",
                        "AliasPath validation aliases have no JSON Schema; use a plain alias.",
                    )
                )
                continue
            # pydantic validates by alias; the dict we hand it keeps the alias keys
            yield FieldDef(
                key,
                key,
                info.annotation,
                info.is_required(),
                meta.default,
                meta.description or doc.params.get(name),
                meta,
            )
        return
    if is_typeddict_class(cls):
        required_keys = getattr(cls, "__required_keys__", frozenset(hints))
        for name, tp in hints.items():
            # With string annotations the class cannot see Required/NotRequired,
            # so the resolved hint decides.
            origin: Any = typing_extensions.get_origin(tp)
            if origin is typing_extensions.Required:
                required = True
            elif origin is typing_extensions.NotRequired:
                required = False
            else:
                required = name in required_keys
            yield FieldDef(name, name, _strip_required(tp), required, MISSING, doc.params.get(name))
        return
    if dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            tp, meta = split_annotated(hints.get(f.name, typing.Any))
            default = MISSING if f.default is dataclasses.MISSING else f.default
            has_default = default is not MISSING or f.default_factory is not dataclasses.MISSING
            yield FieldDef(
                f.name,
                f.name,
                hints.get(f.name, typing.Any),
                not has_default,
                default,
                f.metadata.get("description") or doc.params.get(f.name),
            )
        return
    defaults = getattr(cls, "_field_defaults", {})
    for name in cls._fields:  # type: ignore[attr-defined]
        yield FieldDef(
            name,
            name,
            hints.get(name, typing.Any),
            name not in defaults,
            defaults.get(name, MISSING),
            doc.params.get(name),
        )


def guided_field(
    f: FieldDef, json: dict[str, Any], path: str, problems: list[DefinitionProblem]
) -> dict[str, Any]:
    """A field's fragment with its `Param(description=, note=)` model-only guidance.

    The field's own metadata (`@tool(params=...)`, pydantic's `Field`) wins over
    what its `Annotated` type says.
    """
    _, inner = split_annotated(f.annotation)
    outer = f.meta or Meta()
    if inner.rename is not None or outer.rename is not None:
        where = f"{path}.{f.key}" if path else f.key
        message = "Param(name=...) renames tool parameters only; use a pydantic alias."
        problems.append(DefinitionProblem("nested-rename", where, message))
    description = outer.model_description or inner.model_description
    return guided(json, description, outer.note or inner.note)


def _strip_required(tp: Any) -> Any:
    origin = typing_extensions.get_origin(tp)
    if origin in (
        typing_extensions.Required,
        typing_extensions.NotRequired,
        typing_extensions.ReadOnly,
    ):
        return _strip_required(typing_extensions.get_args(tp)[0])
    if origin is typing_extensions.Annotated:
        base, *extras = typing_extensions.get_args(tp)
        return typing_extensions.Annotated[(_strip_required(base), *extras)]
    return tp


def _model_key(cls: type, name: str, info: Any) -> str | None:
    """The key pydantic validates a model field by (None: not expressible as one key)."""
    if getattr(cls, "model_config", {}).get("validate_by_alias", True) is False:
        return name
    alias = info.validation_alias
    if alias is None:
        return info.alias if isinstance(info.alias, str) else name
    if isinstance(alias, str):
        return alias
    first = next(iter(getattr(alias, "choices", ())), None)  # AliasChoices: its first
    return first if isinstance(first, str) else None


def constructor_of(cls: type) -> Callable[[dict[str, Any]], Any] | None:
    if is_typeddict_class(cls):
        return None
    if is_model(cls):
        # The model's own compiled validator, as `model_validate` would call it (its
        # validators run), without the classmethod's per-call overhead (0.95 -> 0.59 µs).
        validator = getattr(cls, "__pydantic_validator__", None)
        if isinstance(validator, SchemaValidator):
            return validator.validate_python
        return cls.model_validate  # type: ignore[attr-defined, no-any-return]
    return lambda values: cls(**values)


def own_model_schema(cls: type) -> dict[str, Any] | None:
    """The pydantic model's own core schema, when pydantic-core reuses its validator.

    Chained after toolcast's field validation it builds the model (its validators
    run) inside pydantic-core, as `model_validate` would, without a Python call in
    between (0.16 µs a model). pydantic-core takes the class's compiled validator
    for a complete model's schema rather than compiling it again.
    """
    own = getattr(cls, "__pydantic_core_schema__", None)
    complete = cls.__dict__.get("__pydantic_complete__") is True
    if complete and isinstance(own, dict) and own.get("type") == "model" and own["cls"] is cls:
        return own
    return None


def post_object(
    construct: Callable[[dict[str, Any]], Any] | None,
    renames: dict[str, str],
    null_defaults: tuple[str, ...],
) -> Callable[[dict[str, Any]], Any] | None:
    if construct is None and not renames and not null_defaults:
        return None

    def post(values: dict[str, Any]) -> Any:
        for key in null_defaults:
            if key in values and values[key] is None:
                del values[key]
        if renames:
            values = {renames.get(k, k): v for k, v in values.items()}
        return values if construct is None else construct(values)

    return post
