"""A tool defined here and imported by `places`: only scanning this module adds it."""

from __future__ import annotations

from toolcast._define._decorator import tool


@tool
def shared_helper_tool() -> str:
    """A helper tool that lives in another module."""
    return "helper"
