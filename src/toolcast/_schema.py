"""Python annotation -> canonical JSON Schema fragment *and* the validator that agrees with it.

One walk over a type produces a `Node`: the JSON Schema (2020-12) fragment the model
sees and the pydantic-core schema that validates and converts arguments. Building
both from the same walk is what keeps "accepted exactly when the schema accepts"
true. pydantic is never imported unless a type comes from it.

Problems are collected (never raised one by one); `ToolDefinitionError` reports
them all at once.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import datetime as dt
import decimal
import enum
import pathlib
import re
import types
import typing
import uuid
from collections import abc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import typing_extensions
from pydantic_core import PydanticCustomError
from pydantic_core import core_schema as cs

from toolcast._context import Injected
from toolcast._docstring import parse_docstring
from toolcast.errors import DefinitionProblem

__all__ = (
    "KEY_ORDER",
    "MISSING",
    "FieldDef",
    "Meta",
    "Node",
    "SchemaBuilder",
    "json_default",
    "ordered",
    "split_annotated",
)

KEY_ORDER = [
    "type",
    "format",
    "description",
    "enum",
    "const",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "contentEncoding",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
    "$ref",
    "default",
    "$defs",
]
_RANK = {key: rank for rank, key in enumerate(KEY_ORDER)}


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""No default given (distinct from a default of None)."""
Path = tuple[Any, ...]


def ordered(fragment: dict[str, Any]) -> dict[str, Any]:
    """The fragment with its keywords in the canonical order (`x-` extensions last)."""
    keys = sorted(fragment, key=lambda k: _RANK.get(k, 200 if k.startswith("x-") else 100))
    return {k: fragment[k] for k in keys}


@dataclass(slots=True)
class Node:
    """A type's schema fragment and validator, built in one walk."""

    json: dict[str, Any]
    core: cs.CoreSchema
    depth: int | None = 0
    """Deepest JSON nesting this type accepts (None: unbounded)."""
    guards: tuple[Path, ...] = ()
    """Paths where a JSON string must be refused although pydantic-core takes one
    (Decimal accepts numeric strings even in strict JSON mode)."""


@dataclass(slots=True)
class Meta:
    """What `Annotated[...]` metadata and `Field(...)` say about a type."""

    description: str | None = None
    constraints: dict[str, Any] = field(default_factory=dict)
    injected: Injected | None = None
    default: Any = MISSING
    default_factory: Callable[[], Any] | None = None
    alias: str | None = None


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


_CONSTRAINT_ATTRS = (
    "gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern",
)  # fmt: skip
_NUMERIC = {"gt", "ge", "lt", "le", "multiple_of"}
_LENGTH = {"min_length", "max_length"}
_NUM_KEYS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
    "multiple_of": "multipleOf",
}


def _is_field_info(obj: Any) -> bool:
    return type(obj).__name__ == "FieldInfo" and type(obj).__module__.startswith("pydantic")


def _absorb(meta: Meta, item: Any) -> None:
    if isinstance(item, str):
        meta.description = item
    elif isinstance(item, Injected):
        meta.injected = item
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
        for sub in item.metadata:
            _absorb(meta, sub)
    elif isinstance(item, abc.Iterable) and type(item).__module__ == "annotated_types":
        for sub in item:  # GroupedMetadata: Interval, Len
            _absorb(meta, sub)
    else:
        for attr in _CONSTRAINT_ATTRS:
            value = getattr(item, attr, None)
            if value is not None:
                meta.constraints[attr] = value


def _is_pydantic_undefined(value: Any) -> bool:
    return type(value).__name__ == "PydanticUndefinedType"


def split_annotated(tp: Any, meta: Meta | None = None) -> tuple[Any, Meta]:
    """Peel `Annotated` layers off `tp`, folding their metadata into one `Meta`."""
    meta = meta or Meta()
    while typing_extensions.get_origin(tp) is typing_extensions.Annotated:
        base, *extras = typing_extensions.get_args(tp)
        for item in extras:
            _absorb(meta, item)
        tp = base
    return tp, meta


def json_default(value: Any) -> tuple[bool, Any]:
    """(True, json) when `value` can be written as a JSON `default`, else (False, None)."""
    if isinstance(value, enum.Enum):
        return json_default(value.value)
    if value is None or isinstance(value, (bool, int, str)):
        return value is not None, value
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf")), value
    if isinstance(value, decimal.Decimal):
        return value.is_finite(), _plain_number(value) if value.is_finite() else None
    if isinstance(value, (list, tuple)):
        items = [json_default(v) for v in value]
        return all(ok for ok, _ in items), [v for _, v in items]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        pairs = {k: json_default(v) for k, v in value.items()}
        return all(ok for ok, _ in pairs.values()), {k: v for k, (_, v) in pairs.items()}
    return False, None


