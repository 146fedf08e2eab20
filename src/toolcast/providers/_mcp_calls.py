"""One MCP `tools/call`: the policy's decision, the user's approval, the run.

Approval takes the shape of the call's era: a server-to-client elicitation
request in the handshake era; in 2026-07-28 an `input_required` result whose
`requestState` the SDK's boundary seals and binds to the call, answered by the
client's retry with the elicitation's answer. Progress and log entries from the
tool's `ToolContext` become `notifications/progress` and `notifications/message`
on the call's own stream, all of them before the result.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

from toolcast._context import LOG_LEVELS, ToolContext
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall
from toolcast._tool import Tool
from toolcast.aliases import RAW_IDS

__all__ = (
    "APPROVAL_SCHEMA",
    "INSTALL_HINT",
    "approved_run",
    "decide_call",
    "invoke_call",
    "question",
)

INSTALL_HINT = "The MCP server needs the MCP SDK: pip install 'toolcast[mcp]'"

APPROVAL_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
"""What an approval elicitation asks for: nothing but accept or decline."""


async def approved_run(
    ctx: Any,
    params: Any,
    tool: Any,
    call: ToolCall,
    session: Any,
    policy: Any,
    base: ToolContext,
    state: Any,
) -> Any:
    """Run `call` once if policy allows it, asking the user when it is pending.

    Returns the `ToolOutcome`, or (2026-07-28) the `InputRequiredResult` that asks.
    """
    decided = await decide_call(policy, tool, call, session)
    if isinstance(decided, ToolOutcome):
        return decided
    status, reason = decided
    if status == "pending":
        if session.stateless:
            answer = await _ask_in_rounds(ctx, params, call, reason, state)
            if not isinstance(answer, tuple):
                return answer
            status, reason = answer
        else:
            status, reason = await _ask(ctx, call, reason)
    if status != "allowed":
        return ToolOutcome.failure("not_allowed", reason, tool_name=call.name, call_id=call.id)
    return await _run(ctx, tool, call, session, base)


async def decide_call(
    policy: Any, tool: Any, call: ToolCall, session: Any
) -> tuple[str, str] | ToolOutcome:
    """`(status, reason)` for the call, or the invalid-arguments outcome."""
    spec = tool.spec
    checked: list[Any] = []

    async def validated() -> Any:
        # Like the run loop: the evaluator and the user judge validated arguments.
        validate = getattr(tool, "validate_call", None)
        if not checked:
            checked.append(
                {}
                if validate is None
                else await validate(call.arguments, aliases=session.aliases or RAW_IDS)
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


def question(call: ToolCall, reason: str) -> str:
    shown = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    if len(shown) > 2000:
        shown = shown[:1999] + "…"
    message = f"Allow the tool {call.name!r} to run with {shown}?"
    return f"{reason} {message}" if reason else message


def _cannot_ask(capabilities: Any, call: ToolCall) -> str | None:
    if capabilities is None or getattr(capabilities, "elicitation", None) is None:
        return (
            f"Calling {call.name!r} needs approval and this MCP client cannot ask the "
            "user (it does not declare the elicitation capability). Approve it in the "
            "host, or use a client that supports elicitation."
        )
    return None


async def _ask(ctx: Any, call: ToolCall, reason: str) -> tuple[str, str]:
    """Ask the user through an MCP elicitation request; `(status, reason)` of their answer."""
    from mcp.shared.exceptions import MCPError

    refused = _cannot_ask(getattr(ctx.session, "client_capabilities", None), call)
    if refused is not None:
        return "denied", refused
    try:
        answer = await ctx.session.elicit_form(
            question(call, reason), APPROVAL_SCHEMA, related_request_id=ctx.request_id
        )
    except (MCPError, OSError, RuntimeError) as exc:
        return "denied", f"Calling {call.name!r} needs approval and asking the user failed: {exc}"
    if answer.action == "accept":
        return "allowed", ""
    return "denied", f"The user declined the call to {call.name!r}; it was not run."


async def _ask_in_rounds(
    ctx: Any, params: Any, call: ToolCall, reason: str, state: Any
) -> tuple[str, str] | Any:
    """2026-07-28: ask with an `input_required` result, or read the retry's answer.

    The boundary has already verified the echoed `requestState` (sealed by a
    replica sharing the key, unexpired, bound to this tool and these arguments);
    its nonce is spent here, so the same state cannot approve a second run.
    """
    import mcp.types as mcp_types
    from mcp.shared.exceptions import MCPError

    from toolcast.providers._mcp_stateless import APPROVAL_KEY

    echoed = getattr(params, "request_state", None)
    if echoed is None:
        refused = _cannot_ask(getattr(ctx.session, "client_capabilities", None), call)
        if refused is not None:
            # 2026-07-28: a request that needs a capability the client did not
            # declare is refused with -32021, naming it (HTTP 400), not run or denied.
            needed = mcp_types.MissingRequiredClientCapabilityErrorData(
                required_capabilities=mcp_types.ClientCapabilities(
                    elicitation=mcp_types.ElicitationCapability()
                )
            )
            raise MCPError(
                mcp_types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                refused,
                data=needed.model_dump(by_alias=True, mode="json", exclude_none=True),
            )
        asked = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(
                message=question(call, reason), requested_schema=APPROVAL_SCHEMA
            )
        )
        return mcp_types.InputRequiredResult(
            input_requests={APPROVAL_KEY: asked}, request_state=state.approval_state()
        )
    nonce = state.approval_nonce(echoed)
    if nonce is None:
        raise MCPError(
            mcp_types.INVALID_PARAMS, "The requestState is not an approval of this call."
        )
    answer = (getattr(params, "input_responses", None) or {}).get(APPROVAL_KEY)
    if not isinstance(answer, mcp_types.ElicitResult):
        raise MCPError(
            mcp_types.INVALID_PARAMS,
            f"The retry of {call.name!r} carries no answer under inputResponses.{APPROVAL_KEY}.",
        )
    try:
        fresh = await state.first_use(nonce)
    except OSError as exc:
        return "denied", f"Calling {call.name!r} needs approval and it cannot be checked: {exc}"
    if not fresh:
        raise MCPError(
            mcp_types.INVALID_PARAMS,
            "This requestState was used already: an approval runs one call once.",
            data={"reason": "replayed_request_state"},
        )
    if answer.action == "accept":
        return "allowed", ""
    return "denied", f"The user declined the call to {call.name!r}; it was not run."


async def _run(ctx: Any, tool: Any, call: ToolCall, session: Any, base: ToolContext) -> ToolOutcome:
    """Invoke the tool with progress and logs forwarded; MCP cancellation cancels it.

    On `notifications/cancelled` the SDK cancels this handler: `Tool.invoke` sets
    the call's `cancel_event` (so a sync tool in a thread can stop early) and the
    cancellation propagates, so no result is sent, as the spec asks.
    """
    forward = _Forward(ctx, call.name, session.log_level)
    context = ToolContext(
        call_id=call.id,
        tool_name=call.name,
        state=base.state,
        progress_hook=forward.progress,
        log_hook=forward.log,
    )
    try:
        outcome = await invoke_call(tool, call, session, context)
    except BaseException:
        forward.abandon()
        raise
    await forward.drain()
    return outcome


async def invoke_call(tool: Any, call: ToolCall, session: Any, context: ToolContext) -> ToolOutcome:
    """`tool.invoke` for `call` with the session's aliases (raw ids when it has none)."""
    if session.aliases is not None:
        extra: dict[str, Any] = {"aliases": session.aliases}
    elif isinstance(tool, Tool):
        # A list mixing other invokers has no session: raw ids, as before `RAW_IDS`.
        extra = {"aliases": RAW_IDS}
    else:
        extra = {}
    outcome: ToolOutcome = await tool.invoke(
        call.arguments, context=context, call_id=call.id, **extra
    )
    return outcome


