"""Schema walking and rewriting shared by every provider module.

Pure functions over JSON Schema (draft 2020-12) dicts. None of them mutates its
input, which may be a read-only `FrozenDict`; each returns a fresh plain dict that
shares nothing with the input. Lossy steps append a `ConversionNote` to the
`notes` list the caller passes in, so a projection can say exactly what changed.
This module knows JSON Schema only: which keywords a target accepts is provider
knowledge and lives in the provider modules, which compose these steps. Note paths
are JSON pointers into the schema as it was when the step ran (after
`inline_refs`, pointers follow the inlined tree).

API (all keyword-selecting steps take a `KeywordFilter`: a collection of keyword
names or a predicate `(keyword, value, node) -> bool`):

- `walk(schema)`: every subschema with its JSON pointer, pre-order.
- `rewrite(schema, fn)`: a fresh copy with `fn(node, pointer)` applied bottom-up.
- `move_to_description`, `drop_keywords`, `strip_extensions`.
- `const_to_enum`, `one_of_to_any_of`, `to_nullable_keyword` (type arrays and
  null branches become OpenAPI 3.0 `nullable: true`), `widen_tuples`,
  `ensure_properties`.
- `is_object`, `pointer`.

Re-exported, so a provider module imports one place: from `_words`, `describe`
and `summarize` (readable words for a constraint, "Must be at most 50.", and for
a type, "array of integer"), `add_to_description`, `order_keys` and `types_of`;
and `$ref` handling (`inline_refs`, `isolate_refs`) and the OpenAI-style strict
transform (`make_strict`) build on this module and live in `_refs` and `_strict`.

Every entry point bounds depth and node count (`MAX_DEPTH`, `MAX_NODES`) because
schemas from MCP servers are third-party data.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any, TypeAlias

from toolcast._frozen import thaw
from toolcast._json import JsonSchema
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers._projection import ConversionNote
from toolcast.providers._words import (
    add_to_description,
    describe,
    json_text,
    order_keys,
    summarize,
    types_of,
)

__all__ = (
    "MAX_DEPTH",
    "MAX_NODES",
    "KeywordFilter",
    "NodeRewriter",
    "add_to_description",
    "const_to_enum",
    "describe",
    "drop_keywords",
    "ensure_properties",
    "is_object",
    "move_to_description",
    "one_of_to_any_of",
    "order_keys",
    "pointer",
    "rewrite",
    "strip_extensions",
    "summarize",
    "to_nullable_keyword",
    "types_of",
    "walk",
    "widen_tuples",
)

MAX_DEPTH = 100
"""Deepest subschema nesting any step accepts (openai-agents uses the same bound)."""
MAX_NODES = 100_000
"""Most subschemas any step visits or produces (guards `$ref` expansion blow-ups)."""

KeywordFilter: TypeAlias = Collection[str] | Callable[[str, Any, Mapping[str, Any]], bool]
"""Keyword names, or a predicate `(keyword, value, node) -> bool`."""

NodeRewriter: TypeAlias = Callable[[JsonSchema, str], JsonSchema]
"""Gets a fresh node (children already rewritten) and its pointer; returns the node."""

# Keywords whose values are schemas, by container shape (JSON Schema 2020-12 core
# and validation vocabularies, plus `definitions`/`additionalItems` from older
# drafts that MCP servers still send). Every other keyword holds data (`enum`,
# `const`, `default`, `examples`, `required`, ...), which is never walked into.
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_SCHEMA_LISTS = frozenset({"prefixItems", "allOf", "anyOf", "oneOf"})
_SCHEMA_SINGLE = frozenset(
    {
        "additionalProperties",
        "unevaluatedProperties",
        "items",
        "additionalItems",
        "unevaluatedItems",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    }
)

# Keywords that only annotate; on a `$ref` sibling they refine the target.
ANNOTATION_KEYWORDS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "$comment"}
)


# --------------------------------------------------------------------------- walking


def pointer(base: str, *parts: str | int) -> str:
    """Extend JSON pointer `base` with `parts`, escaping `~` and `/` (RFC 6901)."""
    tail = "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)
    return base + tail


class Budget:
    """Counts nodes and checks depth so hostile schemas fail fast with a clear error."""

    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes = 0

    def tick(self, path: str, depth: int) -> None:
        self.nodes += 1
        if depth > MAX_DEPTH:
            msg = (
                f"Schema nests deeper than {MAX_DEPTH} levels (at {path or '/'}); "
                "flatten it or split the tool."
            )
            raise UnsupportedSchemaError(msg)
        if self.nodes > MAX_NODES:
            msg = (
                f"Schema has more than {MAX_NODES} subschemas (after expanding "
                "references); simplify it or split the tool."
            )
            raise UnsupportedSchemaError(msg)


def _children(
    node: Mapping[str, Any], path: str
) -> Iterator[tuple[str, str | int | None, Any, str]]:
    """Yield `(keyword, key_or_index, subschema, pointer)` for each direct subschema."""
    for key, value in node.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            for name, sub in value.items():
                yield key, name, sub, pointer(path, key, name)
        elif (key in _SCHEMA_LISTS or key == "items") and isinstance(value, list):
            # A list under `items` is the pre-2020 tuple form.
            for index, sub in enumerate(value):
                yield key, index, sub, pointer(path, key, index)
        elif key in _SCHEMA_SINGLE:
            yield key, None, value, pointer(path, key)


def walk(schema: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Yield `(pointer, node)` for the schema and every object subschema, pre-order.

    Boolean subschemas (`true`/`false`) are skipped; data keywords (`enum`,
    `default`, ...) are never entered, so a default that looks like a schema is
    not mistaken for one.
    """
    budget = Budget()
    stack: list[tuple[str, Mapping[str, Any], int]] = [("", schema, 0)]
    while stack:
        path, node, depth = stack.pop()
        budget.tick(path, depth)
        yield path, node
        kids = [
            (sub_path, sub, depth + 1)
            for _, _, sub, sub_path in _children(node, path)
            if isinstance(sub, Mapping)
        ]
        stack.extend(reversed(kids))


