"""First submodule."""

from __future__ import annotations

from toolcast._define._decorator import tool


@tool
def alpha_tool() -> str:
    """Alpha."""
    return "alpha"
