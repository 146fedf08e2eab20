"""Long-running tools as tasks (the 2026-07-28 Tasks extension), driven by the official client.

Claims: a `long_running` tool called by a client that declares
`io.modelcontextprotocol/tasks` is answered with a flat `CreateTaskResult` that
`tasks/get` finds at once; `TasksClient` (the SDK's own extension interface)
turns it into the call's result; a client without the extension gets a plain
result, and a `required` task tool is refused `-32021` naming the extension; an
approval waits inside the task as `input_required` and runs once on accept,
never on decline; `tasks/cancel` cancels the running tool; progress becomes
the task's `statusMessage`; a tool error is `completed` with `isError`, and a
failure of the server itself is `failed` with a JSON-RPC error; unknown ids are
`-32602`, the removed methods `-32601`; the handshake era runs the same tool as a
plain call; `tools_from_session` over `connect_http` resolves a remote task; two
replicas behind a round-robin proxy share the tasks through Redis.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp.types as mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_serve_helpers import start_http
from rr_proxy import RoundRobinProxy, backends_of

from services import redis_server
from toolcast import Tool, ToolContext, ToolError, ToolOutcome, tool
from toolcast._spec import ToolSpec
from toolcast.providers import mcp
from toolcast.providers._mcp_task_client import _models
from toolcast.providers._mcp_tasks import TASKS_EXTENSION

pytestmark = pytest.mark.anyio

RAN: list[str] = []
STOPPED: list[str] = []


@tool(long_running=True)
async def crunch(seconds: float, label: str = "x", context: ToolContext | None = None) -> str:
    """Works for `seconds`, reporting progress halfway."""
    RAN.append(label)
    try:
        await asyncio.sleep(seconds / 2)
        if context is not None:
            context.report_progress(1, 2, "halfway")
        await asyncio.sleep(seconds / 2)
    except asyncio.CancelledError:
        STOPPED.append(label)
        raise
    return f"crunched {label}"


@tool(long_running=True, requires_approval=True)
def wipe(disk: str) -> str:
    """Wipes a disk once the user approves."""
    RAN.append(f"wipe {disk}")
    return f"wiped {disk}"


@tool(long_running=True)
def broken() -> str:
    """Always fails."""
    raise ToolError("broken is broken")


@tool
def quick(name: str) -> str:
    """A plain tool."""
    return f"hi {name}"


class _Crashing:
    """An invoker (not a toolcast `Tool`) whose invoke raises: the server cannot finish."""

    spec = ToolSpec(name="crash", input_schema={"type": "object"}, long_running=True)

    async def invoke(self, arguments: Any, **_: Any) -> ToolOutcome:
        raise RuntimeError("the backend is gone")


TOOLS = [Tool.from_function(f) for f in (crunch, wipe, broken, quick)]


def _server(**options: Any) -> Any:
    return mcp.create_server(TOOLS, **options)


async def _send(client: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    _, request_model, detailed = _models()
    request = request_model.model_validate({"method": method, "params": params}, by_name=False)
    got = await client.session.send_request(request, detailed)
    dumped: dict[str, Any] = got.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


async def _until(
    client: Any, task_id: str, done: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    with anyio.fail_after(10):
        while True:
            task = await _send(client, "tasks/get", {"taskId": task_id})
            if done(task):
                return task
            await anyio.sleep(0.02)


def _ended(task: dict[str, Any]) -> bool:
    return task["status"] in ("completed", "failed", "cancelled")


async def test_a_long_running_tool_is_a_task_the_client_extension_resolves() -> None:
    RAN.clear()
    server = _server()
    async with Client(server, extensions=[mcp.TasksClient()]) as client:
        raw = await client.session.call_tool(
            "crunch", {"seconds": 0.2, "label": "raw"}, allow_claimed=True
        )
        created = raw.model_dump(by_alias=True, mode="json", exclude_none=True)
        first = await _send(client, "tasks/get", {"taskId": created["taskId"]})
        resolved = await client.call_tool("crunch", {"seconds": 0.1, "label": "resolved"})
        plain = await client.call_tool("quick", {"name": "a"})
    # A flat CreateTaskResult: no wrapper, no result, no requestState.
    assert created["resultType"] == "task"
    assert created["status"] == "working"
    assert set(created) >= {"taskId", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"}
    assert not {"task", "result", "error", "inputRequests", "requestState"} & set(created)
    assert len(created["taskId"]) >= 32  # 192 random bits
    assert first["taskId"] == created["taskId"]  # saved before it was sent
    assert first["resultType"] == "complete"
    assert resolved.content[0].text == "crunched resolved"
    assert not resolved.is_error
    assert plain.content[0].text == "hi a"  # not long-running: a plain result
    assert RAN == ["raw", "resolved"]


async def test_without_the_extension_a_plain_call_and_required_is_refused() -> None:
    server = _server(tasks={"broken": "required", "crunch": "off"})
    async with Client(server) as client:
        ran = await client.call_tool("crunch", {"seconds": 0, "label": "sync"})
        with pytest.raises(MCPError) as refused:
            await client.call_tool("broken", {})
        with pytest.raises(MCPError) as gated:
            await _send(client, "tasks/get", {"taskId": "whatever"})
    assert ran.content[0].text == "crunched sync"
    assert refused.value.error.code == mcp_types.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert refused.value.error.data == {
        "requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}
    }
    assert "'broken'" in refused.value.error.message
    assert gated.value.error.code == mcp_types.MISSING_REQUIRED_CLIENT_CAPABILITY


async def test_an_approval_waits_inside_the_task_and_runs_once() -> None:
    RAN.clear()
    server = _server()
    async with Client(server, extensions=[mcp.TasksClient()]) as client:
        created = await client.session.call_tool("wipe", {"disk": "d1"}, allow_claimed=True)
        task_id = created.model_dump(by_alias=True)["taskId"]
        asked = await _until(client, task_id, lambda t: t["status"] == "input_required")
        ((key, request),) = asked["inputRequests"].items()
        ignored = await _send(
            client, "tasks/update", {"taskId": task_id, "inputResponses": {"other": {}}}
        )
        still = await _send(client, "tasks/get", {"taskId": task_id})
        ack = await _send(
            client,
            "tasks/update",
            {"taskId": task_id, "inputResponses": {key: {"action": "accept", "content": {}}}},
        )
        done = await _until(client, task_id, _ended)

        declined_call = await client.session.call_tool("wipe", {"disk": "d2"}, allow_claimed=True)
        other = declined_call.model_dump(by_alias=True)["taskId"]
        asked2 = await _until(client, other, lambda t: t["status"] == "input_required")
        (key2,) = asked2["inputRequests"]
        await _send(
            client,
            "tasks/update",
            {"taskId": other, "inputResponses": {key2: {"action": "decline"}}},
        )
        declined = await _until(client, other, _ended)
    assert request["method"] == "elicitation/create"
    assert "'wipe'" in request["params"]["message"]
    assert '"disk": "d1"' in request["params"]["message"]
    assert ignored == {"resultType": "complete", "_meta": ignored["_meta"]}
    assert still["status"] == "input_required"
    assert ack["resultType"] == "complete"
    assert not {"taskId", "status", "result"} & set(ack)
    assert done["status"] == "completed"
    assert "inputRequests" not in done
    assert done["result"]["content"][0]["text"] == "wiped d1"
    assert declined["status"] == "completed"
    assert declined["result"]["isError"] is True
    assert "declined" in declined["result"]["content"][0]["text"]
    assert RAN == ["wipe d1"]  # once, and never on decline


async def test_the_client_extension_answers_an_approval_through_its_callback() -> None:
    RAN.clear()
    asked: list[Any] = []

    async def elicit(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {}}

    async with Client(_server(), extensions=[mcp.TasksClient(elicit)]) as client:
        result = await client.call_tool("wipe", {"disk": "d3"})
    async with Client(_server(), extensions=[mcp.TasksClient()]) as client:
        unanswered = await client.call_tool("wipe", {"disk": "d4"})
    assert result.content[0].text == "wiped d3"
    assert "'wipe'" in asked[0]["message"]
    assert unanswered.is_error
    assert "asks for input this client cannot give" in unanswered.content[0].text
    assert RAN == ["wipe d3"]


async def test_cancel_stops_the_tool_and_progress_is_the_status_message() -> None:
    STOPPED.clear()
    RAN.clear()
    async with Client(_server(), extensions=[mcp.TasksClient()]) as client:
        created = await client.session.call_tool(
            "crunch", {"seconds": 0.4, "label": "p"}, allow_claimed=True
        )
        task_id = created.model_dump(by_alias=True)["taskId"]
        halfway = await _until(client, task_id, lambda t: "statusMessage" in t or _ended(t))
        finished = await _until(client, task_id, _ended)

        long = await client.session.call_tool(
            "crunch", {"seconds": 60, "label": "c"}, allow_claimed=True
        )
        long_id = long.model_dump(by_alias=True)["taskId"]
        with anyio.fail_after(10):
            while "c" not in RAN:  # the tool is running, not just the task
                await anyio.sleep(0.01)
        ack = await _send(client, "tasks/cancel", {"taskId": long_id})
        cancelled = await _send(client, "tasks/get", {"taskId": long_id})
        again = await _send(client, "tasks/cancel", {"taskId": long_id})
    assert halfway["statusMessage"] == "1/2: halfway"
    assert finished["status"] == "completed"
    assert ack["resultType"] == "complete"
    assert not {"taskId", "status"} & set(ack)
    assert cancelled["status"] == "cancelled"
    assert "result" not in cancelled
    assert again["resultType"] == "complete"  # idempotent on an ended task
    assert STOPPED == ["c"]


async def test_a_tool_error_completes_and_a_server_failure_fails() -> None:
    server = mcp.create_server([*TOOLS, _Crashing()])
    async with Client(server, extensions=[mcp.TasksClient()]) as client:
        tool_error = await client.session.call_tool("broken", {}, allow_claimed=True)
        crashed = await client.session.call_tool("crash", {}, allow_claimed=True)
        errored = await _until(client, tool_error.model_dump(by_alias=True)["taskId"], _ended)
        failed = await _until(client, crashed.model_dump(by_alias=True)["taskId"], _ended)
        resolved = await client.call_tool("crash", {})  # TasksClient's view of it
        with pytest.raises(MCPError) as unknown:
            await _send(client, "tasks/get", {"taskId": "not-a-task"})
        with pytest.raises(MCPError) as removed:
            await _send(client, "tasks/result", {"taskId": "not-a-task"})
    assert errored["status"] == "completed"
    assert errored["result"]["isError"] is True
    assert "broken is broken" in errored["result"]["content"][0]["text"]
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == -32603
    assert "the backend is gone" in failed["error"]["message"]
    assert "result" not in failed
    assert resolved.is_error
    assert "crash: the remote task failed: The task could not finish" in resolved.content[0].text
    assert unknown.value.error.code == mcp_types.INVALID_PARAMS
    assert "No task 'not-a-task'" in unknown.value.error.message
    assert removed.value.error.code == mcp_types.METHOD_NOT_FOUND


async def test_the_handshake_era_runs_the_tool_as_a_plain_call() -> None:
    async with Client(_server(), mode="legacy") as client:
        listed = await client.list_tools()
        result = await client.call_tool("crunch", {"seconds": 0, "label": "old"})
    assert result.content[0].text == "crunched old"
    assert all(t.execution is None for t in listed.tools)


def test_create_server_refuses_an_unknown_task_mode() -> None:
    with pytest.raises(ValueError, match="'crunch' must be 'optional', 'required' or 'off'"):
        _server(tasks={"crunch": "sometimes"})


async def _through_proxy(
    replicas: list[Any], body: Callable[[str, RoundRobinProxy], Awaitable[None]]
) -> None:
    async with RoundRobinProxy(backends_of([r.url for r in replicas])) as proxy:
        await body(f"http://127.0.0.1:{proxy.port}/mcp", proxy)


async def test_replicas_share_tasks_and_tools_from_session_resolves_them(tmp_path: Any) -> None:
    key = tmp_path / "state.key"
    key.write_text("k" * 64)
    seen: dict[str, Any] = {}

    async def body(url: str, proxy: RoundRobinProxy) -> None:
        async with mcp.connect_http(url, mode="2026-07-28") as client:
            remote = await mcp.tools_from_session(client)
            slow = next(t for t in remote.tools() if t.spec.name == "slow_compute")
            seen["outcome"] = await slow.invoke({"seconds": 0.3, "label": "remote"})
            created = await client.session.call_tool(
                "slow_compute", {"seconds": 60, "label": "far"}, allow_claimed=True
            )
            task_id = created.model_dump(by_alias=True)["taskId"]
            before = len(proxy.served)
            seen["got"] = await _send(client, "tasks/get", {"taskId": task_id})
            await _send(client, "tasks/cancel", {"taskId": task_id})
            seen["after"] = await _until(client, task_id, _ended)
            seen["rounds"] = proxy.served[before:]

    with redis_server() as redis:
        extra = ("--redis", redis.url, "--state-key-file", str(key))
        target = "conformance_tools:catalog"
        replicas = [start_http(*extra, target=target), start_http(*extra, target=target)]
        try:
            await _through_proxy(replicas, body)
        finally:
            for replica in replicas:
                replica.stop()
    assert seen["outcome"].text == "Computed remote after 0.3 s"
    assert seen["got"]["status"] == "working"
    assert seen["after"]["status"] == "cancelled"  # asked on one replica, run on the other
    assert len(set(seen["rounds"])) == 2


async def test_a_full_task_table_refuses_new_tasks_and_keeps_the_old(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolcast.providers import _mcp_tasks

    monkeypatch.setattr(_mcp_tasks, "_MAX_TASKS", 2)
    async with Client(_server(), extensions=[mcp.TasksClient()]) as client:
        made = [
            await client.session.call_tool("crunch", {"seconds": 0}, allow_claimed=True)
            for _ in range(2)
        ]
        with pytest.raises(MCPError) as full:
            await client.session.call_tool("crunch", {"seconds": 0}, allow_claimed=True)
        kept = [await _until(client, m.model_dump(by_alias=True)["taskId"], _ended) for m in made]
    assert full.value.error.code == mcp_types.INTERNAL_ERROR
    assert "keeps 2 tasks already" in full.value.error.message
    assert [k["status"] for k in kept] == ["completed", "completed"]
