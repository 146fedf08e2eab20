"""OpenAI Responses API: flat function tools, `function_call` items and their outputs.

Wire reference: https://platform.openai.com/docs/api-reference/responses/create
and https://platform.openai.com/docs/guides/function-calling. A tool is
`{"type": "function", name, description?, parameters, strict}`; calls are
`function_call` output items correlated by `call_id` (not the item `id`); each is
answered by a `{"type": "function_call_output", call_id, output}` input item.

`strict` is always sent: when it is omitted Responses normalises the schema into
strict mode on its own, silently making optional parameters mandatory (guide
change of 2026-04-01). Calls carry `provider_data["null_means_default"] = True`,
as in `openai_chat`.
"""

from __future__ import annotations

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
    answer_all,
    arguments_text,
    check_choice_names,
    check_names,
    materialize,
    openai_parameters,
    outcome_text,
    require_id,
    to_plain,
)
from toolcast.providers._projection import (
    Projection,
    ToolChoice,
    cached_projection,
    fresh_definitions,
    normalize_choice,
    specs_of,
)
from toolcast.providers._read import Wire, describe
from toolcast.providers._shapes import expect
from toolcast.providers.openai_chat import invoke_options

__all__ = (
    "CallAccumulator",
    "Model",
    "format_call_items",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "invoke_options",
    "parse_calls",
    "project",
)

TARGET = "openai_responses"
_WIRE = Wire("OpenAI Responses")
_STREAM = Wire("OpenAI Responses stream")


def project(tool: Any, *, strict: bool | None = None, output_schema: bool = False) -> Projection:
    """Project one Tool or ToolSpec; `strict=None` follows the tool's own setting.

    A tool that cannot be strict goes over non-strict with notes saying why; with
    `strict=True` that raises `UnsupportedSchemaError` instead. With
    `output_schema`, a tool's structured output schema is sent as
    `output_schema` (the JSON encoded in its string outputs).
    """
    (spec,) = specs_of([tool])
    return cached_projection(
        spec, TARGET, (strict, output_schema), lambda s: _project(s, strict, output_schema)
    )


def _project(spec: ToolSpec, strict: bool | None, with_output: bool) -> Projection:
    check_names([spec], "OpenAI Responses")
    want = spec.strict if strict is None else strict
    converted = openai_parameters(spec.input_schema, strict=want, insist=strict is True)
    definition: dict[str, Any] = {"type": "function", "name": spec.name}
    if spec.description:
        definition["description"] = spec.description
    definition["parameters"] = converted.schema
    definition["strict"] = converted.strict
    if with_output and spec.output_schema is not None:
        definition["output_schema"] = to_plain(spec.output_schema)
    return Projection(TARGET, spec.name, definition, converted.strict, converted.notes)


def format_tools(
    tools: Iterable[Any], *, strict: bool | None = None, output_schema: bool = False
) -> list[dict[str, Any]]:
    """The function entries of `responses.create(tools=...)`, in the given order."""
    specs = specs_of(tools)
    check_names(specs, "OpenAI Responses")
    return fresh_definitions(
        specs, TARGET, (strict, output_schema), lambda s: _project(s, strict, output_schema)
    )


def format_tool_choice(
    choice: ToolChoice, *, tools: Iterable[Any] | None = None
) -> str | dict[str, Any]:
    """The `tool_choice` value: a mode, a named function, or allowed tools.

    One name gives `{"type": "function", "name": ...}`; several give
    `{"type": "allowed_tools", "mode", "tools"}`.
    """
    normal = normalize_choice(choice)
    check_choice_names(normal.names, tools)
    if not normal.names:
        return normal.mode
    if len(normal.names) == 1 and normal.mode == "required":
        return {"type": "function", "name": normal.names[0]}
    return {
        "type": "allowed_tools",
        "mode": normal.mode,
        "tools": [{"type": "function", "name": n} for n in normal.names],
    }


