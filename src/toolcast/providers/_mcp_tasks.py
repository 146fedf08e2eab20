"""Long-running tools as tasks: the 2026-07-28 Tasks extension (SEP-2663) on the server.

A client that names `io.modelcontextprotocol/tasks` in a request's
`_meta` client capabilities may get a task for a `tools/call` instead of the
result: a `CreateTaskResult` (`resultType: "task"`, a `taskId`, timestamps, a
`ttlMs` and a `pollIntervalMs`) is sent once the task's record is saved, so a
`tasks/get` right after it finds the task on any replica. The call then runs in
the background of the replica that took it:

- `tasks/get` reads the record: `working`, `input_required` with the approval
  asked under `inputRequests`, `completed` with the `CallToolResult` inlined
  (a tool that failed is `completed` with `isError`, as for a plain call), or
  `failed` with a JSON-RPC error when toolcast itself could not finish the call.
- `tasks/update` delivers `inputResponses`: the answer to the approval.
- `tasks/cancel` asks the owner to cancel; the next `tasks/get` says `cancelled`.

Records live in this process's memory, or in the Redis the replicas share, so
`tasks/get`, `tasks/update` and `tasks/cancel` may land on any replica. A task
id is 192 random bits, known only to the client that was given it; an id this
server never issued, or one whose record has expired, is refused `-32602`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall
from toolcast.providers._mcp_calls import APPROVAL_SCHEMA, question

__all__ = (
    "TASKS_EXTENSION",
    "ProgressHook",
    "TaskJob",
    "Tasks",
    "add_task_methods",
    "run_as_task",
    "task_support",
)

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier, in capabilities and in `-32021` errors."""

ProgressHook = Callable[[float, "float | None", "str | None"], None]
"""A `ToolContext` progress hook: `(progress, total, message)`."""


@dataclass(frozen=True, slots=True)
class TaskJob:
    """What a task runs, supplied by the server that took the `tools/call`."""

    call: ToolCall
    decide: Callable[[], Awaitable[tuple[str, str] | ToolOutcome]]
    """The policy's `(status, reason)`, or the outcome of arguments that cannot run."""
    run: Callable[[ProgressHook], Awaitable[ToolOutcome]]
    """Invoke the tool, its progress reports going to the hook."""
    finish: Callable[[ToolOutcome], dict[str, Any]]
    """The outcome as the `CallToolResult` dict the task inlines."""


_TERMINAL = frozenset({"completed", "failed", "cancelled"})
_MAX_TASKS = 10_000
_APPROVAL_PREFIX = "approval-"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Board:
    """Task records, answers and cancel requests: memory, or a Redis the replicas share."""

    def __init__(self, name: str, redis: Any, ttl_ms: int) -> None:
        self._prefix = f"toolcast:mcp:{name}:task:"
        self._redis = redis
        self._ttl_ms = ttl_ms
        self._records: dict[str, tuple[float, dict[str, Any]]] = {}
        self._answers: dict[str, dict[str, Any]] = {}
        self._cancels: set[str] = set()
        self.changed: dict[str, asyncio.Event] = {}

    async def save(self, record: dict[str, Any]) -> None:
        task_id = record["taskId"]
        if self._redis is not None:
            await self._redis.set(self._prefix + task_id, json.dumps(record), px=self._ttl_ms)
            return
        now = time.monotonic()
        if task_id not in self._records and len(self._records) >= _MAX_TASKS:
            # Only expired records go: a task stays readable for its whole ttlMs.
            self._records = {k: v for k, v in self._records.items() if v[0] > now}
            if len(self._records) >= _MAX_TASKS:
                msg = f"this server keeps {len(self._records)} tasks already; try again later"
                raise OverflowError(msg)
        self._records[task_id] = (now + self._ttl_ms / 1000, dict(record))

    async def load(self, task_id: str) -> dict[str, Any] | None:
        if self._redis is not None:
            raw = await self._redis.get(self._prefix + task_id)
            return None if raw is None else dict(json.loads(raw))
        found = self._records.get(task_id)
        if found is None or found[0] <= time.monotonic():
            self._records.pop(task_id, None)
            return None
        return dict(found[1])

    async def answer(self, task_id: str, responses: Mapping[str, Any]) -> None:
        if self._redis is not None:
            key = self._prefix + task_id + ":answers"
            await self._redis.hset(key, mapping={k: json.dumps(v) for k, v in responses.items()})
            await self._redis.pexpire(key, self._ttl_ms)
        else:
            self._answers.setdefault(task_id, {}).update(responses)
        self._wake(task_id)

    async def answers(self, task_id: str) -> dict[str, Any]:
        if self._redis is not None:
            raw = await self._redis.hgetall(self._prefix + task_id + ":answers")
            return {k.decode(): json.loads(v) for k, v in raw.items()}
        return dict(self._answers.get(task_id, {}))

    async def cancel(self, task_id: str) -> None:
        if self._redis is not None:
            await self._redis.set(self._prefix + task_id + ":cancel", b"1", px=self._ttl_ms)
        else:
            self._cancels.add(task_id)
        self._wake(task_id)

    async def cancel_requested(self, task_id: str) -> bool:
        if self._redis is not None:
            return bool(await self._redis.exists(self._prefix + task_id + ":cancel"))
        return task_id in self._cancels

    def forget(self, task_id: str) -> None:
        """Drop what only the owner needed (answers, cancel flag) once a task ended."""
        self._answers.pop(task_id, None)
        self._cancels.discard(task_id)
        self.changed.pop(task_id, None)

    def _wake(self, task_id: str) -> None:
        event = self.changed.get(task_id)
        if event is not None:
            event.set()


