"""Readable words for JSON Schema: how a schema reads to a model.

`summarize` names a schema's type ("array of integer"), `describe` turns one
constraint into a sentence ("Must be at most 50."), and `add_to_description`
appends such a sentence to a node, so provider modules can keep in the
description what a target's schema dialect cannot say. `order_keys` puts a node's
keys in reading order (SCHEMA.md "Keyword order"), and `types_of` reads the
`type` keyword the wording starts from. Pure functions: none mutates its input.
`providers._schema` re-exports all of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from toolcast._define._schema import KEY_ORDER as CORE_KEY_ORDER
from toolcast._json import JsonSchema

__all__ = ("add_to_description", "describe", "order_keys", "summarize", "types_of")

# SCHEMA.md "Keyword order": models read top to bottom and snapshots depend on it.
_KEY_ORDER = (CORE_KEY_ORDER[0], "nullable", *CORE_KEY_ORDER[1:])
_KEY_RANK = {key: rank for rank, key in enumerate(_KEY_ORDER)}


def types_of(node: Mapping[str, Any]) -> tuple[str, ...]:
    """The JSON types named by `type` (a string or a list), in order."""
    kind = node.get("type")
    if isinstance(kind, str):
        return (kind,)
    if isinstance(kind, list):
        return tuple(str(k) for k in kind)
    return ()


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _count(number: Any, singular: str) -> str:
    return f"{json_text(number)} {singular}{'' if number == 1 else 's'}"


def summarize(schema: Any) -> str:
    """A short phrase for a schema's type (`integer`, `array of string`, ...)."""
    if not isinstance(schema, Mapping) or not schema:
        return "any value"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "const" in schema:
        return json_text(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(json_text(v) for v in schema["enum"])
    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches:
        return " or ".join(summarize(branch) for branch in branches)
    words = []
    for kind in types_of(schema) or ("any value",):
        if kind == "array" and isinstance(schema.get("items"), Mapping):
            words.append(f"array of {summarize(schema['items'])}")
        elif kind == "string" and "format" in schema:
            words.append(f"string ({schema['format']})")
        else:
            words.append(kind)
    return " or ".join(words)


_SENTENCES: dict[str, Callable[[Any], str]] = {
    "minimum": lambda v: f"Must be at least {json_text(v)}.",
    "maximum": lambda v: f"Must be at most {json_text(v)}.",
    "exclusiveMinimum": lambda v: f"Must be greater than {json_text(v)}.",
    "exclusiveMaximum": lambda v: f"Must be less than {json_text(v)}.",
    "multipleOf": lambda v: f"Must be a multiple of {json_text(v)}.",
    "minLength": lambda v: f"At least {_count(v, 'character')}.",
    "maxLength": lambda v: f"At most {_count(v, 'character')}.",
    "pattern": lambda v: f"Must match the regular expression {json_text(v)}.",
    "format": lambda v: f"Format: {v}.",
    "contentEncoding": lambda v: f"Encoded as {v}.",
    "contentMediaType": lambda v: f"Media type: {v}.",
    "minItems": lambda v: f"At least {_count(v, 'item')}.",
    "maxItems": lambda v: f"At most {_count(v, 'item')}.",
    "uniqueItems": lambda v: "Items must be unique." if v else "",
    "minProperties": lambda v: f"At least {_count(v, 'key')}.",
    "maxProperties": lambda v: f"At most {_count(v, 'key')}.",
    "const": lambda v: f"Must be {json_text(v)}.",
    "enum": lambda v: "One of: " + ", ".join(json_text(x) for x in v) + ".",
    "default": lambda v: f"Default: {json_text(v)}.",
    "examples": lambda v: "Examples: " + ", ".join(json_text(x) for x in v) + ".",
    "additionalProperties": lambda v: (
        "No other keys."
        if v is False
        else f"Other keys map to {summarize(v)}."
        if isinstance(v, Mapping)
        else ""
    ),
    "propertyNames": lambda v: (
        f"Keys: {summarize(v)}"
        + (
            f" matching {json_text(v['pattern'])}"
            if isinstance(v, Mapping) and "pattern" in v
            else ""
        )
        + "."
    ),
    "prefixItems": lambda v: "Items in order: " + ", ".join(summarize(x) for x in v) + ".",
    "contains": lambda v: f"Must contain at least one {summarize(v)}.",
    "deprecated": lambda v: "Deprecated." if v else "",
}


def describe(keyword: str, value: Any) -> str:
    """Say what `keyword: value` requires, as a sentence for the model.

    Unknown keywords fall back to `keyword: <json>.`; a keyword that says nothing
    (`uniqueItems: false`) gives `""`.
    """
    sentence = _SENTENCES.get(keyword)
    if sentence is None:
        return f"{keyword}: {json_text(value)}."
    return sentence(value)


def order_keys(node: Mapping[str, Any]) -> JsonSchema:
    """A copy of `node` with keys in the canonical order (SCHEMA.md); others after.

    Unknown keys keep their relative order after the known ones; `x-` extension
    keys come last.
    """
    known = sorted((k for k in node if k in _KEY_RANK), key=_KEY_RANK.__getitem__)
    other = [k for k in node if k not in _KEY_RANK and not k.startswith("x-")]
    extensions = [k for k in node if k.startswith("x-")]
    return {k: node[k] for k in (*known, *other, *extensions)}


def add_to_description(node: Mapping[str, Any], sentence: str) -> JsonSchema:
    """A copy of `node` with `sentence` appended to its description."""
    if not sentence:
        return dict(node)
    current = node.get("description")
    text = sentence
    if isinstance(current, str) and current.strip():
        head = current.rstrip()
        # Sentences appended to a fragment ("a leaf") need a full stop between.
        stop = "" if head.endswith((".", "!", "?", ":")) else "."
        text = f"{head}{stop} {sentence}"
    fresh = dict(node)
    fresh["description"] = text
    return order_keys(fresh) if current is None else fresh
