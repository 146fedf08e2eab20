"""`start_run`, `get_run` and `RunHandle`: start a run, find it again, decide, read its result.

A handle is only the client and the conversation id (the workflow id), so a
stateless API that receives an approval days later finds its run with
`get_run(client, conversation_id)` and needs nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from temporalio.client import (
    Client,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from toolcast.errors import ToolcastError
from toolcast.loop._conversation import CallRecord, Conversation, fingerprint
from toolcast.loop._errors import ConversationError
from toolcast.loop._model import ToolChoiceMode, Usage
from toolcast.loop._run import RunResult
from toolcast.temporal._codec import arguments_to_json, jsonable, result_from_dict
from toolcast.temporal._workflow import WORKFLOW

__all__ = ("RunFailedError", "RunHandle", "get_run", "start_run")


class RunFailedError(ToolcastError):
    """The run stopped on an error it cannot answer the model with (a model request failed).

    `kind` is the error's type name (the SDK's own, e.g. `InternalServerError`);
    `conversation` is the journal as it was, to resume from with
    `start_run(..., conversation=error.conversation)`.
    """

    def __init__(self, kind: str, message: str, conversation: Conversation | None) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.conversation = conversation


async def start_run(
    client: Client,
    task_queue: str,
    prompt: str | None = None,
    *,
    id: str,
    model: str = "default",
    conversation: Conversation | None = None,
    system: str | None = None,
    max_rounds: int = 8,
    tool_choice: ToolChoiceMode = "auto",
    keep_tool_choice: bool = False,
    options: Mapping[str, Any] | None = None,
    max_concurrency: int = 8,
    repeat_limit: int | None = None,
    retry_budget: int | None = None,
    approval_timeout: float | None = None,
    history_limit: int | None = None,
    **start_options: Any,
) -> RunHandle:
    """Start `toolcast.run` as a workflow whose id is the conversation id.

    Args:
        client: A connected Temporal client.
        task_queue: The queue the workers with `ToolcastPlugin(tools=...)` poll.
        prompt: The user's text; optional when continuing `conversation`.
        id: The conversation id, which is the workflow id (`get_run` finds it by it).
        model: The name of a model in the workers' `models`.
        conversation: A conversation to continue (e.g. one from a `RedisStore`).
        system: The system prompt.
        max_rounds: Model requests at most (at least 1).
        tool_choice: For the first request, as in `toolcast.run`.
        keep_tool_choice: Send `tool_choice` with every request.
        options: Extra keyword arguments for the client call (JSON values).
        max_concurrency: Parallel-safe calls of one batch running at once.
        repeat_limit: As in `toolcast.run`.
        retry_budget: As in `toolcast.run`.
        approval_timeout: Seconds to wait for decisions before ending `pending`
            (None: wait as long as it takes, with no timer).
        history_limit: Continue as new once the history has this many events
            (default 10,000, or when Temporal suggests it).
        start_options: Passed to `Client.start_workflow` (e.g. `id_reuse_policy`).

    Raises:
        ValueError: `max_rounds` is below 1 (manual mode is `toolcast.run`'s;
            here use `Policy(defer=[...])`).
    """
    if max_rounds < 1:
        msg = (
            f"max_rounds must be at least 1 on Temporal (got {max_rounds}); for calls the "
            "host runs itself use Policy(defer=[...]) and handle.complete()."
        )
        raise ValueError(msg)
    if conversation is not None and conversation.id != id:
        msg = f"The conversation's id is {conversation.id!r}, not {id!r}."
        raise ValueError(msg)
    data: dict[str, Any] = {
        "id": id,
        "prompt": prompt,
        "model": model,
        "conversation": conversation.to_dict() if conversation is not None else None,
        "system": system,
        "max_rounds": max_rounds,
        "tool_choice": tool_choice,
        "keep_tool_choice": keep_tool_choice,
        "options": dict(options or {}),
        "max_concurrency": max_concurrency,
        "repeat_limit": repeat_limit,
        "retry_budget": retry_budget,
        "approval_timeout": approval_timeout,
        "history_limit": history_limit,
    }
    handle = await client.start_workflow(
        WORKFLOW, data, id=id, task_queue=task_queue, **start_options
    )
    return RunHandle(client, id, handle)


def get_run(client: Client, id: str) -> RunHandle:
    """The handle of the run of conversation `id` (its latest run), from any process."""
    return RunHandle(client, id, client.get_workflow_handle(id))


class RunHandle:
    """One conversation's run on Temporal: decide its calls, read its state and result."""

    def __init__(self, client: Client, id: str, workflow: WorkflowHandle[Any, Any]) -> None:
        self.client = client
        self.id = id
        """The conversation id (the workflow id)."""
        self.workflow = workflow
        """The Temporal workflow handle, for anything else (`describe`, `fetch_history`)."""

    def __repr__(self) -> str:
        return f"RunHandle({self.id!r})"

    async def pending(self) -> tuple[CallRecord, ...]:
        """The calls waiting for `approve`, `deny` or `complete`, with their exact arguments."""
        data = await self.workflow.query("pending")
        return Conversation.from_json(data).pending

    async def conversation(self) -> Conversation:
        """The conversation as the workflow holds it now."""
        return Conversation.from_json(await self.workflow.query("conversation"))

    async def usage(self) -> tuple[Usage, dict[str, float]]:
        """Tokens used and costs summed per unit so far (e.g. `(Usage(120, 30), {"usd": 0.01})`)."""
        data = await self.workflow.query("usage")
        totals: dict[str, float] = {}
        for _call, amount, unit, _label in data["costs"]:
            totals[unit] = totals.get(unit, 0.0) + amount
        return Usage(*data["usage"]), totals

    async def approve(self, call_id: str, *, arguments: Any = None) -> None:
        """Approve a pending call; with `arguments` (what the approver saw), they must match.

        Raises:
            ConversationError: No such pending call, it was already decided, or the
                arguments are not the call's (nothing is recorded then).
        """
        approved = None
        if arguments is not None:
            record = next((r for r in await self.pending() if r.id == call_id), None)
            name = record.name if record is not None else ""
            approved = fingerprint(name, arguments_to_json(arguments))
        await self._update("approve", call_id, approved)

    async def deny(self, call_id: str, reason: str) -> None:
        """Deny a pending call; the model gets `Tool 'x' was denied: REASON`.

        Raises:
            ConversationError: No such pending call, or it was already decided.
        """
        await self._update("deny", call_id, reason)

    async def complete(self, call_id: str, result: Any) -> None:
        """Record the result of a deferred call (a string or a JSON value).

        Raises:
            ConversationError: No such call waits, or the result is not JSON.
        """
        await self._update("complete", call_id, jsonable(result))

    async def cancel(self) -> None:
        """Cancel the run: `result()` then gives status `cancelled` with the journal."""
        await self.workflow.cancel()

    async def result(self) -> RunResult:
        """Wait for the run to stop; a `RunResult`, as `toolcast.run` returns.

        Raises:
            RunFailedError: A model request failed for good (the conversation rides along).
        """
        try:
            data = await self.workflow.result()
        except WorkflowFailureError as exc:
            raise _run_failed(exc) from exc
        return result_from_dict(data)

    async def _update(self, name: str, call_id: str, value: Any) -> None:
        try:
            await self.workflow.execute_update(name, args=[call_id, value])
        except WorkflowUpdateFailedError as exc:
            cause = exc.cause
            text = cause.message if isinstance(cause, ApplicationError) else str(cause)
            raise ConversationError(text) from None
        except RPCError as exc:  # the run closed: no decision can reach it any more
            msg = f"Run {self.id!r} cannot take a decision on {call_id!r}: {exc.message}."
            raise ConversationError(msg) from None


def _run_failed(exc: WorkflowFailureError) -> RunFailedError:
    cause = exc.cause
    if isinstance(cause, ApplicationError):
        conversation = None
        if cause.details and isinstance(cause.details[0], Mapping):
            try:
                conversation = Conversation.from_json(cause.details[0])
            except ConversationError:
                conversation = None
        return RunFailedError(cause.type or "ApplicationError", cause.message, conversation)
    return RunFailedError(type(cause).__name__, str(cause), None)
