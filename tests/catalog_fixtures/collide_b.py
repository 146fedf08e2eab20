"""Defines another `search`, colliding with collide_a."""

from __future__ import annotations

from toolcast._define._decorator import tool


@tool
def search(query: str) -> str:
    """Search in B."""
    return query
