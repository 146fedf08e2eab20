"""Which provider's shape a response is, so a parser handed another's can say so.

`anthropic.parse_calls(openai_response)` used to find no `content` blocks and
return `[]`: the conversation silently ended. Every `parse_calls` (and every
`Model` adapter) now asks `expect` first: a response recognisably in another
provider's shape raises `ResponseFormatError` naming both providers. Only marks
no other format uses count (`choices`, `candidates`, a Messages `type`, a Converse
`output.message`, ...); what is not recognised is read as before, so a genuine
response with no calls still gives `[]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcast.providers._read import Wire

__all__ = ("FAMILIES", "expect", "shape_of")

FAMILIES: dict[str, tuple[str, str]] = {
    "chat": ("an OpenAI Chat Completions (or Mistral) response", "openai_chat"),
    "anthropic": ("an Anthropic Messages response", "anthropic"),
    "responses": ("an OpenAI Responses response", "openai_responses"),
    "realtime": ("an OpenAI Realtime event", "openai_realtime"),
    "gemini": ("a Gemini response", "gemini"),
    "ollama": ("an Ollama chat response", "ollama"),
    "bedrock": ("a Bedrock Converse response", "bedrock"),
    "mcp": ("an MCP JSON-RPC request", "mcp"),
    "hermes": ("model text", "hermes"),
}
"""Family -> (what its shape is called, the `toolcast.providers` module reading it).

OpenAI Chat Completions and Mistral share one shape: each reads the other's."""

_ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    }
)
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "server_tool_use", "thinking", "redacted_thinking"})
_REALTIME_PREFIXES = ("conversation.", "session.", "input_audio_buffer.", "output_audio_buffer.")
_SHARED_EVENTS = frozenset(
    {"response.function_call_arguments.done", "response.output_item.done", "function_call"}
)
"""Event and item types Responses and Realtime both send: they name neither."""
_BEDROCK_EVENTS = ("contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStart")


def _has(data: Mapping[str, Any], *keys: str) -> bool:
    return any(key in data for key in keys)


def _event_family(kind: str) -> str | None:
    if kind in _ANTHROPIC_EVENTS or kind in _ANTHROPIC_BLOCKS:
        return "anthropic"
    if kind in _SHARED_EVENTS:
        return None
    if kind == "response.done" or kind.startswith(_REALTIME_PREFIXES):
        return "realtime"
    if kind.startswith("response."):
        return "responses"
    return None


def _mapping_family(data: Mapping[str, Any]) -> str | None:
    if "jsonrpc" in data or data.get("method") == "tools/call":
        return "mcp"
    kind = data.get("type")
    obj = data.get("object")
    if "choices" in data or obj in ("chat.completion", "chat.completion.chunk"):
        return "chat"
    inner = data.get("data")
    if isinstance(inner, Mapping) and "choices" in inner:
        return "chat"  # Mistral's stream wraps each chunk as {"data": chunk}
    if obj == "response":
        return "responses"
    if obj == "realtime.response":
        return "realtime"
    if kind == "message" and _has(data, "stop_reason", "stop_sequence"):
        return "anthropic"  # a Responses output item is a `message` too, without these
    if isinstance(kind, str) and (found := _event_family(kind)) is not None:
        return found
    if _has(data, "candidates", "function_call", "functionCall", "server_content"):
        return "gemini"
    if _has(data, "serverContent", "tool_call", "toolCall", "setup_complete", "setupComplete"):
        return "gemini"
    parts = data.get("parts")
    if isinstance(parts, (list, tuple)) and any(
        isinstance(p, Mapping) and _has(p, "function_call", "functionCall") for p in parts
    ):
        return "gemini"
    output = data.get("output")
    if isinstance(output, Mapping) and "message" in output:
        return "bedrock"
    if _has(data, "toolUse", "stopReason", "ResponseMetadata", *_BEDROCK_EVENTS):
        return "bedrock"
    stream = data.get("stream")
    if isinstance(stream, (list, tuple)) and any(
        isinstance(event, Mapping) and _has(event, *_BEDROCK_EVENTS) for event in stream[:64]
    ):
        return "bedrock"  # converse_stream()'s response, its events already read
    if "message" in data and _has(data, "done", "created_at", "done_reason"):
        return "ollama"
    return None


def shape_of(data: Any) -> str | None:
    """The family whose shape `data` (plain data, or a list of it) recognisably is.

    A list counts as a family's when its items are: stream chunks, events or
    content blocks. None when nothing marks it as any one provider's.
    """
    if isinstance(data, str):
        return "hermes" if "<tool_call>" in data else None
    if isinstance(data, Mapping):
        return _mapping_family(data)
    if isinstance(data, (list, tuple)):
        found = {_mapping_family(item) for item in data[:64] if isinstance(item, Mapping)}
        found.discard(None)
        return found.pop() if len(found) == 1 else None
    return None


def expect(wire: Wire, family: str, data: Any) -> None:
    """Raise `ResponseFormatError` when `data` (plain data) is another family's shape.

    The message names both: `Anthropic response: looks like an OpenAI Chat
    Completions (or Mistral) response, not an Anthropic Messages response: use
    toolcast.providers.openai_chat.`
    """
    found = shape_of(data)
    if found is None or found == family:
        return
    asked = FAMILIES[family][0]
    label, module = FAMILIES[found]
    wire.fail(
        "",
        f"looks like {label}, not {asked}: use toolcast.providers.{module}"
        f"{'' if found != 'hermes' else ' (the text holds <tool_call> blocks)'}.",
    )
