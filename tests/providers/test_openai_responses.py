"""OpenAI Responses projection, tool choice, `function_call` items and outputs.

Wire rules pinned here (sources in src/toolcast/providers/openai_responses.py):
- flat tool {"type": "function", name, description?, parameters, strict}; `strict`
  is always explicit, because omitting it makes Responses auto-strict (§2, §9.1);
- every corpus tool validates against the SDK's `FunctionToolParam`;
- tool_choice: modes, {"type": "function", name}, {"type": "allowed_tools", ...};
- calls come from `function_call` items by `call_id` (not the item `id`), from
  `Response`, item lists and stream events (`.delta` joined per output index);
- results: `function_call_output` items, every call answered (openai-agents #673),
  images as `input_image` parts; `format_call_items` replays calls (vercel/ai #18537).
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.responses import (
    FunctionToolParam,
    Response,
    ResponseInputItemParam,
    ToolChoiceAllowedParam,
    ToolChoiceFunctionParam,
)
from pydantic import TypeAdapter

from toolcast import ImagePart, TextPart, ToolCall, ToolOutcome, ToolSpec
from toolcast.providers import openai_responses

TOOLS = TypeAdapter(list[FunctionToolParam])
INPUT = TypeAdapter(list[ResponseInputItemParam])
NMD = {"null_means_default": True}


def spec(schema: dict[str, Any], **kw: Any) -> ToolSpec:
    return ToolSpec(
        name=kw.pop("name", "t"),
        description=kw.pop("description", "Do it."),
        input_schema=schema,
        **kw,
    )


EMPTY = {"type": "object", "properties": {}, "additionalProperties": False}


def test_project_pins_the_flat_wire_shape():
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
        "additionalProperties": False,
    }
    assert openai_responses.project(spec(schema, name="find")).definition == {
        "type": "function",
        "name": "find",
        "description": "Do it.",
        "parameters": {**schema},
        "strict": True,
    }


def test_non_strict_is_sent_explicitly_to_avoid_auto_strict():
    """§2: an omitted `strict` makes Responses normalise the schema into strict."""
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "default": 1}},
        "additionalProperties": False,
    }
    definition = openai_responses.project(spec(schema, strict=False)).definition
    assert definition["strict"] is False
    assert definition["parameters"] == schema


def test_output_schema_is_sent_only_when_asked():
    out = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    tool = spec(EMPTY, output_schema=out)
    assert "output_schema" not in openai_responses.project(tool).definition
    definition = openai_responses.project(tool, output_schema=True).definition
    assert definition["output_schema"] == out


def test_every_corpus_tool_validates_against_the_sdk_type(corpus):
    for strict in (None, False):
        TOOLS.validate_python(openai_responses.format_tools(corpus, strict=strict))


def test_strict_matches_chat_completions_parameters(corpus):
    from toolcast.providers import openai_chat

    for tool in corpus:
        chat = openai_chat.project(tool).definition["function"]
        flat = openai_responses.project(tool).definition
        assert (flat["parameters"], flat["strict"]) == (chat["parameters"], chat["strict"])


@pytest.mark.parametrize(
    ("choice", "wire", "adapter"),
    [
        ("auto", "auto", None),
        ("none", "none", None),
        ("required", "required", None),
        ({"name": "a"}, {"type": "function", "name": "a"}, ToolChoiceFunctionParam),
        (
            {"allowed": ["a", "b"], "mode": "auto"},
            {
                "type": "allowed_tools",
                "mode": "auto",
                "tools": [{"type": "function", "name": "a"}, {"type": "function", "name": "b"}],
            },
            ToolChoiceAllowedParam,
        ),
    ],
)
def test_format_tool_choice_maps_every_mode(choice, wire, adapter):
    assert openai_responses.format_tool_choice(choice) == wire
    if adapter is not None:
        TypeAdapter(adapter).validate_python(wire)


RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-test",
    "status": "completed",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_a",
            "name": "weather",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_b",
            "name": "clock",
            "arguments": "{}",
            "status": "completed",
        },
    ],
}
CALLS = [
    ToolCall(
        "call_a", "weather", '{"city":"Paris"}', {**NMD, "item_id": "fc_1", "status": "completed"}
    ),
    ToolCall("call_b", "clock", "{}", {**NMD, "item_id": "fc_2", "status": "completed"}),
]


def test_parse_calls_reads_response_objects_dicts_and_items():
    assert openai_responses.parse_calls(Response.model_validate(RESPONSE)) == CALLS
    assert openai_responses.parse_calls(RESPONSE) == CALLS
    assert openai_responses.parse_calls(RESPONSE["output"]) == CALLS
    assert openai_responses.parse_calls(RESPONSE["output"][1]) == CALLS[:1]


def stream_events() -> list[dict[str, Any]]:
    item = {k: v for k, v in RESPONSE["output"][1].items() if k != "arguments"}
    return [
        {"type": "response.created", "sequence_number": 0, "response": {**RESPONSE, "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "sequence_number": 1,
            "item": {**item, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 1,
            "item_id": "fc_1",
            "sequence_number": 2,
            "delta": '{"ci',
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 1,
            "item_id": "fc_1",
            "sequence_number": 3,
            "delta": 'ty":"Paris"}',
        },
    ]


def test_stream_deltas_join_into_a_call_before_the_response_completes():
    accumulator = openai_responses.CallAccumulator()
    for event in stream_events():
        accumulator.add(event)
    assert accumulator.calls() == [
        ToolCall(
            "call_a",
            "weather",
            '{"city":"Paris"}',
            {**NMD, "item_id": "fc_1", "status": "in_progress"},
        )
    ]


def test_stream_completed_event_is_authoritative():
    events = [
        *stream_events(),
        {"type": "response.completed", "sequence_number": 9, "response": RESPONSE},
    ]
    assert openai_responses.parse_calls(events) == CALLS


def ok(call_id: str, text: str, name: str = "weather") -> ToolOutcome:
    return ToolOutcome(call_id=call_id, tool_name=name, content=(TextPart(text),), text=text)


def test_format_results_pins_output_items_and_answers_every_call():
    """Complaint §9.9: Responses rejects a call without output (openai-agents #673)."""
    items = openai_responses.format_results([ok("call_a", "Sunny")], calls=CALLS)
    assert items == [
        {"type": "function_call_output", "call_id": "call_a", "output": "Sunny"},
        {
            "type": "function_call_output",
            "call_id": "call_b",
            "output": "Error: The call to 'clock' was not run.",
        },
    ]
    INPUT.validate_python(items)


def test_format_results_sends_images_as_input_parts():
    outcome = ToolOutcome(
        call_id="c",
        tool_name="plot",
        content=(TextPart("Chart"), ImagePart(b"\x89PNG")),
        text="Chart",
    )
    items = openai_responses.format_results([outcome])
    assert items == [
        {
            "type": "function_call_output",
            "call_id": "c",
            "output": [
                {"type": "input_text", "text": "Chart"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw=="},
            ],
        }
    ]
    INPUT.validate_python(items)


def test_format_call_items_replays_calls_before_their_outputs():
    items = [
        *openai_responses.format_call_items(CALLS),
        *openai_responses.format_results([ok("call_a", "x")]),
    ]
    assert items[0] == {
        "type": "function_call",
        "call_id": "call_a",
        "name": "weather",
        "arguments": '{"city":"Paris"}',
        "id": "fc_1",
    }
    INPUT.validate_python(items)
