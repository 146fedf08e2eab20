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
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.loop._model import ModelRequest, ModelTurn
from toolcast.providers._adapter import (
    StrictAdapter,
    openai_tool_fields,
    plain,
    text_of,
    usage_of,
)
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
    fresh_definitions,
    normalize_choice,
    specs_of,
)
from toolcast.providers._read import Wire
from toolcast.providers._shapes import expect
from toolcast.providers.openai_chat import invoke_options

__all__ = (
    "CallAccumulator",
    "CallIds",
    "Model",
    "format_assistant_message",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "invoke_options",
    "parse_calls",
    "project",
)

TARGET = "mistral"
_WIRE = Wire("Mistral")
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
    return fresh_definitions(specs, TARGET, strict, lambda s: _project(s, strict))


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

    Raises:
        ResponseFormatError: the response is not in the Mistral chat shape.
    """
    data = materialize(response, _WIRE)
    expect(_WIRE, "chat", data)
    if isinstance(data, list) and any(
        isinstance(i, Mapping) and ("choices" in i or "data" in i) for i in data
    ):
        stream = CallAccumulator(choice=choice)
        for chunk in data:
            stream.add(chunk)
        calls = stream.calls()
    elif isinstance(data, list):
        calls = [_call(item, f"[{i}]") for i, item in enumerate(data)]
    else:
        data = _WIRE.obj(data, "")
        where = ""
        if "choices" in data:
            at = f"choices[{choice}]"
            picked = _WIRE.obj(_WIRE.pick(data["choices"], choice, "choices"), at)
            where = f"{at}.message." if picked.get("message") else f"{at}.delta."
            data = _WIRE.obj(picked.get("message") or picked.get("delta") or {}, where[:-1])
        items = _WIRE.seq(data.get("tool_calls"), f"{where}tool_calls")
        calls = [_call(item, f"{where}tool_calls[{i}]") for i, item in enumerate(items)]
    if ids is None:
        return calls
    return [ToolCall(ids.from_wire(c.id), c.name, c.arguments, c.provider_data) for c in calls]


def _call(item: Any, path: str) -> ToolCall:
    item = _WIRE.obj(item, path)
    # The SDK fills a missing id with the string "null" (ToolCall.id default).
    call_id = _WIRE.text(item.get("id"), f"{path}.id", required=False)
    if not call_id or call_id == "null":
        call_id = _new_id()
    function = _WIRE.obj(item.get("function") or {}, f"{path}.function")
    return _WIRE.call(
        f"{path}.function",
        call_id,
        function.get("name"),
        function.get("arguments"),
        {"null_means_default": True},
    )


class CallAccumulator(ChoiceDeltas):
    """Joins `CompletionChunk` tool-call deltas (from `chat.stream`) into calls."""

    def __init__(self, *, choice: int = 0, id_prefix: str = "call_") -> None:
        super().__init__(choice=choice, id_prefix=id_prefix, provider="Mistral")

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


# --- Model adapter for the run loop


class Model(StrictAdapter):
    """A Mistral model behind the host's `mistralai` client (`chat.complete_async`).

    History uses Mistral-valid call ids throughout: the model's own ids are
    already valid, and results are mapped with the same stable `CallIds`.

    Example:
        >>> from mistralai.client import Mistral
        >>> model = mistral.Model(Mistral(api_key=...), "mistral-medium-latest")
    """

    provider = "Mistral"
    method = "chat.complete_async"
    expects = "a mistralai Mistral client"
    extra = "mistral"

    def __init__(
        self, client: Any, model: str, *, strict: bool | None = None, **options: Any
    ) -> None:
        super().__init__(client, model, strict=strict, **options)
        self.ids = CallIds()

    def user_message(self, text: str) -> list[dict[str, Any]]:
        """A `user` message."""
        return [{"role": "user", "content": text}]

    def result_messages(self, outcomes: Iterable[ToolOutcome]) -> list[dict[str, Any]]:
        """One `tool` message per outcome (see `format_results`)."""
        return format_results(outcomes, ids=self.ids)

    def request(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of `chat.complete_async` for `request`."""
        system = [{"role": "system", "content": request.system}] if request.system else []
        kwargs: dict[str, Any] = {"model": self.model, "messages": [*system, *request.messages]}
        kwargs.update(
            openai_tool_fields(request, format_tools, format_tool_choice, strict=self.strict)
        )
        return {**kwargs, **self.merged(request)}

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send one request; the turn's message is the assistant message as sent back."""
        data = plain(await self.send(**self.request(request)))
        expect(_WIRE, "chat", data)
        picked = (data.get("choices") or [{}])[0]
        reply = picked.get("message") or {}
        content = reply.get("content")
        message: dict[str, Any] = {"role": "assistant", "content": content or ""}
        if reply.get("tool_calls"):
            message["tool_calls"] = reply["tool_calls"]
        usage = usage_of(data.get("usage"), ["prompt_tokens"], ["completion_tokens"])
        return ModelTurn(
            message=message,
            calls=tuple(parse_calls(message, ids=self.ids)),
            text=text_of(content),
            usage=usage,
            finish_reason=picked.get("finish_reason"),
        )
