"""A toolbox named like collide_a's tool."""

from __future__ import annotations

from toolcast._decorator import tool
from toolcast._toolbox import toolbox


@toolbox("search", "Searching.")
class SearchBox:
    @tool
    @staticmethod
    def search_web(query: str) -> str:
        """Search the web."""
        return query
