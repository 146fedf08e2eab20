"""A tool's return value -> the content parts and text a model receives."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_core import to_json

from toolcast._content import ContentPart, ImagePart, JsonPart, TextPart, ToolResult
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolSpec

__all__ = ("SCHEMA_DIALECT", "outcome_of", "text_of")

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_PARTS = (TextPart, JsonPart, ImagePart)


def text_of(parts: Sequence[ContentPart]) -> str:
    """All parts as one string, for targets that only take text."""
    texts = []
    for part in parts:
        if isinstance(part, ImagePart):
            texts.append(f"[image: {part.mime_type}, {len(part.data)} bytes]")
        else:
            texts.append(part.text)
    return "\n".join(texts)


def _is_parts(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, _PARTS) for v in value)


def outcome_of(spec: ToolSpec, value: Any, call_id: str | None, envelope: dict[str, Any] | None) -> ToolOutcome:
    """The successful outcome for `value` (envelope: the output schema to wrap with)."""
    if isinstance(value, ToolResult):
        parts = tuple(value.content)
        return ToolOutcome(
            call_id=call_id, tool_name=spec.name, is_error=value.is_error, content=parts,
            text=text_of(parts), value=value, structured_value=value.structured,
        )
    if envelope is not None:
        part = JsonPart(to_json({"schema": envelope, "result": value}, bytes_mode="base64").decode())
        return ToolOutcome(call_id=call_id, tool_name=spec.name, content=(part,), text=part.text, value=value)
    if value is None:
        return ToolOutcome(call_id=call_id, tool_name=spec.name, value=None)
    if isinstance(value, str):
        return ToolOutcome(call_id=call_id, tool_name=spec.name, content=(TextPart(value),), text=value, value=value)
    if isinstance(value, _PARTS):
        return ToolOutcome(call_id=call_id, tool_name=spec.name, content=(value,), text=text_of((value,)), value=value)
    if _is_parts(value):
        parts = tuple(value)
        return ToolOutcome(call_id=call_id, tool_name=spec.name, content=parts, text=text_of(parts), value=value)
    text = to_json(value, bytes_mode="base64").decode()
    return ToolOutcome(
        call_id=call_id, tool_name=spec.name, content=(JsonPart(text),), text=text, value=value,
        structured_value=_Lazy,
    )


class _LazyMarker:
    """Marks `structured` as "parse the JSON part when asked" (most hosts never ask)."""


_Lazy: Any = _LazyMarker()
