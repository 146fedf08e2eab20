"""toolcast tools as OpenAI Agents SDK `FunctionTool`s: `function_tools(toolset, policy=...)`.

Each tool's schema is toolcast's Responses projection (strict where it can be,
with null meaning "the default"); every call goes through toolcast's parse of
the model's raw JSON text, validation, policy, aliases and error messages. A
refused call reaches the model through an error function of the SDK's shape
(`(ctx, error) -> str`; by default the toolcast message itself). A call waiting
for approval is the SDK's own `needs_approval`: the run is interrupted
(`result.interruptions`), and after `state.approve(item)` the call runs only
with the arguments it was paused with. Toolbox members are `is_enabled` once
their toolbox was opened in the run (the SDK asks every turn). One alias session
per run context: the `context=` object given to `Runner.run`, else the run's own.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from toolcast._catalog._toolset import ToolSet
from toolcast._context import ToolContext as TcContext
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall
from toolcast._tool import Tool
from toolcast.aliases import AliasStore
from toolcast.integrations._gate import Gate, Thread, install_hint
from toolcast.policy import Policy
from toolcast.policy._policy import Approver
from toolcast.providers import openai_responses

try:
    from agents import FunctionTool, RunContextWrapper
    from agents import Tool as AgentTool
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - the extra is installed in the test suite
    raise install_hint("openai-agents", "openai_agents") from exc

__all__ = ("ToolcastRefusal", "function_tools")

ErrorFunction = Callable[[RunContextWrapper[Any], Exception], "str | Awaitable[str]"]

_DEFERRED = (
    "Tool '{name}' was not run: the policy defers it to the host, which this agent cannot do."
)
_NOT_APPROVED = "Tool '{name}' was not run: it was not approved."


class ToolcastRefusal(Exception):
    """A call toolcast refused or a tool that failed; `str(error)` is the model-facing text."""

    def __init__(self, outcome: ToolOutcome) -> None:
        super().__init__(outcome.text)
        self.outcome = outcome


def _toolcast_message(ctx: RunContextWrapper[Any], error: Exception) -> str:
    return str(error)


_UNSET: Any = object()


def function_tools(
    tools: ToolSet,
    *,
    policy: Policy | None = None,
    approver: Approver | None = None,
    context: TcContext | None = None,
    alias_store: AliasStore | None = None,
    failure_error_function: ErrorFunction | None = _UNSET,
) -> list[AgentTool]:
    """Agents SDK tools whose calls toolcast resolves, checks and runs.

    Args:
        tools: What the model may see and call (`catalog.select(...)`).
        policy: Who may run what; `Policy()` (every call waits for approval) when None.
        approver: Asked inline about calls that would wait, `(spec, call, arguments) -> Decision`.
        context: Host state for the tools (`ToolContext.state`).
        alias_store: Where the runs' aliases live (default: this process's memory).
        failure_error_function: Turns a refusal or failure (`ToolcastRefusal`) into
            the model's text; default: toolcast's message. None: raise it (the run fails).
    """
    gate = Gate(tools, policy, approver=approver, context=context, alias_store=alias_store)
    on_error = _toolcast_message if failure_error_function is _UNSET else failure_error_function
    # Typed as the SDK's `Tool` union, so `Agent(tools=function_tools(...))` type-checks.
    return [_function_tool(gate, tool, on_error) for tool in gate.offered()]


def _thread(gate: Gate, ctx: RunContextWrapper[Any]) -> Thread:
    # The host's context object is the run's (it survives RunState resumes in this
    # process); without one, the run's Usage, which every tool context of the run shares.
    key = ctx.context if ctx.context is not None else ctx.usage
    return gate.thread(key)


def _function_tool(gate: Gate, tool: Tool, on_error: ErrorFunction | None) -> FunctionTool:
    projection = openai_responses.project(tool)
    definition = projection.definition
    strict = projection.strict
    name = tool.name
    data = {"null_means_default": True} if strict else {}

    async def needs_approval(
        ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        thread = _thread(gate, ctx)
        if gate.was_paused(thread, call_id):  # a resumed run: decided already, never again
            return True
        verdict = await gate.decide(thread, ToolCall(call_id, name, params, data))
        if verdict.status == "pending":
            return True
        thread.decided[call_id] = verdict  # decided once: on_invoke_tool reads it
        return False

    async def on_invoke_tool(ctx: ToolContext[Any], raw: str) -> Any:
        thread = _thread(gate, ctx)
        call = ToolCall(ctx.tool_call_id, name, raw, data)
        if gate.was_paused(thread, call.id):
            if ctx.is_tool_approved(ctx.tool_name, call.id) is not True:
                text = _NOT_APPROVED.format(name=name)
                return await _refuse(on_error, ctx, _failure(call, "not_allowed", text))
            verdict = gate.approved(thread, call)
        else:
            decided = thread.decided.pop(call.id, None)
            verdict = decided if decided is not None else await gate.decide(thread, call)
        if verdict.status == "deferred":
            text = _DEFERRED.format(name=name)
            return await _refuse(on_error, ctx, _failure(call, "not_run", text))
        if verdict.status == "pending":  # needs_approval was not asked (a direct call)
            text = _NOT_APPROVED.format(name=name)
            return await _refuse(on_error, ctx, _failure(call, "not_allowed", text))
        if verdict.outcome is not None:
            return await _refuse(on_error, ctx, verdict.outcome)
        outcome = await gate.invoke(thread, call)
        if outcome.is_error:
            return await _refuse(on_error, ctx, outcome)
        return outcome.text

    def is_enabled(ctx: RunContextWrapper[Any], agent: Any) -> bool:
        return name in _thread(gate, ctx).shown

    return FunctionTool(
        name=name,
        description=str(definition.get("description", "")),
        params_json_schema=dict(definition["parameters"]),
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=strict,
        is_enabled=is_enabled,
        needs_approval=needs_approval if _may_wait(gate, tool) else False,
    )


def _may_wait(gate: Gate, tool: Tool) -> bool:
    """False when no call of `tool` can wait for approval: its rules allow or deny it outright."""
    spec = tool.spec
    if spec.requires_approval:
        return True
    decision = gate.policy.by_rules(spec, spec.name)
    return decision is None or decision.status == "pending"


def _failure(call: ToolCall, kind: Any, text: str) -> ToolOutcome:
    return ToolOutcome.failure(kind, text, tool_name=call.name, call_id=call.id)


async def _refuse(
    on_error: ErrorFunction | None, ctx: RunContextWrapper[Any], outcome: ToolOutcome
) -> str:
    error = ToolcastRefusal(outcome)
    if on_error is None:
        raise error
    text = on_error(ctx, error)
    if inspect.isawaitable(text):
        text = await text
    return str(text)
