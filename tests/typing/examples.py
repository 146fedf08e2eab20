"""The public API as users write it; checked by mypy (`mypy` runs src and this file)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated

from annotated_types import Ge, Le

from toolcast import Catalog, Tool, ToolContext, ToolError, ToolOutcome, ToolSpec, tool
from toolcast.providers import anthropic, openai_chat


@dataclass
class Place:
    """A place."""

    name: str


@tool(status="Searching for places")
async def find_places(query: str, limit: Annotated[int, Ge(1), Le(50)] = 10) -> list[Place]:
    """Find places."""
    return [Place(query)][:limit]


@tool
def ping(ctx: ToolContext) -> str:
    """Reply pong."""
    if ctx.cancelled:
        raise ToolError("cancelled")
    return "pong"


# The decorated functions keep their own signatures.
places: list[Place] = asyncio.run(find_places("x", limit=3))
pong: str = ping(ToolContext())

t: Tool = Tool.from_function(find_places)
spec: ToolSpec = t.spec
outcome: ToolOutcome = asyncio.run(t.invoke('{"query": "Springfield"}', call_id="c1"))
text: str = outcome.text
sync_outcome: ToolOutcome = Tool.from_function(ping).invoke_sync("{}")

tools = Catalog([find_places, ping]).select()
definitions: list[dict[str, object]] = openai_chat.format_tools(tools)
anthropic_definitions = anthropic.format_tools(tools)
