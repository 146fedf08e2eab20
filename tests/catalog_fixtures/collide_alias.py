"""An alias that takes the name of collide_a's tool."""

from __future__ import annotations

from toolcast._define._decorator import tool


@tool(aliases=["search"])
def lookup(query: str) -> str:
    """Look something up."""
    return query
