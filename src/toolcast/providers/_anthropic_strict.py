"""What keeps a schema out of Anthropic's (and Bedrock's) strict mode, in words.

Strict tool use compiles the schema into a grammar, which refuses recursion,
objects with free keys, untyped values and a few other shapes
(https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations).
`strict_blockers` names each one, so the projection can fall back to non-strict
with a note instead of a request the API rejects.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolcast._json import JsonSchema
from toolcast.providers._schema import is_object, walk

__all__ = ("strict_blockers",)

# Keywords meaning "keys beyond the declared ones"; strict must close every object.
_FREE_KEYS = ("patternProperties", "unevaluatedProperties", "propertyNames")
# Any of these pins down what a node accepts; a node with none takes any value.
_TYPED_BY = ("type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const", "properties")


def strict_blockers(schema: JsonSchema) -> Iterator[tuple[str, str, str]]:
    """Why `schema` cannot be strict: (pointer, keyword, sentence) per problem."""
    cycle = _ref_cycle(schema)
    if cycle:
        yield (
            "",
            "$ref",
            f"The schema is recursive ({cycle}); strict mode refuses recursion.",
        )
    for path, node in walk(schema):
        where = path or "the root"
        for keyword in _FREE_KEYS:
            if keyword in node:
                yield (
                    path,
                    keyword,
                    f"{keyword} at {where} allows undeclared keys; strict needs closed objects.",
                )
        extra = node.get("additionalProperties", False)
        if extra is not False:
            yield (
                path,
                "additionalProperties",
                f"The object at {where} takes free keys (a dict); "
                "strict would send it as an empty object.",
            )
        elif (
            path
            and is_object(node)
            and not node.get("properties")
            and "additionalProperties" not in node
        ):
            yield (
                path,
                "properties",
                f"The object at {where} declares no keys; strict would send it as an empty object.",
            )
        if not any(k in node for k in _TYPED_BY):
            yield path, "type", f"{where} accepts any JSON value; strict needs a type."
        values = list(node.get("enum") or ()) + ([node["const"]] if "const" in node else [])
        if any(isinstance(v, (dict, list)) for v in values):
            yield (
                path,
                "enum",
                f"The enum at {where} has object or array values; strict takes primitives only.",
            )
        if any("$ref" in b for b in node.get("allOf") or () if isinstance(b, Mapping)):
            yield (
                path,
                "allOf",
                f"allOf with $ref at {where} is not supported in strict mode.",
            )


def _ref_cycle(schema: Mapping[str, Any]) -> str:
    """A `$ref` cycle as `A -> B -> A`, or "" when the schema is not recursive."""
    graph: dict[str, set[str]] = {}
    for path, node in walk(schema):
        ref = node.get("$ref")
        if isinstance(ref, str):
            owner = _definition_of(path)
            graph.setdefault(owner, set()).add(ref)
    return _find_cycle(graph)


def _definition_of(path: str) -> str:
    """The `$ref` naming the definition that contains `path` ("#" for the root)."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[1] in ("$defs", "definitions"):
        return "#/" + "/".join(parts[1:3])
    return "#"


def _find_cycle(graph: Mapping[str, set[str]]) -> str:
    done: set[str] = set()

    def visit(ref: str, trail: tuple[str, ...]) -> str:
        if ref in trail:
            return " -> ".join((*trail[trail.index(ref) :], ref))
        if ref in done:
            return ""
        for nxt in sorted(graph.get(ref, ())):
            found = visit(nxt, (*trail, ref))
            if found:
                return found
        done.add(ref)
        return ""

    for start in sorted(graph):
        found = visit(start, ())
        if found:
            return found
    return ""
