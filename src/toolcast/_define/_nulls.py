"""Under strict projections, `null` for an optional property means "not given".

The strict projections (OpenAI Chat, Responses and Realtime, Mistral) must list every
property as required, so an optional property that did not accept null becomes
nullable and the model is told to send null to leave it out (docs/providers/index.md,
"Null under strict"). A call parsed from such a target carries
`null_means_default=True`; this module is what honours it for tools defined by a
JSON Schema (`Tool.from_schema`, and so remote MCP and gRPC tools): before
validation, every `null` sent for a property the canonical schema does not require,
and whose schema does not itself accept null, is removed, at every depth (nested
objects, array items, `$ref`, the matching branch of a union). A null the canonical
schema accepts stays a value. Typed tools get the same rule from their validator
(`SchemaBuilder(lenient_nulls=True)`).

`accepts_null` is the one test of "accepts null" both sides use: the strict
transform (`providers._strict`) and this walk, so what the model is told and what
the invoker does cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ("NullPlan", "accepts_null", "local_ref", "needs_plan")

# A union or reference chain longer than this is not followed (the value is then
# validated as sent): the walk's cost stays bounded by the value times the schema.
_MAX_HOPS = 64


def local_ref(root: Any, ref: Any) -> Any:
    """The subschema a local `$ref` (`#`, `#/$defs/x`, ...) points at, or None."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node = root
    for part in ref[1:].split("/")[1:] if ref != "#" else ():
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def accepts_null(node: Any, resolve: Callable[[Any], Any] | None = None, hops: int = 0) -> bool:
    """True when `node` visibly admits `null`: `type`, `const`, `enum`, a union branch, a `$ref`.

    Visible means said by one of those keywords; a schema that admits null only by
    leaving it out (`{"not": {"type": "string"}}`) does not count, as for the
    strict transform, which then makes it nullable with null meaning "not given".
    `resolve` maps a `$ref` value to its target (None: references are not followed).
    """
    if node is True or (isinstance(node, Mapping) and not node):
        return True
    if not isinstance(node, Mapping) or hops > _MAX_HOPS:
        return False
    kinds = node.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    if "const" in node and node["const"] is None:
        return True
    enum = node.get("enum")
    if isinstance(enum, list) and None in enum:
        return True
    for keyword in ("anyOf", "oneOf"):
        branches = node.get(keyword)
        if isinstance(branches, list) and any(accepts_null(b, resolve, hops + 1) for b in branches):
            return True
    if resolve is not None and "$ref" in node and kinds is None and "enum" not in node:
        return accepts_null(resolve(node["$ref"]), resolve, hops + 1)
    return False


def _kinds(node: Mapping[str, Any]) -> tuple[str, ...]:
    kinds = node.get("type")
    if isinstance(kinds, str):
        return (kinds,)
    return tuple(k for k in kinds if isinstance(k, str)) if isinstance(kinds, list) else ()


def _fits(value: Any, node: Mapping[str, Any]) -> bool:
    """Whether union branch `node` is the one `value` is shaped for (a cheap look)."""
    kinds = _kinds(node)
    if isinstance(value, dict):
        if kinds and "object" not in kinds:
            return False
        props = node.get("properties")
        props = props if isinstance(props, Mapping) else {}
        required = node.get("required")
        if isinstance(required, list) and any(k not in value for k in required):
            return False
        if node.get("additionalProperties") is False and any(k not in props for k in value):
            return False
        for key, sub in props.items():
            if key in value and isinstance(sub, Mapping):
                if "const" in sub and sub["const"] != value[key]:
                    return False
                if isinstance(sub.get("enum"), list) and value[key] not in sub["enum"]:
                    return False
        return True
    if isinstance(value, list):
        return not kinds or "array" in kinds
    return False  # a scalar holds no keys to strip


