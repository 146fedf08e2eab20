"""The 2026-07-28 era of `mcp.create_server`, driven in-process by the official client.

Claims: `server/discover` answers; `tools/list` is the same for every client and
cacheable (`ttlMs`, public); a selector's result reveals the members with a sealed
handle, and a `tools/list` carrying the handle lists them (a forged handle lists
nothing more); an approval is a multi round-trip request (accept runs once,
decline does not run); the `requestState` is bound to the call: a forged, an
edited-arguments and a replayed one are refused; aliases outlive a request in
the shared store; a client without elicitation is told it cannot approve;
logging opts in per request; resource and prompt lists are empty; the server
announces toolcast's version.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, uuid5

import mcp.types as mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_serve_helpers import TOOLS, Answer, Recorder

from toolcast import Catalog, ToolContext, tool
from toolcast._cli._main import load_source
from toolcast.providers import mcp
from toolcast.providers._mcp_stateless import APPROVAL_KEY, TOOLBOXES_META_KEY, toolcast_version

pytestmark = pytest.mark.anyio


def _server() -> object:
    return mcp.create_server(load_source(str(TOOLS)).source)  # as `toolcast serve` builds it


async def test_discover_and_a_cacheable_list_with_selectors() -> None:
    async with Client(_server()) as client:
        assert client.protocol_version == "2026-07-28"
        discovered = await client.session.discover()
        listed = await client.list_tools(cache_mode="bypass")
        resources = await client.list_resources()
        prompts = await client.list_prompts()
    assert "2026-07-28" in discovered.supported_versions
    assert discovered.capabilities.tools is not None
    names = [t.name for t in listed.tools]
    assert "orders_admin" in names
    assert "close_order" not in names  # members wait for their toolbox
    assert listed.ttl_ms == 300_000
    assert listed.cache_scope == "public"
    assert resources.resources == []
    assert prompts.prompts == []


async def test_a_selector_reveals_its_members_with_a_sealed_handle() -> None:
    async with Client(_server()) as client:
        opened = await client.call_tool("orders_admin", {})
        handle = (opened.meta or {})[TOOLBOXES_META_KEY]
        with_handle = await client.list_tools(meta={TOOLBOXES_META_KEY: handle})
        forged = await client.list_tools(meta={TOOLBOXES_META_KEY: handle[:-4] + "AAAA"})
        closed = await client.call_tool("close_order", {"order": "o1"})
    assert "close_order" in opened.content[0].text
    assert [t.name for t in with_handle.tools][-2:] == ["close_order", "reopen_order"]
    assert with_handle.ttl_ms == 0  # depends on the handle: never a shared cache entry
    assert "close_order" not in [t.name for t in forged.tools]
    assert closed.content[0].text == "closed o1"


async def test_an_approval_is_a_round_trip_and_runs_once() -> None:
    accept, decline = Answer("accept"), Answer("decline")
    server = _server()
    async with Client(server, elicitation_callback=accept) as client:
        approved = await client.call_tool("refund", {"order": "o1", "amount": 5})
    async with Client(server, elicitation_callback=decline) as client:
        declined = await client.call_tool("refund", {"order": "o2", "amount": 6})
    async with Client(server) as client:  # no elicitation capability
        with pytest.raises(MCPError) as cannot:
            await client.call_tool("refund", {"order": "o3", "amount": 7})
    assert approved.content[0].text == "refunded 5 on o1"
    assert "'refund'" in accept.asked[0]
    assert '"amount": 5' in accept.asked[0]
    assert declined.is_error
    assert declined.content[0].text == "The user declined the call to 'refund'; it was not run."
    # 2026-07-28: a call that needs an undeclared capability is refused with -32021,
    # naming it, and nothing runs.
    assert cannot.value.error.code == mcp_types.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert cannot.value.error.data == {"requiredCapabilities": {"elicitation": {}}}
    assert "does not declare the elicitation capability" in cannot.value.error.message


async def test_a_forged_edited_or_replayed_request_state_is_refused() -> None:
    yes = {APPROVAL_KEY: mcp_types.ElicitResult(action="accept", content={})}
    async with Client(_server(), elicitation_callback=Answer("accept")) as client:
        asked = await client.session.call_tool(
            "refund", {"order": "o1", "amount": 5}, allow_input_required=True
        )
        assert isinstance(asked, mcp_types.InputRequiredResult)
        state = asked.request_state
        assert state is not None
        assert "approval" not in state  # sealed, not readable
        assert list(asked.input_requests or {}) == [APPROVAL_KEY]

        async def retry(arguments: dict[str, object], echoed: str) -> object:
            return await client.session.call_tool(
                "refund",
                arguments,
                input_responses=yes,
                request_state=echoed,
                allow_input_required=True,
            )

        with pytest.raises(MCPError) as forged:
            await retry({"order": "o1", "amount": 5}, state[:-6] + "AAAAAA")
        with pytest.raises(MCPError) as edited:
            await retry({"order": "o1", "amount": 500}, state)
        ran = await retry({"order": "o1", "amount": 5}, state)
        with pytest.raises(MCPError) as replayed:
            await retry({"order": "o1", "amount": 5}, state)
    assert forged.value.code == edited.value.code == mcp_types.INVALID_PARAMS
    assert forged.value.message == edited.value.message == "Invalid or expired requestState"
    assert isinstance(ran, mcp_types.CallToolResult)
    assert ran.content[0].text == "refunded 5 on o1"  # type: ignore[union-attr]
    assert replayed.value.code == mcp_types.INVALID_PARAMS
    assert "used already" in replayed.value.message


async def test_aliases_outlive_the_request_per_conversation() -> None:
    server = _server()
    mine = {"io.toolcast/conversation": "c-1"}
    theirs = {"io.toolcast/conversation": "c-2"}
    async with Client(server) as client:
        made = await client.call_tool("make_link", {"name": "a"}, meta=mine)
        opened = await client.call_tool("open_link", {"link": "link-1"}, meta=mine)
        stray = await client.call_tool("open_link", {"link": "link-1"}, meta=theirs)
    assert made.structured_content == {"id": "link-1", "name": "a"}
    assert opened.content[0].text == str(uuid5(NAMESPACE_URL, "a"))
    assert stray.is_error
    assert "link-1" in stray.content[0].text


@tool
def chatty(context: ToolContext) -> str:
    """Log twice, then answer."""
    context.log("info", "details")
    context.log("warning", {"disk": "low"})
    return "ok"


async def test_logs_reach_a_client_that_opts_in() -> None:
    recorder = Recorder()
    server = mcp.create_server(Catalog([chatty]))
    async with Client(server, message_handler=recorder) as client:
        await client.call_tool("chatty", {})  # no opt-in: nothing sent
        silent = [
            m for m in recorder.messages if isinstance(m, mcp_types.LoggingMessageNotification)
        ]
        await client.call_tool("chatty", {}, meta={"io.modelcontextprotocol/logLevel": "warning"})
    logs = [m for m in recorder.messages if isinstance(m, mcp_types.LoggingMessageNotification)]
    assert silent == []
    assert [(m.params.level, m.params.data, m.params.logger) for m in logs] == [
        ("warning", {"disk": "low"}, "chatty")
    ]


async def test_the_handshake_era_sets_a_log_level_and_sees_the_version() -> None:
    recorder = Recorder()
    server = mcp.create_server(Catalog([chatty]))
    async with Client(server, mode="legacy", message_handler=recorder) as client:
        await client.call_tool("chatty", {})
        with pytest.warns(MCPDeprecationWarning):  # the client's own deprecation notice
            await client.session.set_logging_level("warning")
        await client.call_tool("chatty", {})
        version = client.server_info.version  # type: ignore[union-attr]
    levels = [
        m.params.level
        for m in recorder.messages
        if isinstance(m, mcp_types.LoggingMessageNotification)
    ]
    assert levels == ["info", "warning", "warning"]
    assert version == toolcast_version() != ""
