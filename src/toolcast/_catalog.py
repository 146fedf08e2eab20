"""`Catalog`, the map from model-visible names to code; `ToolSet`, one model's view.

A catalog holds every tool the host discovered or added, its aliases, toolboxes
and categories; tool names, aliases and toolbox names are unique in it (names that
differ only in case count as the same, because models blur case). `select(...)`
makes an immutable `ToolSet`, and a model's calls are resolved against that set
only: any other name, however close (an alias of a tool outside the set, a case
variant, a look-alike, a selector or deprecated tool left out), gets the same
"Unknown tool" result as a name that never existed, listing only the set's own
tools. Building is linear in the number of tools; validators are not compiled
here (the core compiles them on a tool's first call).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType, ModuleType
from typing import Any, ClassVar

from toolcast._context import ToolContext
from toolcast._discovery import (
    ClassEntry,
    class_tools,
    fingerprint,
    iter_modules,
    origin_of,
    scan_class,
    scan_module,
)
from toolcast._docstring import parse_docstring
from toolcast._function import NAME_PATTERN
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast._toolbox import Toolbox, ToolInfo, make_selector, tool_info
from toolcast.errors import CatalogError
from toolcast.typing import TargetResolver

__all__ = (
    "Catalog",
    "ToolSet",
    "UnknownToolError",
    "unknown_tool_message",
)

MAX_LISTED_TOOLS = 100
"""An unknown-tool message lists at most this many names, then counts the rest."""

_MAX_SHOWN_NAME = 64
_MAX_CACHED_SELECTORS = 1024


# --------------------------------------------------------------------------- errors


def _quote(name: object) -> str:
    # The name comes from a model: escape what cannot be seen (zero-width and
    # control characters) and cut it short so it cannot flood the message.
    text = name if isinstance(name, str) else repr(name)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    text = text.replace("'", "\\'")  # the quotes around it stay unambiguous
    if len(text) > _MAX_SHOWN_NAME:
        text = text[: _MAX_SHOWN_NAME - 1] + "…"
    return f"'{text}'"


def unknown_tool_message(name: object, available: Sequence[str]) -> str:
    """The text for a name that does not resolve, whatever the reason.

    `Unknown tool 'y'. Available tools: a, b, c.` (long lists are cut short).
    """
    if not available:
        return f"Unknown tool {_quote(name)}. No tools are available."
    listed = ", ".join(available[:MAX_LISTED_TOOLS])
    rest = len(available) - MAX_LISTED_TOOLS
    more = f" and {rest} more" if rest > 0 else ""
    return f"Unknown tool {_quote(name)}. Available tools: {listed}{more}."


class UnknownToolError(CatalogError, LookupError):
    """A name does not resolve in a catalog or tool set.

    The message is exactly the error result a model gets; `outcome()` builds it.
    """

    def __init__(self, name: object, available: Sequence[str]) -> None:
        self.name = name
        self.available = tuple(available)
        super().__init__(unknown_tool_message(name, self.available))

    @property
    def message(self) -> str:
        """The model-facing text."""
        return str(self.args[0])

    def outcome(self, *, call_id: str | None = None) -> ToolOutcome:
        """The `unknown_tool` error result for this name."""
        name = self.name if isinstance(self.name, str) else repr(self.name)
        return ToolOutcome.failure("unknown_tool", self.message, tool_name=name, call_id=call_id)


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
        if members == _listed(box):
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
                _flatten(
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
        return f"Catalog({len(self._tools)} tools, {len(self._toolboxes)} toolboxes)"

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
            return _listed(box) if box is not None else ()

        return _next_tools(current, opened, self.resolve, members)

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
            return ToolSet(self, chosen, include_selectors=include_selectors)

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


def _flatten(order: Iterable[Tool | Toolbox], *, primary: bool, deprecated: bool) -> Iterator[Tool]:
    for entry in order:
        if isinstance(entry, Tool):
            if deprecated or entry.spec.deprecated is None:
                yield entry
            continue
        members = [m for m in entry.members if deprecated or m.spec.deprecated is None]
        if not primary:
            yield from members
            continue
        # A selector is shown when it has something to list.
        if any(deprecated or m.spec.deprecated is None for m in _listed(entry)):
            yield entry.selector
        yield from (m for m in members if m.spec.always_available)


def _listed(box: Toolbox) -> tuple[Tool, ...]:
    # What the box's selector lists: a catalog selector skips deprecated members,
    # a set-scoped one lists every member of the set.
    return box.members if box.scoped else tuple(m for m in box.members if m.spec.deprecated is None)


def _next_tools(
    current: Iterable[Tool | str],
    opened: Iterable[str] | str,
    resolve: Callable[[object], Tool],
    members: Callable[[str], tuple[Tool, ...]],
) -> tuple[Tool, ...]:
    out: dict[str, Tool] = {}
    for item in current:
        tool = item if isinstance(item, Tool) else resolve(item)
        out.setdefault(tool.name, tool)
    for name in [opened] if isinstance(opened, str) else opened:
        if isinstance(name, str):
            for tool in members(name):
                out.setdefault(tool.name, tool)
    return tuple(out.values())


# --------------------------------------------------------------------------- tool set


class ToolSet:
    """The tools one model may see and call, fixed when selected.

    Calls resolve against this set only; anything else gets the unknown-tool
    result. Later changes to the catalog do not reach an existing set.
    """

    __slots__ = (
        "_all",
        "_boxes",
        "_catalog",
        "_include_selectors",
        "_index",
        "_members",
        "_visible",
        "_visible_names",
    )

    def __init__(self, catalog: Catalog, tools: Sequence[Tool], *, include_selectors: bool) -> None:
        self._catalog = catalog
        self._all = tuple(tools)
        self._include_selectors = include_selectors
        # Each toolbox's members that are in this set, in the toolbox's order.
        members: dict[str, list[Tool]] = {}
        for tool in self._all:
            box = catalog._box_of.get(tool.name)
            if box is not None:
                members.setdefault(box.name, []).append(tool)
        self._members = {name: tuple(found) for name, found in members.items()}
        self._boxes: Mapping[str, Toolbox] | None = None
        index: dict[str, Tool] = {}
        for tool in self._all:
            index[tool.name] = tool
            for alias in tool.spec.aliases:
                index[alias] = tool
        visible = self._all
        if include_selectors:
            boxes = self._scoped_boxes()
            index.update((name, box.selector) for name, box in boxes.items())
            inside = {t.name for t in self._all}
            order = [
                boxes[e.name] if isinstance(e, Toolbox) else e
                for e in catalog._order
                if (e.name in boxes if isinstance(e, Toolbox) else e.name in inside)
            ]
            visible = tuple(_flatten(order, primary=True, deprecated=True))
        self._index = MappingProxyType(index)
        self._visible = visible
        self._visible_names = tuple(t.name for t in visible)

    def _scoped_boxes(self) -> Mapping[str, Toolbox]:
        # Set-scoped toolboxes: only members in the set, and a selector listing
        # only those, so a selector never reveals a tool the model cannot call.
        # Built on first use: a set without selectors rarely needs them.
        if self._boxes is None:
            catalog = self._catalog
            self._boxes = MappingProxyType(
                {
                    name: catalog._scoped(catalog._toolboxes[name], members)
                    for name, members in self._members.items()
                }
            )
        return self._boxes

    # -- what the model sees --------------------------------------------------------

    def tools(self) -> tuple[Tool, ...]:
        """What the model starts with (selectors first-class when included)."""
        return self._visible

    def names(self) -> tuple[str, ...]:
        """The names of `tools()`, in order."""
        return self._visible_names

    def specs(self) -> tuple[ToolSpec, ...]:
        """The specs of `tools()`, ready for a provider projection."""
        return tuple(t.spec for t in self._visible)

    def all(self, *, include_deprecated: bool = True) -> tuple[Tool, ...]:
        """Every tool in the set (members included, selectors not)."""
        if include_deprecated:
            return self._all
        return tuple(t for t in self._all if t.spec.deprecated is None)

    def __len__(self) -> int:
        return len(self._all)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._all)

    def __repr__(self) -> str:
        return f"ToolSet({list(self._visible_names)!r})"

    # -- resolution -----------------------------------------------------------------

    def get(self, name: object) -> Tool | None:
        """The set's tool called `name` (or aliased so), or None."""
        return self._index.get(name) if isinstance(name, str) else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._index

    def resolve(self, name: object) -> Tool:
        """The set's tool called `name` (exact match, aliases included).

        Raises:
            UnknownToolError: `name` is not in this set; its message (and
                `.outcome()`) is the result the model gets.
        """
        found = self.get(name)
        if found is None:
            raise UnknownToolError(name, self._visible_names)
        return found

    def unknown_tool(self, name: object, *, call_id: str | None = None) -> ToolOutcome:
        """The error result for a call to a name outside this set."""
        return UnknownToolError(name, self._visible_names).outcome(call_id=call_id)

    def info(self, name: str) -> ToolInfo:
        """What a selector says about the set's tool `name`."""
        return tool_info(self.resolve(name))

    # -- calling --------------------------------------------------------------------

    async def invoke(self, call: ToolCall, *, context: ToolContext | None = None) -> ToolOutcome:
        """Resolve `call.name` in this set and run it.

        Never raises for the call's failures: an unknown name is an
        `unknown_tool` result. Calls parsed from a strict projection carry
        `provider_data["null_means_default"]`, which is honoured.
        """
        tool = self.get(call.name)
        if tool is None:
            return self.unknown_tool(call.name, call_id=call.id)
        outcome = await tool.invoke(
            call.arguments,
            context=context,
            call_id=call.id,
            null_means_default=_null_means_default(call),
        )
        return _as_called(outcome, call)

    def invoke_sync(self, call: ToolCall, *, context: ToolContext | None = None) -> ToolOutcome:
        """`invoke` for synchronous hosts."""
        tool = self.get(call.name)
        if tool is None:
            return self.unknown_tool(call.name, call_id=call.id)
        outcome = tool.invoke_sync(
            call.arguments,
            context=context,
            call_id=call.id,
            null_means_default=_null_means_default(call),
        )
        return _as_called(outcome, call)

    # -- toolboxes ------------------------------------------------------------------

    def toolboxes(self) -> tuple[Toolbox, ...]:
        """The toolboxes with members in this set, each limited to those members."""
        return tuple(self._scoped_boxes().values())

    def toolbox_of(self, name: str) -> Toolbox | None:
        """The (set-scoped) toolbox the set's tool `name` belongs to, if any."""
        tool = self.get(name)
        box = self._catalog._box_of.get(tool.name) if tool is not None else None
        return self._scoped_boxes().get(box.name) if box is not None else None

    def is_selector(self, name: str) -> bool:
        """True when `name` is the selector of a toolbox the model can open."""
        return self._include_selectors and name in self._members

    def next_tools(
        self, current: Iterable[Tool | str], opened: Iterable[str] | str
    ) -> tuple[Tool, ...]:
        """The next turn's tools: `current` plus the members of opened toolboxes.

        `opened` holds selector names (other names are ignored, so every name
        called this turn can be passed); only the set's members are added. No
        duplicates; order is kept.

        Raises:
            UnknownToolError: A name in `current` is not in this set.
        """

        def members(name: str) -> tuple[Tool, ...]:
            # Without selectors every member is listed already: nothing to open.
            return self._members.get(name, ()) if self._include_selectors else ()

        return _next_tools(current, opened, self.resolve, members)


def _as_called(outcome: ToolOutcome, call: ToolCall) -> ToolOutcome:
    # A call by alias is answered under the name the model used: some targets
    # (Gemini) correlate results by name.
    if outcome.tool_name == call.name:
        return outcome
    return replace(outcome, tool_name=call.name)


def _null_means_default(call: ToolCall) -> bool:
    return bool(call.provider_data.get("null_means_default", False))