class _Forward:
    """Forwards `ToolContext` progress and logs to MCP notifications on the call's stream.

    The hooks may be called from the tool's worker thread, so they only schedule
    the send on the server's loop; `drain` waits for every send before the result
    goes. A call whose client asked for no progress makes each progress send a
    no-op in the SDK; a 2026-07-28 request gets only the log levels its `_meta`
    opted in to (the SDK's gate), a session those `logging/setLevel` allows.
    """

    def __init__(self, ctx: Any, tool_name: str, log_level: str) -> None:
        self._session = ctx.session
        self._request_id = getattr(ctx, "request_id", None)
        self._tool_name = tool_name
        self._floor = LOG_LEVELS.index(log_level) if log_level in LOG_LEVELS else 0
        self._loop = asyncio.get_running_loop()
        self._sends: set[asyncio.Future[None]] = set()
        self._closed = False

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        self._schedule(lambda: self._session.report_progress(float(progress), total, message))

    def log(self, level: str, data: Any) -> None:
        if LOG_LEVELS.index(level) < self._floor:
            return

        def send() -> Any:
            from mcp.shared.exceptions import MCPDeprecationWarning

            # The handshake era's logging is deprecated in 2026-07-28, not gone.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                return self._session.send_log_message(
                    level, data, logger=self._tool_name, related_request_id=self._request_id
                )

        self._schedule(send)

    def _schedule(self, make: Any) -> None:
        def start() -> None:
            if not self._closed:
                self._sends.add(asyncio.ensure_future(make()))

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
