"""Model-facing messages for values a hand-written schema refuses.

jsonschema-rs reports each problem as data (a kind, the instance path, the schema
path); this module writes each as one sentence in toolcast's wording, the same as
the typed path's (`Argument 'items[2].qty' must be an integer (got "3").`), with
no validator wording and the echoed value capped.
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from typing import Any

import jsonschema_rs

from toolcast._define._numeric_formats import RANGE_KEYWORD
from toolcast._messages import MAX_LISTED, describe_value, format_path

__all__ = ("format_schema_errors",)

_TYPES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "a boolean (true or false)",
    "null": "null",
    "array": "an array",
    "object": "an object",
}
_BOUNDS = {
    "minimum": "greater than or equal to",
    "exclusiveMinimum": "greater than",
    "maximum": "less than or equal to",
    "exclusiveMaximum": "less than",
}
_SIZES = {
    "minLength": ("at least", "character"),
    "maxLength": ("at most", "character"),
    "minItems": ("at least", "item"),
    "maxItems": ("at most", "item"),
    "minProperties": ("at least", "property"),
    "maxProperties": ("at most", "property"),
}
_CONTAINS = {"minContains": "at least", "maxContains": "at most"}
_SHAPES = {
    "anyOf": "must match one of the allowed shapes",
    "oneOf": "must match exactly one of the allowed shapes",
    "not": "must not match the excluded shape",
    "contains": "must contain an item of the required shape",
    "uniqueItems": "must not contain duplicate items",
    "unevaluatedItems": "has more items than the schema allows",
    "falseSchema": "is not allowed here",
    "contentEncoding": "is not correctly encoded",
    "contentMediaType": "does not have the required media type",
    "backtrackLimitExceeded": "could not be checked against its pattern (too complex)",
    "regexEngineFailure": "could not be checked against its pattern",
}


def _json(value: Any) -> str:
    if isinstance(value, decimal.Decimal):
        return str(value)
    return describe_value(value)


def _count(n: Any, noun: str) -> str:
    if n == 1:
        return f"1 {noun}"
    return f"{n} {'properties' if noun == 'property' else noun + 's'}"


def _node(schema: Any, path: Sequence[Any]) -> Any:
    """The schema object at `path`, or None where the path leaves the document."""
    node = schema
    for part in path:
        in_dict = isinstance(node, dict) and isinstance(part, str) and part in node
        if in_dict or (isinstance(node, list) and isinstance(part, int) and part < len(node)):
            node = node[part]
        else:
            return None
    return node


def _known(schema: Any, schema_path: Sequence[Any]) -> str:
    parent = _node(schema, schema_path[:-1])
    props = parent.get("properties") if isinstance(parent, dict) else None
    if isinstance(props, dict) and props:
        return f" (known: {', '.join(props)})"
    return ""


def _sentence(error: jsonschema_rs.ValidationError, schema: Any) -> str:
    kind = error.kind.name
    info: dict[str, Any] = error.kind.as_dict()
    if kind == "type":
        names = [_TYPES.get(t, t) for t in info.get("types", ())]
        return "must be " + (" or ".join(names) if names else "of another type")
    if kind in _BOUNDS:
        return f"must be {_BOUNDS[kind]} {_json(info.get('limit'))}"
    if kind == "multipleOf":
        return f"must be a multiple of {_json(info.get('multiple_of'))}"
    if kind in _SIZES:
        which, noun = _SIZES[kind]
        return f"must have {which} {_count(info.get('limit'), noun)}"
    if kind == "enum":
        options = ", ".join(_json(o) for o in info.get("options", ())[:MAX_LISTED])
        return f"must be one of: {options}" if options else "cannot take any value"
    if kind == "const":
        return f"must be {_json(info.get('expected_value'))}"
    if kind == "format":
        return f"must be a valid {info.get('format')} string"
    if kind == RANGE_KEYWORD:  # toolcast's numeric formats word their own phrase
        return str(info.get("message", "is invalid"))
    if kind == "pattern":
        return f"must match the pattern {info.get('pattern')}"
    if kind == "oneOf" and "more than one" in error.message:
        return "must match exactly one of the allowed shapes, not several"
    if kind == "contains":
        where = list(error.schema_path)
        words = _CONTAINS.get(str(where[-1])) if where else None
        limit = _node(schema, where) if words else None
        if isinstance(limit, int) and not isinstance(limit, bool):
            return f"must contain {words} {_count(limit, 'item')} of the required shape"
    if kind in _SHAPES:
        return _SHAPES[kind]
    return "is invalid"


def _line(tool: str, error: jsonschema_rs.ValidationError, schema: Any) -> str:
    kind = error.kind.name
    path = list(error.instance_path)
    info: dict[str, Any] = error.kind.as_dict()
    if kind == "required":
        return f"Argument '{format_path([*path, info.get('property', '')])}' is required."
    if kind in ("additionalProperties", "unevaluatedProperties"):
        known = _known(schema, list(error.schema_path)) if kind == "additionalProperties" else ""
        names = [format_path([*path, str(n)]) for n in info.get("unexpected", ())]
        if len(names) == 1:
            return f"Argument '{names[0]}' is not accepted by '{tool}'{known}."
        listed = ", ".join(f"'{n}'" for n in names[:MAX_LISTED])
        return f"Arguments {listed} are not accepted by '{tool}'{known}."
    if kind == "falseSchema" and path:
        return f"Argument '{format_path(path)}' is not accepted by '{tool}'."
    got = _json(error.instance)
    if kind == "propertyNames":
        name = getattr(info.get("error"), "instance", None)
        got = _json(name) if isinstance(name, str) else got
        where = f"Argument '{format_path(path)}' has" if path else f"Arguments for '{tool}' have"
        return f"{where} a key that is not allowed (got {got})."
    if not path:
        return f"Arguments for '{tool}' {_sentence(error, schema)}."
    return f"Argument '{format_path(path)}' {_sentence(error, schema)} (got {got})."


def format_schema_errors(
    tool: str, errors: Sequence[jsonschema_rs.ValidationError], schema: Any
) -> str:
    """Every problem (up to MAX_LISTED; more are noted) as a sentence."""
    lines = list(dict.fromkeys(_line(tool, e, schema) for e in errors[:MAX_LISTED]))
    more = len(errors) > MAX_LISTED
    if more:
        lines.append("... and more problems.")
    if len(lines) == 1:
        return lines[0]
    count = f"more than {MAX_LISTED}" if more else str(len(lines))
    header = f"Invalid arguments for '{tool}' ({count} problems):"
    return "\n".join([header, *(f"- {line}" for line in lines)])
