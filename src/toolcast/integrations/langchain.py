"""toolcast tools as LangChain `BaseTool`s, for LangGraph's `ToolNode` too: `tools(toolset)`.

Each tool's `args_schema` is toolcast's canonical schema (a JSON Schema dict, so
LangChain passes the arguments through unvalidated); every call goes through
toolcast's validation, policy, aliases and error messages. A refused call is a
`ToolException`, which `handle_tool_error=True` turns into an error
`ToolMessage` for the model. A call waiting for approval calls LangGraph's
`interrupt()` with the tool, the arguments and their fingerprint; resume with
`Command(resume={"approved": True, "fingerprint": ...})` (or `{"approved":
False, "reason": ...}`), and the call runs only if its arguments still match.
Aliases, opened toolboxes and paused calls are kept per LangGraph thread
(`config["configurable"]["thread_id"]`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from toolcast._catalog._toolset import ToolSet
from toolcast._context import ToolContext
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall
from toolcast._tool import Tool
from toolcast.aliases import AliasStore
from toolcast.integrations._gate import CHANGED, Gate, Thread, Verdict, install_hint
from toolcast.loop._conversation import fingerprint
from toolcast.policy import Policy
from toolcast.policy._policy import Approver

try:
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, ToolException
    from pydantic import ConfigDict, PrivateAttr
except ImportError as exc:  # pragma: no cover - the extra is installed in the test suite
    raise install_hint("langchain", "langchain") from exc

__all__ = ("ToolcastTool", "tools")

_NO_GRAPH = (
    "Tool '{name}' was not run: it waits for approval, which needs a LangGraph graph "
    "with a checkpointer (interrupt())."
)
_BAD_ANSWER = (
    "Tool '{name}' was not run: the approval answer must be "
    '{{"approved": true, "fingerprint": ...}} or {{"approved": false, "reason": ...}}.'
)


def tools(
    toolset: ToolSet,
    *,
    policy: Policy | None = None,
    approver: Approver | None = None,
    context: ToolContext | None = None,
    alias_store: AliasStore | None = None,
) -> list[ToolcastTool]:
    """LangChain tools whose calls toolcast resolves, checks and runs.

    Args:
        toolset: What the model may see and call (`catalog.select(...)`).
        policy: Who may run what; `Policy()` (every call waits for approval) when None.
        approver: Asked inline about calls that would wait, `(spec, call, arguments) -> Decision`.
        context: Host state for the tools (`ToolContext.state`).
        alias_store: Where the threads' aliases live (default: this process's memory).
    """
    gate = Gate(toolset, policy, approver=approver, context=context, alias_store=alias_store)
    return [ToolcastTool.of(gate, tool) for tool in gate.offered()]


def _thread(gate: Gate, config: RunnableConfig | None) -> Thread:
    configurable = (config or {}).get("configurable") or {}
    key = configurable.get("thread_id")
    # Without a thread id the call is a conversation of its own.
    return gate.thread(str(key) if key is not None else object())


class ToolcastTool(BaseTool):
    """One toolcast tool as a LangChain tool; `visible(config)` says if the model is shown it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    handle_tool_error: bool = True
    _gate: Gate = PrivateAttr()

    @classmethod
    def of(cls, gate: Gate, tool: Tool) -> ToolcastTool:
        """The LangChain tool for `tool` under `gate`."""
        spec = tool.spec
        made = cls(
            name=spec.name, description=spec.description, args_schema=dict(spec.input_schema)
        )
        made._gate = gate
        return made

    def visible(self, config: RunnableConfig | None = None) -> bool:
        """True when the thread of `config` is shown this tool (its toolbox, if any, is open)."""
        return self.name in _thread(self._gate, config).shown

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # One keyword for all the model's arguments: an argument named `config` or
        # `run_manager` must reach toolcast's validation, not LangChain's plumbing.
        return (), {"toolcast_call": (tool_input, tool_call_id)}

    def _run(self, toolcast_call: tuple[Any, str | None], config: RunnableConfig) -> Any:
        return asyncio.run(self._arun(toolcast_call, config))

    async def _arun(self, toolcast_call: tuple[Any, str | None], config: RunnableConfig) -> Any:
        gate = self._gate
        thread = _thread(gate, config)
        arguments, call_id = toolcast_call
        call = ToolCall(call_id or "", self.name, arguments)
        if call.id and call.id in thread.asked:  # a resumed node: decided already
            printed = thread.asked[call.id]
            verdict = Verdict("pending", reason=None, fingerprint=printed)
        else:
            verdict = await gate.decide(thread, call)
        if verdict.status in ("pending", "deferred"):
            verdict = self._wait(thread, call, verdict)
        if verdict.outcome is not None:
            raise ToolException(verdict.outcome.text)
        if verdict.status == "deferred":
            return verdict.reason
        outcome = await gate.invoke(thread, call)
        if outcome.is_error:
            raise ToolException(outcome.text)
        return outcome.text

    def _wait(self, thread: Thread, call: ToolCall, verdict: Verdict) -> Verdict:
        """Ask the graph's human through `interrupt()`; the verdict on their answer."""
        from langgraph.types import interrupt  # deferred: plain LangChain hosts need no LangGraph

        name = call.name
        request = {
            "tool": name,
            "call_id": call.id,
            "arguments": call.arguments,
            "kind": verdict.status,
            "reason": verdict.reason,
            "fingerprint": verdict.fingerprint or fingerprint(name, call.arguments),
        }
        try:
            answer = interrupt(request)
        except (RuntimeError, KeyError):  # outside a graph run (no config, no scratchpad)
            thread.asked.pop(call.id, None)
            return Verdict("refused", _failure(call, "not_run", _NO_GRAPH.format(name=name)))
        thread.asked.pop(call.id, None)
        self._gate.forget(call.id)
        if verdict.status == "deferred":  # the host ran it: its answer is the result
            text = answer if isinstance(answer, str) else json.dumps(answer, default=str)
            return Verdict("deferred", reason=text)
        if not isinstance(answer, dict) or not isinstance(answer.get("approved"), bool):
            return Verdict("refused", _failure(call, "not_allowed", _BAD_ANSWER.format(name=name)))
        if not answer["approved"]:
            reason = answer.get("reason") or "the user refused it"
            text = f"Tool '{name}' was denied: {reason}"
            return Verdict("refused", _failure(call, "not_allowed", text))
        # The approver echoes the fingerprint it was shown: the arguments it approved.
        if answer.get("fingerprint") != fingerprint(name, call.arguments):
            return Verdict("refused", _failure(call, "not_allowed", CHANGED.format(name=name)))
        return Verdict("run")


def _failure(call: ToolCall, kind: Any, text: str) -> ToolOutcome:
    return ToolOutcome.failure(kind, text, tool_name=call.name, call_id=call.id)
