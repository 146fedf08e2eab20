"""Issue 21, defect 1 for remote MCP tools: under a strict projection, null means "not given"."""

from __future__ import annotations

import sys

import pytest
from mcp_serve_helpers import HERE, child_env

from seams import ALL_REQUIRED, TARGETS, Schema, one_call, parameters
from toolcast.providers import mcp

pytestmark = pytest.mark.anyio

WEATHER = [sys.executable, str(HERE / "weather_server.py")]


async def test_defect1_strict_null_means_not_given_for_remote_mcp_tools() -> None:
    async with mcp.connect_stdio(WEATHER, env=child_env()) as remote:
        tools = await mcp.tools_from_session(remote)
        forecast = next(t for t in tools if t.name == "forecast")
        for target in ALL_REQUIRED:
            projected = Schema(parameters(TARGETS[target].project(forecast)))
            sent = projected.spell({"city": "Paris"})
            assert sent == {"city": "Paris", "days": None}
            outcome = await forecast.invoke(one_call(target, "forecast", sent))
            # The remote never saw the null: it applied its own default.
            assert not outcome.is_error, (target, outcome.text)
            assert outcome.structured == {"city": "Paris", "days": 1, "sky": "sunny"}
        # Without the strict mark, a null is validated as the schema says: refused.
        refused = await forecast.invoke({"city": "Paris", "days": None})
        assert refused.is_error
        assert "'days'" in refused.text
