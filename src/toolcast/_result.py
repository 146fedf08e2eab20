"""A tool's return value -> the content parts and text a model receives."""

from __future__ import annotations

import base64
import dataclasses
import decimal
import enum
from collections.abc import Sequence
from typing import Any

from pydantic_core import SchemaSerializer, core_schema, to_json, to_jsonable_python

from toolcast._content import (
    PARTS,
    AudioPart,
    ContentPart,
    ImagePart,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    ToolResult,
    json_part,
    text_part,
)
from toolcast._outcome import ToolFailure, ToolOutcome, json_succeeded, succeeded
from toolcast._receiver import HostError
from toolcast._spec import ToolSpec
from toolcast.errors import ToolError

__all__ = (
    "SCHEMA_DIALECT",
    "cap_result",
    "deprecation_noted",
    "failure_of",
    "dict_outcome",
    "outcome_of",
    "text_of",
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_PARTS = PARTS


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
    import secrets  # this rare path only; not worth loading at `import toolcast`

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
    kind = type(value)
    if kind is not dict and kind not in _PLAIN:  # dicts and plain values skip the checks
        special = _special(spec, value, call_id)
        if special is not None:
            return special
    # The envelope wraps structured values only: None, text and parts have no
    # output schema to show. NaN/Infinity become null, as JSON has no spelling for them.
    text = exact_json(value) if exact else _TO_JSON(value).decode()
    structured: Any = _Lazy
    if envelope is not None:
        text = f'{{"schema":{to_json(envelope).decode()},"result":{text}}}'
        structured = _LazyEnveloped
    return json_succeeded(call_id, spec.name, text, value, structured)


def dict_outcome(name: str, value: dict[str, Any], call_id: str | None) -> ToolOutcome:
    """`outcome_of` for a dict from a tool with no envelope and no exact numbers.

    The per-call path of most tools: a dict needs none of `outcome_of`'s checks.
    Raises what the serialiser raises.
    """
    text = _TO_JSON(value).decode()
    return json_succeeded(call_id, name, text, value, _Lazy)


_PLAIN = frozenset({int, float, bool})
# `to_json(value, bytes_mode="base64", inf_nan_mode="null")` with its options read
# once, not on every call.
_TO_JSON = SchemaSerializer(
    core_schema.any_schema(),
    core_schema.CoreConfig(ser_json_bytes="base64", ser_json_inf_nan="null"),
).to_json


def _special(spec: ToolSpec, value: Any, call_id: str | None) -> ToolOutcome | None:
    """The outcome of a `ToolResult`, None, text or content parts; None for other values."""
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
        return succeeded(call_id, name, (json_part("null"),), "null", None, None)
    if isinstance(value, str):
        return succeeded(call_id, name, (text_part(value),), value, value)
    if isinstance(value, _PARTS) or _is_parts(value):
        parts = (value,) if isinstance(value, _PARTS) else tuple(value)
        return ToolOutcome(
            call_id=call_id, tool_name=name, content=parts, text=text_of(parts), value=value
        )
    return None


def deprecation_noted(spec: ToolSpec, outcome: ToolOutcome) -> ToolOutcome:
    """A deprecated tool's successful outcome, with a note for the model at the end."""
    if spec.deprecated is None or outcome.is_error:
        return outcome
    reason = spec.deprecated.strip().rstrip(".")
    note = f"Note: tool '{spec.name}' is deprecated"
    note += f": {reason}." if reason else "."
    if spec.replaced_by:
        note += f" Use '{spec.replaced_by}' instead."
    parts = (*outcome.content, TextPart(note))
    text = f"{outcome.text}\n{note}" if outcome.text else note
    return dataclasses.replace(outcome, content=parts, text=text)


_MAX_EXCEPTION_TEXT = 500


def failure_of(name: str, exc: BaseException, call_id: str | None) -> ToolOutcome:
    """The error outcome for an exception out of tool `name` (no traceback for the model)."""
    if isinstance(exc, ToolError):
        return ToolOutcome.failure(
            "tool_error", exc.message, tool_name=name, call_id=call_id, exception=exc
        )
    if isinstance(exc, HostError):
        message = f"Tool '{name}' is not available right now."
        return ToolOutcome.failure(
            "exception", message, tool_name=name, call_id=call_id, exception=exc
        )
    try:
        detail = str(exc)
    except Exception:
        detail = ""
    if len(detail) > _MAX_EXCEPTION_TEXT:
        detail = detail[: _MAX_EXCEPTION_TEXT - 1] + "…"
    message = f"Tool '{name}' failed: {type(exc).__name__}"
    if detail:
        message += f": {detail}"
    return ToolOutcome.failure("exception", message, tool_name=name, call_id=call_id, exception=exc)


def truncation_note(shown: int, total: int) -> str:
    """The line a model reads at the end of a result that was cut."""
    return (
        f"[Result truncated: showing {shown} of {total} characters. "
        "Ask for less (a narrower query, fewer fields, or a page) to see the rest.]"
    )


def _kept_whole(part: ContentPart) -> bool:
    """Audio, links and binary resources: not text to cut, so a cap keeps them as they are."""
    if isinstance(part, ResourcePart):
        return not isinstance(part.contents, str)
    return isinstance(part, (AudioPart, ResourceLinkPart))


def cap_result(outcome: ToolOutcome, max_chars: int) -> ToolOutcome:
    """`outcome` with its text cut to `max_chars`, and a note saying so, when longer.

    Parts are kept in order until the budget runs out; the part that crosses it is
    cut (a cut JSON part is no longer JSON, so it becomes text) and the rest are
    dropped, except media, links and binary resources, which are not text. The
    Python `value` stays whole for the host; the structured value is dropped, since
    the model did not see it all.
    """
    total = len(outcome.text)
    if total <= max_chars:
        return outcome
    budget = max_chars
    parts: list[ContentPart] = []
    for part in outcome.content:
        if isinstance(part, ImagePart) or _kept_whole(part):
            parts.append(part)
            continue
        if budget <= 0:
            continue
        if len(part.text) <= budget:
            parts.append(part)
            budget -= len(part.text) + 1  # text_of joins parts with a newline
        else:
            parts.append(TextPart(part.text[:budget]))
            budget = 0
    if not outcome.content:  # text without parts: nothing else to cut
        parts.append(TextPart(outcome.text[:max_chars]))
    note = truncation_note(max_chars, total)
    parts.append(TextPart(note))
    error = outcome.error
    if error is not None:
        error = ToolFailure(error.kind, f"{error.message[:max_chars]}\n{note}")
    return dataclasses.replace(
        outcome,
        content=tuple(parts),
        text=text_of(parts),
        structured_value=None,
        error=error,
    )


class _LazyMarker:
    """Marks `structured` as "parse the JSON part when asked" (most hosts never ask)."""


_Lazy: Any = _LazyMarker()


class _LazyEnvelopedMarker:
    """Like `_LazyMarker`, for the `result` inside a `{"schema", "result"}` envelope."""


_LazyEnveloped: Any = _LazyEnvelopedMarker()
