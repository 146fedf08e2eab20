"""The MCP server behind `providers.mcp.create_server` and `toolcast serve`.

One endpoint serves both protocol eras, on the SDK's dual-era runner:

- **Handshake era** (`initialize`, 2025-11-25 and earlier): each session (a stdio
  connection, a streamable-HTTP `Mcp-Session-Id`) has its own state: the tools it
  can see (opening a toolbox adds the members and sends
  `notifications/tools/list_changed`), its alias session and its log level;
  approvals go through elicitation.
- **2026-07-28** (no handshake, `_meta` on every request): nothing lives in a
  session, so any replica can answer any request. `tools/list` is the same for
  every client (cacheable), toolboxes reveal their members through the selector's
  result plus a sealed handle, approvals are multi round-trip requests, aliases
  live in a shared store (see `_mcp_stateless`).

The wire shapes (`tools/list` entries, `CallToolResult`s) come from
`providers.mcp` through a `ServerWire`, so this module never imports it.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from toolcast._catalog._catalog import Catalog, ToolSet
from toolcast._catalog._toolset import unknown_tool_message
from toolcast._context import ToolContext
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.aliases import AliasSession
from toolcast.errors import CatalogError
from toolcast.providers._mcp_calls import INSTALL_HINT, approved_run, decide_call, invoke_call
from toolcast.providers._mcp_housekeeping import add_housekeeping
from toolcast.providers._mcp_stateless import TOOLBOXES_META_KEY, StatelessState
from toolcast.providers._mcp_tasks import (
    ProgressHook,
    TaskJob,
    Tasks,
    add_task_methods,
    run_as_task,
)

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ("INSTALL_HINT", "McpSession", "ServerWire", "build_server")


@dataclass(frozen=True, slots=True)
class ServerWire:
    """The MCP wire shapes the server sends, supplied by `providers.mcp`."""

    list_tools: Callable[[Iterable[Any], str], list[dict[str, Any]]]
    """`(tools, protocol_version) -> [MCP Tool dict]`."""
    result: Callable[[ToolOutcome, Any, str], dict[str, Any]]
    """`(outcome, tool, protocol_version) -> CallToolResult dict`."""
    versions: tuple[str, ...]
    """The revisions `providers.mcp` writes for, oldest first."""


# --------------------------------------------------------------------------- tools


class _Source:
    """What the server serves: a tool set (with toolboxes) or a flat list of tools."""

    def __init__(self, tools: Any, *, toolboxes: bool) -> None:
        self.toolset: ToolSet | None = None
        self.by_name: dict[str, Any] = {}
        if isinstance(tools, Catalog):
            tools = tools.select(include_selectors=toolboxes)
        if isinstance(tools, ToolSet):
            self.toolset = tools
            self.initial: tuple[Any, ...] = tools.tools()
            return
        listed = []
        for tool in tools:
            if not callable(getattr(tool, "invoke", None)):
                msg = (
                    f"{type(tool).__name__} cannot be served: pass Tools "
                    "(with an invoke method), not bare ToolSpecs."
                )
                raise TypeError(msg)
            listed.append(tool)
            for key in (tool.spec.name, *tool.spec.aliases):
                if key in self.by_name:
                    msg = f"Two tools answer to the name {key!r}; MCP names must be unique."
                    raise CatalogError(msg)
                self.by_name[key] = tool
        self.initial = tuple(listed)

    def all_tools(self) -> bool:
        """True when every item is a toolcast `Tool` (aliases need one)."""
        return all(isinstance(t, Tool) for t in self.flat())

    def flat(self) -> tuple[Any, ...]:
        """Every tool, members listed directly: the view without sessions."""
        return self.initial if self.toolset is None else self.toolset.all()

    @property
    def has_toolboxes(self) -> bool:
        return self.toolset is not None and bool(self.toolset.toolboxes())

    def get(self, name: str) -> Any:
        if self.toolset is not None:
            return self.toolset.get(name)
        return self.by_name.get(name)

    def opened(self, visible: tuple[Any, ...], name: str) -> tuple[Any, ...] | None:
        """The session's next tools after calling `name`, or None when nothing changes."""
        if self.toolset is None or not self.toolset.is_selector(name):
            return None
        after = self.toolset.next_tools(visible, [name])
        return after if len(after) > len(visible) else None

    def open_all(self, visible: tuple[Any, ...], names: frozenset[str]) -> tuple[Any, ...]:
        """`visible` plus the members of the toolboxes `names` (unknown names ignored)."""
        if self.toolset is None:
            return visible
        known = [name for name in sorted(names) if self.toolset.is_selector(name)]
        return self.toolset.next_tools(visible, known) if known else visible

    def spec_of(self, name: str) -> ToolSpec | None:
        found = self.get(name)
        return None if found is None else found.spec


