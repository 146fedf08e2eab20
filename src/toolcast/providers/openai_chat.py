"""OpenAI Chat Completions: tool definitions, tool choice, calls and tool messages.

Wire reference: https://platform.openai.com/docs/api-reference/chat/create and the
function-calling guide https://platform.openai.com/docs/guides/function-calling.
A tool is `{"type": "function", "function": {name, description?, parameters,
strict}}`; calls come back in `message.tool_calls` with JSON-text arguments; each
is answered by a `{"role": "tool", "tool_call_id", "content"}` message.

Strict tools make every parameter required and let optional ones be `null`.
Calls parsed here carry `provider_data["null_means_default"] = True`: pass it to
`Tool.invoke(..., null_means_default=...)` so a `null` for a parameter that does
not accept null means "use the default" (see `invoke_options`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

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
    new_call_id,
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

__all__ = (
    "CallAccumulator",
    "format_assistant_message",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "invoke_options",
    "parse_calls",
    "project",
)

TARGET = "openai_chat"
# "A max of 128 functions are supported" (openai-openapi, `tools` of
# CreateChatCompletionRequest).
_MAX_TOOLS = 128


def project(tool: Any, *, strict: bool | None = None) -> Projection:
    """Project one Tool or ToolSpec; `strict=None` follows the tool's own setting.

    A tool that cannot be strict (a `dict[str, T]` parameter, an untyped value)
    goes over non-strict, and the projection's notes say why; with `strict=True`
    that raises `UnsupportedSchemaError` instead.
    """
    (spec,) = specs_of([tool])
    return cached_projection(spec, TARGET, strict, lambda s: _project(s, strict))


def _project(spec: ToolSpec, strict: bool | None) -> Projection:
    check_names([spec], "OpenAI Chat Completions")
    want = spec.strict if strict is None else strict
    converted = openai_parameters(spec.input_schema, strict=want, insist=strict is True)
    function: dict[str, Any] = {"name": spec.name}
    if spec.description:
        function["description"] = spec.description
    function["parameters"] = converted.schema
    function["strict"] = converted.strict
    return Projection(
        target=TARGET,
        name=spec.name,
        definition={"type": "function", "function": function},
        strict=converted.strict,
        notes=converted.notes,
    )


def format_tools(tools: Iterable[Any], *, strict: bool | None = None) -> list[dict[str, Any]]:
    """The `tools` list for `chat.completions.create`, in the given order.

    An empty result means "send no `tools`" (the API rejects an empty list).
    """
    specs = specs_of(tools)
    check_names(specs, "OpenAI Chat Completions")
    if len(specs) > _MAX_TOOLS:
        msg = f"Chat Completions takes at most {_MAX_TOOLS} tools, got {len(specs)}."
        raise ValueError(msg)
    return [thaw(project(spec, strict=strict).definition) for spec in specs]


def format_tool_choice(
    choice: ToolChoice, *, tools: Iterable[Any] | None = None
) -> str | dict[str, Any]:
    """The `tool_choice` value: `"auto"`, `"none"`, `"required"` or a named/allowed one.

    One name gives `{"type": "function", "function": {"name": ...}}`; several give
    `{"type": "allowed_tools", ...}` with mode `auto` or `required`. With `tools`,
    names are checked against them.
    """
    normal = normalize_choice(choice)
    check_choice_names(normal.names, tools)
    if not normal.names:
        return normal.mode
    if len(normal.names) == 1 and normal.mode == "required":
        return {"type": "function", "function": {"name": normal.names[0]}}
    return {
        "type": "allowed_tools",
        "allowed_tools": {
            "mode": normal.mode,
            "tools": [{"type": "function", "function": {"name": n}} for n in normal.names],
        },
    }


def parse_calls(response: Any, *, choice: int = 0) -> list[ToolCall]:
    """The tool calls in a completion, a message, a list of tool calls, or a stream.

    Accepts `ChatCompletion`, `ChatCompletionMessage`, their dict forms, or an
    iterable of `ChatCompletionChunk`s (fragments are joined per `index`). Empty
    argument text (some servers send it for no-argument tools) reads as `{}`.
    """
    data = materialize(response)
    if isinstance(data, list):
        if any(isinstance(item, Mapping) and "choices" in item for item in data):
            stream = CallAccumulator(choice=choice)
            for chunk in data:
                stream.add(chunk)
            return stream.calls()
        return [_call(item) for item in data]
    if "choices" in data:
        picked = data["choices"][choice]
        if "delta" in picked:
            stream = CallAccumulator(choice=choice)
            stream.add(data)
            return stream.calls()
        data = picked.get("message") or {}
    if "function" in data or "custom" in data:
        return [_call(data)]
    return [_call(item) for item in data.get("tool_calls") or ()]


def _call(item: Mapping[str, Any]) -> ToolCall:
    call_id = item.get("id") or new_call_id()
    if item.get("type") == "custom":
        # Free-text custom tools send `input`, not JSON; the invoker answers with
        # an error result rather than leaving the call unanswered.
        custom = item.get("custom") or {}
        return ToolCall(
            call_id, custom.get("name", ""), custom.get("input", ""), {"type": "custom"}
        )
    function = item.get("function") or {}
    return ToolCall(
        call_id,
        function.get("name", ""),
        function.get("arguments") or "{}",
        {"null_means_default": True},
    )


class CallAccumulator(ChoiceDeltas):
    """Joins `ChatCompletionChunk` tool-call fragments into `ToolCall`s.

    Example:
        >>> acc = CallAccumulator()
        >>> for chunk in client.chat.completions.create(..., stream=True):
        ...     acc.add(chunk)
        >>> calls = acc.calls()
    """

    def calls(self, **provider_data: Any) -> list[ToolCall]:
        """The calls assembled so far, in `index` order."""
        return super().calls(null_means_default=True, **provider_data)


def invoke_options(call: ToolCall) -> dict[str, Any]:
    """Keyword arguments for `Tool.invoke` that this target's calls need.

    Example:
        >>> await tool.invoke(call.arguments, call_id=call.id, **invoke_options(call))
    """
    return {"null_means_default": bool(call.provider_data.get("null_means_default", False))}


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    error_prefix: str = "Error: ",
    images: Literal["message", "omit"] = "message",
) -> list[dict[str, Any]]:
    """One `tool` message per outcome, in call order when `calls` is given.

    With `calls`, a call with no outcome is answered with an error, because the
    API rejects an assistant turn whose calls are not all answered. Tool messages
    carry text only, so failures are prefixed with `error_prefix`; images go in one
    `user` message after the tool messages (`images="message"`) or are named and
    left out (`"omit"`).
    """
    messages: list[dict[str, Any]] = []
    pictures: list[dict[str, Any]] = []
    for outcome in answer_all(outcomes, calls):
        call_id = require_id(outcome, "Chat Completions")
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": outcome_text(outcome, error_prefix=error_prefix),
            }
        )
        found = [part for part in outcome.content if isinstance(part, ImagePart)]
        if found and images == "message":
            pictures.append(
                {
                    "type": "text",
                    "text": f"Images from tool call {call_id} ({outcome.tool_name}):",
                }
            )
            pictures += [
                {
                    "type": "image_url",
                    "image_url": {"url": f"data:{p.mime_type};base64,{p.base64}"},
                }
                for p in found
            ]
    if pictures:
        messages.append({"role": "user", "content": pictures})
    return messages


def format_assistant_message(
    calls: Iterable[ToolCall], *, content: str | None = None
) -> dict[str, Any]:
    """The assistant message that made `calls`, for replaying a conversation."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": arguments_text(call.arguments),
                },
            }
            for call in calls
        ],
    }
