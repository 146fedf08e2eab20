"""toolcast: Python functions become LLM tools, exactly, for every provider."""

from __future__ import annotations

from toolcast._content import ImagePart, JsonPart, TextPart, ToolResult
from toolcast._arguments import Limits
from toolcast._context import Injected, ToolContext
from toolcast._decorator import Param, tool
from toolcast._outcome import ToolFailure, ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.errors import (
    CatalogError,
    ToolcastError,
    ToolDefinitionError,
    ToolError,
    UnsupportedSchemaError,
)

__all__ = [
    "CatalogError",
    "ImagePart",
    "Injected",
    "JsonPart",
    "Limits",
    "Param",
    "TextPart",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolDefinitionError",
    "ToolError",
    "ToolFailure",
    "ToolOutcome",
    "ToolResult",
    "ToolSpec",
    "ToolcastError",
    "UnsupportedSchemaError",
    "tool",
]
