"""Two `toolcast serve --http` replicas behind a round-robin proxy, sharing a Redis.

Claims: a 2026-07-28 client lists, opens a toolbox, gets an approval asked and
answered, and uses aliases while consecutive requests land on different
replicas; a forged and a replayed `requestState` are refused (the once-only
record is in the shared Redis, so the replay is refused by the other replica).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from uuid import NAMESPACE_URL, uuid5

import mcp.types as mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_serve_helpers import Answer, start_http
from rr_proxy import RoundRobinProxy, backends_of

from services import redis_server
from toolcast.providers._mcp_stateless import APPROVAL_KEY, TOOLBOXES_META_KEY

pytestmark = pytest.mark.anyio


async def test_replicas_behind_round_robin_serve_one_2026_client(tmp_path: Path) -> None:
    key = tmp_path / "state.key"
    key.write_text(secrets.token_hex(32))
    with redis_server() as redis:
        extra = ("--redis", redis.url, "--state-key-file", str(key))
        replicas = [start_http(*extra), start_http(*extra)]
        try:
            async with RoundRobinProxy(backends_of([r.url for r in replicas])) as proxy:
                await _client_session(f"http://127.0.0.1:{proxy.port}/mcp", proxy)
        finally:
            for replica in replicas:
                replica.stop()


async def _client_session(url: str, proxy: RoundRobinProxy) -> None:
    answers = Answer("accept")
    conversation = {"io.toolcast/conversation": "replica-test"}
    async with Client(url, mode="2026-07-28", elicitation_callback=answers) as client:
        listed = await client.list_tools(cache_mode="bypass")
        opened = await client.call_tool("orders_admin", {})
        handle = (opened.meta or {})[TOOLBOXES_META_KEY]
        with_members = await client.list_tools(meta={TOOLBOXES_META_KEY: handle})
        closed = await client.call_tool("close_order", {"order": "o1"})
        before = len(proxy.served)
        approved = await client.call_tool("refund", {"order": "o1", "amount": 5})
        rounds = proxy.served[before:]
        made = await client.call_tool("make_link", {"name": "a"}, meta=conversation)
        used = await client.call_tool("open_link", {"link": "link-1"}, meta=conversation)

        yes = {APPROVAL_KEY: mcp_types.ElicitResult(action="accept", content={})}
        arguments = {"order": "o2", "amount": 6}
        asked = await client.session.call_tool("refund", arguments, allow_input_required=True)
        assert isinstance(asked, mcp_types.InputRequiredResult)
        state = asked.request_state
        assert state is not None

        async def retry(echoed: str) -> object:
            return await client.session.call_tool(
                "refund",
                arguments,
                input_responses=yes,
                request_state=echoed,
                allow_input_required=True,
            )

        with pytest.raises(MCPError) as forged:
            await retry(state[:-6] + "AAAAAA")
        ran = await retry(state)
        with pytest.raises(MCPError) as replayed:
            await retry(state)

    assert "close_order" not in [t.name for t in listed.tools]
    assert [t.name for t in with_members.tools][-2:] == ["close_order", "reopen_order"]
    assert closed.content[0].text == "closed o1"
    assert approved.content[0].text == "refunded 5 on o1"
    assert len(answers.asked) == 1
    assert len(rounds) == 2  # asked on one replica, answered on the other
    assert rounds[0] != rounds[1]
    assert made.structured_content == {"id": "link-1", "name": "a"}
    assert used.content[0].text == str(uuid5(NAMESPACE_URL, "a"))
    assert forged.value.message == "Invalid or expired requestState"
    assert isinstance(ran, mcp_types.CallToolResult)
    assert replayed.value.code == mcp_types.INVALID_PARAMS
    assert "used already" in replayed.value.message
    # Every request alternated between the two replicas.
    assert set(proxy.served) == {0, 1}
    assert all(a != b for a, b in zip(proxy.served, proxy.served[1:], strict=False))
