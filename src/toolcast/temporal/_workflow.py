"""`ToolcastRun`: `toolcast.run` as a Temporal workflow, with approvals as updates.

The workflow calls `toolcast.run` one round at a time on its `Conversation`
(workflow state), with a model, a tool set and a policy whose I/O are activities
(`_proxies`). A round whose calls wait for the host ends `pending`; the workflow
then waits, without a timer unless the host set one, for `approve`, `deny` and
`complete` updates, and resumes. Every decision is in the conversation's journal
and so in the workflow history: a replay decides nothing again. Between rounds,
a long history continues as new with the conversation whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

from toolcast.loop._conversation import CallRecord, fingerprint
from toolcast.loop._errors import ConversationError
from toolcast.loop._events import LoopEvent
from toolcast.loop._run import run
from toolcast.temporal._proxies import ActivityModel, ActivityTools, RoundsSpent, activity_policy
from toolcast.temporal._state import RunState
from toolcast.temporal._worker import Runtime

__all__ = ("WORKFLOW", "ToolcastRun")

WORKFLOW = "toolcast.run"
_HISTORY_LIMIT = 10_000  # events; Temporal suggests continuing as new well before its 50k cap


def _failure(exc: BaseException, state: RunState) -> ApplicationError:
    """A run that cannot go on, as the workflow's failure; the conversation rides along."""
    cause = exc.cause if isinstance(exc, ActivityError) and exc.cause is not None else exc
    kind = (
        cause.type if isinstance(cause, ApplicationError) and cause.type else type(cause).__name__
    )
    message = cause.message if isinstance(cause, ApplicationError) else str(cause)
    return ApplicationError(
        message or kind,
        state.conversation.to_dict(),
        type=kind,
        non_retryable=True,
    )


