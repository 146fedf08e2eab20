"""Content parts a tool result is made of, and `ToolResult` for tools that build their own."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import jiter
from pydantic_core import to_json

__all__ = (
    "ContentPart",
    "ImagePart",
    "JsonPart",
    "TextPart",
    "ToolResult",
    "json_part",
    "text_part",
)


@dataclass(frozen=True, slots=True)
class TextPart:
    """Plain text for the model."""

    text: str
    """The text."""


@dataclass(frozen=True, slots=True)
class JsonPart:
    """A structured value as compact JSON text."""

    text: str
    """The value serialised as compact JSON."""

    @property
    def value(self) -> Any:
        """The JSON value (dicts, lists, strings, numbers, booleans, None), parsed anew."""
        return jiter.from_json(self.text.encode())

    @classmethod
    def of(cls, value: Any) -> JsonPart:
        """Serialise `value` (dataclasses, models, dates, UUIDs, enums, ...) to a part."""
        return cls(to_json(value, bytes_mode="base64", inf_nan_mode="null").decode())


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image for models that accept images in tool results."""

    data: bytes
    """The raw image bytes."""
    mime_type: str = "image/png"
    """Its media type, e.g. `image/png`."""

    @property
    def base64(self) -> str:
        """The bytes as base64 text, as most wire formats want them."""
        return base64.b64encode(self.data).decode("ascii")


ContentPart: TypeAlias = TextPart | JsonPart | ImagePart
"""One part of a tool result."""


_new = object.__new__
_SET_TEXT = getattr(TextPart, "text").__set__  # noqa: B009 - the slot descriptor
_SET_JSON = getattr(JsonPart, "text").__set__  # noqa: B009


def text_part(text: str) -> TextPart:
    """`TextPart(text)` for the per-call path: the slot is written directly (0.22 -> 0.1 µs)."""
    part = _new(TextPart)
    _SET_TEXT(part, text)
    return part


def json_part(text: str) -> JsonPart:
    """`JsonPart(text)` for the per-call path, like `text_part`."""
    part = _new(JsonPart)
    _SET_JSON(part, text)
    return part


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A result a tool builds itself: explicit parts, optionally marked as an error."""

    content: Sequence[ContentPart] = field(default_factory=tuple)
    """The parts sent to the model, in order (a plain string is taken as one text part)."""
    is_error: bool = False
    """Send the parts as an error result (the model should correct itself)."""
    structured: Any = None
    """An optional JSON-ready value for targets that carry structured output (MCP)."""

    def __post_init__(self) -> None:
        # `ToolResult("text")` and `ToolResult(TextPart(...))` mean one part; anything
        # that is not a part is refused here, not when the result is sent.
        content: Any = self.content
        if isinstance(content, str):
            content = (TextPart(content),)
        elif isinstance(content, (TextPart, JsonPart, ImagePart)):
            content = (content,)
        elif isinstance(content, (bytes, bytearray)) or not isinstance(content, Sequence):
            msg = (
                "ToolResult content must be a string or a list of TextPart, JsonPart "
                f"and ImagePart, not {type(content).__name__}."
            )
            raise TypeError(msg)
        else:
            content = tuple(content)
        for part in content:
            if not isinstance(part, (TextPart, JsonPart, ImagePart)):
                msg = (
                    "ToolResult content parts must be TextPart, JsonPart or ImagePart, "
                    f"not {type(part).__name__}; wrap text as TextPart(...)."
                )
                raise TypeError(msg)
        object.__setattr__(self, "content", content)