# --------------------------------------------------------------------------- sessions


@dataclass(eq=False)
class McpSession:
    """One MCP session's state (or one 2026-07-28 request's): tools, aliases, log level."""

    visible: tuple[Any, ...]
    aliases: Any = None
    stateless: bool = False
    """A 2026-07-28 request: no session, nothing persists in this process."""
    opened: frozenset[str] = frozenset()
    """2026-07-28: the toolboxes the request's handle names."""
    log_level: str = "info"
    """Handshake era: the lowest level `logging/setLevel` asked for."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def names(self) -> tuple[str, ...]:
        return tuple(t.spec.name for t in self.visible)

    def resolve(self, source: _Source, name: str) -> Any:
        """The tool `name` names for this session, or None (not open, or unknown).

        A 2026-07-28 request may call any member by name: nothing records what a
        client opened, so the listing discloses and the policy decides.
        """
        tool = source.get(name)
        if tool is None or (not self.stateless and tool.spec.name not in self.names()):
            return None
        return tool


class _Sessions:
    """Session state keyed by the connection's `initialize` params object.

    The SDK gives handlers no handle on the connection itself; the params the
    client sent in `initialize` are one object per connection for its whole life,
    so they identify it, and a weak reference drops the state with the connection.
    A 2026-07-28 request gets a fresh state built from its own `_meta`.
    """

    def __init__(
        self,
        make: Callable[[], McpSession],
        source: _Source,
        state: StatelessState,
        modern: frozenset[str],
    ) -> None:
        self._make = make
        self._source = source
        self._state = state
        self._modern = modern
        self._by_key: dict[int, McpSession] = {}
        self._fallback: McpSession | None = None

    def __len__(self) -> int:
        return len(self._by_key)

    def of(self, ctx: Any) -> McpSession:
        if getattr(ctx, "protocol_version", None) in self._modern:
            return self._per_request(ctx)
        key = getattr(ctx.session, "client_params", None)
        if key is None:  # not reachable after the handshake; one shared state then
            if self._fallback is None:
                self._fallback = self._make()
            return self._fallback
        found = self._by_key.get(id(key))
        if found is None:
            found = self._by_key[id(key)] = self._make()
            weakref.finalize(key, self._by_key.pop, id(key), None)
        return found

    def _per_request(self, ctx: Any) -> McpSession:
        meta = getattr(ctx, "meta", None)
        opened = self._state.opened_toolboxes(meta) if self._source.has_toolboxes else frozenset()
        visible = self._source.initial
        if opened:
            visible = self._source.open_all(visible, opened)
        aliases = self._state.aliases(meta) if self._source.all_tools() else None
        return McpSession(visible, aliases, stateless=True, opened=opened)


# --------------------------------------------------------------------------- server


def build_server(
    tools: Any,
    wire: ServerWire,
    *,
    name: str = "toolcast",
    version: str = "",
    instructions: str | None = None,
    context: ToolContext | None = None,
    policy: Any = None,
    toolboxes: bool = True,
    aliases: Callable[[], Any] | None = None,
    state: StatelessState | None = None,
    list_ttl: float = 300.0,
    tasks: Tasks | None = None,
) -> Server[Any]:
    """An MCP low-level `Server` running `tools` in both protocol eras.

    See `providers.mcp.create_server` for the arguments.
    """
    try:
        import mcp.types as mcp_types
        from mcp.server.caching import CacheHint
        from mcp.server.lowlevel import NotificationOptions, Server
        from mcp.shared.exceptions import MCPError
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS
    except ImportError:
        raise ImportError(INSTALL_HINT) from None

    source = _Source(tools, toolboxes=toolboxes)
    base = context or ToolContext()
    shared = state if state is not None else StatelessState(name)
    if aliases is None and source.all_tools():
        # A throwaway AliasSession: private to the MCP session, gone with it.
        aliases = functools.partial(AliasSession, "")

    def new_session() -> McpSession:
        return McpSession(source.initial, aliases() if aliases is not None else None)

    modern = frozenset(MODERN_PROTOCOL_VERSIONS)
    sessions = _Sessions(new_session, source, shared, modern)

    def negotiated(ctx: Any) -> str:
        found = getattr(ctx, "protocol_version", None)
        return found if found in wire.versions else wire.versions[-1]

    async def list_tools(
        ctx: Any, params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        session = sessions.of(ctx)
        listed = wire.list_tools(session.visible, negotiated(ctx))
        result = mcp_types.ListToolsResult(
            tools=[mcp_types.Tool.model_validate(tool) for tool in listed]
        )
        if session.opened:
            # A list that depends on the request's handle: not for a shared cache.
            result = result.model_copy(update={"ttl_ms": 0, "cache_scope": "private"})
        return result

    async def _as_task(
        tasks: Tasks, ctx: Any, tool: Any, call: ToolCall, session: McpSession
    ) -> dict[str, Any]:
        version = negotiated(ctx)

        async def decide() -> tuple[str, str] | ToolOutcome:
            return await decide_call(policy, tool, call, session)

        async def run(progress: ProgressHook) -> ToolOutcome:
            context = ToolContext(
                call_id=call.id, tool_name=call.name, state=base.state, progress_hook=progress
            )
            return await invoke_call(tool, call, session, context)

        def finish(outcome: ToolOutcome) -> dict[str, Any]:
            return wire.result(outcome, tool, version)

        return await tasks.start(TaskJob(call, decide, run, finish))

    async def call_tool(
        ctx: Any, params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
        session = sessions.of(ctx)
        tool = session.resolve(source, params.name)
        if tool is None:
            message = unknown_tool_message(params.name, session.names())
            raise MCPError(mcp_types.INVALID_PARAMS, message)
        request_id = getattr(ctx, "request_id", None)
        call_id = "call" if request_id is None else str(request_id)
        arguments = params.arguments if params.arguments is not None else {}
        call = ToolCall(call_id, params.name, arguments)
        if tasks is not None and run_as_task(tasks, ctx, tool, modern=session.stateless):
            # A `CreateTaskResult` (an extension's `resultType`): the runner sends a
            # mapping as it is, though the SDK's handler type names core results only.
            return cast("mcp_types.CallToolResult", await _as_task(tasks, ctx, tool, call, session))
        outcome = await approved_run(ctx, params, tool, call, session, policy, base, shared)
        if not isinstance(outcome, ToolOutcome):
            asked: mcp_types.InputRequiredResult = outcome  # the approval round trip
            return asked
        result = wire.result(outcome, tool, negotiated(ctx))
        if not outcome.is_error:
            await _opened(ctx, source, session, shared, tool, result)
        return mcp_types.CallToolResult.model_validate(result)

    def input_schema(tool_name: str) -> Mapping[str, Any] | None:
        spec = source.spec_of(tool_name)
        return None if spec is None else spec.input_schema

    tools_change = source.has_toolboxes

    class _Server(Server[Any]):
        def create_initialization_options(
            self, notification_options: Any = None, *args: Any, **kwargs: Any
        ) -> Any:
            options = notification_options or NotificationOptions(tools_changed=tools_change)
            return super().create_initialization_options(options, *args, **kwargs)

    server = _Server(
        name,
        version=version,
        instructions=instructions,
        cache_hints={"tools/list": CacheHint(ttl_ms=int(list_ttl * 1000), scope="public")},
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    add_housekeeping(server, sessions)
    if tasks is not None:
        add_task_methods(server, tasks)
    # Seals every outgoing `requestState`, verifies (and binds) every echoed one.
    server.middleware.append(shared.boundary)
    return server


async def _opened(
    ctx: Any,
    source: _Source,
    session: McpSession,
    state: StatelessState,
    tool: Any,
    result: dict[str, Any],
) -> None:
    """After a selector ran: add its members to the session, or hand out a handle."""
    import mcp.types as mcp_types

    if source.toolset is None or not source.toolset.is_selector(tool.spec.name):
        return
    if session.stateless:
        meta = dict(result.get("_meta") or {})
        meta[TOOLBOXES_META_KEY] = state.seal_toolboxes({*session.opened, tool.spec.name})
        result["_meta"] = meta
        return
    async with session.lock:
        after = source.opened(session.visible, tool.spec.name)
        if after is not None:
            session.visible = after
    if after is not None:
        # Request-scoped, so it travels before the result on the call's own
        # stream (the standalone HTTP stream may not be open yet).
        await ctx.session.send_notification(
            mcp_types.ToolListChangedNotification(), related_request_id=ctx.request_id
        )
