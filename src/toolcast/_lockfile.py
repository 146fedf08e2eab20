"""The lock document: every tool's contract, and how two documents compare.

`lock_document` records each tool's spec (schemas, aliases, toolbox, metadata);
`compare_locks` classifies each change between two documents as breaking (a model
prompt or an old transcript stops working: tool or argument removed or renamed,
new required argument, type narrowed, enum value removed, constraint tightened) or
compatible. A breaking change is accepted only when the tool's `version` was
bumped; removing a tool or a toolbox never is (keep the old name as an alias or
deprecate the tool instead, or lock again to accept). Input schemas are compared
contravariantly (the model sends, so narrowing breaks); output schemas covariantly
(the host reads, so widening breaks). The commands live in `_lock.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from toolcast._frozen import thaw
from toolcast.errors import CatalogError

if TYPE_CHECKING:
    from toolcast._catalog import Catalog, ToolSet

__all__ = (
    "LOCK_FORMAT",
    "LockChange",
    "LockReport",
    "check_lock",
    "compare_locks",
    "dumps_lock",
    "is_version_bump",
    "lock_document",
)

LOCK_FORMAT = "toolcast-lock/1"
"""The `format` value of lock files this version writes and reads."""

Direction = Literal["input", "output"]

# Spec fields recorded besides the schemas; a change to one is reported as
# compatible metadata unless listed in _BREAKING_METADATA.
_METADATA = (
    "status",
    "categories",
    "always_available",
    "required",
    "ends_loop",
    "requires_approval",
    "parallel_safe",
    "blocking",
    "timeout",
    "strict",
    "envelope",
)
# The envelope wraps every result in {"schema", "result"}: readers of the old
# shape break.
_BREAKING_METADATA = frozenset({"envelope"})

# Keywords that bound a value from below / above, and the ones that only restrict.
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_RESTRICT = ("pattern", "format", "contentEncoding")


@dataclass(frozen=True, slots=True)
class LockChange:
    """One difference between the locked contract and the code."""

    tool: str
    """The tool (or toolbox) it concerns, by its locked name."""
    kind: str
    """Stable code, e.g. `parameter-removed` (docs/catalog.md lists them all)."""
    message: str
    """What changed, as a sentence."""
    breaking: bool
    """True when a model prompt or an old transcript may stop working."""
    path: str = ""
    """The argument or result path (`items[].qty`), or `""` for the whole tool."""
    excused: bool = False
    """A breaking change accepted because the tool's version was bumped."""


@dataclass(frozen=True, slots=True)
class LockReport:
    """Every change found by a check, in a stable order."""

    changes: tuple[LockChange, ...] = ()
    """All changes, breaking or not."""

    @property
    def breaking(self) -> tuple[LockChange, ...]:
        """The breaking changes, excused or not."""
        return tuple(c for c in self.changes if c.breaking)

    @property
    def compatible(self) -> tuple[LockChange, ...]:
        """The changes no model or transcript can notice as a failure."""
        return tuple(c for c in self.changes if not c.breaking)

    @property
    def unexcused(self) -> tuple[LockChange, ...]:
        """Breaking changes without a version bump: these fail the check."""
        return tuple(c for c in self.changes if c.breaking and not c.excused)

    @property
    def ok(self) -> bool:
        """True when nothing breaks without a version bump."""
        return not self.unexcused

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready object."""
        return {
            "ok": self.ok,
            "changes": [
                {
                    "tool": c.tool,
                    "kind": c.kind,
                    "path": c.path,
                    "breaking": c.breaking,
                    "excused": c.excused,
                    "message": c.message,
                }
                for c in self.changes
            ],
        }


def _breaking(tool: str, kind: str, message: str, path: str = "") -> LockChange:
    return LockChange(tool, kind, message, True, path)


def _compatible(tool: str, kind: str, message: str, path: str = "") -> LockChange:
    return LockChange(tool, kind, message, False, path)


# --------------------------------------------------------------------------- write


def lock_document(source: Catalog | ToolSet) -> dict[str, Any]:
    """The lock file content for every tool of a catalog or tool set.

    Deprecated tools are included (they stay resolvable); tools are sorted by
    name so the file diffs cleanly.
    """
    tools: dict[str, Any] = {}
    for tool in sorted(source.all(include_deprecated=True), key=lambda t: t.name):
        spec = tool.spec
        box = source.toolbox_of(tool.name)
        entry: dict[str, Any] = {
            "version": spec.version,
            "description": spec.description,
            "aliases": list(spec.aliases),
            "toolbox": box.name if box is not None else None,
            "deprecated": spec.deprecated,
            "replaced_by": spec.replaced_by,
        }
        for key in _METADATA:
            value = getattr(spec, key)
            entry[key] = list(value) if isinstance(value, tuple) else value
        entry["input_schema"] = thaw(spec.input_schema)
        entry["output_schema"] = thaw(spec.output_schema)
        tools[spec.name] = entry
    toolboxes = {
        box.name: {"description": box.description, "members": list(box.member_names)}
        for box in sorted(source.toolboxes(), key=lambda b: b.name)
    }
    return {"format": LOCK_FORMAT, "tools": tools, "toolboxes": toolboxes}


def dumps_lock(document: Mapping[str, Any]) -> str:
    """Serialise a lock document the way `toolcast lock` writes it."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- compare


