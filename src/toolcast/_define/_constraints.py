"""Constraints (`Ge`, `MaxLen`, `Field(pattern=...)`, ...) applied to a `Node`.

`constrain` adds the JSON Schema keywords (`minimum`, `maxLength`, `pattern`,
`minItems`, ...) to a number, string or array fragment and tightens its validator to
match, keeping enum, Literal and Path conversion after the check. A constraint on the
wrong kind of type, or a pattern that is not a regular expression, is recorded as a
problem. Patterns that pydantic-core's Rust regex engine cannot compile (look-around,
back-references) fall back to Python's `re`.
"""

from __future__ import annotations

import decimal
import re
from typing import Any, Protocol

from pydantic_core import core_schema as cs

from toolcast._define._annotations import plain_number
from toolcast._define._formats import INT_BASE, timed_pattern
from toolcast._define._node import KEY_ORDER, Node, ordered


class SchemaBuilder(Protocol):
    """What narrowing needs of the schema builder (which imports this module)."""

    needs_python_regex: bool

    def problem(self, code: str, path: str, message: str) -> Node:
        """Record a definition problem; return a placeholder node."""
        ...


__all__ = ("constrain",)

_NUMERIC = {"gt", "ge", "lt", "le", "multiple_of"}
_LENGTH = {"min_length", "max_length"}
_NUM_KEYS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
    "multiple_of": "multipleOf",
}


def constrain(
    builder: SchemaBuilder, node: Node, tp: Any, path: str, constraints: dict[str, Any]
) -> Node:
    """`node` narrowed by `constraints`; problems go to `builder`."""
    json_type = node.json.get("type")
    numeric = set(constraints) & _NUMERIC
    length = set(constraints) & _LENGTH
    pattern = constraints.get("pattern")
    json = dict(node.json)
    if numeric:
        if json_type not in ("integer", "number"):
            return builder.problem(
                "constraint-mismatch",
                path,
                f"{', '.join(sorted(numeric))} needs a number type.",
            )
        for key in sorted(numeric, key=lambda k: KEY_ORDER.index(_NUM_KEYS[k])):
            json[_NUM_KEYS[key]] = plain_number(constraints[key])
        kwargs = {k: constraints[k] for k in numeric}
        if tp is decimal.Decimal:
            # As written in the schema: Decimal(0.1) would be 0.1000000000000000055...
            kwargs = {
                k: decimal.Decimal(repr(v)) if isinstance(v, float) else v
                for k, v in kwargs.items()
            }
        core: cs.CoreSchema
        if json_type == "integer":
            core = cs.chain_schema([INT_BASE, cs.int_schema(strict=True, **kwargs)])
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
            timed = None
            if pattern is not None:
                pattern = pattern if isinstance(pattern, str) else pattern.pattern
                json["pattern"] = pattern
                if regex_needs_python(pattern):
                    # Look-around and back-references need a back-tracking engine:
                    # `regex`, with a time bound per value.
                    try:
                        re.compile(pattern)
                        timed = timed_pattern(pattern)
                    except Exception as exc:  # re.error, regex.error
                        return builder.problem(
                            "invalid-pattern",
                            path,
                            f"pattern {pattern!r} is not a regular expression ({exc}).",
                        )
                    builder.needs_python_regex = True
            if timed is None:
                core = cs.str_schema(strict=True, pattern=pattern, **lengths)
            else:
                core = cs.no_info_after_validator_function(
                    timed, cs.str_schema(strict=True, **lengths)
                )
            if tp is not str:
                # Path, an enum or a Literal: check the text, then still convert.
                core = cs.chain_schema([core, node.core])
            node = Node(ordered(json), core, node.depth, node.guards)
        elif json_type == "array" and pattern is None:
            if "min_length" in lengths:
                json["minItems"] = max(lengths["min_length"], json.get("minItems", 0))
            if "max_length" in lengths:
                # Never above a fixed tuple's own length (its maxItems closes it).
                json["maxItems"] = min(lengths["max_length"], json.get("maxItems", float("inf")))
            node = Node(ordered(json), _with_length(node.core, lengths), node.depth, node.guards)
        else:
            return builder.problem(
                "constraint-mismatch",
                path,
                "length/pattern constraints need a str or list type.",
            )
    return node


def _with_length(core: cs.CoreSchema, lengths: dict[str, Any]) -> cs.CoreSchema:
    if core["type"] in ("list", "tuple"):
        return {**core, **lengths}
    if core["type"] == "function-after":  # sets: the list inside carries the length
        inner = core["schema"]
        return {**core, "schema": {**inner, **lengths}}
    return core


def regex_needs_python(pattern: str) -> bool:
    from pydantic_core import SchemaValidator

    try:
        SchemaValidator(cs.str_schema(pattern=pattern))
    except Exception:
        return True
    return False