# -- string formats -----------------------------------------------------------------
# Validated in Python so the accepted language is exactly RFC 3339 (pydantic-core's
# parsers also take spaces, unix timestamps and missing offsets, which the schema
# does not allow).

# [0-9], not \d: Python's \d also matches non-ASCII digits, ECMA-262's does not.
_DATE = r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?([Zz]|[+-][0-9]{2}:[0-9]{2})"
_DATE_RE = re.compile(rf"{_DATE}\Z")
_TIME_RE = re.compile(rf"{_TIME}\Z")
_DATETIME_RE = re.compile(rf"{_DATE}[Tt]{_TIME}\Z")
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\Z")
DURATION_PATTERN = (
    r"^P(?:[0-9]+W|[0-9]+D(?:T(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\.[0-9]+)?S)?)?|"
    r"T(?:[0-9]+H(?:[0-9]+M)?(?:[0-9]+(?:\.[0-9]+)?S)?|[0-9]+M(?:[0-9]+(?:\.[0-9]+)?S)?"
    r"|[0-9]+(?:\.[0-9]+)?S))$"
)
_DURATION_RE = re.compile(DURATION_PATTERN)
_DURATION_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)([WDHMS])")


def _format_error(kind: str, example: str) -> PydanticCustomError:
    return PydanticCustomError("format", f"must be {kind} (e.g. {example})")


def _tz(text: str) -> dt.tzinfo:
    if text in ("Z", "z"):
        return dt.timezone.utc
    sign = 1 if text[0] == "+" else -1
    delta = dt.timedelta(hours=int(text[1:3]), minutes=int(text[4:6]))
    return dt.timezone(sign * delta)


def _micro(frac: str | None) -> int:
    return int((frac or "0")[:6].ljust(6, "0"))


def _parse_datetime(value: str) -> dt.datetime:
    m = _DATETIME_RE.match(value)
    try:
        if m is None:
            raise ValueError
        y, mo, d, h, mi, s, frac, tz = m.groups()
        return dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), _micro(frac), _tz(tz))
    except ValueError:
        raise _format_error("an RFC 3339 date-time", "2024-05-01T09:30:00Z") from None


def _parse_date(value: str) -> dt.date:
    m = _DATE_RE.match(value)
    try:
        if m is None:
            raise ValueError
        return dt.date(*(int(g) for g in m.groups()))
    except ValueError:
        raise _format_error("a date", "2024-05-01") from None


def _parse_time(value: str) -> dt.time:
    m = _TIME_RE.match(value)
    try:
        if m is None:
            raise ValueError
        h, mi, s, frac, tz = m.groups()
        return dt.time(int(h), int(mi), int(s), _micro(frac), _tz(tz))
    except ValueError:
        raise _format_error("an RFC 3339 time with offset", "09:30:00Z") from None


_DATE_UNITS = {"W": 604800, "D": 86400}
_TIME_UNITS = {"H": 3600, "M": 60, "S": 1}


def _parse_duration(value: str) -> dt.timedelta:
    if not _DURATION_RE.match(value):
        raise _format_error(
            "an ISO 8601 duration in weeks, days, hours, minutes, seconds", "P1DT2H"
        )
    date_part, _, time_part = value[1:].partition("T")
    # Exact decimal arithmetic (floats lose microseconds on long durations);
    # digits beyond microseconds are dropped, as for date-time fractions.
    seconds = sum(
        (decimal.Decimal(n) * _DATE_UNITS[u] for n, u in _DURATION_PART.findall(date_part)),
        decimal.Decimal(0),
    ) + sum(
        (decimal.Decimal(n) * _TIME_UNITS[u] for n, u in _DURATION_PART.findall(time_part)),
        decimal.Decimal(0),
    )
    try:
        return dt.timedelta(microseconds=int(seconds * 1_000_000))
    except OverflowError:
        raise PydanticCustomError(
            "format", "must be a duration shorter than 1000000000 days"
        ) from None


def _parse_uuid(value: str) -> uuid.UUID:
    if not _UUID_RE.match(value):
        raise _format_error("a UUID", "123e4567-e89b-12d3-a456-426614174000")
    return uuid.UUID(value)


def _parse_base64(value: str) -> bytes:
    # Standard alphabet with padding (RFC 4648 section 4); pydantic-core would also
    # take URL-safe and unpadded text, which the schema does not describe.
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise PydanticCustomError("format", "must be base64-encoded (RFC 4648)") from None