def _version_key(version: str) -> tuple[int, ...] | None:
    parts = version.strip().lstrip("vV").split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def is_version_bump(old: str | None, new: str | None) -> bool:
    """True when `new` is a later version than `old`.

    Dotted numbers compare numerically (`1.10 > 1.9`); other strings count as a
    bump when they differ. Adding a version to an unversioned tool is a bump.
    """
    if new is None or new == old:
        return False
    if old is None:
        return True
    old_key, new_key = _version_key(old), _version_key(new)
    if old_key is not None and new_key is not None:
        return new_key > old_key
    return True


def _json_key(value: Any) -> str:
    # Python says True == 1 == 1.0; JSON enums do not, so compare encoded text.
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _show(values: Sequence[Any]) -> str:
    return ", ".join(_json_key(v) for v in values)


_ANY: frozenset[str] = frozenset(
    {"null", "boolean", "integer", "number", "string", "array", "object"}
)


def _value_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


@dataclass
class _Walk:
    """State of one schema comparison (one tool, one direction)."""

    tool: str
    direction: Direction
    old_root: Mapping[str, Any]
    new_root: Mapping[str, Any]
    out: list[LockChange]
    seen: set[tuple[str, str]] = field(default_factory=set)

    def report(self, kind: str, path: str, message: str, *, narrowing: bool) -> None:
        # Input: a narrower schema refuses what models send. Output: a wider one
        # produces what readers do not expect.
        breaking = narrowing if self.direction == "input" else not narrowing
        self.out.append(LockChange(self.tool, kind, message, breaking, path))

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
        found = {_value_type(v) for v in values}
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
    _compare_bounds(walk, old, new, path)
    if "properties" in old or "properties" in new:
        _compare_properties(walk, old, new, path)
    _compare_additional(walk, old, new, path)
    if "items" in old and "items" in new:
        _compare(walk, old["items"], new["items"], f"{path}[]")
    old_prefix, new_prefix = old.get("prefixItems", []), new.get("prefixItems", [])
    for index, (o, n) in enumerate(zip(old_prefix, new_prefix, strict=False)):
        _compare(walk, o, n, f"{path}[{index}]")


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
    new_keys = {_json_key(v) for v in new_enum}
    old_keys = {_json_key(v) for v in old_enum}
    removed = [v for v in old_enum if _json_key(v) not in new_keys]
    added = [v for v in new_enum if _json_key(v) not in old_keys]
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
        what = f"{keyword} {_json_key(before)} -> {_json_key(after)}"
        if before is None:
            what = f"{keyword} {_json_key(after)} added"
        elif after is None:
            what = f"{keyword} {_json_key(before)} removed"
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
                if _json_key(new_props[a]) == _json_key(old_props[name])
                and (a in new_req) == (name in old_req)
            ),
            None,
        )
        if twin is None:
            continue
        removed.remove(name)
        added.remove(twin)
        walk.out.append(
            LockChange(
                walk.tool,
                "parameter-renamed" if inbound else "field-renamed",
                f"{noun} {_join(path, name)!r} was renamed to {_join(path, twin)!r}.",
                True,
                _join(path, name),
            )
        )
    for name in removed:
        walk.out.append(
            LockChange(
                walk.tool,
                "parameter-removed" if inbound else "field-removed",
                f"{noun} {_join(path, name)!r} was removed.",
                True,
                _join(path, name),
            )
        )
    for name in added:
        needed = name in new_req
        walk.out.append(
            LockChange(
                walk.tool,
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


def _schema_changes(tool: str, old: Any, new: Any, direction: Direction) -> list[LockChange]:
    out: list[LockChange] = []
    if old is None or new is None:
        if old is not None:
            out.append(
                _breaking(
                    tool, "output-schema-removed", "The tool no longer returns structured results."
                )
            )
        elif new is not None:
            out.append(
                _compatible(tool, "output-schema-added", "The tool now returns structured results.")
            )
        return out
    walk = _Walk(tool, direction, old, new, out)
    _compare(walk, old, new, "")
    return out


def _tool_changes(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[LockChange]:
    out: list[LockChange] = []
    new_aliases = set(new.get("aliases", ()))
    for alias in old.get("aliases", ()):
        if alias not in new_aliases:
            out.append(
                _breaking(
                    name, "alias-removed", f"Alias {alias!r} of tool {name!r} no longer resolves."
                )
            )
    for alias in new.get("aliases", ()):
        if alias not in set(old.get("aliases", ())):
            out.append(
                LockChange(name, "alias-added", f"Tool {name!r} gained alias {alias!r}.", False)
            )
    out += _schema_changes(name, old.get("input_schema"), new.get("input_schema"), "input")
    out += _schema_changes(name, old.get("output_schema"), new.get("output_schema"), "output")
    if old.get("description") != new.get("description"):
        out.append(
            _compatible(name, "description-changed", f"Tool {name!r} has a new description.")
        )
    if new.get("deprecated") and not old.get("deprecated"):
        out.append(
            _compatible(
                name, "tool-deprecated", f"Tool {name!r} is now deprecated: {new['deprecated']}"
            )
        )
    if old.get("toolbox") != new.get("toolbox"):
        out.append(
            _compatible(
                name,
                "toolbox-changed",
                f"Tool {name!r} moved from toolbox {old.get('toolbox')!r} "
                f"to {new.get('toolbox')!r}.",
            )
        )
    for key in _METADATA:
        if key in old and key in new and old[key] != new[key]:
            out.append(
                LockChange(
                    name,
                    "metadata-changed",
                    f"Tool {name!r}: {key} {_json_key(old[key])} -> {_json_key(new[key])}.",
                    key in _BREAKING_METADATA,
                )
            )
    if old.get("version") != new.get("version"):
        out.append(
            _compatible(
                name,
                "version-changed",
                f"Tool {name!r}: version {old.get('version')!r} -> {new.get('version')!r}.",
            )
        )
    return out


def _renamed_changes(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[LockChange]:
    # The old name's own entry is gone; what matters is whether calls written
    # for it still fit the tool that now answers to it.
    skip = {"alias-added", "description-changed", "toolbox-changed"}
    return [c for c in _tool_changes(name, old, new) if c.kind not in skip]


def _excuse(
    changes: list[LockChange], old: Mapping[str, Any], new: Mapping[str, Any]
) -> Iterator[LockChange]:
    bumped = is_version_bump(old.get("version"), new.get("version"))
    for change in changes:
        if change.breaking and bumped:
            yield LockChange(
                change.tool,
                change.kind,
                change.message,
                True,
                change.path,
                excused=True,
            )
        else:
            yield change


def _rename_twins(
    old_tools: Mapping[str, Any],
    new_tools: Mapping[str, Any],
    new_by_alias: Mapping[str, str],
) -> dict[str, str]:
    """Pair each vanished tool with the new tool it was most likely renamed to.

    A candidate must take the same arguments; identical results and description
    make it likelier. Candidates are grouped by input schema, so this stays
    linear in the number of tools, not quadratic.
    """
    gone = [n for n in old_tools if n not in new_tools and n not in new_by_alias]
    fresh: dict[str, list[str]] = {}
    for name, entry in new_tools.items():
        if name not in old_tools:
            fresh.setdefault(_json_key(entry.get("input_schema")), []).append(name)
    scored: list[tuple[int, int, str, str]] = []
    for order, name in enumerate(gone):
        entry = old_tools[name]
        for other in fresh.get(_json_key(entry.get("input_schema")), ()):
            candidate = new_tools[other]
            score = 2 * (
                _json_key(candidate.get("output_schema")) == _json_key(entry.get("output_schema"))
            ) + (candidate.get("description") == entry.get("description"))
            scored.append((-score, order, name, other))
    twins: dict[str, str] = {}
    taken: set[str] = set()
    for _, _, name, other in sorted(scored):
        if name not in twins and other not in taken:
            twins[name] = other
            taken.add(other)
    return twins


def compare_locks(old: Mapping[str, Any], new: Mapping[str, Any]) -> LockReport:
    """Every change from the `old` lock document to the `new` one.

    Raises:
        CatalogError: a document is not a toolcast lock file.
    """
    old_tools, new_tools = _tools_of(old, "old"), _tools_of(new, "new")
    changes: list[LockChange] = []
    new_by_alias = {
        alias: name for name, entry in new_tools.items() for alias in entry.get("aliases", ())
    }
    claimed: set[str] = set()
    twins = _rename_twins(old_tools, new_tools, new_by_alias)
    for name, entry in old_tools.items():
        if name in new_tools:
            current = new_tools[name]
            changes += _excuse(_tool_changes(name, entry, current), entry, current)
            continue
        if name in new_by_alias:
            target = new_by_alias[name]
            if target not in old_tools:
                claimed.add(target)
            renamed = _compatible(
                name,
                "tool-renamed-with-alias",
                f"Tool {name!r} was renamed to {target!r}; the old name is kept as an alias.",
            )
            changes += _excuse(
                [renamed, *_renamed_changes(name, entry, new_tools[target])],
                entry,
                new_tools[target],
            )
            continue
        twin = twins.get(name)
        if twin is not None:
            claimed.add(twin)
            renamed = _breaking(
                name,
                "tool-renamed",
                f"Tool {name!r} was renamed to {twin!r}; calls to the old name fail "
                f"(add aliases=[{name!r}] to keep them working).",
            )
            changes += _excuse(
                [renamed, *_renamed_changes(name, entry, new_tools[twin])],
                entry,
                new_tools[twin],
            )
            continue
        changes.append(
            _breaking(
                name,
                "tool-removed",
                f"Tool {name!r} was removed; calls to it fail (deprecate it, or keep "
                "its name as an alias of its replacement).",
            )
        )
    for name in new_tools:
        if name not in old_tools and name not in claimed:
            changes.append(LockChange(name, "tool-added", f"Tool {name!r} was added.", False))
    changes += _toolbox_changes(old.get("toolboxes", {}), new.get("toolboxes", {}))
    return LockReport(tuple(changes))


def _toolbox_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[LockChange]:
    out: list[LockChange] = []
    for name in old:
        if name not in new:
            out.append(
                _breaking(
                    name,
                    "toolbox-removed",
                    f"Toolbox {name!r} was removed; calls to its selector fail.",
                )
            )
    out += [
        LockChange(name, "toolbox-added", f"Toolbox {name!r} was added.", False)
        for name in new
        if name not in old
    ]
    return out


def _tools_of(document: Mapping[str, Any], which: str) -> Mapping[str, Any]:
    if document.get("format") != LOCK_FORMAT:
        msg = f"The {which} document is not a toolcast lock ({LOCK_FORMAT!r})."
        raise CatalogError(msg)
    tools = document.get("tools")
    if not isinstance(tools, Mapping):
        msg = f"The {which} lock document has no 'tools' object."
        raise CatalogError(msg)
    return tools


def check_lock(source: Catalog | ToolSet, locked: Mapping[str, Any]) -> LockReport:
    """Compare a catalog (or tool set) with a lock document read from a file."""
    return compare_locks(locked, lock_document(source))
