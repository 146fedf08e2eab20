"""The official MCP TypeScript SDK client (`@modelcontextprotocol/sdk` 1.32.2) on `toolcast serve`.

Claims, over stdio and streamable HTTP: the client connects, lists, calls, opens a
toolbox (its `list_changed` arrives and the members join the list), gets an
invalid call back as an error result naming the argument, and sees toolcast's
version. That SDK release speaks the handshake era only (its newest revision is
2025-11-25), so this is the handshake era; the 2026-07-28 era is covered by the
official Python client (test_modern_era, test_replicas). `.ci/run` installs the
package (`npm ci --prefix tests/serving/ts`); without node or it, the test skips, except
under CI=true, where it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from mcp_serve_helpers import TOOLS, child_env, serve_command, start_http

from toolcast.providers._mcp_stateless import toolcast_version

HERE = Path(__file__).resolve().parent / "ts"
# The node on PATH, else the one the conformance suite's npm install brings (node 24).
_NPM_NODE = HERE.parent / "conformance" / "node_modules" / "node" / "bin" / "node"
NODE = shutil.which("node") or (str(_NPM_NODE) if _NPM_NODE.is_file() else None)
_MISSING = NODE is None or not (HERE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir()
_WHY = "needs node and `npm ci --prefix tests/serving/ts` (.ci/run does it)"
pytestmark = pytest.mark.skipif(_MISSING and os.environ.get("CI") != "true", reason=_WHY)


@pytest.fixture(autouse=True)
def _installed() -> None:
    """Under CI=true a missing client is a failure, not a skip: .ci/run installs it."""
    if _MISSING:
        pytest.fail(f"CI=true but the test {_WHY}")


def _run(*args: str) -> dict[str, object]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(HERE / "client.mjs"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=child_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _check(seen: dict[str, object]) -> None:
    assert seen["server"] == {"name": "toolcast", "version": toolcast_version()}
    before, after = seen["before"], seen["after"]
    assert isinstance(before, list)
    assert isinstance(after, list)
    assert "close_order" not in before
    assert after[-2:] == ["close_order", "reopen_order"]
    assert seen["changed"] == 1
    assert seen["added"] == {"result": 42}
    assert seen["closed"] == "closed o1"
    assert seen["invalid"] == {
        "isError": True,
        "text": "Argument 'limit' must be less than or equal to 5 (got 99).",
    }


def test_the_typescript_client_over_stdio() -> None:
    _check(_run("stdio", *serve_command(target=str(TOOLS))))


def test_the_typescript_client_over_http() -> None:
    server = start_http()
    try:
        _check(_run("http", server.url))
    finally:
        server.stop()
