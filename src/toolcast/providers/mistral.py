"""Mistral chat completions: tools, tool choice, calls, tool messages and call ids.

Wire reference: https://docs.mistral.ai/capabilities/function_calling/ and the
mistralai SDK models (`Tool`, `Function`, `ToolChoice`, `ToolCall`,
`ToolMessage`). The shapes mirror OpenAI Chat Completions, with three
differences handled here: `parameters` is required; `tool_choice` spells
"required" as `"any"`; and the API rejects tool-call ids that are not exactly
nine characters `[a-zA-Z0-9]` ("Tool call id was ... but must be a-z, A-Z, 0-9,
with a length of 9", langchain PR 24668). `CallIds` maps any id (an OpenAI
`call_...`, an Anthropic `toolu_...`) to a valid one and back.

Mistral does not publish its strict subset, so strict tools use the OpenAI
Structured Outputs form, the most conservative subset known; calls carry
`provider_data["null_means_default"] = True` as in `openai_chat`.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
from collections.abc import Iterable, Mapping
from typing import Any

from toolcast._content import ImagePart
from toolcast._frozen import thaw
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.providers._common import (
    ChoiceDeltas,
    answer_all,
    arguments_text,
    check_choice_names,
    check_names,
    materialize,
    openai_parameters,
    outcome_text,
    require_id,
)
from toolcast.providers._projection import (
    Projection,
    ToolChoice,
    cached_projection,
    normalize_choice,
    specs_of,
)
from toolcast.providers.openai_chat import invoke_options

__all__ = (
    "CallAccumulator",
    "CallIds",
    "format_assistant_message",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "invoke_options",
    "parse_calls",
    "project",
)

TARGET = "mistral"
_VALID_ID = re.compile(r"^[a-zA-Z0-9]{9}$")
_ALPHABET = string.ascii_letters + string.digits


class CallIds:
    """A reversible map between any call id and a Mistral-valid nine-character id.

    Valid ids map to themselves. Others map to nine base-62 characters of their
    SHA-256, so the same id always gets the same wire id (the assistant message
    and the tool message agree without shared state); a collision takes the next
    candidate. Keep one `CallIds` per conversation to map ids back.
    """

    def __init__(self) -> None:
        self._out: dict[str, str] = {}
        self._back: dict[str, str] = {}

    def to_wire(self, call_id: str) -> str:
        """The valid id to send for `call_id`, minted once and remembered."""
        known = self._out.get(call_id)
        if known is not None:
            return known
        wire = call_id if _VALID_ID.match(call_id) else None
        salt = 0
        while wire is None or self._back.get(wire, call_id) != call_id:
            wire = _digest(call_id, salt)
            salt += 1
        self._out[call_id] = wire
        self._back[wire] = call_id
        return wire

    def from_wire(self, wire_id: str) -> str:
        """The original id behind `wire_id` (itself when it was never mapped)."""
        return self._back.get(wire_id, wire_id)


def _digest(call_id: str, salt: int) -> str:
    number = int.from_bytes(hashlib.sha256(f"{salt}:{call_id}".encode()).digest(), "big")
    chars = []
    for _ in range(9):
        number, rest = divmod(number, len(_ALPHABET))
        chars.append(_ALPHABET[rest])
    return "".join(chars)


def _new_id() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(9))


def project(tool: Any, *, strict: bool | None = None) -> Projection:
    """Project one Tool or ToolSpec; `strict=None` follows the tool's own setting.

    A tool that cannot be strict goes over non-strict with notes saying why; with
    `strict=True` that raises `UnsupportedSchemaError` instead.
    """
    (spec,) = specs_of([tool])
    return cached_projection(spec, TARGET, strict, lambda s: _project(s, strict))


def _project(spec: ToolSpec, strict: bool | None) -> Projection:
    check_names([spec], "Mistral")
    want = spec.strict if strict is None else strict
    converted = openai_parameters(spec.input_schema, strict=want, insist=strict is True)
    function: dict[str, Any] = {"name": spec.name}
    if spec.description:
        function["description"] = spec.description
    # `parameters` is required by the SDK's `Function` model, even for no-argument
    # tools, so it is always sent.
    function["parameters"] = converted.schema
    function["strict"] = converted.strict
    definition = {"type": "function", "function": function}
    return Projection(TARGET, spec.name, definition, converted.strict, converted.notes)


def format_tools(tools: Iterable[Any], *, strict: bool | None = None) -> list[dict[str, Any]]:
    """The `tools` list for `chat.complete`, in the given order."""
    specs = specs_of(tools)
    check_names(specs, "Mistral")
    return [thaw(project(spec, strict=strict).definition) for spec in specs]


def format_tool_choice(
    choice: ToolChoice, *, tools: Iterable[Any] | None = None
) -> str | dict[str, Any]:
    """The `tool_choice` value: `"auto"`, `"none"`, `"any"` or a named function.

    Raises:
        ValueError: for a choice among several named tools, which Mistral cannot
            express; send only those tools instead.
    """
    normal = normalize_choice(choice)
    check_choice_names(normal.names, tools)
    if not normal.names:
        # "any" and "required" both force a call (ToolChoiceEnum); "any" is the
        # spelling Mistral's function-calling guide uses.
        return "any" if normal.mode == "required" else normal.mode
    if len(normal.names) == 1 and normal.mode == "required":
        return {"type": "function", "function": {"name": normal.names[0]}}
    msg = (
        "Mistral has no allowed-tools choice; send only the allowed tools "
        f"({', '.join(normal.names)}) with tool_choice "
        f"{'any' if normal.mode == 'required' else normal.mode!r} instead."
    )
    raise ValueError(msg)


def parse_calls(response: Any, *, ids: CallIds | None = None, choice: int = 0) -> list[ToolCall]:
    """The tool calls in a `ChatCompletionResponse`, a message, tool calls, or a stream.

    Arguments may be JSON text or an already parsed object; both are kept as
    sent. With `ids`, wire ids are mapped back to the ids they stand for.
    """
    data = materialize(response)
    if isinstance(data, list) and any("choices" in i or "data" in i for i in data):
        stream = CallAccumulator(choice=choice)
        for chunk in data:
            stream.add(chunk)
        calls = stream.calls()
    elif isinstance(data, list):
        calls = [_call(item) for item in data]
    else:
        if "choices" in data:
            picked = data["choices"][choice]
            data = picked.get("message") or picked.get("delta") or {}
        calls = [_call(item) for item in data.get("tool_calls") or ()]
    if ids is None:
        return calls
    return [ToolCall(ids.from_wire(c.id), c.name, c.arguments, c.provider_data) for c in calls]


def _call(item: Mapping[str, Any]) -> ToolCall:
    # The SDK fills a missing id with the string "null" (ToolCall.id default).
    call_id = item.get("id")
    if not call_id or call_id == "null":
        call_id = _new_id()
    function = item.get("function") or {}
    arguments = function.get("arguments")
    if arguments in (None, ""):
        arguments = "{}"
    return ToolCall(call_id, function.get("name", ""), arguments, {"null_means_default": True})


class CallAccumulator(ChoiceDeltas):
    """Joins `CompletionChunk` tool-call deltas (from `chat.stream`) into calls."""

    def calls(self, **provider_data: Any) -> list[ToolCall]:
        """The calls assembled so far, in `index` order."""
        found = super().calls(null_means_default=True, **provider_data)
        return [
            c
            if _VALID_ID.match(c.id)
            else ToolCall(_new_id(), c.name, c.arguments, c.provider_data)
            for c in found
        ]


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    ids: CallIds | None = None,
    error_prefix: str = "Error: ",
) -> list[dict[str, Any]]:
    """One `tool` message per outcome with a valid nine-character `tool_call_id`.

    Ids that are not valid for Mistral are mapped through `ids` (or a fresh
    `CallIds`, which maps the same id the same way). With `calls`, unanswered
    calls get an error message. Images go over as `image_url` chunks.
    """
    mapping = ids if ids is not None else CallIds()
    messages = []
    for outcome in answer_all(outcomes, calls):
        call_id = mapping.to_wire(require_id(outcome, "Mistral"))
        content: str | list[dict[str, Any]] = outcome_text(outcome, error_prefix=error_prefix)
        if any(isinstance(part, ImagePart) for part in outcome.content):
            content = _chunks(outcome, error_prefix)
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "name": outcome.tool_name,
                "content": content,
            }
        )
    return messages


def _chunks(outcome: ToolOutcome, error_prefix: str) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    if outcome.is_error and error_prefix:
        chunks.append({"type": "text", "text": error_prefix.strip()})
    for part in outcome.content:
        if isinstance(part, ImagePart):
            url = f"data:{part.mime_type};base64,{part.base64}"
            chunks.append({"type": "image_url", "image_url": url})
        else:
            chunks.append({"type": "text", "text": part.text})
    return chunks


def format_assistant_message(
    calls: Iterable[ToolCall], *, content: str = "", ids: CallIds | None = None
) -> dict[str, Any]:
    """The assistant message that made `calls`, with Mistral-valid ids.

    Use it to replay a conversation that started on another provider; pass the
    same `ids` to `format_results` (or none to both: the mapping is stable).
    """
    mapping = ids if ids is not None else CallIds()
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": mapping.to_wire(call.id),
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": arguments_text(call.arguments),
                },
            }
            for call in calls
        ],
    }