def _string_format(fmt: str, parse: Callable[[str], Any], **extra: Any) -> Node:
    return Node(
        {"type": "string", "format": fmt, **extra},
        cs.no_info_after_validator_function(parse, cs.str_schema(strict=True)),
    )


def _unique(kind: Callable[[Any], Any]) -> Callable[[list[Any]], Any]:
    def check(items: list[Any]) -> Any:
        result = kind(items)
        if len(result) != len(items):
            raise PydanticCustomError("unique", "must not contain duplicate items")
        return result

    return check


def _integral(value: float) -> int:
    # int_schema's own float conversion stops at 2**63; JSON Schema has no such limit.
    if not value.is_integer():
        raise PydanticCustomError("int_from_float", "must be an integer")
    return int(value)


_INT_BASE = cs.union_schema(
    # JSON Schema counts 1.0 as an integer; strict int alone would refuse it.
    [
        cs.int_schema(strict=True),
        cs.no_info_after_validator_function(
            _integral, cs.float_schema(strict=True, allow_inf_nan=False)
        ),
    ],
    custom_error_type="int_type",
    mode="left_to_right",
)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def _is_typeddict(tp: Any) -> bool:
    return typing_extensions.is_typeddict(tp)


def _is_namedtuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_fields") and hasattr(tp, "model_validate")


def _class_doc(cls: type) -> str | None:
    doc = cls.__dict__.get("__doc__")
    # dataclasses and NamedTuple invent a signature-like docstring; it says nothing.
    if not isinstance(doc, str) or not doc or doc.startswith(f"{cls.__name__}("):
        return None
    return doc


