"""A module two levels down."""

from __future__ import annotations

from toolcast._define._decorator import tool


@tool
def deep_tool(depth: int = 2) -> int:
    """Deep."""
    return depth
