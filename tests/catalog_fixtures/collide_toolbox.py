"""A toolbox named like collide_a's tool."""

from __future__ import annotations

from toolcast._catalog._toolbox import toolbox
from toolcast._define._decorator import tool


@toolbox("search", "Searching.")
class SearchBox:
    @tool
    @staticmethod
    def search_web(query: str) -> str:
        """Search the web."""
        return query
