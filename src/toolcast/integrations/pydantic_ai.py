"""toolcast tools as a pydantic-ai toolset: `toolset(catalog.select(), policy=policy)`.

The agent sees each tool's canonical schema; every call goes through toolcast's
parse (the model's raw JSON text), validation, policy, aliases and error
messages. Bad arguments and unknown tools reach the model as `ModelRetry` (the
tool's `max_retries` budget), other refusals (a denial, a failing tool) as
`ToolFailed`. A call waiting for approval raises `ApprovalRequired` (the run
ends with `DeferredToolRequests`), a deferred one `CallDeferred`; an approved
call runs only with the arguments it was paused with. Toolboxes open during a
run: `get_tools` is asked every step. One alias session per conversation
(`RunContext.conversation_id`).
"""

from __future__ import annotations

import json
from typing import Any

from toolcast._catalog._toolset import ToolSet
from toolcast._context import ToolContext
from toolcast._spec import ToolCall
from toolcast._tool import Tool
from toolcast.aliases import AliasStore
from toolcast.integrations._gate import Gate, Verdict, install_hint
from toolcast.policy import Policy
from toolcast.policy._policy import Approver

try:
    from pydantic_ai import RunContext
    from pydantic_ai.exceptions import ApprovalRequired, CallDeferred, ModelRetry, ToolFailed
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
except ImportError as exc:  # pragma: no cover - the extra is installed in the test suite
    raise install_hint("pydantic-ai", "pydantic_ai") from exc

__all__ = ("toolset",)

_RETRY_KINDS = frozenset({"invalid_arguments", "unknown_tool"})


def toolset(
    tools: ToolSet,
    *,
    policy: Policy | None = None,
    approver: Approver | None = None,
    context: ToolContext | None = None,
    alias_store: AliasStore | None = None,
    max_retries: int = 1,
    id: str | None = None,
) -> AbstractToolset[Any]:
    """A pydantic-ai toolset whose calls toolcast resolves, checks and runs.

    Args:
        tools: What the model may see and call (`catalog.select(...)`).
        policy: Who may run what; `Policy()` (every call waits for approval) when None.
        approver: Asked inline about calls that would wait, `(spec, call, arguments) -> Decision`.
        context: Host state for the tools (`ToolContext.state`).
        alias_store: Where the conversations' aliases live (default: this process's memory).
        max_retries: The `ModelRetry` budget of each tool (pydantic-ai's `max_retries`).
        id: The toolset's id (needed for durable execution).
    """
    gate = Gate(tools, policy, approver=approver, context=context, alias_store=alias_store)
    return _Toolset(gate, max_retries, id)


class _Passthrough:
    """An `args_validator` that keeps the model's text for toolcast to read, untouched."""

    def validate_json(self, input: str | bytes | bytearray, **_: Any) -> dict[str, Any]:
        return _Raw(input)

    def validate_python(self, input: Any, **_: Any) -> dict[str, Any]:
        return input if isinstance(input, dict) else _Raw(input)


class _Raw(dict[str, Any]):
    """The arguments as the model sent them (`raw`), and parsed for pydantic-ai's hooks."""

    __slots__ = ("raw",)

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        try:  # hooks and traces read the dict; toolcast reads `raw`
            parsed = json.loads(raw) if isinstance(raw, (str, bytes, bytearray)) else None
        except ValueError:
            parsed = None
        super().__init__(parsed if isinstance(parsed, dict) else {})


_PASSTHROUGH = _Passthrough()


class _Toolset(AbstractToolset[Any]):
    """The toolset `toolset()` returns."""

    def __init__(self, gate: Gate, max_retries: int, id: str | None) -> None:
        self.gate = gate
        self.max_retries = max_retries
        self._id = id
        self._defs = {tool.name: _definition(tool) for tool in gate.offered()}

    @property
    def id(self) -> str | None:
        return self._id

    def _thread(self, ctx: RunContext[Any]) -> Any:
        # pydantic-ai gives every run a conversation id; without one the run's own
        # usage object (shared by its steps) keys a private thread.
        return self.gate.thread(ctx.conversation_id or ctx.run_id or ctx.usage)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        thread = self._thread(ctx)
        return {
            tool.name: ToolsetTool(
                toolset=self,
                tool_def=self._defs[tool.name],
                max_retries=self.max_retries,
                args_validator=_PASSTHROUGH,
            )
            for tool in self.gate.shown(thread)
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        gate = self.gate
        thread = self._thread(ctx)
        arguments = tool_args.raw if isinstance(tool_args, _Raw) else tool_args
        call = ToolCall(ctx.tool_call_id or "", name, arguments)
        if ctx.tool_call_approved:
            carried = ctx.tool_call_metadata
            expected = carried.get("fingerprint") if isinstance(carried, dict) else None
            verdict = gate.approved(thread, call, expected)
        else:
            verdict = await gate.decide(thread, call)
        if verdict.status != "run":
            _raise(verdict)
        outcome = await gate.invoke(thread, call)
        if outcome.is_error:
            kind = outcome.error.kind if outcome.error is not None else "tool_error"
            raise (ModelRetry if kind in _RETRY_KINDS else ToolFailed)(outcome.text)
        return outcome.text


def _raise(verdict: Verdict) -> None:
    if verdict.status == "pending":
        raise ApprovalRequired({"fingerprint": verdict.fingerprint, "reason": verdict.reason})
    if verdict.status == "deferred":
        raise CallDeferred({"reason": verdict.reason})
    outcome = verdict.outcome
    assert outcome is not None
    kind = outcome.error.kind if outcome.error is not None else "not_allowed"
    raise (ModelRetry if kind in _RETRY_KINDS else ToolFailed)(outcome.text)


def _definition(tool: Tool) -> ToolDefinition:
    spec = tool.spec
    return ToolDefinition(
        name=spec.name,
        description=spec.description,
        parameters_json_schema=dict(spec.input_schema),
        # Not strict: a strict projection would change what the tool accepts.
        strict=False,
        sequential=not spec.parallel_safe,
    )
