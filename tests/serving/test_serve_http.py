"""`toolcast serve --http`: the official MCP client over streamable HTTP on 127.0.0.1.

Claims: sessions are separate (a toolbox one client opens stays closed for the
other, and aliases do not cross); approvals, progress and cancellation work over
HTTP; the DNS-rebinding checks (Host, Origin) stay on; an oversized body is
refused with 413; a 2026-07-28 client is served on the same endpoint; a client
that disconnects mid-call does not stop the server serving others; SIGINT stops
it cleanly. One server serves the whole module (its start-up is most of the cost).
"""

from __future__ import annotations

import signal
from uuid import NAMESPACE_URL, uuid5

import anyio
import httpx
import mcp.types as mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_serve_helpers import Answer, HttpServer, Recorder, start_http

pytestmark = pytest.mark.anyio

_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server() -> HttpServer:
    started = start_http()
    yield started  # type: ignore[misc]
    if started.process.poll() is None:
        started.stop()


async def test_two_concurrent_sessions_have_their_own_tools(server: HttpServer) -> None:
    recorder = Recorder()
    async with (
        Client(server.url, mode="legacy", message_handler=recorder) as first,
        Client(server.url, mode="legacy") as second,
    ):
        assert first.protocol_version == second.protocol_version == "2025-11-25"
        added, opened = await _both(
            second.call_tool("add", {"a": 20, "b": 22}), first.call_tool("orders_admin", {})
        )
        first_tools = [t.name for t in (await first.list_tools()).tools]
        second_tools = [t.name for t in (await second.list_tools()).tools]
        closed = await first.call_tool("close_order", {"order": "o9"})
        with pytest.raises(MCPError) as unknown:
            await second.call_tool("close_order", {"order": "o9"})
        invalid = await second.call_tool("find_item", {"query": "x", "limit": 99})
        # Aliases: each session numbers its own ids and knows only its own.
        made = [
            await first.call_tool("make_link", {"name": "a"}),
            await first.call_tool("make_link", {"name": "b"}),
            await second.call_tool("make_link", {"name": "c"}),
        ]
        first_opens = await first.call_tool("open_link", {"link": "link-1"})
        second_opens = await second.call_tool("open_link", {"link": "link-1"})
        second_strays = await second.call_tool("open_link", {"link": "link-2"})
    assert added.structured_content == {"result": 42}
    assert not opened.is_error
    assert "ToolListChangedNotification" in recorder.kinds()
    assert first_tools[-2:] == ["close_order", "reopen_order"]
    assert "close_order" not in second_tools
    assert closed.content[0].text == "closed o9"
    assert unknown.value.code == mcp_types.INVALID_PARAMS
    assert "Unknown tool 'close_order'" in unknown.value.message
    assert invalid.is_error
    assert "'limit'" in invalid.content[0].text
    assert [m.structured_content["id"] for m in made] == ["link-1", "link-2", "link-1"]  # type: ignore[index]
    assert first_opens.content[0].text == str(uuid5(NAMESPACE_URL, "a"))
    assert second_opens.content[0].text == str(uuid5(NAMESPACE_URL, "c"))
    assert second_strays.is_error
    assert "link-2" in second_strays.content[0].text


async def _both(a, b):  # type: ignore[no-untyped-def]
    results: list[object] = [None, None]

    async def run(index: int, awaitable) -> None:  # type: ignore[no-untyped-def]
        results[index] = await awaitable

    async with anyio.create_task_group() as group:
        group.start_soon(run, 0, a)
        group.start_soon(run, 1, b)
    return results


async def test_approval_progress_and_cancellation_over_http(server: HttpServer) -> None:
    seen: list[float] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append(done)

    answers = Answer("accept")
    async with (
        Client(server.url, mode="legacy", elicitation_callback=answers) as asking,
        Client(server.url, mode="legacy") as plain,
    ):
        approved = await asking.call_tool("refund", {"order": "o1", "amount": 3})
        unasked = await plain.call_tool("refund", {"order": "o1", "amount": 3})
        counted = await asking.call_tool("count", {"steps": 4}, progress_callback=progress)
        with anyio.move_on_after(0.5) as scope:
            await plain.call_tool("wait", {"seconds": 30})
        assert scope.cancelled_caught
        after = await plain.call_tool("add", {"a": 1, "b": 2})
    assert approved.content[0].text == "refunded 3 on o1"
    assert len(answers.asked) == 1
    assert unasked.is_error
    assert "does not declare the elicitation capability" in unasked.content[0].text
    assert counted.structured_content == {"result": 4}
    assert seen == [1, 2, 3, 4]
    assert after.structured_content == {"result": 3}


async def test_a_client_leaving_mid_call_does_not_stop_the_others(server: HttpServer) -> None:
    async with Client(server.url, mode="legacy") as staying:
        with anyio.move_on_after(0.5):
            async with Client(server.url, mode="legacy") as leaving:
                await leaving.call_tool("wait", {"seconds": 30})
        answer = await staying.call_tool("add", {"a": 2, "b": 2})
    assert answer.structured_content == {"result": 4}


async def test_transport_security_and_limits(server: HttpServer) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        fine = await http.post(server.url, json=_INIT, headers=_HEADERS)
        rebound = await http.post(
            server.url, json=_INIT, headers={**_HEADERS, "Host": "evil.example"}
        )
        foreign = await http.post(
            server.url, json=_INIT, headers={**_HEADERS, "Origin": "http://evil.example"}
        )
        huge = await http.post(
            server.url, content=b'{"x": "' + b"a" * (5 << 20) + b'"}', headers=_HEADERS
        )
        garbage = await http.post(server.url, content=b"{not json", headers=_HEADERS)
    assert fine.status_code == 200
    assert rebound.status_code == 421
    assert foreign.status_code == 403
    assert huge.status_code == 413
    assert garbage.status_code == 400
    assert garbage.json()["error"]["code"] == mcp_types.PARSE_ERROR


async def test_a_client_in_auto_mode_speaks_2026_on_the_same_endpoint(server: HttpServer) -> None:
    async with Client(server.url) as modern:
        assert modern.protocol_version == "2026-07-28"
        listed = await modern.list_tools()
        added = await modern.call_tool("add", {"a": 1, "b": 2})
    assert "orders_admin" in [t.name for t in listed.tools]
    assert added.structured_content == 3


def test_sigint_stops_the_http_server_cleanly(server: HttpServer) -> None:
    # Last in the module: the shared server ends here (stdio tests SIGTERM).
    assert server.stop(signal.SIGINT) == 0
