"""`Node`, the pair each step of the schema walk produces, and the operations on it.

A `Node` holds a type's JSON Schema fragment next to the pydantic-core schema that
validates it, plus how deep the JSON may nest and where numeric strings must be
refused. This module also fixes the canonical keyword order of every fragment
(`KEY_ORDER`, `ordered`) and holds the small combinators the walker and its helpers
share: making a fragment nullable, wrapping items in an array, tracking depth, and
describing a fragment in words for error messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_core import core_schema as cs

__all__ = ("KEY_ORDER", "Node", "Path", "ordered")

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


def json_type_of(value: Any) -> str:
    """The JSON Schema type name of a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


def dump_value(value: Any) -> str:
    from pydantic_core import to_json

    return to_json(value).decode()


def describe_json(json: dict[str, Any]) -> str:
    if "$ref" in json:
        return str(json["$ref"]).rsplit("/", 1)[-1]
    if "enum" in json:
        return "one of " + "/".join(dump_value(v) for v in json["enum"])
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


def nullable_json(json: dict[str, Any]) -> dict[str, Any]:
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


def json_accepts_null(json: dict[str, Any]) -> bool:
    kind = json.get("type")
    if not json:
        return True
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(json_accepts_null(s) for s in json.get("anyOf", ()))


def depth_below(nodes: list[Node]) -> int | None:
    depth = max_node_depth(nodes)
    return None if depth is None else depth + 1


def max_node_depth(nodes: list[Node]) -> int | None:
    depths = [n.depth for n in nodes]
    if any(d is None for d in depths):
        return None
    return max((d for d in depths if d is not None), default=0)


def array_node(item: Node, core: cs.CoreSchema, extra: dict[str, Any]) -> Node:
    guards = tuple(("*", *g) for g in item.guards)
    return Node(ordered({"type": "array", **extra}), core, depth_below([item]), guards)
