"""A package with tools at several depths, for recursive discovery."""

from __future__ import annotations

from toolcast._define._decorator import tool


@tool
def pkg_root() -> str:
    """A tool in the package itself."""
    return "root"
