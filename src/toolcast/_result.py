"""A tool's return value -> the content parts and text a model receives."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_core import to_json

from toolcast._content import ContentPart, ImagePart, JsonPart, TextPart, ToolResult
from toolcast._outcome import ToolFailure, ToolOutcome
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
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and all(isinstance(v, _PARTS) for v in value)
    )


def outcome_of(
    spec: ToolSpec, value: Any, call_id: str | None, envelope: dict[str, Any] | None
) -> ToolOutcome:
    """The successful outcome for `value` (envelope: the output schema to wrap with)."""
    if isinstance(value, ToolResult):
        parts = tuple(value.content)
        text = text_of(parts)
        # A result the tool marked as an error says why, like every other failure.
        error = ToolFailure("tool_error", text) if value.is_error else None
        return ToolOutcome(
            call_id=call_id, tool_name=spec.name, is_error=value.is_error, content=parts,
            text=text, value=value, structured_value=value.structured, error=error,
        )
    name = spec.name
    if value is None:
        return ToolOutcome(call_id=call_id, tool_name=name, value=None)
    if isinstance(value, str):
        return ToolOutcome(
            call_id=call_id, tool_name=name, content=(TextPart(value),), text=value, value=value
        )
    if isinstance(value, _PARTS) or _is_parts(value):
        parts = (value,) if isinstance(value, _PARTS) else tuple(value)
        return ToolOutcome(
            call_id=call_id, tool_name=name, content=parts, text=text_of(parts), value=value
        )
    # The envelope wraps structured values only: None, text and parts have no
    # output schema to show. NaN/Infinity become null, as JSON has no spelling for them.
    if envelope is not None:
        text = to_json(
            {"schema": envelope, "result": value}, bytes_mode="base64", inf_nan_mode="null"
        ).decode()
        structured: Any = _LazyEnveloped
    else:
        text = to_json(value, bytes_mode="base64", inf_nan_mode="null").decode()
        structured = _Lazy
    return ToolOutcome(
        call_id=call_id, tool_name=spec.name, content=(JsonPart(text),), text=text, value=value,
        structured_value=structured,
    )


class _LazyMarker:
    """Marks `structured` as "parse the JSON part when asked" (most hosts never ask)."""


_Lazy: Any = _LazyMarker()


class _LazyEnvelopedMarker:
    """Like `_LazyMarker`, for the `result` inside a `{"schema", "result"}` envelope."""


_LazyEnveloped: Any = _LazyEnvelopedMarker()