class NullPlan:
    """Removes the nulls that stand for "not given" from an argument object."""

    __slots__ = ("_root",)

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._root = schema

    def _resolve(self, ref: Any) -> Any:
        return local_ref(self._root, ref)

    def _applicable(self, value: Any, node: Any) -> list[Mapping[str, Any]]:
        """The schema objects that apply to `value` at `node`: itself, `$ref`, `allOf`, a branch."""
        found: list[Mapping[str, Any]] = []
        stack = [node]
        seen: set[int] = set()
        while stack and len(seen) < _MAX_HOPS:
            current = stack.pop()
            if not isinstance(current, Mapping) or id(current) in seen:
                continue
            seen.add(id(current))
            found.append(current)
            if "$ref" in current:
                stack.append(self._resolve(current["$ref"]))
            all_of = current.get("allOf")
            if isinstance(all_of, list):
                stack.extend(all_of)
            for keyword in ("anyOf", "oneOf"):
                branches = current.get(keyword)
                if isinstance(branches, list):
                    chosen = next((b for b in branches if self._branch_fits(value, b)), None)
                    if chosen is not None:
                        stack.append(chosen)
        return found

    def _branch_fits(self, value: Any, branch: Any) -> bool:
        """Whether `value` is shaped for `branch`, read with its `$ref`s and `allOf`.

        A union inside the branch is not entered here (it is when the branch is
        chosen): the look stays linear in the schema, whatever the unions' nesting.
        """
        stack, looked = [branch], 0
        while stack and looked < _MAX_HOPS:
            node = stack.pop()
            if not isinstance(node, Mapping):
                continue
            looked += 1
            if not _fits(value, node):
                return False
            if "$ref" in node:
                stack.append(self._resolve(node["$ref"]))
            if isinstance(node.get("allOf"), list):
                stack.extend(node["allOf"])
        return looked > 0

    def strip(self, value: Any) -> Any:
        """`value` (changed in place) without the nulls that mean "not given"."""
        self._strip(value, self._root)
        return value

    def _strip(self, value: Any, node: Any) -> None:
        if isinstance(value, dict):
            self._strip_object(value, self._applicable(value, node))
        elif isinstance(value, list):
            self._strip_array(value, self._applicable(value, node))

    def _strip_object(self, value: dict[str, Any], nodes: list[Mapping[str, Any]]) -> None:
        declared: dict[str, list[Any]] = {}
        required: set[str] = set()
        for node in nodes:
            props = node.get("properties")
            if isinstance(props, Mapping):
                for key, sub in props.items():
                    declared.setdefault(key, []).append(sub)
            names = node.get("required")
            if isinstance(names, list):
                required.update(n for n in names if isinstance(n, str))
        for key in list(value):
            subs = declared.get(key)
            if not subs:
                continue
            item = value[key]
            if item is None:
                if key not in required and not any(accepts_null(s, self._resolve) for s in subs):
                    del value[key]
            elif isinstance(item, (dict, list)):
                # Every declared schema of the key applies at once (allOf, $ref siblings).
                self._strip(item, subs[0] if len(subs) == 1 else {"allOf": subs})

    def _strip_array(self, value: list[Any], nodes: list[Mapping[str, Any]]) -> None:
        for node in nodes:
            prefix = node.get("prefixItems")
            prefix = prefix if isinstance(prefix, list) else []
            items = node.get("items")
            for index, item in enumerate(value):
                if not isinstance(item, (dict, list)):
                    continue
                sub = prefix[index] if index < len(prefix) else items
                if isinstance(sub, Mapping):
                    self._strip(item, sub)


def needs_plan(schema: Any) -> bool:
    """Whether `schema` has an optional property whose schema does not accept null."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        props = node.get("properties")
        if isinstance(props, Mapping):
            required = node.get("required")
            names = set(required) if isinstance(required, list) else set()
            if any(k not in names and not accepts_null(s) for k, s in props.items()):
                return True
        stack.extend(v for v in node.values() if isinstance(v, (Mapping, list)))
    return False
