"""The client side of the Tasks extension: a remote call answered with a task ends as its result.

`TasksClient` is an `mcp.Client` extension (the SDK's `ClientExtension`): it
declares `io.modelcontextprotocol/tasks` in every 2026-07-28 request, so a
server may answer a `tools/call` with a `CreateTaskResult`, and it finishes such
a result by polling `tasks/get` at the server's `pollIntervalMs` until the task
ends. The caller gets the task's `CallToolResult`, as for a plain call, so
`tools_from_session` tools work unchanged against a server that runs them as
tasks. A task that waits for input (`input_required`) is answered through the
`elicit` callback, or cancelled when there is none; cancelling the local call
sends `tasks/cancel`.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

import anyio

from toolcast.providers._mcp_tasks import TASKS_EXTENSION

__all__ = ("TasksClient",)

_TERMINAL = ("completed", "failed", "cancelled")
_MIN_POLL_S = 0.05
_MAX_POLL_S = 5.0

Elicit = Callable[[Mapping[str, Any]], Awaitable[Mapping[str, Any]]]
"""`(elicitation/create params) -> ElicitResult` as wire dicts."""


@functools.cache
def _models() -> tuple[Any, Any, Any]:
    """The SDK models of the extension's messages (built once, on first use)."""
    import mcp.types as mcp_types
    from pydantic import ConfigDict, Field

    class Created(mcp_types.Result):
        model_config = ConfigDict(extra="allow")
        result_type: Literal["task"] = "task"
        task_id: str
        status: str
        poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")

    class TaskParams(mcp_types.RequestParams):
        model_config = ConfigDict(extra="allow")
        task_id: str

    class Detailed(mcp_types.Result):
        model_config = ConfigDict(extra="allow")

    class TaskRequest(mcp_types.Request[TaskParams, str]):
        method: str
        params: TaskParams

    return Created, TaskRequest, Detailed


def TasksClient(elicit: Elicit | None = None) -> Any:
    """An `mcp.Client` extension that turns a remote task into the call's result.

    Args:
        elicit: Answers an `elicitation/create` a task asks for (its params, as a
            dict) with an `ElicitResult` dict (`{"action": "accept", "content": {}}`).
            None cancels a task that asks for input, and the call ends as an error.

    Returns:
        The extension, for `mcp.Client(..., extensions=[TasksClient()])`.
    """
    try:
        import mcp.types as mcp_types
        from mcp.client.extension import ClientExtension, ResultClaim
    except ImportError:
        msg = "Remote MCP tools need the MCP SDK: pip install 'toolcast[mcp]'"
        raise ImportError(msg) from None

    created_model, request_model, detailed_model = _models()

    async def send(session: Any, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        request = request_model.model_validate({"method": method, "params": params}, by_name=False)
        got = await session.send_request(request, detailed_model)
        dumped: dict[str, Any] = got.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped

    async def answer(session: Any, task_id: str, asked: Mapping[str, Any]) -> bool:
        if elicit is None:
            return False
        responses = {}
        for key, request in asked.items():
            if not isinstance(request, Mapping) or request.get("method") != "elicitation/create":
                return False
            responses[key] = dict(await elicit(request.get("params") or {}))
        await send(session, "tasks/update", {"taskId": task_id, "inputResponses": responses})
        return True

    def ended(task: Mapping[str, Any], tool_name: str) -> Any:
        status = task.get("status")
        if status == "completed" and isinstance(task.get("result"), Mapping):
            return mcp_types.CallToolResult.model_validate(task["result"], by_name=False)
        found = task.get("error")
        error: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        why = {
            "failed": f"the remote task failed: {error.get('message', 'no reason given')}",
            "cancelled": "the remote task was cancelled",
            "input_required": "the remote task asks for input this client cannot give",
        }.get(str(status), f"the remote task ended as {status!r} without a result")
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=f"{tool_name}: {why}.")],
            is_error=True,
        )

    async def resolve(created: Any, ctx: Any) -> Any:
        task_id = created.task_id
        pause = (created.poll_interval_ms or 500) / 1000
        pause = min(max(pause, _MIN_POLL_S), _MAX_POLL_S)
        try:
            while True:
                task = await send(ctx.session, "tasks/get", {"taskId": task_id})
                status = task.get("status")
                if status in _TERMINAL:
                    return ended(task, ctx.tool_name)
                if status == "input_required" and not await answer(
                    ctx.session, task_id, task.get("inputRequests") or {}
                ):
                    with anyio.CancelScope(shield=True):
                        await send(ctx.session, "tasks/cancel", {"taskId": task_id})
                    return ended(task, ctx.tool_name)
                await anyio.sleep(pause)
        except anyio.get_cancelled_exc_class():
            # The local call was cancelled: so is the remote task (best effort).
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await send(ctx.session, "tasks/cancel", {"taskId": task_id})
            raise

    class _Tasks(ClientExtension):
        identifier = TASKS_EXTENSION

        def claims(self) -> Any:
            return [ResultClaim(result_type="task", model=created_model, resolve=resolve)]

    return _Tasks()