def rebuild(
    node: Mapping[str, Any],
    path: str,
    depth: int,
    visit: Callable[[Any, str, int], Any],
    *,
    skip: Collection[str] = (),
) -> JsonSchema:
    """A fresh copy of one node: subschemas through `visit`, data values thawed."""
    fresh: JsonSchema = {}
    for key, value in node.items():
        if key in skip:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            fresh[key] = {
                name: visit(sub, pointer(path, key, name), depth + 1) for name, sub in value.items()
            }
        elif (key in _SCHEMA_LISTS or key == "items") and isinstance(value, list):
            fresh[key] = [
                visit(sub, pointer(path, key, i), depth + 1) for i, sub in enumerate(value)
            ]
        elif key in _SCHEMA_SINGLE:
            fresh[key] = visit(value, pointer(path, key), depth + 1)
        else:
            fresh[key] = thaw(value)
    return fresh


def rewrite(schema: Mapping[str, Any], fn: NodeRewriter) -> JsonSchema:
    """Return a fresh copy of `schema` with `fn` applied to every node, bottom-up.

    `fn` receives a fresh plain dict whose subschemas were already rewritten, plus
    its JSON pointer, and returns the node to keep (it may edit and return it).
    Boolean subschemas are copied as they are.
    """
    budget = Budget()

    def visit(node: Any, path: str, depth: int) -> Any:
        if not isinstance(node, Mapping):
            return thaw(node)
        budget.tick(path, depth)
        return fn(rebuild(node, path, depth, visit), path)

    result: JsonSchema = visit(schema, "", 0)
    return result


# --------------------------------------------------------------------------- reading


def is_object(node: Mapping[str, Any]) -> bool:
    """True when `node` describes a JSON object (by `type`, or by `properties`)."""
    kinds = types_of(node)
    if kinds:
        return "object" in kinds
    return "properties" in node


