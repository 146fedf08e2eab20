"""`$ref` handling shared by the provider modules: inlining and isolating references.

`inline_refs` replaces every local `$ref` with a copy of the schema it points to
and drops `$defs`, for targets that take no references at all; it refuses what
cannot be inlined faithfully (recursion, references outside the schema, sibling
assertions that conflict with the target) with an `UnsupportedSchemaError`.
`isolate_refs` keeps the references but wraps each `$ref` that has siblings as
`anyOf: [{"$ref": ...}]`, for targets that reject keywords next to a `$ref`. Both
build on the walking primitives of `providers/_schema.py` (same depth and node
budget, same never-mutate contract), which re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcast._frozen import thaw
from toolcast._json import JsonSchema
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers._schema import ANNOTATION_KEYWORDS, Budget, rebuild, rewrite
from toolcast.providers._words import order_keys

__all__ = (
    "inline_refs",
    "isolate_refs",
)


def _resolve_pointer(root: Mapping[str, Any], ref: str, at: str) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        msg = (
            f"Schema at {at or '/'} refers to {ref!r}; only local references "
            "('#/...') are resolved, never fetched."
        )
        raise UnsupportedSchemaError(msg)
    node: Any = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            msg = f"Schema at {at or '/'} refers to {ref!r}, which does not exist."
            raise UnsupportedSchemaError(msg)
    return node


def inline_refs(schema: Mapping[str, Any], *, target: str = "This target") -> JsonSchema:
    """Replace every local `$ref` with the schema it points to and drop `$defs`.

    A definition used twice is copied twice (reuse is not recursion). Sibling
    annotations of a `$ref` (`description`, `default`, ...) refine the inlined
    schema; conflicting sibling assertions are refused rather than merged wrongly.

    Raises:
        UnsupportedSchemaError: the schema is recursive, refers outside itself,
            or expands beyond `MAX_NODES`.
    """
    budget = Budget()

    def expand(node: Any, path: str, depth: int, active: tuple[str, ...]) -> Any:
        if not isinstance(node, Mapping):
            return thaw(node)
        budget.tick(path, depth)
        if "$ref" in node and isinstance(node["$ref"], str):
            ref = node["$ref"]
            if ref in active:
                chain = " -> ".join((*active[active.index(ref) :], ref))
                msg = (
                    f"The schema is recursive ({chain}, reached at {path or '/'}). "
                    f"{target} cannot take recursive schemas: make this parameter "
                    "non-recursive (e.g. cap the depth with a separate type), or use "
                    "a target that supports $ref."
                )
                raise UnsupportedSchemaError(msg)
            resolved = expand(_resolve_pointer(schema, ref, path), path, depth + 1, (*active, ref))
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            own = expand(siblings, path, depth, active) if siblings else {}
            return _merge_ref(resolved, own, ref, path)
        return rebuild(
            node,
            path,
            depth,
            lambda sub, sub_path, sub_depth: expand(sub, sub_path, sub_depth, active),
            skip=("$defs", "definitions"),
        )

    result: JsonSchema = expand(schema, "", 0, ())
    return result


def _merge_ref(resolved: Any, own: JsonSchema, ref: str, path: str) -> Any:
    if not own:
        return resolved
    if not isinstance(resolved, dict):
        # A boolean target: `true` adds nothing, `false` rejects everything.
        return own if resolved is True else {"not": {}}
    merged = dict(resolved)
    for key, value in own.items():
        if key in ANNOTATION_KEYWORDS or key not in merged or merged[key] == value:
            merged[key] = value
        else:
            msg = (
                f"The $ref {ref!r} at {path or '/'} has a sibling {key!r} that "
                "differs from the referenced schema's; it cannot be inlined "
                "without changing its meaning."
            )
            raise UnsupportedSchemaError(msg)
    return order_keys(merged)


def isolate_refs(schema: Mapping[str, Any]) -> JsonSchema:
    """Wrap each `$ref` that has non-`$` siblings as `anyOf: [{"$ref": ...}]`.

    Some targets reject `$ref` next to other keywords, e.g. OpenAI strict:
    "$ref cannot have keywords {'description'}" (pydantic-ai issue #1488).
    """

    def step(node: JsonSchema, _path: str) -> JsonSchema:
        ref = node.get("$ref")
        if ref is None or "anyOf" in node:
            return node
        if all(k.startswith("$") for k in node):
            return node
        fresh = {k: v for k, v in node.items() if k != "$ref"}
        fresh["anyOf"] = [{"$ref": ref}]
        return order_keys(fresh)

    return rewrite(schema, step)
