"""JSON Schema comparison: which changes between two schemas a reader can notice.

`schema_changes` walks an old and a new schema side by side (following local
`$defs` references, pairing union branches by JSON type, comparing each pair of
recursive definitions once) and reports every difference as a `SchemaChange`:
types lost or gained, enum values, bounds and restricting keywords
(`constraint-tightened`/`-loosened`), properties removed, renamed, added or made
required, and `additionalProperties` closed or opened. The direction decides what
breaks: an `input` schema is compared contravariantly (the model sends, so
narrowing breaks), an `output` schema covariantly (the host reads, so widening
breaks). This module knows schemas only; `_lockfile.py` attaches the tool name
and decides whether a version bump excuses the change.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolcast._define._node import json_type_of

__all__ = (
    "Direction",
    "SchemaChange",
    "schema_changes",
)

Direction = Literal["input", "output"]

# Keywords that bound a value from below / above, and the ones that only restrict.
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_RESTRICT = ("pattern", "format", "contentEncoding")
_ALIAS = "x-toolcast-alias"


@dataclass(frozen=True, slots=True)
class SchemaChange:
    """One difference between two schemas; `_lockfile` adds the tool's name."""

    kind: str
    """Stable code, e.g. `parameter-removed` (docs/catalog.md lists them all)."""
    message: str
    """What changed, as a sentence."""
    breaking: bool
    """True when a model prompt or an old transcript may stop working."""
    path: str = ""
    """The argument or result path (`items[].qty`), or `""` for the whole schema."""


def json_key(value: Any) -> str:
    # Python says True == 1 == 1.0; JSON enums do not, so compare encoded text.
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _show(values: Sequence[Any]) -> str:
    return ", ".join(json_key(v) for v in values)


_ANY: frozenset[str] = frozenset(
    {"null", "boolean", "integer", "number", "string", "array", "object"}
)


@dataclass
class _Walk:
    """State of one schema comparison (one pair of schemas, one direction)."""

    direction: Direction
    old_root: Mapping[str, Any]
    new_root: Mapping[str, Any]
    out: list[SchemaChange]
    seen: set[tuple[str, str]] = field(default_factory=set)

    def report(self, kind: str, path: str, message: str, *, narrowing: bool) -> None:
        # Input: a narrower schema refuses what models send. Output: a wider one
        # produces what readers do not expect.
        breaking = narrowing if self.direction == "input" else not narrowing
        self.out.append(SchemaChange(kind, message, breaking, path))

    def label(self, path: str) -> str:
        noun = "Argument" if self.direction == "input" else "Result"
        return f"{noun} {path!r}" if path else noun


def _deref(node: Any, root: Mapping[str, Any]) -> tuple[Mapping[str, Any], str | None]:
    if not isinstance(node, Mapping):
        # `true`/`false` schemas: true accepts anything, false nothing.
        return ({} if node is not False else {"not": {}}), None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = root.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        if isinstance(target, Mapping):
            merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            return merged, ref
    return node, None


def _types(node: Mapping[str, Any], root: Mapping[str, Any]) -> frozenset[str]:
    if "not" in node:
        return frozenset()
    found: set[str] = set()
    if "anyOf" in node:
        for branch in node["anyOf"]:
            found |= _types(_deref(branch, root)[0], root)
        return frozenset(found)
    if "enum" in node or "const" in node:
        values = node["enum"] if "enum" in node else [node["const"]]
        found = {json_type_of(v) for v in values}
    elif "type" in node:
        declared = node["type"]
        found = {declared} if isinstance(declared, str) else set(declared)
    else:
        return _ANY
    if "number" in found:
        found.add("integer")  # every integer is a number
    return frozenset(found)


