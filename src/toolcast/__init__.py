"""toolcast: Python functions become LLM tools, exactly, for every provider."""

from __future__ import annotations

from toolcast._arguments import Limits
from toolcast._catalog._catalog import Catalog, ToolSet, UnknownToolError
from toolcast._catalog._discovery import FactoryResolver, FixedResolver
from toolcast._catalog._loader import CatalogLoad, CatalogLoader
from toolcast._catalog._toolbox import toolbox
from toolcast._clock import Clock
from toolcast._constraint import constraint
from toolcast._content import (
    AudioPart,
    ImagePart,
    JsonPart,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    ToolResult,
)
from toolcast._context import Injected, ToolContext
from toolcast._cost import Cost
from toolcast._define._decorator import Param, tool
from toolcast._define._envelope import envelope
from toolcast._outcome import ToolFailure, ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.aliases._declare import Alias
from toolcast.errors import (
    CatalogError,
    ResponseFormatError,
    ToolCallError,
    ToolcastError,
    ToolDefinitionError,
    ToolError,
    UnsupportedSchemaError,
)
from toolcast.loop import Conversation, RunResult, run
from toolcast.policy import Decision, Policy

__all__ = [
    "Alias",
    "AudioPart",
    "Catalog",
    "CatalogError",
    "CatalogLoad",
    "CatalogLoader",
    "Clock",
    "Conversation",
    "Cost",
    "Decision",
    "FactoryResolver",
    "FixedResolver",
    "ImagePart",
    "Injected",
    "JsonPart",
    "Limits",
    "Param",
    "Policy",
    "ResourceLinkPart",
    "ResourcePart",
    "ResponseFormatError",
    "RunResult",
    "TextPart",
    "Tool",
    "ToolCall",
    "ToolCallError",
    "ToolContext",
    "ToolDefinitionError",
    "ToolError",
    "ToolFailure",
    "ToolOutcome",
    "ToolResult",
    "ToolSet",
    "ToolSpec",
    "ToolcastError",
    "UnknownToolError",
    "UnsupportedSchemaError",
    "constraint",
    "envelope",
    "run",
    "tool",
    "toolbox",
]

# Users see `toolcast.Tool` in reprs and tracebacks, not the private module it lives in.
for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith("toolcast."):
        _obj.__module__ = "toolcast"
del _name, _obj, annotations


def __dir__() -> list[str]:
    return list(__all__)
