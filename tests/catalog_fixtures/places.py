"""Place tools: plain functions with categories, aliases, versions and flags."""

from __future__ import annotations

from catalog_fixtures.helpers import shared_helper_tool
from toolcast._define._decorator import tool

__all__ = ["find_places", "shared_helper_tool"]


@tool(
    categories=["search", " places ", "search", ""],
    version="2",
    aliases=["search_places"],
)
def find_places(query: str, limit: int = 10) -> list[str]:
    """Find places matching a query."""
    return [f"{query} #{i}" for i in range(limit)]


@tool(categories=["places"])
def get_place(place_id: str) -> str:
    """Get one place by id."""
    return f"place {place_id}"


@tool(
    categories=["places"],
    deprecated="Use get_place, which returns more detail.",
    replaced_by="get_place",
)
def place_summary(place_id: str) -> str:
    """Summarise a place (old)."""
    return f"summary of {place_id}"


@tool(required=True)
def whoami() -> str:
    """Tell the model who it is talking to."""
    return "a test user"


@tool(register=False)
def admin_reset() -> str:
    """Reset everything (hosts add this by hand, never by scanning)."""
    return "reset"


def not_a_tool(x: int) -> int:
    """A plain function: never becomes a tool."""
    return x
