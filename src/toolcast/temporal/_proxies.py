"""The loop's pieces as the workflow sees them: a model, tools and a policy that run activities.

`toolcast.run` itself drives the workflow's rounds; these stand in for the
parts that do I/O. A model turn, a tool call and an evaluator's question each
become an activity, so the workflow code only decides, records and waits.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping, Sequence
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, TimeoutError

from toolcast._catalog._toolset import ToolSet
from toolcast._context import ToolContext
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.aliases._declare import has_marks
from toolcast.aliases._required import RawIds, unaliased_message
from toolcast.aliases._session import AliasSession
from toolcast.loop._model import Message, Model, ModelRequest, ModelTurn
from toolcast.policy._decision import Decision
from toolcast.policy._policy import Policy
from toolcast.temporal._codec import arguments_to_json, decode_outcome, decode_turn, jsonable
from toolcast.temporal._state import RunState
from toolcast.temporal._worker import MODEL_ACTIVITY, POLICY_ACTIVITY, TOOL_ACTIVITY, Runtime

__all__ = ("ActivityModel", "ActivityTools", "RoundsSpent", "activity_policy")

_LOST = (
    "Tool '{name}' did not finish: its worker stopped answering ({why}). It was not "
    "started again; it may or may not have taken effect."
)
_FAILED = "Tool '{name}' failed on its worker: {why}"


class RoundsSpent(Exception):
    """The run's `max_rounds` requests were made: stop before sending another."""


class ActivityModel:
    """A `Model` whose `complete` is an activity; the messages are the worker adapter's."""

    def __init__(self, adapter: Model, name: str, state: RunState) -> None:
        self.adapter = adapter
        self.name = name
        self.state = state

    def user_message(self, text: str) -> list[Message]:
        return self.adapter.user_message(text)

    def result_messages(self, outcomes: Sequence[ToolOutcome]) -> list[Message]:
        return self.adapter.result_messages(outcomes)

    async def complete(self, request: ModelRequest) -> ModelTurn:
        state = self.state
        if state.rounds >= state.max_rounds:
            raise RoundsSpent
        data = {
            "model": self.name,
            "messages": jsonable(list(request.messages)),
            "tools": [s.name for s in request.tools],
            "system": request.system,
            "tool_choice": request.tool_choice,
            "parallel_calls": request.parallel_calls,
            "options": dict(request.options),
        }
        runtime = state.runtime
        made = await workflow.execute_activity(
            MODEL_ACTIVITY,
            data,
            start_to_close_timeout=runtime.model_timeout,
            retry_policy=runtime.model_retry,
            summary=f"model {self.name} round {state.rounds + 1}",
        )
        turn = decode_turn(made)
        state.rounds += 1
        state.usage += turn.usage
        return turn


class ActivityTools(ToolSet):
    """The worker's `ToolSet`, whose `invoke` runs each call as an activity."""

    __slots__ = ("_state",)
    _traced_elsewhere = True  # the tool activity opens the `execute_tool` span, not workflow code

    def __init__(self, base: ToolSet, state: RunState) -> None:
        # Same tools, same toolboxes: copy the selected set's fields, do not select again.
        for slot in ToolSet.__slots__:
            setattr(self, slot, getattr(base, slot))
        self._state = state

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
        tool = self.get(call.name)
        if tool is not None and offered is not None and all(t.name != tool.name for t in offered):
            tool = None  # a member of a toolbox not opened yet, as `ToolSet.invoke` answers
        if tool is None:
            return self.unknown_tool(call.name, call_id=call.id, offered=offered)
        state = self._state
        spec = tool.spec
        if aliases is None and _uses_aliases(spec):
            raise TypeError(unaliased_message(spec))
        if isinstance(aliases, AliasSession) and _uses_aliases(spec):
            # Calls that may allocate aliases run one at a time, so two never hand
            # out the same `link-N`.
            async with state.alias_lock:
                return await self._run(call, spec, aliases)
        return await self._run(call, spec, None)

    async def _run(
        self, call: ToolCall, spec: ToolSpec, aliases: AliasSession | None
    ) -> ToolOutcome:
        state = self._state
        data = {
            "id": call.id,
            "name": call.name,
            "arguments": arguments_to_json(call.arguments),
            "provider": jsonable(dict(call.provider_data)),
            "aliases": aliases.to_json() if aliases is not None else None,
        }
        try:
            made = await workflow.execute_activity(
                TOOL_ACTIVITY,
                data,
                summary=f"{call.name} {call.id}",
                **state.runtime.tool_options(spec),
            )
        except ActivityError as exc:
            return _lost(call, exc)
        outcome = decode_outcome(made["outcome"], call.id)
        if aliases is not None and made.get("aliases"):
            memory = aliases.memory
            if memory is not None:
                pairs = dict(made["aliases"].get("aliases", {}))
                memory.restore(aliases.conversation_id, list(pairs.items()))
        state.costs.extend([call.id, c.amount, c.unit, c.label] for c in outcome.costs)
        return outcome


def _uses_aliases(spec: ToolSpec) -> bool:
    return has_marks(spec.input_schema) or has_marks(spec.output_schema)


def _lost(call: ToolCall, exc: ActivityError) -> ToolOutcome:
    cause = exc.cause
    if isinstance(cause, asyncio.CancelledError) or type(cause).__name__ == "CancelledError":
        raise asyncio.CancelledError
    if isinstance(cause, TimeoutError):
        why = f"{cause.type.name.lower().replace('_', '-')} timeout" if cause.type else "timeout"
        text = _LOST.format(name=call.name, why=why)
        return ToolOutcome.failure("not_run", text, tool_name=call.name, call_id=call.id)
    why = cause.message if isinstance(cause, ApplicationError) else str(cause or exc)
    text = _FAILED.format(name=call.name, why=why)
    return ToolOutcome.failure("exception", text, tool_name=call.name, call_id=call.id)


def activity_policy(policy: Policy, state: RunState) -> Policy:
    """The worker's policy, its evaluator asked through an activity (rules stay in the workflow)."""
    if policy.evaluator is None:
        return policy
    proxy = copy.copy(policy)

    async def ask(spec: ToolSpec, call: ToolCall, arguments: Mapping[str, Any]) -> Decision | None:
        data = {
            "id": call.id,
            "name": call.name,
            "arguments": arguments_to_json(call.arguments),
            "provider": jsonable(dict(call.provider_data)),
            "aliases": state.conversation.aliases.to_json(),
        }
        runtime: Runtime = state.runtime
        made = await workflow.execute_activity(
            POLICY_ACTIVITY,
            data,
            start_to_close_timeout=runtime.evaluator_timeout,
            retry_policy=RetryPolicy(maximum_attempts=3),
            summary=f"policy {call.name} {call.id}",
        )
        return None if made is None else Decision(made[0], made[1])

    proxy.evaluator = ask
    return proxy