def parse_calls(response: Any) -> list[ToolCall]:
    """The function calls in a `Response`, its `output` items, or a stream of events.

    Accepts the SDK's `Response`, a dict of it, a list of output items, one item,
    or an iterable of stream events (see `CallAccumulator`). Other item types
    (messages, reasoning, hosted tools) are skipped.

    Raises:
        ResponseFormatError: the response is not in the Responses shape, or a
            `function_call` has no `call_id` (results are correlated by it).
    """
    data = materialize(response, _WIRE)
    expect(_WIRE, "responses", data)
    if isinstance(data, list):
        if any(_is_event(item) for item in data):
            stream = CallAccumulator()
            for event in data:
                stream.add(event)
            return stream.calls()
        items, where = data, ""
    elif _is_event(data):
        stream = CallAccumulator()
        stream.add(data)
        return stream.calls()
    else:
        data = _WIRE.obj(data, "")
        if "output" in data:
            items, where = _WIRE.seq(data["output"], "output"), "output"
        else:
            return [_call(data, "")] if data.get("type") == "function_call" else []
    calls = []
    for i, item in enumerate(items):
        item = _WIRE.obj(item, f"{where}[{i}]")
        if item.get("type") == "function_call":
            calls.append(_call(item, f"{where}[{i}]"))
    return calls


def _is_event(item: Any) -> bool:
    return isinstance(item, Mapping) and str(item.get("type", "")).startswith("response.")


def _call(item: Mapping[str, Any], path: str, wire: Wire = _WIRE) -> ToolCall:
    at = f"{path}." if path else ""
    extra: dict[str, Any] = {"null_means_default": True}
    for key in ("id", "namespace", "status"):
        if item.get(key) is not None:
            extra["item_id" if key == "id" else key] = item[key]
    call_id = wire.text(item.get("call_id"), f"{at}call_id")
    assert call_id is not None
    return wire.call(path, call_id, item.get("name"), item.get("arguments"), extra)


class CallAccumulator:
    """Builds `ToolCall`s from Responses stream events.

    `response.output_item.added` brings `call_id` and `name`; argument text comes
    in `response.function_call_arguments.delta` events keyed by `output_index`;
    `.done` events and `response.completed` replace the pieces with final text.
    An event not in this shape raises `ResponseFormatError` naming its path.
    """

    def __init__(self) -> None:
        self._items: dict[int, dict[str, Any]] = {}
        self._pieces: dict[int, list[str]] = {}
        self._paths: dict[int, str] = {}
        self._events = 0

    def add(self, event: Any) -> None:
        """Take one stream event (SDK object or dict); unrelated events are ignored."""
        wire = _STREAM
        where = f"event[{self._events}]"
        self._events += 1
        data = wire.obj(to_plain(event), where)
        kind = data.get("type")
        index = wire.index(data.get("output_index", 0), f"{where}.output_index")
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = wire.obj(data.get("item") or {}, f"{where}.item")
            if item.get("type") == "function_call":
                self._items[index] = dict(item)
                self._paths[index] = f"{where}.item"
                if kind.endswith(".done"):
                    self._pieces[index] = [_text(item.get("arguments"), f"{where}.item.arguments")]
        elif kind == "response.function_call_arguments.delta":
            piece = _text(data.get("delta"), f"{where}.delta")
            self._pieces.setdefault(index, []).append(piece)
        elif kind == "response.function_call_arguments.done":
            self._pieces[index] = [_text(data.get("arguments"), f"{where}.arguments")]
        elif kind == "response.completed":
            response = wire.obj(data.get("response") or {}, f"{where}.response")
            output = wire.seq(response.get("output"), f"{where}.response.output")
            for position, item in enumerate(output):
                at = f"{where}.response.output[{position}]"
                item = wire.obj(item, at)
                if item.get("type") == "function_call":
                    self._items[position] = dict(item)
                    self._paths[position] = at
                    self._pieces[position] = [_text(item.get("arguments"), f"{at}.arguments")]

    def calls(self) -> list[ToolCall]:
        """The calls seen so far, in output order."""
        calls = []
        for index, item in sorted(self._items.items()):
            text = "".join(self._pieces.get(index, [_text(item.get("arguments"), "")]))
            calls.append(_call({**item, "arguments": text}, self._paths[index], _STREAM))
        return calls


