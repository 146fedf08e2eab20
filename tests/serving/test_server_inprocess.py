"""`mcp.create_server` driven in-process by the official client: policy and eras.

Claims: a `Policy` decides each call (denied is an error result with the
reason, pending asks through elicitation, allowed runs); progress from a sync
tool running in a thread arrives; `--policy` names its mistakes. The
2026-07-28 era is in test_modern_era.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from mcp import Client
from mcp_serve_helpers import TOOLS, Answer, start_http
from raw_http import RawClient

from toolcast import Catalog, ToolContext, tool
from toolcast._cli._main import main
from toolcast.policy import Policy
from toolcast.providers import mcp

pytestmark = pytest.mark.anyio


@tool
def search(query: str) -> str:
    """Search."""
    return f"found {query}"


@tool
def delete_all(confirm: bool) -> str:
    """Delete everything."""
    return "deleted"


@tool
def transfer(amount: int) -> str:
    """Move money."""
    return f"moved {amount}"


@tool
def crunch(steps: int, context: ToolContext) -> int:
    """A sync tool (run in a thread) that reports progress."""
    for n in range(steps):
        time.sleep(0.005)
        context.report_progress(n + 1, steps)
    return steps


def _catalog() -> Catalog:
    return Catalog([search, delete_all, transfer, crunch])


async def test_a_policy_decides_each_call() -> None:
    policy = Policy(allow=["search", "crunch"], deny=["delete_*"])  # transfer: pending
    answers = Answer("accept")
    seen: list[float] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append(done)

    server = mcp.create_server(_catalog(), policy=policy)
    async with Client(server, mode="legacy", elicitation_callback=answers) as client:
        allowed = await client.call_tool("search", {"query": "q"})
        denied = await client.call_tool("delete_all", {"confirm": True})
        approved = await client.call_tool("transfer", {"amount": 5})
        invalid = await client.call_tool("transfer", {"amount": "lots"})
        crunched = await client.call_tool("crunch", {"steps": 3}, progress_callback=progress)
    assert allowed.content[0].text == "found q"
    assert denied.is_error
    assert denied.content[0].text.startswith("Tool 'delete_all' was denied")
    assert approved.content[0].text == "moved 5"
    assert len(answers.asked) == 1  # the invalid call was refused before asking
    assert invalid.is_error
    assert "'amount' must be an integer" in invalid.content[0].text
    assert crunched.structured_content == {"result": 3}
    assert seen == [1, 2, 3]


def test_serve_refuses_a_bad_policy_or_selection(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", str(TOOLS), "--policy", "nocolon"]) == 2
    assert "--policy takes MODULE:ATTRIBUTE" in capsys.readouterr().err
    assert main(["serve", str(TOOLS), "--policy", "toolcast:tool"]) == 2
    assert "not a toolcast.policy.Policy" in capsys.readouterr().err
    assert main(["serve", str(TOOLS), "--categories", "nope"]) == 1
    assert "Unknown category 'nope'" in capsys.readouterr().err


def test_serve_refuses_a_short_state_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = tmp_path / "key"
    short.write_text("too short")
    assert main(["serve", str(TOOLS), "--http", "--state-key-file", str(short)]) == 2
    assert "needs at least 32" in capsys.readouterr().err
    assert main(["serve", str(TOOLS), "--state-key-file", str(tmp_path / "none")]) == 2
    assert "Cannot read the state key file" in capsys.readouterr().err


def test_serve_announces_the_version_it_is_given() -> None:
    server = start_http("--version", "9.8.7", "--max-sessions", "5")
    client = RawClient(server.url)
    try:
        init = client.post(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert init.message()["result"]["serverInfo"]["version"] == "9.8.7"
    finally:
        client.close()
        server.stop()