class SchemaBuilder:
    """Walks annotations of one tool, collecting `$defs` and problems."""

    def __init__(self, owner: str, *, lenient_nulls: bool = False) -> None:
        self.owner = owner
        self.lenient_nulls = lenient_nulls
        """Fields with defaults also take `null`, meaning "use the default"."""
        self.problems: list[DefinitionProblem] = []
        self.exact_output = False
        """A value of these types needs `exact_json` (Decimal, bytes, NamedTuple inside)."""
        self.defs: dict[str, dict[str, Any]] = {}
        self.core_defs: list[cs.CoreSchema] = []
        self.needs_python_regex = False
        self._stack: list[type] = []
        self._recursive: set[type] = set()
        self._names: dict[type, str] = {}
        self._done: dict[type, Node] = {}

    def problem(self, code: str, path: str, message: str) -> Node:
        """Record a problem; return a placeholder node so the walk can go on."""
        self.problems.append(DefinitionProblem(code, path, message))
        return Node({}, cs.any_schema())

    # -- dispatch --------------------------------------------------------------------

    def node(self, tp: Any, path: str, meta: Meta | None = None) -> Node:
        """The node for annotation `tp` at parameter path `path`."""
        tp, meta = split_annotated(tp, meta)
        if meta.injected is not None:
            return self.problem(
                "injected-nested", path, "Injected(...) is only allowed on a parameter itself."
            )
        node = self._dispatch(tp, path, meta)
        if meta.constraints:
            node = self._constrain(node, tp, path, meta.constraints)
        if meta.description and "description" not in node.json:
            node.json = ordered({**node.json, "description": meta.description})
        return node

    def _dispatch(self, tp: Any, path: str, meta: Meta) -> Node:
        origin = typing_extensions.get_origin(tp)
        args = typing_extensions.get_args(tp)
        if tp is typing.Any or tp is typing_extensions.Any or _is_json_value_alias(tp):
            return Node({}, cs.any_schema(), depth=None)
        if tp is None or tp is type(None):
            return Node({"type": "null"}, cs.none_schema())
        if origin is typing.Literal or origin is typing_extensions.Literal:
            return self._literal(args, path)
        if origin is typing.Union or origin is types.UnionType:
            return self._union(args, path, meta)
        if isinstance(tp, typing.TypeVar):
            return self.problem(
                "type-var",
                path,
                f"type variable {tp.__name__} cannot become a schema; "
                "use a concrete type (generic functions are not tools).",
            )
        if isinstance(tp, typing_extensions.TypeAliasType):
            return self.node(tp.__value__, path, meta)
        if hasattr(tp, "__supertype__"):  # NewType
            return self.node(tp.__supertype__, path, meta)
        if isinstance(tp, (str, typing.ForwardRef)):
            return self.problem(
                "unresolved-annotation",
                path,
                f"annotation {tp!r} could not be resolved; define the type at module level.",
            )
        scalar = self._scalar(tp, path)
        if scalar is not None:
            return scalar
        container = self._container(tp, origin, args, path)
        if container is not None:
            return container
        if _is_typeddict(tp) or dataclasses.is_dataclass(tp) or _is_namedtuple(tp) or _is_model(tp):
            return self._object(tp, path)
        return self.problem(
            "unsupported-type",
            path,
            f"type {_type_name(tp)} has no JSON Schema; use a dataclass, TypedDict, "
            "pydantic model, or a builtin type.",
        )

    def _scalar(self, tp: Any, path: str) -> Node | None:
        if not isinstance(tp, type):
            return None
        if tp is bool:
            return Node({"type": "boolean"}, cs.bool_schema(strict=True))
        if issubclass(tp, enum.Enum):
            return self._enum(tp, path)
        if tp is int:
            return Node({"type": "integer"}, _INT_BASE)
        if tp is float:
            return Node({"type": "number"}, cs.float_schema(strict=True, allow_inf_nan=False))
        if tp is decimal.Decimal:
            self.exact_output = True
            core: cs.CoreSchema = cs.decimal_schema(strict=True, allow_inf_nan=False)
            return Node({"type": "number"}, core, guards=((),))
        if tp is str:
            return Node({"type": "string"}, cs.str_schema(strict=True))
        if tp in (bytes, bytearray):
            self.exact_output = True
            parse = _parse_base64 if tp is bytes else lambda v: bytearray(_parse_base64(v))
            core = cs.no_info_after_validator_function(parse, cs.str_schema(strict=True))
            return Node({"type": "string", "contentEncoding": "base64"}, core)
        if tp is dt.datetime:
            return _string_format("date-time", _parse_datetime)
        if tp is dt.date:
            return _string_format("date", _parse_date)
        if tp is dt.time:
            return _string_format("time", _parse_time)
        if tp is dt.timedelta:
            return _string_format("duration", _parse_duration, pattern=DURATION_PATTERN)
        if tp is uuid.UUID:
            return _string_format("uuid", _parse_uuid)
        if issubclass(tp, pathlib.PurePath):
            return Node(
                {"type": "string"},
                cs.no_info_after_validator_function(tp, cs.str_schema(strict=True)),
            )
        if tp.__module__.startswith("pydantic"):
            return self._pydantic_string(tp, path)
        return None

    def _pydantic_string(self, tp: type, path: str) -> Node | None:
        name = tp.__name__
        if name == "EmailStr" or name == "NameEmail":
            fmt = "email"
        elif name.endswith(("Url", "Dsn")):
            fmt = "uri"
        else:
            return None
        from pydantic import TypeAdapter

        adapter: TypeAdapter[Any] = TypeAdapter(tp)

        def parse(value: str) -> Any:
            try:
                return adapter.validate_python(value)
            except ValueError:
                raise PydanticCustomError("format", f"must be a valid {fmt}") from None

        return _string_format(fmt, parse)

    def _enum(self, tp: type[enum.Enum], path: str) -> Node:
        values = [member.value for member in tp]
        bad = [v for v in values if not isinstance(v, (str, int, float, bool)) or v is None]
        if bad or not values:
            return self.problem(
                "enum-values",
                path,
                f"enum {tp.__name__} must have str, int, float or bool member values "
                f"(got {bad!r}).",
            )
        types_ = {_json_type(v) for v in values}
        sub = (
            {"string": "str", "integer": "int", "number": "float"}.get(types_.pop())
            if len(types_) == 1
            else None
        )
        json: dict[str, Any] = {"enum": values}
        if sub is not None:
            json = {"type": {"str": "string", "int": "integer", "float": "number"}[sub], **json}
        core: cs.CoreSchema = cs.enum_schema(tp, list(tp), sub_type=sub)  # type: ignore[arg-type]
        if sub == "int":
            core = cs.chain_schema([_INT_BASE, core])
        elif sub is None:
            core = cs.no_info_after_validator_function(tp, self._literal(tuple(values), path).core)
        return Node(ordered(json), core)

    def _literal(self, values: tuple[Any, ...], path: str) -> Node:
        flat: list[Any] = []
        for value in values:  # Literal[Color.RED] and nested Literals
            flat.append(value)
        bad = [
            v
            for v in flat
            if not isinstance(v, (str, int, float, bool, enum.Enum)) and v is not None
        ]
        if bad:
            return self.problem(
                "literal-values", path, f"literal values {bad!r} are not JSON scalars."
            )
        json_values = [v.value if isinstance(v, enum.Enum) else v for v in flat]
        kinds = {_json_type(v) for v in json_values}
        json: dict[str, Any] = {"enum": json_values}
        if len(kinds) == 1:
            json = {"type": next(iter(kinds)), **json}
        # One literal validator per JSON type, so `true` never matches 1 (Python's
        # True == 1 would let it through a single literal_schema).
        groups: dict[str, list[Any]] = {}
        for v in flat:
            groups.setdefault(_json_type(v.value if isinstance(v, enum.Enum) else v), []).append(v)
        choices: list[cs.CoreSchema] = []
        for kind, members in groups.items():
            literal = cs.literal_schema(members)
            base = {
                "boolean": cs.bool_schema(strict=True),
                "integer": _INT_BASE,
                "number": cs.float_schema(strict=True, allow_inf_nan=False),
                "string": cs.str_schema(strict=True),
                "null": cs.none_schema(),
            }[kind]
            if any(isinstance(m, enum.Enum) for m in members):
                by_value = {m.value if isinstance(m, enum.Enum) else m: m for m in members}
                choices.append(
                    cs.no_info_after_validator_function(
                        by_value.__getitem__,
                        cs.chain_schema([base, cs.literal_schema(list(by_value))]),
                    )
                )
            else:
                choices.append(cs.chain_schema([base, literal]))
        expected = ", ".join(_dump(v) for v in json_values)
        core = (
            choices[0]
            if len(choices) == 1
            else cs.union_schema(
                [*choices],
                mode="left_to_right",
                custom_error_type="literal_mismatch",
                custom_error_message=f"must be one of: {expected}",
            )
        )
        return Node(ordered(json), core)

    def _union(self, args: tuple[Any, ...], path: str, meta: Meta) -> Node:
        members = [a for a in args if a is not type(None) and a is not None]
        nullable = len(members) < len(args)
        if len(members) == 1:
            inner = self.node(members[0], path, Meta(constraints=dict(meta.constraints)))
            meta.constraints.clear()
        else:
            if meta.constraints:
                self.problem(
                    "constraint-mismatch",
                    path,
                    "constraints on a union are ambiguous; put them on one member.",
                )
                meta.constraints.clear()
            nodes = [self.node(m, path) for m in members]
            names = ", ".join(_describe(n.json) for n in nodes)
            inner = Node(
                {"anyOf": [n.json for n in nodes]},
                cs.union_schema(
                    [n.core for n in nodes],
                    custom_error_type="union_mismatch",
                    custom_error_message=f"must be one of: {names}",
                ),
                depth=_max_depth(nodes),
            )
        if not nullable:
            return inner
        return Node(
            _nullable_json(inner.json), cs.nullable_schema(inner.core), inner.depth, inner.guards
        )

    def _container(self, tp: Any, origin: Any, args: tuple[Any, ...], path: str) -> Node | None:
        kind = origin if origin is not None else tp
        if kind in (
            list,
            abc.Sequence,
            abc.MutableSequence,
            abc.Iterable,
            abc.Collection,
            typing.Sequence,
        ):
            item = self.node(args[0] if args else typing.Any, f"{path}[]")
            return _array(item, cs.list_schema(item.core, strict=True), {"items": item.json})
        if kind is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                item = self.node(args[0], f"{path}[]")
                core: cs.CoreSchema = cs.tuple_schema(
                    [item.core], variadic_item_index=0, strict=True
                )
                return _array(item, core, {"items": item.json})
            if args == ((),) or (not args and origin is tuple and tp is not tuple):
                # tuple[()]: Python 3.11+ reports no args, 3.10 reports ((),).
                return Node(
                    {"type": "array", "maxItems": 0}, cs.tuple_schema([], strict=True), depth=1
                )
            if not args:
                item = self.node(typing.Any, f"{path}[]")
                core = cs.tuple_schema([item.core], variadic_item_index=0, strict=True)
                return _array(item, core, {"items": item.json})
            items = [self.node(a, f"{path}[{i}]") for i, a in enumerate(args)]
            json = {
                "type": "array",
                "prefixItems": [n.json for n in items],
                "minItems": len(items),
                "maxItems": len(items),
            }
            guards = tuple((i, *g) for i, n in enumerate(items) for g in n.guards)
            return Node(
                json, cs.tuple_schema([n.core for n in items], strict=True), _deeper(items), guards
            )
        if kind in (set, frozenset, abc.Set, abc.MutableSet):
            item = self.node(args[0] if args else typing.Any, f"{path}[]")
            if item.depth is None or (
                item.depth > 0 and not _is_hashable_shape(args[0] if args else None)
            ):
                return self.problem(
                    "unhashable-set", path, "set items must be scalars (str, int, enums, ...)."
                )
            build = frozenset if kind is frozenset else set
            core = cs.no_info_after_validator_function(
                _unique(build), cs.list_schema(item.core, strict=True)
            )
            return _array(item, core, {"items": item.json, "uniqueItems": True})
        if kind in (dict, abc.Mapping, abc.MutableMapping):
            key_tp = args[0] if args else str
            key_base, _ = split_annotated(key_tp)
            if key_base is not str:
                return self.problem(
                    "non-str-dict-key",
                    path,
                    "dict keys must be str (JSON object keys are strings), "
                    f"got {_type_name(key_tp)}.",
                )
            value = self.node(args[1] if len(args) > 1 else typing.Any, f"{path}{{}}")
            core = cs.dict_schema(cs.str_schema(strict=True), value.core, strict=True)
            guards = tuple(("*", *g) for g in value.guards)
            depth = None if value.depth is None else value.depth + 1
            return Node({"type": "object", "additionalProperties": value.json}, core, depth, guards)
        if kind in (abc.Callable, typing.Callable) or (callable(tp) and origin is abc.Callable):
            return self.problem("unsupported-type", path, "callables cannot be sent by a model.")
        return None

    # -- objects ---------------------------------------------------------------------

    def _object(self, cls: type, path: str) -> Node:
        self.exact_output |= _is_namedtuple(cls)
        cached = self._done.get(cls)
        if cached is not None:
            return cached
        if cls in self._stack:
            self._recursive.add(cls)
            return self._ref(cls)
        self._stack.append(cls)
        try:
            fields_ = list(self._fields_of(cls, path))
            doc = _class_doc(cls)
            description = parse_docstring(doc).description if doc else None
            node = self.object_node(
                fields_, path, construct=_constructor(cls), description=description
            )
        finally:
            self._stack.pop()
        if cls in self._recursive:
            ref = self._ref(cls)
            self.defs[self._names[cls]] = node.json
            node.core = {**node.core, "ref": self._names[cls]}
            self.core_defs.append(node.core)
            node = ref
        self._done[cls] = node
        return node

    def _ref(self, cls: type) -> Node:
        name = self._names.get(cls)
        if name is None:
            name = cls.__name__
            if name in self._names.values():
                name = cls.__qualname__.replace(".", "_").replace("<locals>_", "")
            self._names[cls] = name
        return Node({"$ref": f"#/$defs/{name}"}, cs.definition_reference_schema(name), depth=None)

    def object_node(
        self,
        fields_: list[FieldDef],
        path: str,
        *,
        construct: Callable[[dict[str, Any]], Any] | None,
        description: str | None = None,
    ) -> Node:
        """A closed object node from field definitions (also used for parameter lists)."""
        properties: dict[str, Any] = {}
        core_fields: dict[str, cs.TypedDictField] = {}
        required: list[str] = []
        depths: list[Node] = []
        guards: list[Path] = []
        null_defaults: list[str] = []
        for f in fields_:
            meta = None if f.meta is None else Meta(constraints=dict(f.meta.constraints))
            sub = self.node(f.annotation, f"{path}.{f.key}" if path else f.key, meta)
            json = sub.json
            if f.description and "description" not in json:
                json = {**json, "description": f.description}
            if not f.required and f.default is not MISSING:
                ok, value = json_default(f.default)
                if ok:
                    json = {**json, "default": value}
            properties[f.key] = ordered(json)
            field_core = sub.core
            if self.lenient_nulls and not f.required and not _accepts_null(sub.json):
                field_core = cs.nullable_schema(field_core)
                null_defaults.append(f.key)
            core_fields[f.key] = cs.typed_dict_field(
                field_core, required=f.required, serialization_alias=f.attr
            )
            if f.required:
                required.append(f.key)
            depths.append(sub)
            guards.extend((f.key, *g) for g in sub.guards)
        json_obj: dict[str, Any] = {"type": "object"}
        if description:
            json_obj["description"] = description
        json_obj["properties"] = properties
        if required:
            json_obj["required"] = required
        json_obj["additionalProperties"] = False
        core: cs.CoreSchema = cs.typed_dict_schema(
            core_fields, extra_behavior="forbid", strict=True
        )
        renames = {f.key: f.attr for f in fields_ if f.key != f.attr}
        post = _post_object(construct, renames, tuple(null_defaults))
        if post is not None:
            core = cs.no_info_after_validator_function(post, core)
        return Node(json_obj, core, _deeper(depths), tuple(guards))

    def _fields_of(self, cls: type, path: str) -> Iterator[FieldDef]:
        doc = parse_docstring(_class_doc(cls))
        owner = f"{path}" if path else cls.__name__
        try:
            hints = typing_extensions.get_type_hints(cls, include_extras=True)
        except Exception as exc:
            self.problem(
                "unresolved-annotation",
                owner,
                f"type hints of {cls.__name__} could not be resolved: {exc}",
            )
            return
        if _is_model(cls):
            for name, info in cls.model_fields.items():  # type: ignore[attr-defined]
                meta = Meta()
                _absorb(meta, info)
                key = _model_key(cls, name, info)
                if key is None:
                    self.problem(
                        "unsupported-alias",
                        f"{owner}.{name}",
                        "AliasPath validation aliases have no JSON Schema; use a plain alias.",
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
        if _is_typeddict(cls):
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
                yield FieldDef(
                    name, name, _strip_required(tp), required, MISSING, doc.params.get(name)
                )
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

    # -- constraints -----------------------------------------------------------------

    def _constrain(self, node: Node, tp: Any, path: str, constraints: dict[str, Any]) -> Node:
        json_type = node.json.get("type")
        numeric = set(constraints) & _NUMERIC
        length = set(constraints) & _LENGTH
        pattern = constraints.get("pattern")
        json = dict(node.json)
        if numeric:
            if json_type not in ("integer", "number"):
                return self.problem(
                    "constraint-mismatch",
                    path,
                    f"{', '.join(sorted(numeric))} needs a number type.",
                )
            for key in sorted(numeric, key=lambda k: KEY_ORDER.index(_NUM_KEYS[k])):
                json[_NUM_KEYS[key]] = _plain_number(constraints[key])
            kwargs = {k: constraints[k] for k in numeric}
            core: cs.CoreSchema
            if json_type == "integer":
                core = cs.chain_schema([_INT_BASE, cs.int_schema(strict=True, **kwargs)])
            elif tp is decimal.Decimal:
                core = cs.decimal_schema(strict=True, allow_inf_nan=False, **kwargs)
            else:
                core = cs.float_schema(strict=True, allow_inf_nan=False, **kwargs)
            if tp not in (int, float, decimal.Decimal):
                # An enum or Literal: check the bounds, then still convert and check members.
                core = cs.chain_schema([core, node.core])
            node = Node(ordered(json), core, node.depth, node.guards)
        if length or pattern is not None:
            lengths = {k: constraints[k] for k in length}
            if json_type == "string" and "format" not in json:
                if lengths.get("min_length") is not None:
                    json["minLength"] = lengths["min_length"]
                if lengths.get("max_length") is not None:
                    json["maxLength"] = lengths["max_length"]
                engine: typing.Literal["python-re"] | None = None
                if pattern is not None:
                    pattern = pattern if isinstance(pattern, str) else pattern.pattern
                    json["pattern"] = pattern
                    if _needs_python_regex(pattern):
                        # Look-around and back-references: only Python's engine has them.
                        try:
                            re.compile(pattern)
                        except re.error as exc:
                            return self.problem(
                                "invalid-pattern",
                                path,
                                f"pattern {pattern!r} is not a regular expression ({exc}).",
                            )
                        engine = "python-re"
                        self.needs_python_regex = True
                core = cs.str_schema(strict=True, pattern=pattern, regex_engine=engine, **lengths)
                if tp is not str:
                    # Path, an enum or a Literal: check the text, then still convert.
                    core = cs.chain_schema([core, node.core])
                node = Node(ordered(json), core, node.depth, node.guards)
            elif json_type == "array" and pattern is None:
                if "min_length" in lengths:
                    json["minItems"] = max(lengths["min_length"], json.get("minItems", 0))
                if "max_length" in lengths:
                    # Never above a fixed tuple's own length (its maxItems closes it).
                    json["maxItems"] = min(
                        lengths["max_length"], json.get("maxItems", float("inf"))
                    )
                node = Node(
                    ordered(json), _with_length(node.core, lengths), node.depth, node.guards
                )
            else:
                return self.problem(
                    "constraint-mismatch",
                    path,
                    "length/pattern constraints need a str or list type.",
                )
        return node


# -- helpers ---------------------------------------------------------------------------


def _is_json_value_alias(tp: Any) -> bool:
    name = getattr(tp, "__name__", None) or getattr(tp, "__qualname__", None)
    from toolcast import typing as tc_typing

    return (
        tp is tc_typing.JsonValue
        or (name == "JsonValue" and "pydantic" in str(getattr(tp, "__module__", "")))
        or _is_json_union(tp)
    )


_JSON_SCALARS = frozenset({type(None), bool, int, float, str})


def _is_json_union(tp: Any) -> bool:
    """`None | bool | int | float | str | list[J] | dict[str, J]` for a JSON value J.

    `get_type_hints` expands a recursive alias such as `toolcast.typing.JsonValue`
    into this union (with forward references left inside), so its identity is lost.
    """
    if typing_extensions.get_origin(tp) not in (typing.Union, types.UnionType):
        return False
    args = typing_extensions.get_args(tp)
    rest = [a for a in args if a not in _JSON_SCALARS]
    if _JSON_SCALARS - set(args) or len(rest) != 2:
        return False
    kinds = set()
    for container in rest:
        ref = container.__forward_arg__ if isinstance(container, typing.ForwardRef) else None
        if ref is not None:  # an unexpanded 'list[JsonValue]' or 'dict[str, JsonValue]'
            kinds.add(
                list if ref.startswith("list[") else dict if ref.startswith("dict[str,") else None
            )
            continue
        origin = typing_extensions.get_origin(container)
        inner = typing_extensions.get_args(container)
        if origin is dict and inner[:1] != (str,):
            return False
        item = inner[-1] if inner else typing.Any
        if not (item is typing.Any or isinstance(item, typing.ForwardRef) or _is_json_union(item)):
            return False
        kinds.add(origin)
    return kinds == {list, dict}


def _type_name(tp: Any) -> str:
    return getattr(tp, "__qualname__", None) or repr(tp)


def _dump(value: Any) -> str:
    from pydantic_core import to_json

    return to_json(value).decode()


def _describe(json: dict[str, Any]) -> str:
    if "$ref" in json:
        return str(json["$ref"]).rsplit("/", 1)[-1]
    if "enum" in json:
        return "one of " + "/".join(_dump(v) for v in json["enum"])
    kind = json.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return "an array"
    if kind == "object":
        return "an object"
    if "format" in json:
        return f"a {json['format']} string"
    return str(kind or "any value")


def _nullable_json(json: dict[str, Any]) -> dict[str, Any]:
    if not json:
        return json
    kind = json.get("type")
    if isinstance(kind, str) and "anyOf" not in json:
        out = {**json, "type": [kind, "null"]}
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return ordered(out)
    if "anyOf" in json and len(json) == 1:
        return {"anyOf": [*json["anyOf"], {"type": "null"}]}
    return {"anyOf": [json, {"type": "null"}]}


def _accepts_null(json: dict[str, Any]) -> bool:
    kind = json.get("type")
    if not json:
        return True
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(_accepts_null(s) for s in json.get("anyOf", ()))


def _deeper(nodes: list[Node]) -> int | None:
    depth = _max_depth(nodes)
    return None if depth is None else depth + 1


def _max_depth(nodes: list[Node]) -> int | None:
    depths = [n.depth for n in nodes]
    if any(d is None for d in depths):
        return None
    return max((d for d in depths if d is not None), default=0)


def _array(item: Node, core: cs.CoreSchema, extra: dict[str, Any]) -> Node:
    guards = tuple(("*", *g) for g in item.guards)
    return Node(ordered({"type": "array", **extra}), core, _deeper([item]), guards)


def _with_length(core: cs.CoreSchema, lengths: dict[str, Any]) -> cs.CoreSchema:
    if core["type"] in ("list", "tuple"):
        return {**core, **lengths}
    if core["type"] == "function-after":  # sets: the list inside carries the length
        inner = core["schema"]
        return {**core, "schema": {**inner, **lengths}}
    return core


def _is_hashable_shape(tp: Any) -> bool:
    base, _ = split_annotated(tp)
    return (
        isinstance(base, type)
        and getattr(base, "__hash__", None) is not None
        and not dataclasses.is_dataclass(base)
    )


def _plain_number(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _needs_python_regex(pattern: str) -> bool:
    from pydantic_core import SchemaValidator

    try:
        SchemaValidator(cs.str_schema(pattern=pattern))
    except Exception:
        return True
    return False


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


def _constructor(cls: type) -> Callable[[dict[str, Any]], Any] | None:
    if _is_typeddict(cls):
        return None
    if _is_model(cls):
        return cls.model_validate  # type: ignore[attr-defined, no-any-return]
    return lambda values: cls(**values)


def _post_object(
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
