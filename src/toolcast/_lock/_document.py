"""The lock document: every tool's contract, and how two documents compare.

`lock_document` records each tool's spec (schemas, aliases, toolbox, metadata);
`compare_locks` classifies each change between two documents as breaking (a model
prompt or an old transcript stops working: tool or argument removed or renamed,
new required argument, type narrowed, enum value removed, constraint tightened) or
compatible. A breaking change is accepted only when the tool's `version` was
bumped; removing a tool or a toolbox never is (keep the old name as an alias or
deprecate the tool instead, or lock again to accept). Input schemas are compared
contravariantly (the model sends, so narrowing breaks); output schemas covariantly
(the host reads, so widening breaks); that schema comparison lives in
`_schemadiff.py`. The commands live in `_lock.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolcast._frozen import thaw
from toolcast._lock._schemadiff import Direction, json_key, schema_changes
from toolcast.errors import CatalogError

if TYPE_CHECKING:
    from toolcast._catalog._catalog import Catalog, ToolSet

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
    "idempotent",
    "long_running",
    "strict",
    "envelope",
)
# The envelope wraps every result in {"schema", "result"}: readers of the old
# shape break.
_BREAKING_METADATA = frozenset({"envelope"})


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


def _schema_changes(tool: str, old: Any, new: Any, direction: Direction) -> list[LockChange]:
    return [
        LockChange(tool, c.kind, c.message, c.breaking, c.path)
        for c in schema_changes(old, new, direction)
    ]


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
                    f"Tool {name!r}: {key} {json_key(old[key])} -> {json_key(new[key])}.",
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
            fresh.setdefault(json_key(entry.get("input_schema")), []).append(name)
    scored: list[tuple[int, int, str, str]] = []
    for order, name in enumerate(gone):
        entry = old_tools[name]
        for other in fresh.get(json_key(entry.get("input_schema")), ()):
            candidate = new_tools[other]
            score = 2 * (
                json_key(candidate.get("output_schema")) == json_key(entry.get("output_schema"))
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
