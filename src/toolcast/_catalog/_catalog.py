"""`Catalog`, the map from model-visible names to code.

A catalog holds every tool the host discovered or added, its aliases, toolboxes
and categories; tool names, aliases and toolbox names are unique in it (names that
differ only in case count as the same, because models blur case). `select(...)`
makes an immutable `ToolSet` (in `_toolset.py`), and a model's calls are resolved
against that set only. Building is linear in the number of tools; validators are
not compiled here (the core compiles them on a tool's first call).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, ClassVar

from toolcast._catalog._discovery import (
    ClassEntry,
    class_tools,
    fingerprint,
    iter_modules,
    origin_of,
    scan_class,
    scan_module,
)
from toolcast._catalog._toolbox import Toolbox, ToolInfo, make_selector, tool_info
from toolcast._catalog._toolset import MAX_LISTED_TOOLS as MAX_LISTED_TOOLS
from toolcast._catalog._toolset import (
    CatalogLayout,
    ToolSet,
    UnknownToolError,
    flatten_tools,
    listed_members,
    next_tools_after,
    unknown_tool_message,
)
from toolcast._define._docstring import parse_docstring
from toolcast._define._names import NAME_PATTERN
from toolcast._tool import TargetResolver, Tool
from toolcast.errors import CatalogError

# ToolSet, UnknownToolError and unknown_tool_message live in `_toolset.py`; they are
# re-exported because the package, the CLI demo, tests and docs import them from here.
__all__ = (
    "Catalog",
    "ToolSet",
    "UnknownToolError",
    "unknown_tool_message",
)

_MAX_CACHED_SELECTORS = 1024


# --------------------------------------------------------------------------- names


@dataclass(frozen=True, slots=True)
class _Claim:
    """Who uses a name: a tool, one of its aliases, or a toolbox."""

    name: str
    kind: str
    owner: str
    origin: str

    def describe(self) -> str:
        if self.kind == "alias":
            return f"alias {self.name!r} of tool {self.owner!r} ({self.origin})"
        return f"{self.kind} {self.name!r} ({self.origin})"


def _collision(first: _Claim, second: _Claim) -> CatalogError:
    if first.origin == second.origin and first.name == second.name:
        msg = f"{second.describe()} is already in the catalog (added twice?)."
    else:
        msg = (
            f"Name {second.name!r} collides: {first.describe()} and "
            f"{second.describe()}. Tool names, aliases and toolbox names must be "
            "unique in a catalog (names that differ only in case count as the same)."
        )
    return CatalogError(msg)


class _Batch:
    """Tools and toolboxes added at once, checked and then committed together.

    A failed add leaves the catalog unchanged.
    """

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.claims: dict[str, _Claim] = {}
        self.tools: list[tuple[Tool, Toolbox | None]] = []
        self.toolboxes: list[Toolbox] = []

    def claim(self, claim: _Claim) -> None:
        key = claim.name.casefold()
        for existing in (self.catalog._claims.get(key), self.claims.get(key)):
            # A tool may carry an alias that differs from its own name only in case.
            if existing is not None and not (
                existing.owner == claim.owner
                and existing.origin == claim.origin
                and claim.kind != existing.kind
            ):
                raise _collision(existing, claim)
        self.claims[key] = claim

    def tool(self, tool: Tool, box: Toolbox | None = None) -> None:
        spec = tool.spec
        origin = origin_of(tool.function)
        self.claim(_Claim(spec.name, "tool", spec.name, origin))
        for alias in dict.fromkeys(spec.aliases):
            if not NAME_PATTERN.match(alias):
                msg = (
                    f"Alias {alias!r} of tool {spec.name!r} ({origin}) must match "
                    "^[A-Za-z0-9_-]{1,64}$."
                )
                raise CatalogError(msg)
            if alias != spec.name:
                self.claim(_Claim(alias, "alias", spec.name, origin))
        self.tools.append((tool, box))

    def prebuilt(self, box: Toolbox) -> None:
        """A toolbox made outside a class (e.g. a gRPC service's tools)."""
        if not NAME_PATTERN.match(box.name):
            msg = f"Toolbox name {box.name!r} ({box.origin}) must match ^[A-Za-z0-9_-]{{1,64}}$."
            raise CatalogError(msg)
        self.claim(_Claim(box.name, "toolbox", box.name, box.origin))
        self.toolboxes.append(box)
        for member in box.members:
            self.tool(member, box)

    def toolbox(self, entry: ClassEntry, resolver: TargetResolver | None) -> None:
        name, origin = entry.toolbox_name, origin_of(entry.cls)
        if not NAME_PATTERN.match(name):
            msg = f"Toolbox name {name!r} ({origin}) must match ^[A-Za-z0-9_-]{{1,64}}$."
            raise CatalogError(msg)
        members = tuple(class_tools(entry, resolver))
        if not members:
            msg = f"Toolbox {name!r} ({origin}) has no @tool methods."
            raise CatalogError(msg)
        self.claim(_Claim(name, "toolbox", name, origin))
        options = entry.toolbox
        description = (options.description if options else None) or _class_doc(entry.cls)
        current = [t for t in members if t.spec.deprecated is None]
        box = Toolbox(
            name,
            description,
            members,
            make_selector(name, description, current),
            origin,
        )
        self.toolboxes.append(box)
        for member in members:
            self.tool(member, box)


def _class_doc(cls: type) -> str:
    return parse_docstring(cls.__doc__).description


# --------------------------------------------------------------------------- catalog


@dataclass(slots=True)
class _CacheEntry:
    catalog: Catalog
    fingerprint: tuple[int, ...]
    resolver: TargetResolver | None  # held so its id() stays unique


class Catalog:
    """Every tool a host offers, by name and alias, with toolboxes and categories.

    Build one with `Catalog.from_modules(...)` (or add tools by hand), then give
    each model a `ToolSet` from `select(...)`. Adding and selecting are guarded by
    a lock; tool sets are immutable and can be shared freely.
    """

    _cache: ClassVar[dict[tuple[Any, ...], _CacheEntry]] = {}
    _cache_lock: ClassVar[threading.RLock] = threading.RLock()

    def __init__(
        self, items: Iterable[object] = (), *, resolver: TargetResolver | None = None
    ) -> None:
        self._resolver = resolver
        self._tools: dict[str, Tool] = {}
        self._rank: dict[str, int] = {}
        self._names: dict[str, Tool] = {}
        self._claims: dict[str, _Claim] = {}
        self._toolboxes: dict[str, Toolbox] = {}
        self._box_of: dict[str, Toolbox] = {}
        self._categories: dict[str, list[Tool]] = {}
        self._required: list[Tool] = []  # in every tool set; kept apart so select stays O(set)
        self._order: list[Tool | Toolbox] = []
        self._views: dict[tuple[str, bool], tuple[Tool, ...]] = {}
        self._cache_key: tuple[Any, ...] | None = None
        self._selectors: dict[tuple[str, tuple[str, ...]], Tool] = {}
        self._lock = threading.RLock()
        self._layout = CatalogLayout(self._order, self._toolboxes, self._box_of, self._scoped)
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise TypeError(_not_a_list(items))
        for item in items:
            self.add(item)

    # -- building -------------------------------------------------------------------

    @classmethod
    def from_modules(
        cls,
        *modules: ModuleType | str,
        recursive: bool = False,
        resolver: TargetResolver | None = None,
        cache: bool = True,
    ) -> Catalog:
        """The catalog of every `@tool` the given modules define.

        Args:
            *modules: Modules (or dotted names) to scan, in the order tools are listed.
            recursive: Also scan every submodule of each package given.
            resolver: `(tool, call) -> instance` for method tools, e.g.
                `FixedResolver(obj)` or `FactoryResolver(container.resolve)`.
            cache: Return the catalog built earlier for the same modules and
                resolver (rebuilt if a module was reloaded; dropped once changed
                by `add`).

        Raises:
            CatalogError: Two definitions claim one name, or method tools have no
                resolver.
        """
        scanned = iter_modules(modules, recursive=recursive)
        if not cache:
            return cls._build(scanned, resolver)
        key = (tuple((m.__name__, id(m)) for m in scanned), recursive, id(resolver))
        with cls._cache_lock:
            current = fingerprint(scanned)
            entry = cls._cache.get(key)
            if entry is not None and entry.fingerprint == current:
                return entry.catalog
            catalog = cls._build(scanned, resolver)
            catalog._cache_key = key
            cls._cache[key] = _CacheEntry(catalog, current, resolver)
            return catalog

    @classmethod
    def _build(cls, modules: Sequence[ModuleType], resolver: TargetResolver | None) -> Catalog:
        catalog = cls(resolver=resolver)
        batch = _Batch(catalog)
        for module in modules:
            catalog._scan_into(batch, module)
        catalog._commit(batch)
        return catalog

    @classmethod
    def clear_cache(cls) -> None:
        """Forget every catalog `from_modules` cached."""
        with cls._cache_lock:
            for entry in cls._cache.values():
                entry.catalog._cache_key = None
            cls._cache.clear()

    def _scan_into(self, batch: _Batch, module: ModuleType) -> None:
        for item in scan_module(module):
            if isinstance(item, ClassEntry):
                self._class_into(batch, item, self._resolver)
            else:
                batch.tool(Tool.from_function(item))

    def _class_into(
        self, batch: _Batch, entry: ClassEntry, resolver: TargetResolver | None
    ) -> None:
        if entry.toolbox is not None:
            batch.toolbox(entry, resolver)
        else:
            for tool in class_tools(entry, resolver):
                batch.tool(tool)

    def add(self, item: object, *, resolver: TargetResolver | None = None) -> None:
        """Add a Tool, a function, a bound method or closure, a class, or a module.

        `@tool(register=False)` functions are added too: the flag only keeps them
        out of module scanning. A class contributes its own `@tool` methods (as a
        toolbox when it is one); unbound methods run on what `resolver` (else the
        catalog's resolver) returns.

        Raises:
            CatalogError: A name is already taken; the catalog is left unchanged.
        """
        with self._lock:
            self._add(item, resolver if resolver is not None else self._resolver)
        if self._cache_key is not None:
            # This catalog is no longer "the catalog of those modules".
            with self._cache_lock:
                entry = self._cache.get(self._cache_key)
                if entry is not None and entry.catalog is self:
                    del self._cache[self._cache_key]
            self._cache_key = None

    def _add(self, item: object, resolver: TargetResolver | None) -> None:
        batch = _Batch(self)
        if isinstance(item, Tool):
            batch.tool(item)
        elif isinstance(item, Toolbox):
            batch.prebuilt(item)
        elif isinstance(item, ModuleType):
            self._scan_into(batch, item)
        elif isinstance(item, type):
            scanned = scan_class(item)
            if not scanned.members and scanned.toolbox is None:
                msg = f"{origin_of(item)} has no @tool methods to add."
                raise CatalogError(msg)
            self._class_into(batch, scanned, resolver)
        elif callable(item):
            batch.tool(self._tool_from_callable(item, resolver))
        else:
            msg = f"Cannot add a {type(item).__name__} to a catalog."
            raise CatalogError(msg)
        self._commit(batch)

    @staticmethod
    def _tool_from_callable(item: Any, resolver: TargetResolver | None) -> Tool:
        # The resolver is only consulted when `item` turns out to be an unbound
        # method; a ClassResolver finds the class through owner_class() per call.
        if resolver is None:
            return Tool.from_function(item)
        return Tool.from_function(item, resolver=resolver)

    def _commit(self, batch: _Batch) -> None:
        for added in batch.toolboxes:
            self._toolboxes[added.name] = added
            self._names[added.name] = added.selector
        seen_boxes: set[str] = set()
        for tool, box in batch.tools:
            spec = tool.spec
            self._rank[spec.name] = len(self._tools)
            self._tools[spec.name] = tool
            self._names[spec.name] = tool
            for alias in spec.aliases:
                self._names[alias] = tool
            for category in spec.categories:
                self._categories.setdefault(category, []).append(tool)
            if spec.required:
                self._required.append(tool)
            if box is None:
                self._order.append(tool)
                continue
            self._box_of[spec.name] = box
            if box.name not in seen_boxes:
                seen_boxes.add(box.name)
                self._order.append(box)
        self._claims.update(batch.claims)
        self._views.clear()

    def _scoped(self, box: Toolbox, members: tuple[Tool, ...]) -> Toolbox:
        """`box` limited to `members`, with a selector listing exactly those."""
        if members == listed_members(box):
            # The catalog's own selector already lists exactly these.
            return replace(box, members=members, scoped=True)
        # Tool sets with the same members share a selector (sets are often made
        # per request; a selector is a Tool, not free to build).
        key = (box.name, tuple(t.name for t in members))
        with self._lock:
            selector = self._selectors.get(key)
            if selector is None:
                if len(self._selectors) >= _MAX_CACHED_SELECTORS:
                    self._selectors.clear()
                selector = make_selector(box.name, box.description, members)
                self._selectors[key] = selector
        return replace(box, members=members, selector=selector, scoped=True)

    # -- views ----------------------------------------------------------------------

    def _view(self, kind: str, include_deprecated: bool) -> tuple[Tool, ...]:
        key = (kind, include_deprecated)
        cached = self._views.get(key)
        if cached is None:
            with self._lock:
                return self._view_locked(key)
        return cached

    def _view_locked(self, key: tuple[str, bool]) -> tuple[Tool, ...]:
        kind, include_deprecated = key
        cached = self._views.get(key)
        if cached is None:
            cached = tuple(
                flatten_tools(
                    self._order,
                    primary=kind == "primary",
                    deprecated=include_deprecated,
                )
            )
            self._views[key] = cached
        return cached

    def primary(self, *, include_deprecated: bool = False) -> tuple[Tool, ...]:
        """What a model starts with.

        Tools outside toolboxes, each toolbox's selector, and members marked
        `always_available`.
        """
        return self._view("primary", include_deprecated)

    def all(self, *, include_deprecated: bool = False) -> tuple[Tool, ...]:
        """Every tool, toolbox members included, selectors not."""
        return self._view("all", include_deprecated)

    def resolve(self, name: object) -> Tool:
        """The tool (or toolbox selector) called `name` or aliased so.

        Deprecated tools resolve too, so old transcripts keep working.

        Raises:
            UnknownToolError: No such name (the message lists the primary view).
        """
        found = self._names.get(name) if isinstance(name, str) else None
        if found is None:
            raise UnknownToolError(name, [t.name for t in self.primary()])
        return found

    def get(self, name: object) -> Tool | None:
        """The tool called `name` (or aliased so), or None."""
        return self._names.get(name) if isinstance(name, str) else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._names

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.all(include_deprecated=True))

    def __repr__(self) -> str:
        tools, boxes = len(self._tools), len(self._toolboxes)
        return (
            f"Catalog({tools} tool{'' if tools == 1 else 's'}, "
            f"{boxes} toolbox{'' if boxes == 1 else 'es'})"
        )

    def info(self, name: str) -> ToolInfo:
        """What a selector would say about tool `name` (deprecation included)."""
        return tool_info(self.resolve(name))

    def toolboxes(self) -> tuple[Toolbox, ...]:
        """Every toolbox, in definition order."""
        return tuple(self._toolboxes.values())

    def toolbox(self, name: str) -> Toolbox:
        """The toolbox called `name`.

        Raises:
            CatalogError: No toolbox has that name.
        """
        box = self._toolboxes.get(name)
        if box is None:
            known = ", ".join(self._toolboxes) or "none"
            msg = f"Unknown toolbox {name!r}. Toolboxes: {known}."
            raise CatalogError(msg)
        return box

    def toolbox_of(self, name: str) -> Toolbox | None:
        """The toolbox tool `name` belongs to, if any."""
        tool = self.get(name)
        return self._box_of.get(tool.name) if tool is not None else None

    def is_selector(self, name: str) -> bool:
        """True when `name` is a toolbox selector."""
        return name in self._toolboxes

    def categories(self) -> tuple[str, ...]:
        """Every category used by a tool, sorted."""
        return tuple(sorted(self._categories))

    def by_category(self, name: str, *, include_deprecated: bool = False) -> tuple[Tool, ...]:
        """The tools labelled `name` (exact, case-sensitive), members included."""
        tools = self._categories.get(name, ())
        return tuple(t for t in tools if include_deprecated or t.spec.deprecated is None)

    def next_tools(
        self, current: Iterable[Tool | str], opened: Iterable[str] | str
    ) -> tuple[Tool, ...]:
        """The next turn's tools: `current` plus the members of opened toolboxes.

        `opened` holds selector names (other names are ignored, so every name
        called this turn can be passed). No duplicates; order is kept.
        """

        def members(name: str) -> tuple[Tool, ...]:
            box = self._toolboxes.get(name)
            return listed_members(box) if box is not None else ()

        return next_tools_after(current, opened, self.resolve, members)

    # -- selection ------------------------------------------------------------------

    def select(
        self,
        *,
        categories: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        include_selectors: bool = False,
        include_deprecated: bool = False,
    ) -> ToolSet:
        """The tool set for one model profile.

        With neither `categories` nor `names`, every tool is selected; otherwise
        the union of the tools in any category given and the tools named (a
        toolbox name selects its members). Tools marked `required` are always in.
        Deprecated tools are left out unless `include_deprecated` or named.

        Args:
            categories: Category labels (exact, case-sensitive).
            names: Tool names, aliases or toolbox names.
            include_selectors: Show toolbox members behind their selectors (the
                model opens a toolbox first) instead of listing them directly.
            include_deprecated: Keep deprecated tools in the set.

        Raises:
            CatalogError: A category or name is unknown (a typo in the host's
                profile should fail at startup, not go silently missing).
        """
        with self._lock:
            chosen = self._choose(categories, names, include_deprecated)
            return ToolSet(self._layout, chosen, include_selectors=include_selectors)

    def _choose(
        self,
        categories: Iterable[str] | None,
        names: Iterable[str] | None,
        include_deprecated: bool,
    ) -> list[Tool]:
        def keep(tool: Tool) -> bool:
            return include_deprecated or tool.spec.deprecated is None

        chosen: dict[str, Tool] = {}
        if categories is None and names is None:
            chosen = {t.name: t for t in self._tools.values() if keep(t)}
        for category in _strings(categories, "categories"):
            if category not in self._categories:
                known = ", ".join(self.categories()) or "none"
                msg = f"Unknown category {category!r}. Categories: {known}."
                raise CatalogError(msg)
            chosen.update((t.name, t) for t in self._categories[category] if keep(t))
        for name in _strings(names, "names"):
            box = self._toolboxes.get(name)
            if box is not None:
                chosen.update((t.name, t) for t in box.members if keep(t))
                continue
            tool = self._names.get(name)
            if tool is None:
                msg = f"Cannot select unknown tool or toolbox {name!r}."
                raise CatalogError(msg)
            chosen[tool.name] = tool  # named explicitly: kept even when deprecated
        chosen.update((t.name, t) for t in self._required)
        return sorted(chosen.values(), key=lambda t: self._rank[t.name])


def _strings(values: Iterable[str] | None, what: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        # A bare string would be read letter by letter.
        msg = f"{what} must be a list of strings, not a string."
        raise CatalogError(msg)
    return list(values)


def _not_a_list(given: object) -> str:
    """What to do when `Catalog(...)` gets one item instead of a list (as `format_tools`)."""
    if isinstance(given, ModuleType):
        return f"Pass a list of tools, not a module: Catalog.from_modules({given.__name__})."
    kind = (
        "class" if isinstance(given, type)
        else "Tool" if isinstance(given, Tool)
        else "function" if callable(given)
        else type(given).__name__
    )  # fmt: skip
    name = getattr(given, "__name__", None) or getattr(getattr(given, "spec", None), "name", "")
    return f"Pass a list of tools, not one {kind}: Catalog([{name or '...'}])."
