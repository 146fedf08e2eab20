"""The MCP server behind `providers.mcp.create_server` and `toolcast serve`.

Each MCP session (a stdio connection, a streamable-HTTP `Mcp-Session-Id`) gets
its own state: the tools it can see (opening a toolbox adds the members and
sends `notifications/tools/list_changed`) and its alias session. Sessions exist
only in the handshake era (`initialize`, 2025-11-25 and earlier). A 2026-07-28
request carries its own envelope and has no session, so it is served
statelessly: every tool of the set listed directly (no selectors), and a call
needing approval is refused (no server-to-client requests in that era). The
transports in `_mcp_transport` call `require_sessions`, which answers 2026
envelopes with UNSUPPORTED_PROTOCOL_VERSION naming the handshake versions; the
official client's `mode="auto"` then falls back to the handshake by itself.

The wire shapes (`tools/list` entries, `CallToolResult`s) come from
`providers.mcp` through a `ServerWire`, so this module never imports it.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolcast._catalog._catalog import Catalog, ToolSet
from toolcast._catalog._toolset import unknown_tool_message
from toolcast._context import ToolContext
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.aliases import AliasSession
from toolcast.errors import CatalogError

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.lowlevel import Server

__all__ = ("INSTALL_HINT", "ServerWire", "build_server", "require_sessions")

INSTALL_HINT = "The MCP server needs the MCP SDK: pip install 'toolcast[mcp]'"

APPROVAL_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
"""What an approval elicitation asks for: nothing but accept or decline."""


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

    def spec_of(self, name: str) -> ToolSpec | None:
        found = self.get(name)
        return None if found is None else found.spec


# --------------------------------------------------------------------------- sessions


@dataclass(eq=False)
class McpSession:
    """One MCP session's state: the tools it sees and its alias session."""

    visible: tuple[Any, ...]
    aliases: Any = None
    stateless: bool = False
    """A 2026-07-28 request: no session, nothing persists, nobody to ask."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def names(self) -> tuple[str, ...]:
        return tuple(t.spec.name for t in self.visible)

    def resolve(self, source: _Source, name: str) -> Any:
        """The tool `name` names for this session, or None (not open, or unknown)."""
        tool = source.get(name)
        if tool is None or tool.spec.name not in self.names():
            return None
        return tool


class _Sessions:
    """Session state keyed by the connection's `initialize` params object.

    The SDK gives handlers no handle on the connection itself; the params the
    client sent in `initialize` are one object per connection for its whole life,
    so they identify it, and a weak reference drops the state with the connection.
    """

    def __init__(
        self, make: Callable[[], McpSession], stateless: McpSession, modern: frozenset[str]
    ) -> None:
        self._make = make
        self._stateless = stateless
        self._modern = modern
        self._by_key: dict[int, McpSession] = {}
        self._fallback: McpSession | None = None

    def __len__(self) -> int:
        return len(self._by_key)

    def of(self, ctx: Any) -> McpSession:
        if getattr(ctx, "protocol_version", None) in self._modern:
            return self._stateless
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
) -> Server[Any]:
    """An MCP low-level `Server` running `tools` with per-session state.

    See `providers.mcp.create_server` for the arguments.
    """
    try:
        import mcp.types as mcp_types
        from mcp.server.lowlevel import NotificationOptions, Server
        from mcp.shared.exceptions import MCPError
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS
    except ImportError:
        raise ImportError(INSTALL_HINT) from None

    source = _Source(tools, toolboxes=toolboxes)
    base = context or ToolContext()
    if aliases is None and source.all_tools():
        # A throwaway AliasSession: private to the MCP session, gone with it.
        aliases = functools.partial(AliasSession, "")

    def new_session() -> McpSession:
        return McpSession(source.initial, aliases() if aliases is not None else None)

    stateless = McpSession(source.flat(), stateless=True)
    sessions = _Sessions(new_session, stateless, frozenset(MODERN_PROTOCOL_VERSIONS))

    def negotiated(ctx: Any) -> str:
        found = getattr(ctx, "protocol_version", None)
        return found if found in wire.versions else wire.versions[-1]

    async def list_tools(
        ctx: Any, params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        session = sessions.of(ctx)
        listed = wire.list_tools(session.visible, negotiated(ctx))
        return mcp_types.ListToolsResult(
            tools=[mcp_types.Tool.model_validate(tool) for tool in listed]
        )

    async def call_tool(
        ctx: Any, params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        session = sessions.of(ctx)
        tool = session.resolve(source, params.name)
        if tool is None:
            message = unknown_tool_message(params.name, session.names())
            raise MCPError(mcp_types.INVALID_PARAMS, message)
        request_id = getattr(ctx, "request_id", None)
        call_id = "call" if request_id is None else str(request_id)
        arguments = params.arguments if params.arguments is not None else {}
        call = ToolCall(call_id, params.name, arguments)
        outcome = await _approved_run(ctx, tool, call, session, policy, base)
        if not outcome.is_error:
            async with session.lock:
                after = source.opened(session.visible, tool.spec.name)
                if after is not None:
                    session.visible = after
            if after is not None:
                # Request-scoped, so it travels before the result on the call's own
                # stream (the standalone HTTP stream may not be open yet).
                await ctx.session.send_notification(
                    mcp_types.ToolListChangedNotification(), related_request_id=request_id
                )
        result = wire.result(outcome, tool, negotiated(ctx))
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
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    return server


def require_sessions(server: Server[Any]) -> None:
    """Make `server` refuse 2026-07-28 envelopes, naming the handshake versions.

    A client in `mode="auto"` probes with `server/discover` first; this answer
    makes it fall back to `initialize`, so it gets a session (toolboxes,
    approvals, its own aliases). Idempotent.
    """
    import mcp.types as mcp_types
    from mcp.shared.exceptions import MCPError
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    if any(getattr(m, "toolcast_sessions_only", False) for m in server.middleware):
        return
    handshake = list(HANDSHAKE_PROTOCOL_VERSIONS)

    async def sessions_only(
        ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and ctx.request_id is not None:
            raise MCPError(
                mcp_types.UNSUPPORTED_PROTOCOL_VERSION,
                "toolcast serves MCP sessions (toolboxes, approvals and aliases are "
                f"per session): use the initialize handshake ({', '.join(handshake)}).",
                data={"supported": handshake, "requested": ctx.protocol_version},
            )
        return await call_next(ctx)

    sessions_only.toolcast_sessions_only = True  # type: ignore[attr-defined]
    server.middleware.append(sessions_only)


# --------------------------------------------------------------------------- one call


async def _approved_run(
    ctx: Any,
    tool: Any,
    call: ToolCall,
    session: McpSession,
    policy: Any,
    base: ToolContext,
) -> ToolOutcome:
    """Run `call` once if policy allows it, asking the user when it is pending."""
    decided = await _decide(policy, tool, call, session)
    if isinstance(decided, ToolOutcome):
        return decided
    status, reason = decided
    if status == "pending":
        status, reason = await _ask(ctx, call, reason, session)
    if status != "allowed":
        return ToolOutcome.failure("not_allowed", reason, tool_name=call.name, call_id=call.id)
    return await _run(ctx, tool, call, session, base)


async def _decide(
    policy: Any, tool: Any, call: ToolCall, session: McpSession
) -> tuple[str, str] | ToolOutcome:
    """`(status, reason)` for the call, or the invalid-arguments outcome."""
    spec = tool.spec
    checked: list[Any] = []

    async def validated() -> Any:
        # Like the run loop: the evaluator and the user judge validated arguments.
        validate = getattr(tool, "validate_call", None)
        if not checked:
            checked.append(
                {} if validate is None else await validate(call.arguments, aliases=session.aliases)
            )
        return checked[0]

    try:
        if policy is None:
            if not spec.requires_approval:
                return "allowed", ""
            await validated()
            return "pending", f"Tool {spec.name!r} requires approval."
        needs = spec.requires_approval or policy.needs_arguments(spec, call.name)
        decision = await policy.evaluate(tool, call, await validated() if needs else {})
        if decision.status == "pending":
            await validated()  # never ask the user about a call that cannot run
    except ValueError as exc:
        return ToolOutcome.failure(
            "invalid_arguments", str(exc), tool_name=call.name, call_id=call.id
        )
    reason = decision.reason or ""
    if decision.status == "denied":
        return "denied", f"Tool {call.name!r} was denied: {reason or 'not allowed'}."
    if decision.status == "failed":
        return "failed", f"The policy could not decide on {call.name!r} ({reason}); it was not run."
    return decision.status, reason


async def _ask(ctx: Any, call: ToolCall, reason: str, session: McpSession) -> tuple[str, str]:
    """Ask the user through MCP elicitation; `(status, reason)` of their answer."""
    capabilities = getattr(ctx.session, "client_capabilities", None)
    if session.stateless:
        return "denied", (
            f"Calling {call.name!r} needs approval, and a 2026-07-28 request has no "
            "session to ask the user in. Connect with the initialize handshake "
            "(a client with elicitation) to approve it."
        )
    if capabilities is None or getattr(capabilities, "elicitation", None) is None:
        return "denied", (
            f"Calling {call.name!r} needs approval and this MCP client cannot ask the "
            "user (it does not declare the elicitation capability). Approve it in the "
            "host, or use a client that supports elicitation."
        )
    import json

    from mcp.shared.exceptions import MCPError

    shown = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    if len(shown) > 2000:
        shown = shown[:1999] + "…"
    message = f"Allow the tool {call.name!r} to run with {shown}?"
    if reason:
        message = f"{reason} {message}"
    try:
        answer = await ctx.session.elicit_form(
            message, APPROVAL_SCHEMA, related_request_id=ctx.request_id
        )
    except (MCPError, OSError, RuntimeError) as exc:
        return "denied", f"Calling {call.name!r} needs approval and asking the user failed: {exc}"
    if answer.action == "accept":
        return "allowed", ""
    return "denied", f"The user declined the call to {call.name!r}; it was not run."


async def _run(
    ctx: Any, tool: Any, call: ToolCall, session: McpSession, base: ToolContext
) -> ToolOutcome:
    """Invoke the tool with progress forwarded; MCP cancellation cancels it.

    On `notifications/cancelled` the SDK cancels this handler: `Tool.invoke` sets
    the call's `cancel_event` (so a sync tool in a thread can stop early) and the
    cancellation propagates, so no result is sent, as the spec asks.
    """
    progress = _Progress(ctx)
    context = ToolContext(
        call_id=call.id, tool_name=call.name, state=base.state, progress_hook=progress.hook
    )
    try:
        if session.aliases is None:
            outcome: ToolOutcome = await tool.invoke(
                call.arguments, context=context, call_id=call.id
            )
        else:
            outcome = await tool.invoke(
                call.arguments, context=context, call_id=call.id, aliases=session.aliases
            )
    except BaseException:
        progress.abandon()
        raise
    await progress.drain()
    return outcome


class _Progress:
    """Forwards `ToolContext.report_progress` to MCP progress notifications.

    The hook may be called from the tool's worker thread, so it only schedules the
    send on the server's loop; `drain` waits for every send before the result goes.
    A call whose client asked for no progress makes each send a no-op in the SDK.
    """

    def __init__(self, ctx: Any) -> None:
        self._session = ctx.session
        self._loop = asyncio.get_running_loop()
        self._sends: set[asyncio.Future[None]] = set()
        self._closed = False

    def hook(self, progress: float, total: float | None, message: str | None) -> None:
        def start() -> None:
            if not self._closed:
                send = self._session.report_progress(float(progress), total, message)
                self._sends.add(asyncio.ensure_future(send))

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            start()
        elif not self._loop.is_closed():
            self._loop.call_soon_threadsafe(start)

    async def drain(self) -> None:
        # Sends scheduled from a thread land on the loop one iteration later.
        await asyncio.sleep(0)
        while self._sends:
            pending = list(self._sends)
            self._sends.clear()
            await asyncio.gather(*pending, return_exceptions=True)
        self._closed = True

    def abandon(self) -> None:
        self._closed = True
        for send in self._sends:
            send.cancel()
