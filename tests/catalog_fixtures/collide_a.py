"""Defines `search`, which collide_b defines too."""

from __future__ import annotations

from toolcast._define._decorator import tool


@tool
def search(query: str) -> str:
    """Search in A."""
    return query