def _selects(select: KeywordFilter) -> Callable[[str, Any, Mapping[str, Any]], bool]:
    if callable(select):
        return select
    names = frozenset(select)
    return lambda keyword, _value, _node: keyword in names


# --------------------------------------------------------------------------- steps


def move_to_description(
    schema: Mapping[str, Any], select: KeywordFilter, notes: list[ConversionNote]
) -> JsonSchema:
    """Replace the selected keywords with sentences in the node's description.

    The invoker still enforces the canonical schema; this only keeps what a
    target cannot take visible to the model.
    """
    chosen = _selects(select)

    def step(node: JsonSchema, path: str) -> JsonSchema:
        moved = [k for k, v in node.items() if chosen(k, v, node)]
        for keyword in moved:
            value = node.pop(keyword)
            sentence = describe(keyword, value)
            node = add_to_description(node, sentence)
            notes.append(
                ConversionNote(
                    path,
                    keyword,
                    "moved_to_description",
                    f"{keyword} {json_text(value)} is not accepted by the target; "
                    + (f"the description says {sentence!r}" if sentence else "dropped"),
                )
            )
        return node

    return rewrite(schema, step)


def drop_keywords(
    schema: Mapping[str, Any],
    select: KeywordFilter,
    notes: list[ConversionNote],
    *,
    reason: str = "the target does not accept it",
) -> JsonSchema:
    """Remove the selected keywords everywhere, noting each removal with `reason`."""
    chosen = _selects(select)

    def step(node: JsonSchema, path: str) -> JsonSchema:
        for keyword in [k for k, v in node.items() if chosen(k, v, node)]:
            del node[keyword]
            notes.append(ConversionNote(path, keyword, "dropped", f"Dropped {keyword}: {reason}."))
        return node

    return rewrite(schema, step)


def strip_extensions(schema: Mapping[str, Any], notes: list[ConversionNote]) -> JsonSchema:
    """Remove `x-*` vendor keywords (e.g. MCP's `x-mcp-header`), noting each."""
    return drop_keywords(
        schema,
        lambda keyword, _v, _n: keyword.startswith("x-"),
        notes,
        reason="vendor extensions are not sent to models",
    )


_PY_TO_JSON_TYPE: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
    (type(None), "null"),
)


def _json_type(value: Any) -> str | None:
    for py_type, name in _PY_TO_JSON_TYPE:
        if isinstance(value, py_type):
            return name
    return None


def const_to_enum(schema: Mapping[str, Any], notes: list[ConversionNote]) -> JsonSchema:
    """Rewrite `const: x` as `enum: [x]`, adding `type` when it is missing."""

    def step(node: JsonSchema, path: str) -> JsonSchema:
        if "const" not in node:
            return node
        value = node.pop("const")
        node["enum"] = [value]
        if "type" not in node and (kind := _json_type(value)) is not None:
            node["type"] = kind
        notes.append(
            ConversionNote(
                path,
                "const",
                "rewritten",
                f"const {json_text(value)} sent as a one-value enum.",
            )
        )
        return order_keys(node)

    return rewrite(schema, step)


def one_of_to_any_of(schema: Mapping[str, Any], notes: list[ConversionNote]) -> JsonSchema:
    """Rewrite `oneOf` as `anyOf` (exclusivity is lost; the invoker still checks it)."""

    def step(node: JsonSchema, path: str) -> JsonSchema:
        if "oneOf" not in node:
            return node
        if "anyOf" in node:
            msg = f"Schema at {path or '/'} has both oneOf and anyOf; merge them."
            raise UnsupportedSchemaError(msg)
        fresh = {("anyOf" if k == "oneOf" else k): v for k, v in node.items()}
        notes.append(
            ConversionNote(
                path,
                "oneOf",
                "rewritten",
                "oneOf sent as anyOf (exactly-one is not enforced by the target).",
            )
        )
        return order_keys(fresh)

    return rewrite(schema, step)


