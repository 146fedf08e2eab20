"""`ToolSet`, one model's view of a catalog, and the unknown-tool answer.

A tool set is what `Catalog.select(...)` returns: the tools one model may see
and call, fixed when selected, indexed by name and alias. A model's calls
are resolved against that set only: any other name, however close (an alias of a
tool outside the set, a case variant, a look-alike, a selector or deprecated tool
left out), gets the same "Unknown tool" result as a name that never existed,
listing only the set's own tools. The helpers that turn a catalog's definition
order into what a model sees (`flatten_tools`, `listed_members`, `next_tools_after`) live here too,
since the catalog's own views use them the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from toolcast._catalog._toolbox import Toolbox, ToolInfo, tool_info
from toolcast._context import ToolContext
from toolcast._outcome import ToolOutcome, refused_call
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.aliases._required import RawIds
from toolcast.aliases._session import AliasSession
from toolcast.errors import CatalogError


@dataclass(frozen=True)
class CatalogLayout:
    """What a tool set reads of the catalog that made it (shared, not copied).

    The catalog imports this module to build tool sets, so the set sees the
    catalog through this view instead of importing it.
    """

    order: Sequence[Tool | Toolbox]
    toolboxes: Mapping[str, Toolbox]
    box_of: Mapping[str, Toolbox]
    scope: Callable[[Toolbox, tuple[Tool, ...]], Toolbox]


__all__ = (
    "ToolSet",
    "UnknownToolError",
    "unknown_tool_message",
)

MAX_LISTED_TOOLS = 100
"""An unknown-tool message lists at most this many names, then counts the rest."""

_MAX_SHOWN_NAME = 64


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


# --------------------------------------------------------------------------- views


def flatten_tools(
    order: Iterable[Tool | Toolbox], *, primary: bool, deprecated: bool
) -> Iterator[Tool]:
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
        if any(deprecated or m.spec.deprecated is None for m in listed_members(entry)):
            yield entry.selector
        yield from (m for m in members if m.spec.always_available)


def listed_members(box: Toolbox) -> tuple[Tool, ...]:
    # What the box's selector lists: a catalog selector skips deprecated members,
    # a set-scoped one lists every member of the set.
    return box.members if box.scoped else tuple(m for m in box.members if m.spec.deprecated is None)


def next_tools_after(
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

    def __init__(
        self, catalog: CatalogLayout, tools: Sequence[Tool], *, include_selectors: bool
    ) -> None:
        self._catalog = catalog
        self._all = tuple(tools)
        self._include_selectors = include_selectors
        # Each toolbox's members that are in this set, in the toolbox's order.
        members: dict[str, list[Tool]] = {}
        for tool in self._all:
            box = catalog.box_of.get(tool.name)
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
                for e in catalog.order
                if (e.name in boxes if isinstance(e, Toolbox) else e.name in inside)
            ]
            visible = tuple(flatten_tools(order, primary=True, deprecated=True))
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
                    name: catalog.scope(catalog.toolboxes[name], members)
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

    def unknown_tool(
        self, name: object, *, call_id: str | None = None, offered: Iterable[Tool] | None = None
    ) -> ToolOutcome:
        """The error result for a call to a name outside this set (or outside `offered`)."""
        names = self._visible_names if offered is None else tuple(t.name for t in offered)
        return UnknownToolError(name, names).outcome(call_id=call_id)

    def _offered(self, name: str, offered: Iterable[Tool] | None) -> Tool | None:
        # With `offered` (what `next_tools` gave the model this turn), a member of an
        # unopened toolbox is as unknown as a name that never existed, as in `run()`.
        tool = self.get(name)
        if tool is None or offered is None:
            return tool
        return tool if any(t.name == tool.name for t in offered) else None

    def info(self, name: str) -> ToolInfo:
        """What a selector says about the set's tool `name`."""
        return tool_info(self.resolve(name))

    # -- calling --------------------------------------------------------------------

    async def invoke(
        self,
        call: ToolCall,
        *,
        context: ToolContext | None = None,
        call_id: str | None = None,
        null_means_default: bool | None = None,
        aliases: AliasSession | RawIds | None = None,
        offered: Sequence[Tool] | None = None,
    ) -> ToolOutcome:
        """Resolve `call.name` in this set and run it (the options of `Tool.invoke`).

        Never raises for the call's failures: an unknown name is an
        `unknown_tool` result. Calls parsed from a strict projection carry
        `provider_data["null_means_default"]`, which is honoured. `offered`: the
        tools the model was given this turn (`next_tools`); a call outside them is
        unknown, and its answer lists them, opened toolbox members included.

        Raises:
            TypeError: `call` is not a `ToolCall` (a host mistake).
        """
        _check_call(call)
        refused = refused_call(call.id, call.name, call.provider_data)
        if refused is not None:  # the provider parser could not read the call whole
            return refused
        tool = self._offered(call.name, offered)
        if tool is None:
            return self.unknown_tool(call.name, call_id=call.id, offered=offered)
        outcome = await tool.invoke(
            call,
            context=context,
            call_id=call_id,
            null_means_default=null_means_default,
            aliases=aliases,
        )
        return _as_called(outcome, call)

    def invoke_sync(
        self,
        call: ToolCall,
        *,
        context: ToolContext | None = None,
        call_id: str | None = None,
        null_means_default: bool | None = None,
        aliases: AliasSession | RawIds | None = None,
        offered: Sequence[Tool] | None = None,
    ) -> ToolOutcome:
        """`invoke` for synchronous hosts."""
        _check_call(call)
        refused = refused_call(call.id, call.name, call.provider_data)
        if refused is not None:
            return refused
        tool = self._offered(call.name, offered)
        if tool is None:
            return self.unknown_tool(call.name, call_id=call.id, offered=offered)
        outcome = tool.invoke_sync(
            call,
            context=context,
            call_id=call_id,
            null_means_default=null_means_default,
            aliases=aliases,
        )
        return _as_called(outcome, call)

    # -- toolboxes ------------------------------------------------------------------

    def toolboxes(self) -> tuple[Toolbox, ...]:
        """The toolboxes with members in this set, each limited to those members."""
        return tuple(self._scoped_boxes().values())

    def toolbox_of(self, name: str) -> Toolbox | None:
        """The (set-scoped) toolbox the set's tool `name` belongs to, if any."""
        tool = self.get(name)
        box = self._catalog.box_of.get(tool.name) if tool is not None else None
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

        return next_tools_after(current, opened, self.resolve, members)


def _as_called(outcome: ToolOutcome, call: ToolCall) -> ToolOutcome:
    # A call by alias is answered under the name the model used: some targets
    # (Gemini) correlate results by name.
    if outcome.tool_name == call.name:
        return outcome
    return replace(outcome, tool_name=call.name)


def _check_call(call: object) -> None:
    if not isinstance(call, ToolCall):
        msg = (
            f"ToolSet.invoke takes a ToolCall (from a provider's parse_calls, or "
            f"ToolCall(id, name, arguments)), got {type(call).__name__}; to run bare "
            "arguments, use tools.resolve(name).invoke(arguments)."
        )
        raise TypeError(msg)