@workflow.defn(name=WORKFLOW, sandboxed=False)
class ToolcastRun:
    """One conversation's run. Start it with `toolcast.temporal.start_run`."""

    @workflow.init
    def __init__(self, data: dict[str, Any]) -> None:
        self.state = RunState(data)

    @workflow.run
    async def run(self, data: dict[str, Any]) -> dict[str, Any]:
        state = self.state
        try:
            return await self._rounds(data)
        except asyncio.CancelledError:
            # The journal is whole; the host gets it, as `toolcast.run` writes it before
            # the cancellation goes on.
            return state.result("cancelled")
        except (ActivityError, LookupError, ValueError, TypeError, ConversationError) as exc:
            raise _failure(exc, state) from None

    async def _rounds(self, data: dict[str, Any]) -> dict[str, Any]:
        state = self.state
        runtime = state.runtime
        conversation = state.conversation
        name = str(data.get("model", "default"))
        model = ActivityModel(runtime.model(name), name, state)
        tools = ActivityTools(runtime.tools, state)
        policy = activity_policy(runtime.policy, state)
        prompt = data.get("prompt") if not data.get("carried") else None
        keep = bool(data.get("keep_tool_choice", False))
        hook = _replay_safe(runtime)
        while True:
            choice = data.get("tool_choice", "auto") if state.rounds == 0 or keep else "auto"
            try:
                segment = await run(
                    model,
                    prompt,
                    tools=tools,
                    conversation=conversation,
                    policy=policy,
                    max_rounds=1,
                    system=data.get("system"),
                    tool_choice=choice,
                    options=data.get("options") or {},
                    context=runtime.context,
                    on_event=hook,
                    max_concurrency=int(data.get("max_concurrency", 8)),
                    repeat_limit=data.get("repeat_limit"),
                    retry_budget=data.get("retry_budget"),
                )
            except RoundsSpent:
                return state.result("max_rounds")
            prompt = None
            status = segment.status
            if status == "ended":
                state.output = segment.output  # JSON: the value came back from an activity
                return state.result("ended")
            if status == "pending":
                if not await self._decisions(data.get("approval_timeout")):
                    return state.result("pending")
            elif status != "max_rounds":
                return state.result(status)
            elif state.rounds >= state.max_rounds:
                return state.result("max_rounds")
            if self._long(data):
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(
                    {**data, "conversation": conversation.to_dict(), "carried": state.carried()}
                )

    async def _decisions(self, timeout: float | None) -> bool:
        """Wait until no call waits for the host; False when the host's timer ran out."""
        conversation = self.state.conversation
        try:
            await workflow.wait_condition(
                lambda: not conversation.pending,
                timeout=timedelta(seconds=timeout) if timeout is not None else None,
            )
        except asyncio.TimeoutError:
            return False
        return True

    def _long(self, data: Mapping[str, Any]) -> bool:
        info = workflow.info()
        limit = int(data.get("history_limit") or _HISTORY_LIMIT)
        return info.is_continue_as_new_suggested() or info.get_current_history_length() > limit

    # -- the host's decisions -------------------------------------------------------

    def _awaiting(self, call_id: str) -> CallRecord:
        try:
            return self._find(call_id)
        except ConversationError as exc:
            # Rejected by the validator: nothing reaches the history.
            raise ApplicationError(str(exc), type="ConversationError", non_retryable=True) from None

    def _find(self, call_id: str) -> CallRecord:
        conversation = self.state.conversation
        for record in conversation.batch:
            if record.id != call_id:
                continue
            if record.outcome is not None:
                msg = f"Call {call_id!r} ({record.name}) is already answered."
                raise ConversationError(msg)
            if record.decision is None or record.decision.status != "pending":
                status = record.decision.status if record.decision else "undecided"
                msg = (
                    f"Call {call_id!r} ({record.name}) does not wait for a decision ({status}); "
                    "a recorded decision is never changed."
                )
                raise ConversationError(msg)
            return record
        waiting = ", ".join(repr(r.id) for r in conversation.pending) or "none"
        msg = (
            f"No call {call_id!r} awaits a decision in run {conversation.id!r} "
            f"(pending: {waiting})."
        )
        raise ConversationError(msg)

    @workflow.update(name="approve")
    def approve(self, call_id: str, approved: str | None) -> None:
        """Approve a pending call: it runs once, with exactly its recorded arguments."""
        self.state.conversation.approve(call_id)

    @approve.validator
    def _check_approve(self, call_id: str, approved: str | None) -> None:
        record = self._awaiting(call_id)
        if record.deferred:
            msg = f"Call {call_id!r} ({record.name}) is deferred: complete it with its result."
            raise ApplicationError(msg, type="ConversationError", non_retryable=True)
        if approved is not None and approved != fingerprint(record.name, record.arguments):
            msg = (
                f"Call {call_id!r} ({record.name}): the arguments approved are not the call's "
                "arguments (fingerprint mismatch); nothing was recorded."
            )
            raise ApplicationError(msg, type="ConversationError", non_retryable=True)

    @workflow.update(name="deny")
    def deny(self, call_id: str, reason: str) -> None:
        """Deny a pending call: the model is told why."""
        self.state.conversation.deny(call_id, reason)

    @deny.validator
    def _check_deny(self, call_id: str, reason: str) -> None:
        self._awaiting(call_id)
        text: object = reason  # from the wire: check, do not trust the annotation
        if not isinstance(text, str) or not text.strip():
            msg = f"Denying call {call_id!r} needs a reason for the model."
            raise ApplicationError(msg, type="ConversationError", non_retryable=True)

    @workflow.update(name="complete")
    def complete(self, call_id: str, result: Any) -> None:
        """Record the result of a call that ran elsewhere (a deferred tool)."""
        self.state.conversation.complete(call_id, result)

    @complete.validator
    def _check_complete(self, call_id: str, result: Any) -> None:
        self._awaiting(call_id)

    # -- queries --------------------------------------------------------------------

    @workflow.query(name="conversation")
    def conversation(self) -> dict[str, Any]:
        """The whole conversation (`Conversation.to_dict()`)."""
        return self.state.conversation.to_dict()

    @workflow.query(name="pending")
    def pending(self) -> dict[str, Any]:
        """The conversation without its messages: the batch, with the calls that wait."""
        whole = self.state.conversation.to_dict()
        return {**whole, "messages": [], "history": []}

    @workflow.query(name="usage")
    def usage(self) -> dict[str, Any]:
        """Tokens and cost lines of this run so far."""
        state = self.state
        return {
            "rounds": state.rounds,
            "usage": [state.usage.input_tokens, state.usage.output_tokens],
            "costs": state.costs,
        }


def _replay_safe(runtime: Runtime) -> Any:
    """The worker's event hook, silent while the workflow replays (events happen once)."""
    hook = runtime.on_event
    if hook is None:
        return None

    def emit(event: LoopEvent) -> Any:
        if workflow.unsafe.is_replaying():
            return None
        return hook(event)

    return emit
