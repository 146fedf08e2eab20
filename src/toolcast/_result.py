"""A tool's return value -> the content parts and text a model receives."""

from __future__ import annotations

import base64
import dataclasses
import decimal
import enum
import secrets
from collections.abc import Sequence
from typing import Any

from pydantic_core import to_json, to_jsonable_python

from toolcast._content import ContentPart, ImagePart, JsonPart, TextPart, ToolResult
from toolcast._outcome import ToolFailure, ToolOutcome, succeeded
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


def _exact(value: Any, digits: list[str], token: str) -> Any:
    """`value` as plain JSON data, Decimals as placeholders, bytes as standard base64."""
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return None
        digits.append(str(value))
        return f"{token}{len(digits) - 1}"
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, enum.Enum):
        return _exact(value.value, digits, token)
    if isinstance(value, dict):
        return {k: _exact(v, digits, token) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):  # NamedTuple: an object
        return {k: _exact(v, digits, token) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_exact(v, digits, token) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _exact(getattr(value, f.name), digits, token) for f in dataclasses.fields(value)
        }
    if hasattr(value, "model_dump"):
        return _exact(value.model_dump(by_alias=True), digits, token)
    return to_jsonable_python(value)


def exact_json(value: Any) -> str:
    """Compact JSON in which Decimals are exact numbers and bytes standard base64.

    pydantic-core writes Decimal as a string and bytes in the URL-safe alphabet,
    which is not what the output schema says; this path is taken only by tools
    whose return type holds such values.
    """
    digits: list[str] = []
    token = f"\u0000{secrets.token_hex(8)}:"
    text = to_json(_exact(value, digits, token), inf_nan_mode="null").decode()
    for index in range(len(digits) - 1, -1, -1):
        text = text.replace(to_json(f"{token}{index}").decode(), digits[index])
    return text


def outcome_of(
    spec: ToolSpec,
    value: Any,
    call_id: str | None,
    envelope: dict[str, Any] | None,
    *,
    exact: bool = False,
) -> ToolOutcome:
    """The successful outcome for `value` (envelope: the output schema to wrap with)."""
    if isinstance(value, ToolResult):
        parts = tuple(value.content)
        text = text_of(parts)
        # A result the tool marked as an error says why, like every other failure.
        error = ToolFailure("tool_error", text) if value.is_error else None
        return ToolOutcome(
            call_id=call_id,
            tool_name=spec.name,
            is_error=value.is_error,
            content=parts,
            text=text,
            value=value,
            structured_value=value.structured,
            error=error,
        )
    name = spec.name
    if value is None:
        if spec.output_schema is None:  # `-> None`, or no annotation: nothing to say
            return ToolOutcome(call_id=call_id, tool_name=name, value=None)
        # A `T | None` tool that returned None answered "null", as the contract
        # says; an empty result would read as "nothing happened" to the model.
        return succeeded(call_id, name, (JsonPart("null"),), "null", None, None)
    if isinstance(value, str):
        return succeeded(call_id, name, (TextPart(value),), value, value)
    if isinstance(value, _PARTS) or _is_parts(value):
        parts = (value,) if isinstance(value, _PARTS) else tuple(value)
        return ToolOutcome(
            call_id=call_id, tool_name=name, content=parts, text=text_of(parts), value=value
        )
    # The envelope wraps structured values only: None, text and parts have no
    # output schema to show. NaN/Infinity become null, as JSON has no spelling for them.
    if exact:
        text = exact_json(value)
    else:
        text = to_json(value, bytes_mode="base64", inf_nan_mode="null").decode()
    structured: Any = _Lazy
    if envelope is not None:
        text = f'{{"schema":{to_json(envelope).decode()},"result":{text}}}'
        structured = _LazyEnveloped
    return succeeded(call_id, name, (JsonPart(text),), text, value, structured)


class _LazyMarker:
    """Marks `structured` as "parse the JSON part when asked" (most hosts never ask)."""


_Lazy: Any = _LazyMarker()


class _LazyEnvelopedMarker:
    """Like `_LazyMarker`, for the `result` inside a `{"schema", "result"}` envelope."""


_LazyEnveloped: Any = _LazyEnvelopedMarker()
