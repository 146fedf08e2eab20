"""`toolcast serve TARGET` over stdio, driven by the official MCP client in a subprocess.

Claims: the command serves the TARGET's tools over the handshake era; unknown and
unopened tools are protocol errors; a toolbox selector adds its members to that
session and sends `notifications/tools/list_changed`; approvals go through
elicitation (accept runs the call once, decline is a denial, no capability is an
error result); progress reports arrive as progress notifications; a cancelled
request stops the tool; malformed and oversized lines get JSON-RPC errors and the
server keeps serving; SIGTERM stops it cleanly.
"""

from __future__ import annotations

import json
import signal
import subprocess
from typing import Any

import anyio
import mcp.types as mcp_types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_serve_helpers import Answer, Recorder, child_env, serve_command

pytestmark = pytest.mark.anyio


def _params(*extra: str) -> StdioServerParameters:
    command = serve_command(*extra)
    return StdioServerParameters(command=command[0], args=command[1:], env=child_env())


async def test_one_session_lists_calls_opens_a_toolbox_reports_progress_and_cancels() -> None:
    recorder = Recorder()
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async with Client(_params(), mode="legacy", message_handler=recorder) as client:
        assert client.protocol_version == "2025-11-25"
        listed = await client.list_tools()
        added = await client.call_tool("add", {"a": 2, "b": 3})
        invalid = await client.call_tool("add", {"a": "x", "b": 1})
        failed = await client.call_tool("fail", {"reason": "no"})
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("nope", {})
        with pytest.raises(MCPError, match="Unknown tool 'close_order'"):
            await client.call_tool("close_order", {"order": "o1"})  # not opened yet
        opened = await client.call_tool("orders_admin", {})
        relisted = await client.list_tools()
        closed = await client.call_tool("close_order", {"order": "o1"})
        counted = await client.call_tool("count", {"steps": 3}, progress_callback=progress)
        with anyio.move_on_after(0.5) as scope:
            await client.call_tool("wait", {"seconds": 30})
        assert scope.cancelled_caught
        with anyio.fail_after(60):  # a hang guard only: the session must answer at all
            again = await client.call_tool("add", {"a": 1, "b": 1})
    names = [t.name for t in listed.tools]
    assert names == [
        "add",
        "find_item",
        "refund",
        "fail",
        "count",
        "wait",
        "orders_admin",
        "make_link",
        "open_link",
    ]
    add = next(t for t in listed.tools if t.name == "add")
    assert add.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
        "additionalProperties": False,
    }
    assert added.structured_content == {"result": 5}
    assert added.content[0].text == "5"  # text content always
    assert invalid.is_error
    assert "'a' must be an integer" in invalid.content[0].text
    assert (failed.is_error, failed.content[0].text) == (True, "Cannot do that: no.")
    assert unknown.value.code == mcp_types.INVALID_PARAMS
    assert unknown.value.message.startswith("Unknown tool 'nope'. Available tools: add, ")
    # The selector lists the members, the session's list grows, the client is told.
    assert [m["name"] for m in json.loads(opened.content[0].text)] == [
        "close_order",
        "reopen_order",
    ]
    assert recorder.kinds().count("ToolListChangedNotification") == 1
    assert [t.name for t in relisted.tools][-2:] == ["close_order", "reopen_order"]
    assert len(relisted.tools) == len(names) + 2
    assert closed.content[0].text == "closed o1"
    assert counted.structured_content == {"result": 3}
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    # The cancelled call stopped (a sync tool polling its context); the session goes on.
    assert again.structured_content == {"result": 2}


async def test_selection_and_approval_through_elicitation() -> None:
    answers = Answer("accept", "decline")
    selected = _params("--categories", "orders", "--no-toolboxes")
    async with Client(selected, mode="legacy", elicitation_callback=answers) as client:
        listed = await client.list_tools()
        ran = await client.call_tool("refund", {"order": "o1", "amount": 3})
        refused = await client.call_tool("refund", {"order": "o2", "amount": 4})
    # --categories and --no-toolboxes chose these: members listed, no selector.
    assert [t.name for t in listed.tools] == ["refund", "fail", "close_order", "reopen_order"]
    assert (ran.is_error, ran.content[0].text) == (False, "refunded 3 on o1")
    assert len(answers.asked) == 2
    assert "'refund'" in answers.asked[0]
    assert '"order": "o1"' in answers.asked[0]
    assert refused.is_error
    assert refused.content[0].text == "The user declined the call to 'refund'; it was not run."


def _exchange(process: subprocess.Popen[bytes], line: bytes) -> dict[str, Any]:
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(line)
    process.stdin.flush()
    answer = process.stdout.readline()
    assert answer, "the server closed stdout"
    return json.loads(answer)  # type: ignore[no-any-return]


def _raw_server() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        serve_command(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env(),
    )


def _request(id_: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode() + b"\n"


def test_bad_input_gets_protocol_errors_serving_goes_on_and_sigterm_stops() -> None:
    process = _raw_server()
    try:
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        assert "result" in _exchange(process, _request(1, "initialize", init))
        assert process.stdin is not None
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        garbage = _exchange(process, b"{this is not json\n")
        unknown = _exchange(process, _request(2, "no/such/method"))
        huge = _exchange(process, b'{"x": "' + b"a" * (5 << 20) + b'"}\n')
        big_arguments = _exchange(
            process,
            _request(
                3, "tools/call", {"name": "find_item", "arguments": {"query": "q" * (2 << 20)}}
            ),
        )
        fine = _exchange(
            process, _request(4, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        )
        process.send_signal(signal.SIGTERM)
        code = process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
    assert code == 0  # SIGTERM: a clean stop
    assert garbage["error"]["code"] == mcp_types.PARSE_ERROR
    assert unknown["error"]["code"] == mcp_types.METHOD_NOT_FOUND
    assert huge["error"]["code"] == mcp_types.PARSE_ERROR
    assert big_arguments["result"]["isError"] is True
    assert "bytes" in big_arguments["result"]["content"][0]["text"]
    assert fine["result"]["structuredContent"] == {"result": 3}
