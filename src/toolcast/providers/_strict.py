"""The OpenAI-style strict transform shared by the providers that offer strict mode.

`make_strict` closes every object (`additionalProperties: false`), lists every
property in `required`, turns optional properties nullable and moves `default`
into the description. It does not raise on a schema that cannot be strict: the
returned `StrictResult` carries the `blockers` (free keys, untyped values, arrays
without items, keywords the target forbids), and the caller sends that tool
non-strict and reports them. Built on the walker and steps in
`providers._schema`, which re-exports `make_strict`, `StrictResult` and
`accepts_null`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolcast._define._nulls import accepts_null, local_ref
from toolcast._json import JsonSchema
from toolcast.providers._projection import ConversionNote
from toolcast.providers._schema import is_object, move_to_description, pointer, rewrite
from toolcast.providers._words import (
    add_to_description,
    describe,
    json_text,
    order_keys,
    summarize,
    types_of,
)

__all__ = ("StrictResult", "accepts_null", "make_strict")


@dataclass(frozen=True, slots=True)
class StrictResult:
    """The outcome of `make_strict`: a strict schema, or why there cannot be one."""

    schema: JsonSchema | None
    """The strict schema, or None when a blocker stands in the way."""
    notes: tuple[ConversionNote, ...] = ()
    """Rewrites made to reach strict form (optional -> required + nullable, ...)."""
    blockers: tuple[ConversionNote, ...] = ()
    """Why the schema cannot be strict (action `strict_disabled`); empty when it can."""

    @property
    def ok(self) -> bool:
        """True when `schema` is a usable strict schema."""
        return not self.blockers


_FREE_KEYS = (
    "The object at {} allows free keys ({}); strict mode needs every key declared "
    "and would turn it into an empty object."
)
_ANY_VALUE = "{} accepts any JSON value; strict mode needs a type."
# Any of these keywords pins down what a node accepts; without one it takes anything.
_TYPED_BY = (
    "type",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "enum",
    "const",
    "not",
    "properties",
)


def _nullable(node: JsonSchema) -> JsonSchema:
    """Make `node` also accept null, in the plainest shape the node allows."""
    if accepts_null(node):
        return node
    kinds = node.get("type")
    if "const" not in node and "$ref" not in node and kinds is not None:
        node["type"] = [*types_of(node), "null"]
        if isinstance(node.get("enum"), list):
            node["enum"] = [*node["enum"], None]
        return node
    if isinstance(node.get("anyOf"), list) and "const" not in node:
        node["anyOf"] = [*node["anyOf"], {"type": "null"}]
        return node
    if isinstance(node.get("enum"), list) and "const" not in node and kinds is None:
        node["enum"] = [*node["enum"], None]
        return node
    annotations: JsonSchema = {k: node[k] for k in ("description", "title") if k in node}
    inner = {k: v for k, v in node.items() if k not in annotations}
    return order_keys({**annotations, "anyOf": [inner, {"type": "null"}]})


def make_strict(
    schema: Mapping[str, Any],
    *,
    forbidden: Collection[str] = (),
    null_default_words: bool = True,
) -> StrictResult:
    """Rewrite `schema` into OpenAI-style strict form, or report why it cannot be.

    Strict form: every object closes with `additionalProperties: false` and lists
    every property in `required`. An optional property that did not accept null
    becomes nullable, and null then means "absent, use the default" (hosts invoke
    with `null_means_default=True`); one that already accepted null keeps null's
    meaning. `default` is removed and said in the description.
    Blockers (the caller should send the tool non-strict and report them): the
    root is not an object, an object with free keys (`additionalProperties` that is
    not false, `patternProperties`, a nested object with no declared keys), a
    subschema that accepts any value, an array without `items`, or a keyword in
    `forbidden` (target-specific, e.g. `allOf`).

    Args:
        schema: The (already down-converted) schema.
        forbidden: Keywords the target's strict mode rejects outright.
        null_default_words: Say in each optional property's description what
            `null` means.
    """
    notes: list[ConversionNote] = []
    blockers: list[ConversionNote] = []
    forbidden_set = frozenset(forbidden)
    # "Accepts null" follows local references, as the invoker's test does
    # (toolcast._define._nulls): the words and the invoker's reading agree.
    resolve = functools.partial(local_ref, schema)

    def block(path: str, keyword: str, detail: str) -> None:
        blockers.append(ConversionNote(path, keyword, "strict_disabled", detail))

    def step(node: JsonSchema, path: str) -> JsonSchema:
        where = path or "the root"
        for keyword in sorted(forbidden_set.intersection(node)):
            block(path, keyword, f"{keyword} at {where} is not allowed in strict mode.")
        if not any(k in node for k in _TYPED_BY):
            block(path, "type", _ANY_VALUE.format(where))
        if (
            "array" in types_of(node)
            and not isinstance(node.get("items"), Mapping)
            and "prefixItems" not in node
        ):
            block(
                path,
                "items",
                f"The array at {where} has no item schema; strict mode needs one.",
            )
        if is_object(node):
            node = _strict_object(node, path, notes, block, null_default_words, resolve)
        return node

    result = rewrite(schema, step)
    if not is_object(result) or types_of(result) not in (("object",), ()):
        block("", "type", "The root must be a plain object schema in strict mode.")
    if "anyOf" in result or "oneOf" in result:
        block("", "anyOf", "The root cannot be a union (anyOf) in strict mode.")
    result = _strip_leftover_defaults(result, notes)
    if blockers:
        return StrictResult(None, tuple(notes), tuple(blockers))
    return StrictResult(result, tuple(notes), ())


def _strict_object(
    node: JsonSchema,
    path: str,
    notes: list[ConversionNote],
    block: Callable[[str, str, str], None],
    words: bool,
    resolve: Callable[[Any], Any],
) -> JsonSchema:
    where = path or "the root"
    if "patternProperties" in node:
        block(path, "patternProperties", _FREE_KEYS.format(where, "patternProperties"))
    if "additionalProperties" not in node:
        if node.get("properties") or not path:
            # Closing narrows: the tool takes other keys, the model may no longer send them.
            detail = (
                f"The object at {where} had no additionalProperties; closed, so the model "
                "can send only the declared keys (the tool itself accepts others)."
            )
            notes.append(ConversionNote(path, "additionalProperties", "narrowed", detail))
        else:
            block(path, "additionalProperties", _FREE_KEYS.format(where, "any keys"))
    elif (extra := node["additionalProperties"]) is not False:
        free = f"values: {summarize(extra)}"
        block(path, "additionalProperties", _FREE_KEYS.format(where, free))
    required = set(node.get("required") or ())
    properties: JsonSchema = {}
    for name, sub in (node.get("properties") or {}).items():
        sub_path = pointer(path, "properties", name)
        if isinstance(sub, dict) and name not in required:
            sub = _strict_optional(sub, name, sub_path, notes, words, resolve)
        elif sub is True:
            block(sub_path, "type", _ANY_VALUE.format(sub_path))
        properties[name] = sub
    node["properties"] = properties
    node["required"] = list(properties)
    node["additionalProperties"] = False
    return order_keys(node)


def _strict_optional(
    sub: JsonSchema,
    name: str,
    path: str,
    notes: list[ConversionNote],
    words: bool,
    resolve: Callable[[Any], Any],
) -> JsonSchema:
    # A property that already accepts null keeps null's meaning (None); only a
    # property that did not gains null, and there null stands for "absent", so the
    # invoker can drop it and apply the default without guessing.
    had_null = accepts_null(sub, resolve)
    default = sub.pop("default", None)
    action: Literal["narrowed", "rewritten"]
    if had_null:
        sentence = "" if default is None else describe("default", default)
        # Narrowing: the model must send the key, and null is a value here, so
        # "not given" (and with it a default) cannot be said.
        action = "narrowed"
        detail = (
            f"Optional property {name!r} is required in strict mode; it already "
            "accepts null, which keeps its meaning, so the model cannot leave it out."
        )
    else:
        action = "rewritten"
        sub = _nullable(sub)
        sentence = (
            "Optional: send null to leave it out."
            if default is None
            else f"Defaults to {json_text(default)} when null."
        )
        meaning = "leaving it out" if default is None else f"the default, {json_text(default)}"
        detail = (
            f"Optional property {name!r} is required in strict mode and accepts "
            f"null; null means {meaning}."
        )
    notes.append(ConversionNote(path, "required", action, detail))
    if default is not None:
        detail = f"default {json_text(default)} is not allowed in strict mode: {sentence!r}"
        notes.append(ConversionNote(path, "default", "moved_to_description", detail))
    if words and sentence:
        sub = add_to_description(sub, sentence)
    return sub


def _strip_leftover_defaults(schema: JsonSchema, notes: list[ConversionNote]) -> JsonSchema:
    """Move `default`s left elsewhere (items, branches) into descriptions."""
    return move_to_description(schema, ("default",), notes)