def _text(value: Any, path: str) -> str:
    """An argument fragment: a string (a missing one is empty)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        _STREAM.fail(path, f"is {describe(value)}, not a string")
    return value


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    error_prefix: str = "Error: ",
) -> list[dict[str, Any]]:
    """One `function_call_output` item per outcome, in call order when `calls` is given.

    Text-only outcomes send `output` as a string; outcomes with images send a list
    of `input_text` / `input_image` parts. With `calls`, an unanswered call gets an
    error output, since Responses rejects a call without output ("No tool output
    found", openai-agents issue 673).
    """
    items = []
    for outcome in answer_all(outcomes, calls):
        call_id = require_id(outcome, "Responses")
        output: str | list[dict[str, Any]] = outcome_text(outcome, error_prefix=error_prefix)
        if any(isinstance(part, ImagePart) for part in outcome.content):
            output = _parts(outcome, error_prefix)
        items.append({"type": "function_call_output", "call_id": call_id, "output": output})
    return items


def _parts(outcome: ToolOutcome, error_prefix: str) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if outcome.is_error and error_prefix:
        parts.append({"type": "input_text", "text": error_prefix.strip()})
    for part in outcome.content:
        if isinstance(part, ImagePart):
            url = f"data:{part.mime_type};base64,{part.base64}"
            parts.append({"type": "input_image", "image_url": url})
        else:
            parts.append({"type": "input_text", "text": part.text})
    return parts


def format_call_items(calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
    """The `function_call` input items that made `calls`, for replaying history.

    A `function_call_output` is only accepted after its `function_call` item
    ("No tool call found for function call output", vercel/ai issue 18537).
    """
    items = []
    for call in calls:
        item: dict[str, Any] = {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": arguments_text(call.arguments),
        }
        if "item_id" in call.provider_data:
            item["id"] = call.provider_data["item_id"]
        items.append(item)
    return items


# --- Model adapter for the run loop

TURN = "toolcast.response_output"
"""History entries of this `type` hold one response's output items (see `Model`)."""


class Model(StrictAdapter):
    """A Responses API model behind the host's `openai.AsyncOpenAI` client.

    A Responses turn is several output items (reasoning, message, function calls);
    the adapter keeps them together as one history entry
    `{"type": "toolcast.response_output", "items": [...]}` and spreads them into
    `input` when sending, so reasoning items go back as the API wants.
    `request.system` is sent as `instructions`.

    Example:
        >>> model = openai_responses.Model(openai.AsyncOpenAI(), "gpt-5-mini")
    """

    provider = "OpenAI Responses"
    method = "responses.create"
    expects = "an openai.AsyncOpenAI client"
    extra = "openai"

    def user_message(self, text: str) -> list[dict[str, Any]]:
        """A `user` input message."""
        return [{"role": "user", "content": text}]

    def result_messages(self, outcomes: Iterable[ToolOutcome]) -> list[dict[str, Any]]:
        """One `function_call_output` item per outcome (see `format_results`)."""
        return format_results(outcomes)

    def request(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of `responses.create` for `request`."""
        items: list[Any] = []
        for entry in request.messages:
            items += entry["items"] if entry.get("type") == TURN else [entry]
        kwargs: dict[str, Any] = {"model": self.model, "input": items}
        if request.system:
            kwargs["instructions"] = request.system
        kwargs.update(
            openai_tool_fields(request, format_tools, format_tool_choice, strict=self.strict)
        )
        return {**kwargs, **self.merged(request)}

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send one request; the turn holds the response's output items."""
        data = plain(await self.send(**self.request(request)))
        expect(_WIRE, "responses", data)
        items = list(data.get("output") or ())
        text = "".join(
            text_of(item.get("content"), kind="output_text")
            for item in items
            if item.get("type") == "message"
        )
        usage = usage_of(data.get("usage"), ["input_tokens"], ["output_tokens"])
        reason = (data.get("incomplete_details") or {}).get("reason") or data.get("status")
        return ModelTurn(
            message={"type": TURN, "items": items},
            calls=tuple(parse_calls(items)),
            text=text,
            usage=usage,
            finish_reason=reason,
        )
