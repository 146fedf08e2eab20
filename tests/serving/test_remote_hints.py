"""Remote MCP tools keep their annotations; task-only tools are reported, not trusted.

Claims: `readOnlyHint`, `destructiveHint`, `idempotentHint` and `openWorldHint`
of a remote tool are on its spec (`extra["mcp_annotations"]`), are served again
when the tool is re-served, and `hint:` rules of a `Policy` decide by them (a
remote tool stating nothing counts as destructive, as the MCP spec's defaults
say); a remote tool declaring `execution.taskSupport: "required"` is left out
and named in `problems` instead of failing every call with -32601.
"""

from __future__ import annotations

from typing import Any

import mcp.types as mcp_types
import pytest
from mcp import Client
from mcp.server.lowlevel import Server

from toolcast import Catalog
from toolcast.policy import Policy
from toolcast.providers import mcp

pytestmark = pytest.mark.anyio

_OBJECT = {"type": "object", "properties": {}}


def _remote() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(
            tools=[
                mcp_types.Tool(
                    name="read",
                    input_schema=_OBJECT,
                    annotations=mcp_types.ToolAnnotations(
                        read_only_hint=True, idempotent_hint=True, open_world_hint=False
                    ),
                ),
                mcp_types.Tool(
                    name="wipe",
                    input_schema=_OBJECT,
                    annotations=mcp_types.ToolAnnotations(destructive_hint=True),
                ),
                mcp_types.Tool(name="plain", input_schema=_OBJECT),
                mcp_types.Tool(
                    name="batch",
                    input_schema=_OBJECT,
                    execution=mcp_types.ToolExecution(task_support="required"),
                ),
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="ok")])

    return Server("hinted", on_list_tools=list_tools, on_call_tool=call_tool)


async def test_hints_survive_import_reserving_and_drive_policy_rules() -> None:
    async with Client(_remote(), mode="legacy") as remote:
        tools = await mcp.tools_from_session(remote)
        by_name = {t.name: t for t in tools}
        policy = Policy(allow=["hint:readOnlyHint"], deny=["hint:destructiveHint"])
        decisions = {
            name: (await policy.evaluate(tool, _call(name), {})).status
            for name, tool in by_name.items()
        }
        reserved = mcp.create_server(Catalog(list(tools)))
        async with Client(reserved, mode="legacy") as client:
            listed = {t.name: t.annotations for t in (await client.list_tools()).tools}
    assert by_name["read"].spec.extra["mcp_annotations"] == {
        "readOnlyHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert by_name["wipe"].spec.extra["mcp_annotations"] == {"destructiveHint": True}
    assert "mcp_annotations" not in by_name["plain"].spec.extra
    # A remote idempotentHint is the spec's `idempotent` (what toolcast.temporal retries).
    assert (by_name["read"].spec.idempotent, by_name["wipe"].spec.idempotent) == (True, False)
    assert decisions == {"read": "allowed", "wipe": "denied", "plain": "denied"}
    assert listed["read"] is not None
    assert listed["read"].read_only_hint is True
    assert listed["read"].open_world_hint is False
    assert listed["wipe"] is not None
    assert listed["wipe"].destructive_hint is True
    assert listed["plain"] is None
    assert [p.name for p in tools.problems] == ["batch"]
    assert "taskSupport" in tools.problems[0].message


def test_an_unknown_hint_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="use hint: with one of readOnlyHint"):
        Policy(deny=["hint:dangerous"])


def _call(name: str) -> Any:
    from toolcast import ToolCall

    return ToolCall("c1", name, {})


def test_idempotent_tools_state_the_hint_to_policy_and_on_the_wire() -> None:
    from toolcast import Catalog, tool
    from toolcast.policy import matches
    from toolcast.providers import mcp

    @tool(idempotent=True)
    def refresh(key: str) -> str:
        """Refresh a cache entry."""
        return key

    @tool
    def append(key: str) -> str:
        """Append to a log."""
        return key

    tools = Catalog([refresh, append]).select()
    wire = {d["name"]: d for d in mcp.format_tools(tools)}

    assert wire["refresh"]["annotations"] == {"idempotentHint": True}
    assert "idempotentHint" not in wire["append"].get("annotations", {})
    assert matches("hint:idempotentHint", refresh_spec := tools.get("refresh").spec)
    assert refresh_spec.idempotent
    assert not matches("hint:idempotentHint", tools.get("append").spec)