class Tasks:
    """The task side of one MCP server: which tools run as tasks, and the `tasks/*` methods.

    Args:
        name: The server name (the Redis key prefix).
        support: `(tool) -> "optional" | "required" | None`.
        redis: An async Redis client shared by the replicas, or None for memory.
        ttl_ms: How long a task's record is kept from its creation.
        poll_ms: The polling interval suggested to clients (and the owner's own
            interval for answers and cancels sent to another replica).
    """

    def __init__(
        self,
        name: str,
        support: Callable[[Any], str | None],
        *,
        redis: Any = None,
        ttl_ms: int = 3_600_000,
        poll_ms: int = 500,
    ) -> None:
        self.support = support
        self.ttl_ms = ttl_ms
        self.poll_ms = poll_ms
        self._board = _Board(name, redis, ttl_ms)
        self._running: dict[str, asyncio.Future[None]] = {}
        self._saves: set[asyncio.Future[None]] = set()

    # ------------------------------------------------------------------ negotiation

    @staticmethod
    def declared(ctx: Any) -> bool:
        """Whether the request's client capabilities name the Tasks extension."""
        capabilities = getattr(getattr(ctx, "session", None), "client_capabilities", None)
        extensions = getattr(capabilities, "extensions", None) or {}
        return TASKS_EXTENSION in extensions

    @staticmethod
    def missing_capability(what: str) -> Exception:
        """The `-32021` error naming the extension a request needed."""
        import mcp.types as mcp_types
        from mcp.shared.exceptions import MCPError

        return MCPError(
            mcp_types.MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"{what} needs the {TASKS_EXTENSION} extension, which this request's client "
            "capabilities do not declare.",
            data={"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
        )

    # ------------------------------------------------------------------ creation

    async def start(self, job: TaskJob) -> dict[str, Any]:
        """Save a new task running `job` and start it; the `CreateTaskResult` to send."""
        created = _now()
        record: dict[str, Any] = {
            "taskId": secrets.token_urlsafe(24),
            "status": "working",
            "createdAt": created,
            "lastUpdatedAt": created,
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_ms,
        }
        try:
            await self._board.save(record)
        except Exception as exc:  # memory full, or the shared store did not answer
            import mcp.types as mcp_types
            from mcp.shared.exceptions import MCPError

            raise MCPError(
                mcp_types.INTERNAL_ERROR, f"The task for {job.call.name!r} was not created: {exc}"
            ) from None
        task_id = record["taskId"]
        self._board.changed[task_id] = asyncio.Event()
        worker = asyncio.ensure_future(self._work(record, job))
        self._running[task_id] = worker
        return {"resultType": "task", **record}

    async def _work(self, record: dict[str, Any], job: TaskJob) -> None:
        task_id = record["taskId"]
        body = asyncio.ensure_future(self._body(record, job))
        watcher = asyncio.ensure_future(self._watch(task_id, body))
        try:
            outcome = await body
            record.update(status="completed", result=job.finish(outcome))
        except asyncio.CancelledError:
            record.update(status="cancelled", statusMessage="Cancelled by the client.")
        except Exception as exc:  # toolcast could not finish the call: a protocol error
            record.update(
                status="failed",
                error={"code": -32603, "message": f"The task could not finish: {exc}"[:500]},
            )
        finally:
            watcher.cancel()
            self._running.pop(task_id, None)
        record.pop("inputRequests", None)
        record["lastUpdatedAt"] = _now()
        with contextlib.suppress(Exception):  # a store gone now cannot be told
            await self._board.save(record)
        self._board.forget(task_id)

    async def _body(self, record: dict[str, Any], job: TaskJob) -> ToolOutcome:
        call = job.call
        decided = await job.decide()
        if isinstance(decided, ToolOutcome):
            return decided
        status, reason = decided
        if status == "pending":
            status, reason = await self._ask(record, call, reason)
        if status != "allowed":
            return ToolOutcome.failure("not_allowed", reason, tool_name=call.name, call_id=call.id)
        record.update(status="working", lastUpdatedAt=_now())
        record.pop("inputRequests", None)
        await self._board.save(record)
        return await job.run(self._progress(record))

    def _progress(self, record: dict[str, Any]) -> ProgressHook:
        """A progress hook that makes each report the task's `statusMessage`."""
        loop = asyncio.get_running_loop()

        def progress(done: float, total: float | None, message: str | None) -> None:
            shown = f"{done:g}/{total:g}" if total else f"{done:g}"
            text = f"{shown}: {message}" if message else shown

            def save() -> None:
                if record.get("status") == "working":
                    record.update(statusMessage=text[:500], lastUpdatedAt=_now())
                    saving = asyncio.ensure_future(self._board.save(dict(record)))
                    self._saves.add(saving)
                    saving.add_done_callback(self._saves.discard)

            loop.call_soon_threadsafe(save)

        return progress

    async def _ask(self, record: dict[str, Any], call: ToolCall, reason: str) -> tuple[str, str]:
        """Park the task as `input_required` with the approval; wait for its answer."""
        import mcp.types as mcp_types

        key = _APPROVAL_PREFIX + secrets.token_urlsafe(9)
        asked = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(
                message=question(call, reason), requested_schema=APPROVAL_SCHEMA
            )
        )
        record.update(
            status="input_required",
            statusMessage="Waiting for the user's approval.",
            lastUpdatedAt=_now(),
            inputRequests={key: asked.model_dump(by_alias=True, mode="json", exclude_none=True)},
        )
        await self._board.save(record)
        task_id = record["taskId"]
        while True:
            answer = (await self._board.answers(task_id)).get(key)
            if answer is not None:
                break
            await self._pause(task_id)
        record.pop("statusMessage", None)
        if isinstance(answer, Mapping) and answer.get("action") == "accept":
            return "allowed", ""
        return "denied", f"The user declined the call to {call.name!r}; it was not run."

    async def _pause(self, task_id: str) -> None:
        """Until something is sent to the task here, or the poll interval passes."""
        event = self._board.changed.get(task_id)
        if event is None:
            await asyncio.sleep(self.poll_ms / 1000)
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), self.poll_ms / 1000)
        event.clear()

    async def _watch(self, task_id: str, body: asyncio.Future[Any]) -> None:
        """Cancel `body` when any replica records a cancel request for the task."""
        while not body.done():
            if await self._board.cancel_requested(task_id):
                body.cancel()
                return
            await self._pause(task_id)

    # ------------------------------------------------------------------ methods

    async def get(self, ctx: Any, task_id: str) -> dict[str, Any]:
        """`tasks/get`: the task's record, with its result, error or input requests."""
        record = await self._known(ctx, task_id, "tasks/get")
        return {"resultType": "complete", **record}

    async def update(self, ctx: Any, task_id: str, responses: Any) -> dict[str, Any]:
        """`tasks/update`: deliver answers to the task's input requests."""
        import mcp.types as mcp_types
        from mcp.shared.exceptions import MCPError

        record = await self._known(ctx, task_id, "tasks/update")
        if not isinstance(responses, Mapping):
            raise MCPError(mcp_types.INVALID_PARAMS, "tasks/update needs an inputResponses object.")
        asked = record.get("inputRequests") or {}
        # Answers to requests the task did not make are ignored, as the spec allows.
        kept = {k: v for k, v in responses.items() if k in asked}
        for key, value in kept.items():
            try:
                mcp_types.ElicitResult.model_validate(value, by_name=False)
            except ValueError:
                message = f"inputResponses.{key} is not an elicitation answer (action, content)."
                raise MCPError(mcp_types.INVALID_PARAMS, message) from None
        if kept:
            await self._board.answer(task_id, kept)
        return {"resultType": "complete"}

    async def cancel(self, ctx: Any, task_id: str) -> dict[str, Any]:
        """`tasks/cancel`: ask the task's owner to cancel it (idempotent on an ended task)."""
        record = await self._known(ctx, task_id, "tasks/cancel")
        if record["status"] not in _TERMINAL:
            await self._board.cancel(task_id)
            running = self._running.get(task_id)
            if running is not None:
                # The owner is this process: settle now, so the next tasks/get says so.
                running.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.shield(running)
        return {"resultType": "complete"}

    async def _known(self, ctx: Any, task_id: str, method: str) -> dict[str, Any]:
        import mcp.types as mcp_types
        from mcp.shared.exceptions import MCPError

        if not self.declared(ctx):
            raise self.missing_capability(method)
        _check_name_header(ctx, task_id)
        record = await self._board.load(task_id) if 0 < len(task_id) <= 64 else None
        if record is None:
            raise MCPError(
                mcp_types.INVALID_PARAMS,
                f"No task {task_id[:64]!r} on this server (unknown, or expired after its ttlMs).",
            )
        return record


