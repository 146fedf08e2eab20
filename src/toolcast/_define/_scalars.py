"""Scalar types, enums and literals: their JSON Schema fragment and exact validator.

Split from `_schema` (the walker calls these for the leaves of a type). A leaf
needs little of the walker: somewhere to report a problem, and the flag saying
results need exact serialisation (Decimal, bytes).
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import pathlib
import uuid
from typing import Any, Protocol

from pydantic_core import PydanticCustomError
from pydantic_core import core_schema as cs

from toolcast._define._annotations import Meta
from toolcast._define._formats import (
    BOOL,
    DECIMAL_OR_TEXT,
    DURATION_PATTERN,
    FLOAT,
    INT_BASE,
    LOCAL_DATETIME_PATTERN,
    LOCAL_TIME_PATTERN,
    NUMBER_TEXT_PATTERN,
    STR,
    local_format,
    parse_base64,
    parse_date,
    parse_duration,
    parse_local_datetime,
    parse_local_time,
    parse_uuid,
    string_format,
)
from toolcast._define._node import Node, dump_value, json_type_of, ordered

__all__ = ("Builder", "enum_node", "literal_node", "scalar_node")

_NUMERIC_CONSTRAINTS = frozenset({"gt", "ge", "lt", "le", "multiple_of"})


class Builder(Protocol):
    """What a leaf needs of the schema walker."""

    exact_output: bool

    def problem(self, code: str, path: str, message: str) -> Node:
        """Record a definition problem; return a placeholder node."""
        ...


def scalar_node(builder: Builder, tp: Any, path: str, meta: Meta) -> Node | None:
    """The node of a scalar type (bool, numbers, strings, dates, enums), or None."""
    if not isinstance(tp, type):
        return None
    if tp is bool:
        return Node({"type": "boolean"}, BOOL)
    if issubclass(tp, enum.Enum):
        return enum_node(builder, tp, path)
    if tp is int:
        # The guard hands the validator exact digits of `1e23` or `2.0`, which
        # pydantic-core would read through a float.
        return Node({"type": "integer"}, INT_BASE, guards=((int,),))
    if tp is float:
        return Node({"type": "number"}, FLOAT)
    if tp is decimal.Decimal:
        builder.exact_output = True
        if _NUMERIC_CONSTRAINTS & set(meta.constraints):
            # JSON Schema cannot bound the value of a string: a bounded Decimal
            # takes numbers only.
            core: cs.CoreSchema = cs.decimal_schema(strict=True, allow_inf_nan=False)
            return Node({"type": "number"}, core, guards=((),))
        # Models often send money as "19.99"; the schema says so. The guard
        # (marked `...`: strings allowed) turns JSON numbers into exact digits.
        json = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": NUMBER_TEXT_PATTERN}]}
        return Node(json, DECIMAL_OR_TEXT, guards=((...,),))
    if tp is str:
        return Node({"type": "string"}, STR)
    if tp in (bytes, bytearray):
        builder.exact_output = True
        parse = parse_base64 if tp is bytes else lambda v: bytearray(parse_base64(v))
        core = cs.no_info_after_validator_function(parse, STR)
        return Node({"type": "string", "contentEncoding": "base64"}, core)
    if tp is dt.datetime:
        # Models often leave the offset out; the second branch says they may
        # (a naive value arrives, as the annotation allows).
        return local_format("date-time", LOCAL_DATETIME_PATTERN, parse_local_datetime)
    if tp is dt.date:
        return string_format("date", parse_date)
    if tp is dt.time:
        return local_format("time", LOCAL_TIME_PATTERN, parse_local_time)
    if tp is dt.timedelta:
        return string_format("duration", parse_duration, pattern=DURATION_PATTERN)
    if tp is uuid.UUID:
        return string_format("uuid", parse_uuid)
    if issubclass(tp, pathlib.PurePath):
        return Node(
            {"type": "string"},
            cs.no_info_after_validator_function(tp, STR),
        )
    if tp.__module__.startswith("pydantic"):
        return _pydantic_string(tp)
    return None


def _pydantic_string(tp: type) -> Node | None:
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

    return string_format(fmt, parse)


def enum_node(builder: Builder, tp: type[enum.Enum], path: str) -> Node:
    """An Enum's node: its member values, validated back to members."""
    values = [member.value for member in tp]
    bad = [v for v in values if not isinstance(v, (str, int, float, bool)) or v is None]
    if bad or not values:
        return builder.problem(
            "enum-values",
            path,
            f"enum {tp.__name__} must have str, int, float or bool member values (got {bad!r}).",
        )
    types_ = {json_type_of(v) for v in values}
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
        core = cs.chain_schema([INT_BASE, core])
    elif sub is None:
        core = cs.no_info_after_validator_function(
            tp, literal_node(builder, tuple(values), path).core
        )
    return Node(ordered(json), core)


def literal_node(builder: Builder, values: tuple[Any, ...], path: str) -> Node:
    """A Literal's node: one validator per JSON type, so `true` never matches 1."""
    flat: list[Any] = []
    for value in values:  # Literal[Color.RED] and nested Literals
        flat.append(value)
    bad = [
        v for v in flat if not isinstance(v, (str, int, float, bool, enum.Enum)) and v is not None
    ]
    if bad:
        return builder.problem(
            "literal-values", path, f"literal values {bad!r} are not JSON scalars."
        )
    json_values = [v.value if isinstance(v, enum.Enum) else v for v in flat]
    kinds = {json_type_of(v) for v in json_values}
    json: dict[str, Any] = {"enum": json_values}
    if len(kinds) == 1:
        json = {"type": next(iter(kinds)), **json}
    # One literal validator per JSON type, so `true` never matches 1 (Python's
    # True == 1 would let it through a single literal_schema).
    groups: dict[str, list[Any]] = {}
    for v in flat:
        groups.setdefault(json_type_of(v.value if isinstance(v, enum.Enum) else v), []).append(v)
    choices: list[cs.CoreSchema] = []
    for kind, members in groups.items():
        literal = cs.literal_schema(members)
        base = {
            "boolean": BOOL,
            "integer": INT_BASE,
            "number": FLOAT,
            "string": STR,
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
    expected = ", ".join(dump_value(v) for v in json_values)
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
