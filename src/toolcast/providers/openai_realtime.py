"""OpenAI Realtime API: session tools, function-call events and output events.

Wire reference: https://platform.openai.com/docs/guides/realtime-conversations
(function calling) and https://platform.openai.com/docs/api-reference/realtime.
Tools are set for the session with `session.update` (or per response in
`response.create`) as `{"type": "function", name, description, parameters}`;
there is no `strict` flag, but the parameters are the ones `openai_responses`
sends (strict-shaped by default), so one tool has one schema on both transports;
calls therefore carry `provider_data["null_means_default"] = True`. A call
arrives as a `function_call` item (also in `response.done` and in
`response.function_call_arguments.done`, which is sent even when a response is
cancelled). Each result is a `conversation.item.create` event holding a
`function_call_output` item, and the model only speaks again after a
`response.create` event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.providers._common import (
    answer_all,
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

__all__ = (
    "format_results",
    "format_session_update",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
)

TARGET = "openai_realtime"
_WIRE = Wire("OpenAI Realtime")


def project(tool: Any, *, strict: bool | None = None, status_hint: bool = False) -> Projection:
    """Project one Tool or ToolSpec with the parameters `openai_responses` sends.

    Realtime has no strict flag, so nothing enforces the schema, but the same
    `strict` choice (default: the tool's own) shapes it as Responses does: one
    tool, one parameter schema on both OpenAI transports. With `status_hint`, a
    tool's `status` text is added to its description as what to tell the user
    while it runs (the Realtime guide suggests putting that guidance in the
    description).
    """
    (spec,) = specs_of([tool])
    return cached_projection(
        spec, TARGET, (strict, status_hint), lambda s: _project(s, strict, status_hint)
    )


def _project(spec: ToolSpec, strict: bool | None, status_hint: bool) -> Projection:
    check_names([spec], "OpenAI Realtime")
    want = spec.strict if strict is None else strict
    converted = openai_parameters(spec.input_schema, strict=want, insist=strict is True)
    description = spec.description
    if status_hint and spec.status:
        say = f'While it runs, tell the user: "{spec.status}".'
        description = f"{description} {say}" if description else say
    definition: dict[str, Any] = {"type": "function", "name": spec.name}
    if description:
        definition["description"] = description
    definition["parameters"] = converted.schema
    # Nothing on the wire asks for strict decoding, whatever shape the schema has.
    return Projection(TARGET, spec.name, definition, False, converted.notes)


def format_tools(
    tools: Iterable[Any], *, strict: bool | None = None, status_hint: bool = False
) -> list[dict[str, Any]]:
    """The `session.tools` list, in the given order; `[]` clears the session's tools.

    `strict` shapes the parameters as `openai_responses.format_tools` does
    (`False` sends the loose dialect); no `strict` field goes on the wire.
    """
    specs = specs_of(tools)
    check_names(specs, "OpenAI Realtime")
    return fresh_definitions(
        specs, TARGET, (strict, status_hint), lambda s: _project(s, strict, status_hint)
    )


def format_tool_choice(
    choice: ToolChoice, *, tools: Iterable[Any] | None = None
) -> str | dict[str, Any]:
    """The session `tool_choice`: a mode or `{"type": "function", "name"}`.

    Raises:
        ValueError: for a choice among several named tools, which Realtime cannot
            express (it has no `allowed_tools`); send only those tools instead.
    """
    normal = normalize_choice(choice)
    check_choice_names(normal.names, tools)
    if not normal.names:
        return normal.mode
    if len(normal.names) == 1 and normal.mode == "required":
        return {"type": "function", "name": normal.names[0]}
    msg = (
        "OpenAI Realtime has no allowed-tools choice; send only the allowed tools "
        f"({', '.join(normal.names)}) with tool_choice {normal.mode!r} instead."
    )
    raise ValueError(msg)


def format_session_update(
    tools: Iterable[Any],
    *,
    tool_choice: ToolChoice | None = None,
    strict: bool | None = None,
    status_hint: bool = False,
) -> dict[str, Any]:
    """A `session.update` client event that sets the session's tools (and choice)."""
    tool_list = list(tools)
    session: dict[str, Any] = {
        "type": "realtime",
        "tools": format_tools(tool_list, strict=strict, status_hint=status_hint),
    }
    if tool_choice is not None:
        session["tool_choice"] = format_tool_choice(tool_choice, tools=tool_list)
    return {"type": "session.update", "session": session}


def parse_calls(events: Any) -> list[ToolCall]:
    """The function calls in server events or conversation items.

    Accepts `response.done` (its `response.output`),
    `response.function_call_arguments.done`, `conversation.item.added`/`.done`
    and `response.output_item.done` events, bare `function_call` items, or a list
    of any of these. A call seen again in a later event (e.g. in both
    `.arguments.done` and `response.done`, matched by item id, else by call id)
    is returned once, in first-seen order, with the latest data; two calls of one
    event are both kept even when they share a call id.

    Raises:
        ResponseFormatError: an event is not in the Realtime shape, or a
            `function_call` has no `call_id`.
    """
    data = materialize(events, _WIRE)
    expect(_WIRE, "realtime", data)
    calls: list[ToolCall] = []
    slot_of: dict[str, int] = {}
    for number, item in enumerate(data if isinstance(data, list) else [data]):
        where = f"[{number}]" if isinstance(data, list) else ""
        fresh: dict[str, int] = {}
        for call in _calls_in(_WIRE.obj(item, where), where):
            item_id = call.provider_data.get("item_id")
            key = f"item:{item_id}" if isinstance(item_id, str) else f"call:{call.id}"
            if key in slot_of:
                calls[slot_of[key]] = call
            else:
                fresh[key] = len(calls)
                calls.append(call)
        slot_of.update(fresh)
    return calls


def _calls_in(event: Mapping[str, Any], path: str) -> list[ToolCall]:
    at = f"{path}." if path else ""
    kind = event.get("type")
    if kind == "response.done":
        response = _WIRE.obj(event.get("response") or {}, f"{at}response")
        output = _WIRE.seq(response.get("output"), f"{at}response.output")
        return [
            call
            for i, item in enumerate(output)
            for call in _calls_in(
                _WIRE.obj(item, f"{at}response.output[{i}]"), f"{at}response.output[{i}]"
            )
        ]
    if kind == "response.function_call_arguments.done":
        extra = {
            key: event[key] for key in ("item_id", "response_id") if event.get(key) is not None
        }
        return [_call(event, path, extra)]
    if kind in (
        "conversation.item.added",
        "conversation.item.done",
        "response.output_item.done",
    ):
        return _calls_in(_WIRE.obj(event.get("item") or {}, f"{at}item"), f"{at}item")
    if kind == "function_call":
        extra = {k: event[k] for k in ("id", "status") if event.get(k) is not None}
        if "id" in extra:
            extra["item_id"] = extra.pop("id")
        return [_call(event, path, extra)]
    return []


def _call(event: Mapping[str, Any], path: str, extra: dict[str, Any]) -> ToolCall:
    at = f"{path}." if path else ""
    call_id = _WIRE.text(event.get("call_id"), f"{at}call_id")
    assert call_id is not None
    # The parameters are strict-shaped (optional ones nullable), as for Responses.
    extra = {"null_means_default": True, **extra}
    return _WIRE.call(path, call_id, event.get("name"), event.get("arguments"), extra)


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    respond: bool = True,
    error_prefix: str = "Error: ",
) -> list[dict[str, Any]]:
    """`conversation.item.create` events with `function_call_output` items.

    With `respond`, a final `response.create` event asks the model to continue,
    because adding an output does not trigger a response on its own. Outputs are
    text; images are named and left out.
    """
    events: list[dict[str, Any]] = [
        {
            "type": "conversation.item.create",
            "item": {
                "type": "function_call_output",
                "call_id": require_id(outcome, "Realtime"),
                "output": outcome_text(outcome, error_prefix=error_prefix),
            },
        }
        for outcome in answer_all(outcomes, calls)
    ]
    if respond and events:
        events.append({"type": "response.create"})
    return events