def _check_name_header(ctx: Any, task_id: str) -> None:
    """SEP-2663: `Mcp-Name` on `tasks/*` over HTTP must equal `params.taskId` (-32020)."""
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    if headers is None:
        return
    given = headers.get("mcp-name")
    if given is not None and given != task_id:
        import mcp.types as mcp_types
        from mcp.shared.exceptions import MCPError

        raise MCPError(
            getattr(mcp_types, "HEADER_MISMATCH", -32020),
            "The Mcp-Name header does not match params.taskId.",
        )


def add_task_methods(server: Any, tasks: Tasks) -> None:
    """Serve `tasks/get`, `tasks/update` and `tasks/cancel` and advertise the extension."""
    import mcp.types as mcp_types
    from pydantic import ConfigDict, Field

    class _TaskParams(mcp_types.RequestParams):
        model_config = ConfigDict(extra="allow", populate_by_name=True)
        task_id: str = Field(alias="taskId")

    class _UpdateParams(_TaskParams):
        input_responses: Any = Field(default=None, alias="inputResponses")

    async def on_get(ctx: Any, params: _TaskParams) -> dict[str, Any]:
        return await tasks.get(ctx, params.task_id)

    async def on_update(ctx: Any, params: _UpdateParams) -> dict[str, Any]:
        return await tasks.update(ctx, params.task_id, params.input_responses)

    async def on_cancel(ctx: Any, params: _TaskParams) -> dict[str, Any]:
        return await tasks.cancel(ctx, params.task_id)

    server.add_request_handler("tasks/get", _TaskParams, on_get)
    server.add_request_handler("tasks/update", _UpdateParams, on_update)
    server.add_request_handler("tasks/cancel", _TaskParams, on_cancel)
    server.extensions[TASKS_EXTENSION] = {}


def task_support(chosen: Mapping[str, str]) -> Callable[[Any], str | None]:
    """`(tool) -> "optional" | "required" | None` from the host's choices by tool name.

    Tools marked `long_running` are `"optional"` unless named; `"off"` makes one a
    plain call.

    Raises:
        ValueError: A choice other than optional, required or off.
    """
    given = dict(chosen)
    wrong = sorted(k for k, v in given.items() if v not in ("optional", "required", "off"))
    if wrong:
        value = given[wrong[0]]
        msg = f"tasks: {wrong[0]!r} must be 'optional', 'required' or 'off', not {value!r}."
        raise ValueError(msg)

    def support(tool: Any) -> str | None:
        spec = tool.spec
        named = given.get(spec.name)
        if named is None:
            return "optional" if spec.long_running else None
        return None if named == "off" else named

    return support


def run_as_task(tasks: Tasks, ctx: Any, tool: Any, *, modern: bool) -> bool:
    """Whether this `tools/call` becomes a task (raising `-32021` when it must and cannot)."""
    support = tasks.support(tool)
    if support is None or not modern:
        return False
    if tasks.declared(ctx):
        return True
    if support == "required":
        raise tasks.missing_capability(f"The tool {tool.spec.name!r}")
    return False
