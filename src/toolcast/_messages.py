"""Model-facing error messages: what is wrong, where (`items[2].qty`), and what came.

pydantic-core reports errors as data; this module turns each into one sentence
without pydantic's wording, error codes, URLs or tracebacks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import jiter
from pydantic_core import ErrorDetails, to_json

from toolcast._numbers import float_range_reason

__all__ = ("MAX_LISTED", "describe_value", "format_path", "format_validation_errors")

MAX_LISTED = 20
"""At most this many problems are listed; the rest are counted."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_GOT_LIMIT = 60
_KEY_LIMIT = 60
"""Longest key echoed in a path: keys come from the model and may be a megabyte long."""
_PATH_LIMIT = 200
_NAMES_LISTED = 30


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_path(loc: Sequence[str | int]) -> str:
    """`("items", 2, "qty")` -> `items[2].qty`; long keys and paths are shortened."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.match(part) and len(part) <= _KEY_LIMIT:
            out += f".{part}" if out else part
        else:
            out += f"[{_clip(to_json(part).decode(), _KEY_LIMIT)}]"
    return _clip(out, _PATH_LIMIT)


def describe_value(value: Any) -> str:
    """A short JSON rendering of what the model sent."""
    if type(value) is jiter.LosslessFloat:  # a number as the model spelled it
        return _clip(bytes(value).decode(), _GOT_LIMIT)
    try:
        text = to_json(value, bytes_mode="base64", inf_nan_mode="constants").decode()
    except Exception:
        text = type(value).__name__
    if len(text) > _GOT_LIMIT:
        text = text[: _GOT_LIMIT - 1] + "…"
    return text


_TYPES = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "decimal_type": "a number",
    "decimal_parsing": "a number",
    "bool_type": "a boolean (true or false)",
    "string_type": "a string",
    "bytes_type": "a base64 string",
    "list_type": "an array",
    "tuple_type": "an array",
    "set_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "dataclass_type": "an object",
    "none_required": "null",
}


def _count(n: Any, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _sentence(err: ErrorDetails) -> str:
    kind = err["type"]
    ctx: dict[str, Any] = dict(err.get("ctx") or {})
    if kind in _TYPES:
        return f"must be {_TYPES[kind]}"
    if kind == "finite_number":
        # JSON has no Infinity (the parser refuses it): an infinity here is a literal
        # beyond the float range that the parse rounded (`1e400`).
        return float_range_reason()
    if kind == "int_parsing_size":
        return "is out of range"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        words = {
            "greater_than": "greater than",
            "greater_than_equal": "greater than or equal to",
            "less_than": "less than",
            "less_than_equal": "less than or equal to",
        }[kind]
        bound = next(iter(ctx.values()), "")
        return f"must be {words} {bound}"
    if kind == "multiple_of":
        return f"must be a multiple of {ctx.get('multiple_of')}"
    if kind == "string_too_short":
        return f"must have at least {_count(ctx.get('min_length'), 'character')}"
    if kind == "string_too_long":
        return f"must have at most {_count(ctx.get('max_length'), 'character')}"
    if kind == "too_short":
        return f"must have at least {_count(ctx.get('min_length'), 'item')}"
    if kind == "too_long":
        return f"must have at most {_count(ctx.get('max_length'), 'item')}"
    if kind == "string_pattern_mismatch":
        return f"must match the pattern {ctx.get('pattern')}"
    if kind in ("literal_error", "enum"):
        return f"must be one of: {ctx.get('expected', '')}".replace("'", '"')
    if kind == "bytes_invalid_encoding":
        return "must be base64-encoded"
    if kind in ("value_error", "assertion_error"):
        message = str(ctx.get("error", err.get("msg", "")))
        return f"is invalid: {message}"
    if kind == "recursion_loop":
        return "is nested too deeply"
    # Our own custom errors (formats, unions, uniqueness) are already phrased.
    return str(err.get("msg", "is invalid"))


def _accepted_names(schema: dict[str, Any], loc: Sequence[str | int]) -> list[str]:
    node: Any = schema
    for part in loc:
        if not isinstance(node, dict):
            return []
        if "$ref" in node:
            node = schema.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[-1], {})
        if "anyOf" in node:
            node = next((s for s in node["anyOf"] if s.get("type") != "null"), {})
        if isinstance(part, int):
            prefix = node.get("prefixItems")
            node = prefix[part] if prefix and part < len(prefix) else node.get("items", {})
        else:
            node = node.get("properties", {}).get(part, node.get("additionalProperties"))
    if isinstance(node, dict) and "$ref" in node:
        node = schema.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[-1], {})
    return list(node.get("properties", {})) if isinstance(node, dict) else []


def format_validation_errors(
    tool: str,
    errors: Sequence[ErrorDetails],
    schema: dict[str, Any] | None = None,
    *,
    total: int | None = None,
    partial: bool = False,
) -> str:
    """Every problem as a sentence; one problem is a single line.

    Args:
        tool: The tool's name.
        errors: pydantic-core's errors (the first `MAX_LISTED` are listed).
        schema: The input schema, to name the accepted properties.
        total: How many problems there are, when `errors` holds only some of them.
        partial: Arrays and objects of values were checked up to their first bad item.
    """
    count = len(errors) if total is None else max(total, len(errors))
    lines = []
    for err in errors[:MAX_LISTED]:
        loc = err["loc"]
        if err["type"] == "missing":
            lines.append(f"Argument '{format_path(loc)}' is required.")
            continue
        if err["type"] == "extra_forbidden":
            names = _accepted_names(schema or {}, loc[:-1])
            if len(names) > _NAMES_LISTED:
                names = [*names[:_NAMES_LISTED], f"and {len(names) - _NAMES_LISTED} more"]
            known = f" (known: {', '.join(names)})" if names else ""
            lines.append(f"Argument '{format_path(loc)}' is not accepted by '{tool}'{known}.")
            continue
        if not loc:
            lines.append(f"Arguments for '{tool}' must be a JSON object.")
            continue
        got = describe_value(err.get("input"))
        lines.append(f"Argument '{format_path(loc)}' {_sentence(err)} (got {got}).")
    if count > len(lines):
        lines.append(f"... and {count - len(lines)} more problems.")
    # Large input is checked with containers stopping at their first bad item.
    in_array = any(isinstance(part, int) for err in errors[:MAX_LISTED] for part in err["loc"])
    note = "Each array was checked up to its first bad item." if partial and in_array else ""
    if len(lines) == 1:
        return f"{lines[0]} {note}".rstrip()
    header = f"Invalid arguments for '{tool}' ({count} problems):"
    text = "\n".join([header, *(f"- {line}" for line in lines)])
    return f"{text}\n{note}" if note else text
