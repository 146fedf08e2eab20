"""Public type aliases and protocols used across toolcast."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias, Union

if TYPE_CHECKING:
    from toolcast._spec import ToolCall
    from toolcast._tool import Tool

__all__ = ("JsonSchema", "JsonValue", "TargetResolver")

JsonSchema: TypeAlias = "dict[str, Any]"
"""A JSON Schema (draft 2020-12) document or fragment."""

JsonValue: TypeAlias = Union[bool, int, float, str, "list[JsonValue]", "dict[str, JsonValue]", None]
"""Any value JSON can carry."""

TargetResolver: TypeAlias = "Callable[[Tool, ToolCall], Any]"
"""Returns the instance a method tool runs on, for one call (`(tool, call) -> self`)."""
