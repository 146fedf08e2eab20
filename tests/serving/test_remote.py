"""Remote MCP tools as toolcast tools: `connect_stdio`/`connect_http` + `tools_from_session`.

Claims: a FastMCP server's tools become `Tool`s (over stdio and streamable HTTP)
that validate arguments on this host before anything is sent; remote `isError`
results and transport failures are error outcomes; a schema toolcast cannot
validate exactly is left out and reported; remote tools join catalogs, policy
and the lock; a `list_changed` from the remote refreshes them.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from typing import Any

import anyio
import mcp.types as mcp_types
import pytest
from mcp import Client
from mcp.server.lowlevel import Server
from mcp_serve_helpers import HERE, child_env, serve_command

from toolcast import Catalog, ToolCall
from toolcast._lock._document import lock_document
from toolcast.errors import ToolDefinitionError
from toolcast.policy import Policy
from toolcast.providers import mcp

pytestmark = pytest.mark.anyio

WEATHER = [sys.executable, str(HERE / "weather_server.py")]


async def _checks(remote: Any) -> None:
    tools = await mcp.tools_from_session(remote, prefix="weather_")
    assert [t.name for t in tools] == [
        "weather_forecast",
        "weather_calls",
        "weather_boom",
        "weather_crash",
    ]
    assert tools.problems == ()
    catalog = Catalog(tools)
    forecast = catalog.select().resolve("weather_forecast")
    assert forecast.spec.input_schema["required"] == ["city"]
    ran = await forecast.invoke({"city": "Paris"})
    assert (ran.is_error, ran.structured) == (False, {"city": "Paris", "days": 1, "sky": "sunny"})
    refused = await forecast.invoke({"city": 3, "days": "two"})
    assert refused.is_error
    assert refused.error is not None
    assert refused.error.kind == "invalid_arguments"
    assert "'city' must be a string" in refused.text
    # Refused here: the remote saw one forecast call, not two.
    counted = await catalog.select().resolve("weather_calls").invoke({})
    assert counted.structured == {"result": 1}
    failed = await catalog.select().resolve("weather_boom").invoke({"x": 7})
    assert failed.is_error
    assert "kaboom 7" in failed.text
    # Policy and the lock see remote tools like local ones.
    policy = Policy(deny=["weather_boom"], allow=["weather_*"])
    denied = await policy.evaluate(tools[2], ToolCall("c1", "weather_boom", {"x": 1}), {"x": 1})
    assert denied.status == "denied"
    assert sorted(lock_document(catalog)["tools"]) == sorted(t.name for t in tools)
    # The server going away mid-session is an error outcome, not an exception.
    gone = await catalog.select().resolve("weather_crash").invoke({})
    assert gone.is_error
    assert "could not be called" in gone.text


async def test_fastmcp_over_stdio() -> None:
    async with mcp.connect_stdio(WEATHER, env=child_env()) as remote:
        await _checks(remote)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_fastmcp_over_http() -> None:
    port = _free_port()
    process = subprocess.Popen(
        [*WEATHER, "http", str(port)],
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("the FastMCP server did not start")
                await anyio.sleep(0.1)
        async with mcp.connect_http(f"http://127.0.0.1:{port}/mcp") as remote:
            await _checks(remote)
    finally:
        process.kill()
        process.wait(5)


async def test_list_changed_from_the_remote_refreshes_its_tools() -> None:
    # The remote is `toolcast serve --names ...`, which also checks that option.
    command = serve_command("--names", "add,orders_admin")
    async with mcp.connect_stdio(command, env=child_env()) as remote:
        tools = await mcp.tools_from_session(remote)
        changes: list[list[str]] = []
        changed = anyio.Event()

        def on_change(current: mcp.RemoteTools) -> None:
            changes.append([t.name for t in current])
            changed.set()

        tools.on_change(on_change)
        assert [t.name for t in tools] == ["add", "orders_admin"]
        opened = await tools[1].invoke({})
        assert not opened.is_error
        with anyio.fail_after(10):
            await changed.wait()
    assert changes == [["add", "orders_admin", "close_order", "reopen_order"]]


def _odd_server() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(
            tools=[
                mcp_types.Tool(name="fine", input_schema={"type": "object", "properties": {}}),
                mcp_types.Tool(
                    name="far_ref",
                    input_schema={
                        "type": "object",
                        "properties": {"x": {"$ref": "https://example.com/x.json"}},
                    },
                ),
                mcp_types.Tool(name="dotted.name", input_schema={"type": "object"}),
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="ok")])

    return Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_a_schema_toolcast_cannot_validate_exactly_is_reported_not_trusted() -> None:
    async with Client(_odd_server(), mode="legacy") as remote:
        tools = await mcp.tools_from_session(remote)
        with pytest.raises(ToolDefinitionError):
            await mcp.tools_from_session(remote, unsupported="raise")
        ran = await tools[0].invoke({})
    assert [t.name for t in tools] == ["fine"]
    assert [p.name for p in tools.problems] == ["far_ref", "dotted.name"]
    assert "$ref" in tools.problems[0].message
    assert ran.text == "ok"
