"""First submodule."""

from __future__ import annotations

from toolcast._decorator import tool


@tool
def alpha_tool() -> str:
    """Alpha."""
    return "alpha"
