"""OpenAI Realtime API: session tools, function-call events and output events.

Wire reference: https://platform.openai.com/docs/guides/realtime-conversations
(function calling) and https://platform.openai.com/docs/api-reference/realtime.
Tools are set for the session with `session.update` (or per response in
`response.create`) as `{"type": "function", name, description, parameters}`;
there is no `strict` flag, so schemas go over in the loose OpenAI dialect. A call
arrives as a `function_call` item (also in `response.done` and in
`response.function_call_arguments.done`, which is sent even when a response is
cancelled). Each result is a `conversation.item.create` event holding a
`function_call_output` item, and the model only speaks again after a
`response.create` event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolcast._frozen import thaw
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
    normalize_choice,
    specs_of,
)

__all__ = (
    "format_results",
    "format_session_update",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
)

TARGET = "openai_realtime"


def project(tool: Any, *, status_hint: bool = False) -> Projection:
    """Project one Tool or ToolSpec (never strict: Realtime has no strict flag).

    With `status_hint`, a tool's `status` text is added to its description as
    what to tell the user while it runs (the Realtime guide suggests putting
    that guidance in the description).
    """
    (spec,) = specs_of([tool])
    return cached_projection(spec, TARGET, status_hint, lambda s: _project(s, status_hint))


def _project(spec: ToolSpec, status_hint: bool) -> Projection:
    check_names([spec], "OpenAI Realtime")
    converted = openai_parameters(spec.input_schema, strict=False)
    description = spec.description
    if status_hint and spec.status:
        say = f'While it runs, tell the user: "{spec.status}".'
        description = f"{description} {say}" if description else say
    definition: dict[str, Any] = {"type": "function", "name": spec.name}
    if description:
        definition["description"] = description
    definition["parameters"] = converted.schema
    return Projection(TARGET, spec.name, definition, False, converted.notes)


def format_tools(
    tools: Iterable[Any], *, strict: bool | None = None, status_hint: bool = False
) -> list[dict[str, Any]]:
    """The `session.tools` list, in the given order; `[]` clears the session's tools.

    `strict` is accepted for symmetry with the other targets; Realtime has no
    strict flag, so tools always go over in the loose dialect.
    """
    del strict
    specs = specs_of(tools)
    check_names(specs, "OpenAI Realtime")
    return [thaw(project(spec, status_hint=status_hint).definition) for spec in specs]


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
    status_hint: bool = False,
) -> dict[str, Any]:
    """A `session.update` client event that sets the session's tools (and choice)."""
    tool_list = list(tools)
    session: dict[str, Any] = {
        "type": "realtime",
        "tools": format_tools(tool_list, status_hint=status_hint),
    }
    if tool_choice is not None:
        session["tool_choice"] = format_tool_choice(tool_choice, tools=tool_list)
    return {"type": "session.update", "session": session}


def parse_calls(events: Any) -> list[ToolCall]:
    """The function calls in server events or conversation items.

    Accepts `response.done` (its `response.output`),
    `response.function_call_arguments.done`, `conversation.item.added`/`.done`
    and `response.output_item.done` events, bare `function_call` items, or a list
    of any of these. A call seen twice (e.g. in both `.arguments.done` and
    `response.done`) is returned once, in first-seen order, with the latest data.
    """
    data = materialize(events)
    found: dict[str, ToolCall] = {}
    for item in data if isinstance(data, list) else [data]:
        for call in _calls_in(item):
            found[call.id] = call
    return list(found.values())


def _calls_in(event: Mapping[str, Any]) -> list[ToolCall]:
    kind = event.get("type")
    if kind == "response.done":
        output = (event.get("response") or {}).get("output") or []
        return [c for item in output for c in _calls_in(item)]
    if kind == "response.function_call_arguments.done":
        extra = {
            "item_id": event.get("item_id"),
            "response_id": event.get("response_id"),
        }
        return [ToolCall(event["call_id"], event["name"], event.get("arguments") or "{}", extra)]
    if kind in (
        "conversation.item.added",
        "conversation.item.done",
        "response.output_item.done",
    ):
        return _calls_in(event.get("item") or {})
    if kind == "function_call" and event.get("call_id"):
        extra = {k: event[k] for k in ("id", "status") if event.get(k) is not None}
        if "id" in extra:
            extra["item_id"] = extra.pop("id")
        return [ToolCall(event["call_id"], event["name"], event.get("arguments") or "{}", extra)]
    return []


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
