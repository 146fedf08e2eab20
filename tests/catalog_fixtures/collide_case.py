"""A tool whose name differs from collide_a's only in case."""

from __future__ import annotations

from toolcast._define._decorator import tool


@tool(name="Search")
def search_upper(query: str) -> str:
    """Search, capitalised."""
    return query