def _branches(node: Mapping[str, Any], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if "anyOf" in node:
        return [_deref(branch, root)[0] for branch in node["anyOf"]]
    return [node]


def _primary(node: Mapping[str, Any], root: Mapping[str, Any]) -> str | None:
    kinds = sorted(_types(node, root) - {"null"})
    if "number" in kinds:
        return "number"
    return kinds[0] if len(kinds) == 1 else None


def _compare(walk: _Walk, old_raw: Any, new_raw: Any, path: str) -> None:
    old, old_ref = _deref(old_raw, walk.old_root)
    new, new_ref = _deref(new_raw, walk.new_root)
    if old_ref is not None and new_ref is not None:
        # Recursive types: each pair of definitions is compared once.
        if (old_ref, new_ref) in walk.seen:
            return
        walk.seen.add((old_ref, new_ref))

    old_types, new_types = _types(old, walk.old_root), _types(new, walk.new_root)
    lost, gained = old_types - new_types, new_types - old_types
    if lost:
        walk.report(
            "type-narrowed",
            path,
            f"{walk.label(path)} no longer accepts {', '.join(sorted(lost))}.",
            narrowing=True,
        )
    if gained:
        walk.report(
            "type-widened",
            path,
            f"{walk.label(path)} now also accepts {', '.join(sorted(gained))}.",
            narrowing=False,
        )

    old_branches = _branches(old, walk.old_root)
    new_branches = _branches(new, walk.new_root)
    if len(old_branches) == 1 and len(new_branches) == 1:
        _compare_content(walk, old, new, path)
        return
    # Unions: pair the branches that carry the same (single) JSON type.
    by_type = {_primary(b, walk.new_root): b for b in new_branches}
    for branch in old_branches:
        kind = _primary(branch, walk.old_root)
        if kind is not None and kind in by_type:
            _compare_content(walk, branch, by_type[kind], path)


def _compare_content(
    walk: _Walk, old: Mapping[str, Any], new: Mapping[str, Any], path: str
) -> None:
    _compare_enum(walk, old, new, path)
    _compare_alias(walk, old, new, path)
    _compare_bounds(walk, old, new, path)
    if "properties" in old or "properties" in new:
        _compare_properties(walk, old, new, path)
    _compare_additional(walk, old, new, path)
    if "items" in old and "items" in new:
        _compare(walk, old["items"], new["items"], f"{path}[]")
    old_prefix, new_prefix = old.get("prefixItems", []), new.get("prefixItems", [])
    for index, (o, n) in enumerate(zip(old_prefix, new_prefix, strict=False)):
        _compare(walk, o, n, f"{path}[{index}]")


def _compare_alias(walk: _Walk, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
    # An aliased id (`x-toolcast-alias`, docs/aliases.md) renamed, added or removed
    # changes what a model sends and reads, in either direction: always breaking.
    before, after = old.get(_ALIAS), new.get(_ALIAS)
    if before == after:
        return
    label = walk.label(path)
    if before is None:
        message = f"{label} is now an aliased id ({after}-1) instead of the value itself."
    elif after is None:
        message = f"{label} is no longer an aliased id ({before}-1)."
    else:
        message = f"{label} changed its alias prefix: {before}-1 -> {after}-1."
    walk.out.append(SchemaChange("alias-prefix-changed", message, True, path))


def _enum_of(node: Mapping[str, Any]) -> list[Any] | None:
    if "enum" in node:
        return list(node["enum"])
    return [node["const"]] if "const" in node else None


def _compare_enum(walk: _Walk, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
    old_enum, new_enum = _enum_of(old), _enum_of(new)
    if old_enum is None and new_enum is None:
        return
    label = walk.label(path)
    if old_enum is None:
        assert new_enum is not None
        walk.report(
            "enum-added",
            path,
            f"{label} is now limited to {_show(new_enum)}.",
            narrowing=True,
        )
        return
    if new_enum is None:
        walk.report(
            "enum-removed",
            path,
            f"{label} is no longer limited to a list of values.",
            narrowing=False,
        )
        return
    new_keys = {json_key(v) for v in new_enum}
    old_keys = {json_key(v) for v in old_enum}
    removed = [v for v in old_enum if json_key(v) not in new_keys]
    added = [v for v in new_enum if json_key(v) not in old_keys]
    if removed:
        walk.report(
            "enum-value-removed",
            path,
            f"{label} no longer accepts {_show(removed)}.",
            narrowing=True,
        )
    if added:
        walk.report(
            "enum-value-added",
            path,
            f"{label} now also accepts {_show(added)}.",
            narrowing=False,
        )


def _tighter(keyword: str, old: Any, new: Any) -> bool | None:
    """True if `new` restricts more than `old`, False if less, None if equal."""
    if old == new:
        return None
    if old is None:
        return True
    if new is None:
        return False
    if keyword in _LOWER:
        return bool(new > old)
    if keyword in _UPPER:
        return bool(new < old)
    if keyword == "multipleOf":
        # Multiples of 4 are all multiples of 2: a divisor loosens.
        return not (isinstance(old, (int, float)) and old % new == 0)
    if keyword == "uniqueItems":
        return bool(new)
    return True  # a different pattern/format: nothing proves it accepts as much


def _compare_bounds(walk: _Walk, old: Mapping[str, Any], new: Mapping[str, Any], path: str) -> None:
    label = walk.label(path)
    for keyword in (*_LOWER, *_UPPER, "multipleOf", "uniqueItems", *_RESTRICT):
        before, after = old.get(keyword), new.get(keyword)
        if keyword == "uniqueItems":
            before, after = before or None, after or None
        tighter = _tighter(keyword, before, after)
        if tighter is None:
            continue
        what = f"{keyword} {json_key(before)} -> {json_key(after)}"
        if before is None:
            what = f"{keyword} {json_key(after)} added"
        elif after is None:
            what = f"{keyword} {json_key(before)} removed"
        kind = "constraint-tightened" if tighter else "constraint-loosened"
        verb = "tightened" if tighter else "loosened"
        walk.report(kind, path, f"{label} {verb}: {what}.", narrowing=tighter)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _compare_properties(
    walk: _Walk, old: Mapping[str, Any], new: Mapping[str, Any], path: str
) -> None:
    old_props: Mapping[str, Any] = old.get("properties", {})
    new_props: Mapping[str, Any] = new.get("properties", {})
    old_req, new_req = set(old.get("required", ())), set(new.get("required", ()))
    removed = [n for n in old_props if n not in new_props]
    added = [n for n in new_props if n not in old_props]
    inbound = walk.direction == "input"
    noun = "Argument" if inbound else "Result field"

    # A removed and an added property with the same schema is a rename.
    for name in list(removed):
        twin = next(
            (
                a
                for a in added
                if json_key(new_props[a]) == json_key(old_props[name])
                and (a in new_req) == (name in old_req)
            ),
            None,
        )
        if twin is None:
            continue
        removed.remove(name)
        added.remove(twin)
        walk.out.append(
            SchemaChange(
                "parameter-renamed" if inbound else "field-renamed",
                f"{noun} {_join(path, name)!r} was renamed to {_join(path, twin)!r}.",
                True,
                _join(path, name),
            )
        )
    for name in removed:
        walk.out.append(
            SchemaChange(
                "parameter-removed" if inbound else "field-removed",
                f"{noun} {_join(path, name)!r} was removed.",
                True,
                _join(path, name),
            )
        )
    for name in added:
        needed = name in new_req
        walk.out.append(
            SchemaChange(
                ("parameter-added-required" if needed else "parameter-added")
                if inbound
                else "field-added",
                f"{noun} {_join(path, name)!r} was added"
                + (" as required." if needed and inbound else "."),
                needed and inbound,
                _join(path, name),
            )
        )
    for name in old_props:
        if name not in new_props:
            continue
        sub = _join(path, name)
        if name not in old_req and name in new_req:
            walk.report(
                "parameter-now-required" if inbound else "field-now-required",
                sub,
                f"{noun} {sub!r} is now required.",
                narrowing=True,
            )
        elif name in old_req and name not in new_req:
            walk.report(
                "parameter-now-optional" if inbound else "field-now-optional",
                sub,
                f"{noun} {sub!r} is now optional.",
                narrowing=False,
            )
        _compare(walk, old_props[name], new_props[name], sub)


def _compare_additional(
    walk: _Walk, old: Mapping[str, Any], new: Mapping[str, Any], path: str
) -> None:
    before, after = old.get("additionalProperties"), new.get("additionalProperties")
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        _compare(walk, before, after, f"{path}.*" if path else "*")
        return
    closed_before, closed_after = before is False, after is False
    if closed_before == closed_after:
        return
    label = walk.label(path)
    if closed_after:
        walk.report(
            "constraint-tightened",
            path,
            f"{label} no longer accepts extra properties.",
            narrowing=True,
        )
    else:
        walk.report(
            "constraint-loosened",
            path,
            f"{label} now accepts extra properties.",
            narrowing=False,
        )


def schema_changes(old: Any, new: Any, direction: Direction) -> list[SchemaChange]:
    """Every change from schema `old` to schema `new`, in a stable order.

    `None` stands for "no schema" (a tool without structured results): losing
    the schema breaks readers, gaining one does not.
    """
    out: list[SchemaChange] = []
    if old is None or new is None:
        if old is not None:
            out.append(
                SchemaChange(
                    "output-schema-removed", "The tool no longer returns structured results.", True
                )
            )
        elif new is not None:
            out.append(
                SchemaChange(
                    "output-schema-added", "The tool now returns structured results.", False
                )
            )
        return out
    walk = _Walk(direction, old, new, out)
    _compare(walk, old, new, "")
    return out
