"""OpenAI Realtime session tools, server call events and output events.

Wire rules pinned here (sources in src/toolcast/providers/openai_realtime.py):
- tools {"type": "function", name, description?, parameters}, no `strict` field
  (the parameters are the ones openai_responses sends: strict-shaped by default),
  set through `session.update` (`session.type` "realtime"); `[]` clears them;
- tool_choice: modes and {"type": "function", name}; no allowed-tools form;
- calls from `response.done`, `response.function_call_arguments.done` and item
  events, each call once;
- results: `conversation.item.create` with a `function_call_output` item per call,
  then `response.create` (an output alone does not make the model speak).
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.realtime import (
    ConversationItemCreateEventParam,
    RealtimeFunctionToolParam,
    ResponseCreateEventParam,
    ResponseDoneEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    SessionUpdateEventParam,
)
from pydantic import TypeAdapter

from toolcast import ImagePart, TextPart, ToolCall, ToolOutcome, ToolSpec
from toolcast.providers import openai_realtime

ITEM_CREATE = TypeAdapter(ConversationItemCreateEventParam)
RESPONSE_CREATE = TypeAdapter(ResponseCreateEventParam)


def spec(**kw: Any) -> ToolSpec:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 3}},
        "required": ["city"],
        "additionalProperties": False,
    }
    return ToolSpec(
        name=kw.pop("name", "weather"),
        description="Get the weather.",
        input_schema=schema,
        **kw,
    )


def test_project_pins_the_realtime_tool_shape_without_strict():
    projection = openai_realtime.project(spec())
    assert projection.strict is False  # nothing on the wire asks for strict decoding
    assert projection.definition == {
        "type": "function",
        "name": "weather",
        "description": "Get the weather.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": ["integer", "null"], "description": "Defaults to 3 when null."},
            },
            "required": ["city", "days"],
            "additionalProperties": False,
        },
    }
    loose = openai_realtime.project(spec(), strict=False).definition["parameters"]
    assert loose["properties"]["days"] == {"type": "integer", "default": 3}
    assert loose["required"] == ["city"]


def test_status_hint_tells_the_model_what_to_say_while_calling():
    tool = spec(status="Checking the forecast")
    description = openai_realtime.project(tool, status_hint=True).definition["description"]
    assert description == (
        'Get the weather. While it runs, tell the user: "Checking the forecast".'
    )
    assert openai_realtime.project(tool).definition["description"] == "Get the weather."


def test_every_corpus_tool_validates_against_the_sdk_type(corpus):
    TypeAdapter(list[RealtimeFunctionToolParam]).validate_python(
        openai_realtime.format_tools(corpus)
    )


def test_session_update_sets_tools_and_choice():
    event = openai_realtime.format_session_update([spec()], tool_choice={"name": "weather"})
    assert event["type"] == "session.update"
    assert event["session"]["type"] == "realtime"
    assert event["session"]["tool_choice"] == {"type": "function", "name": "weather"}
    assert [t["name"] for t in event["session"]["tools"]] == ["weather"]
    TypeAdapter(SessionUpdateEventParam).validate_python(event)


def test_session_update_with_no_tools_clears_them():
    assert openai_realtime.format_session_update([])["session"]["tools"] == []


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"name": "weather"}, {"type": "function", "name": "weather"}),
    ],
)
def test_format_tool_choice_maps_the_modes_realtime_has(choice, wire):
    assert openai_realtime.format_tool_choice(choice) == wire


def test_format_tool_choice_says_realtime_lacks_allowed_tools():
    with pytest.raises(ValueError, match="no allowed-tools choice; send only"):
        openai_realtime.format_tool_choice({"allowed": ["a", "b"]})


CALL_ITEM = {
    "type": "function_call",
    "id": "item_1",
    "call_id": "call_1",
    "name": "weather",
    "arguments": '{"city":"Oslo"}',
    "status": "completed",
}
DONE = {
    "type": "response.done",
    "event_id": "ev_2",
    "response": {"id": "resp_1", "object": "realtime.response", "output": [CALL_ITEM]},
}
ARGS_DONE = {
    "type": "response.function_call_arguments.done",
    "event_id": "ev_1",
    "response_id": "resp_1",
    "item_id": "item_1",
    "output_index": 0,
    "call_id": "call_1",
    "name": "weather",
    "arguments": '{"city":"Oslo"}',
}


def test_parse_calls_reads_server_events_as_sdk_objects_or_dicts():
    from_done = openai_realtime.parse_calls(ResponseDoneEvent.model_validate(DONE))
    assert from_done == [
        ToolCall(
            "call_1",
            "weather",
            '{"city":"Oslo"}',
            {"null_means_default": True, "item_id": "item_1", "status": "completed"},
        )
    ]
    from_args = openai_realtime.parse_calls(
        ResponseFunctionCallArgumentsDoneEvent.model_validate(ARGS_DONE)
    )
    assert from_args == [
        ToolCall(
            "call_1",
            "weather",
            '{"city":"Oslo"}',
            {"null_means_default": True, "item_id": "item_1", "response_id": "resp_1"},
        )
    ]
    item_event = {"type": "conversation.item.done", "event_id": "e", "item": CALL_ITEM}
    assert openai_realtime.parse_calls(item_event) == from_done


def test_parse_calls_returns_each_call_once_across_events():
    calls = openai_realtime.parse_calls([ARGS_DONE, {"type": "session.updated"}, DONE])
    assert [c.id for c in calls] == ["call_1"]


def test_format_results_adds_outputs_then_asks_for_a_response():
    calls = [ToolCall("call_1", "weather", "{}"), ToolCall("call_2", "clock", "{}")]
    outcome = ToolOutcome(
        call_id="call_1", tool_name="weather", content=(TextPart("Rain"),), text="Rain"
    )
    events = openai_realtime.format_results([outcome], calls=calls)
    assert events == [
        {
            "type": "conversation.item.create",
            "item": {"type": "function_call_output", "call_id": "call_1", "output": "Rain"},
        },
        {
            "type": "conversation.item.create",
            "item": {
                "type": "function_call_output",
                "call_id": "call_2",
                "output": "Error: The call to 'clock' was not run.",
            },
        },
        {"type": "response.create"},
    ]
    for event in events[:-1]:
        ITEM_CREATE.validate_python(event)
    RESPONSE_CREATE.validate_python(events[-1])


def test_format_results_without_respond_and_with_images():
    outcome = ToolOutcome(call_id="c", tool_name="cam", content=(ImagePart(b"abc"),))
    events = openai_realtime.format_results([outcome], respond=False)
    assert events == [
        {
            "type": "conversation.item.create",
            "item": {
                "type": "function_call_output",
                "call_id": "c",
                "output": "[image: image/png, 3 bytes, not shown]",
            },
        }
    ]
    assert openai_realtime.format_results([]) == []