def to_nullable_keyword(schema: Mapping[str, Any], notes: list[ConversionNote]) -> JsonSchema:
    """Express null the OpenAPI 3.0 way: `nullable: true` instead of `"null"` types.

    `type: [T, "null"]` becomes `type: T, nullable: true`; several non-null types
    become an `anyOf` of single types; `{"type": "null"}` branches of an `anyOf`
    are removed (a lone remaining branch is merged into the node); `null` leaves
    an `enum`. A node that only accepts null keeps `type: "null"`.
    """

    def step(node: JsonSchema, path: str) -> JsonSchema:
        nullable = False
        kinds = node.get("type")
        if isinstance(kinds, list):
            real = [k for k in kinds if k != "null"]
            nullable = len(real) < len(kinds)
            if len(real) == 1:
                node["type"] = real[0]
            elif not real:
                node["type"] = "null"
                nullable = False
            else:
                del node["type"]
                node["anyOf"] = [{"type": k} for k in real] + list(node.get("anyOf", []))
        if (
            isinstance(node.get("enum"), list)
            and None in node["enum"]
            and node.get("type") != "null"
        ):
            node["enum"] = [v for v in node["enum"] if v is not None]
            nullable = True
        branches = node.get("anyOf")
        if isinstance(branches, list):
            real_branches = [b for b in branches if not _is_null_only(b)]
            if len(real_branches) < len(branches) and real_branches:
                nullable = True
                del node["anyOf"]
                if len(real_branches) == 1 and isinstance(real_branches[0], dict):
                    node = _absorb(node, real_branches[0])
                else:
                    node["anyOf"] = real_branches
        if not nullable:
            return node
        node["nullable"] = True
        notes.append(ConversionNote(path, "type", "rewritten", "null expressed as nullable: true."))
        return order_keys(node)

    return rewrite(schema, step)


def _is_null_only(branch: Any) -> bool:
    return isinstance(branch, Mapping) and types_of(branch) == ("null",) and len(branch) <= 2


def _absorb(node: JsonSchema, branch: JsonSchema) -> JsonSchema:
    """Merge a lone `anyOf` branch into its parent; the parent's annotations win."""
    merged = dict(branch)
    for key, value in node.items():
        if key in ANNOTATION_KEYWORDS or key not in merged:
            merged[key] = value
    return merged


def widen_tuples(schema: Mapping[str, Any], notes: list[ConversionNote]) -> JsonSchema:
    """Turn `prefixItems` tuples into `items` (an `anyOf` of the positions).

    The length stays pinned by `minItems`/`maxItems` and the order is written into
    the description ("Items in order: integer, string.").
    """

    def step(node: JsonSchema, path: str) -> JsonSchema:
        positions = node.get("prefixItems")
        if not isinstance(positions, list):
            return node
        del node["prefixItems"]
        distinct: list[Any] = []
        for sub in positions:
            if sub not in distinct:
                distinct.append(sub)
        rest = node.get("items")
        if isinstance(rest, Mapping) and rest not in distinct:
            distinct.append(rest)
        if rest is False or "items" not in node:
            node.setdefault("maxItems", len(positions))
        node.setdefault("minItems", len(positions))
        node["items"] = distinct[0] if len(distinct) == 1 else {"anyOf": distinct}
        sentence = describe("prefixItems", positions)
        notes.append(
            ConversionNote(
                path,
                "prefixItems",
                "rewritten",
                f"Tuple sent as an array; the description says {sentence!r}",
            )
        )
        return order_keys(add_to_description(node, sentence))

    return rewrite(schema, step)


def ensure_properties(schema: Mapping[str, Any]) -> JsonSchema:
    """Give every object node a `properties` map (`{}` when it has none).

    Some targets reject object schemas without `properties` (Spring AI issue 4776);
    adding an empty map does not change what the schema accepts.
    """

    def step(node: JsonSchema, _path: str) -> JsonSchema:
        if is_object(node) and "properties" not in node:
            node["properties"] = {}
            return order_keys(node)
        return node

    return rewrite(schema, step)
