"""Ollama `/api/chat` projection, calls without ids, and tool messages by order.

Wire rules pinned here (sources in src/toolcast/providers/ollama.py):
- tool {"type": "function", "function": {name, description, parameters}}, never
  strict; each parameter keeps only `type`, `items`, `description`, `enum`,
  because ollama-python's `Tool` model silently drops the rest (complaint §9.12,
  ollama-python #429/#508): what would be lost is written into the description;
- no tool_choice: "auto" sends nothing, the rest say what to do instead;
- calls have no id: fresh ids are minted; results are `tool` messages with
  `tool_name`, in call order, every call answered; images go in `images`.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from toolcast import ImagePart, TextPart, ToolCall, ToolOutcome, ToolSpec
from toolcast.providers import ollama

KEPT = {"type", "items", "description", "enum"}


def spec(schema: dict[str, Any], name: str = "t") -> ToolSpec:
    return ToolSpec(name=name, description="Do it.", input_schema=schema)


WIDE = {
    "type": "object",
    "properties": {
        "n": {"type": "integer", "description": "Count.", "minimum": 1, "default": 5},
        "key": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "when": {"type": "string", "format": "date-time"},
        "point": {
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"],
            "additionalProperties": False,
        },
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}},
        "mode": {"const": "fast"},
    },
    "required": ["key", "point"],
    "additionalProperties": False,
}


def test_project_pins_the_reduced_wire_shape():
    """Complaint §9.12: the client drops every other keyword; say it in words instead."""
    assert ollama.project(spec(WIDE)).definition == {
        "type": "function",
        "function": {
            "name": "t",
            "description": "Do it.",
            "parameters": {
                "type": "object",
                "properties": {
                    "n": {
                        "type": "integer",
                        "description": "Count. Must be at least 1. Default: 5.",
                    },
                    "key": {"type": ["integer", "string"]},
                    "when": {"type": "string", "description": "Format: date-time."},
                    "point": {
                        "type": "object",
                        "description": "Keys: x (number); y (number). Required keys: x, y.",
                    },
                    "tags": {
                        "type": "array",
                        "items": {"type": "string", "description": "At most 5 characters."},
                    },
                    "mode": {"type": "string", "enum": ["fast"]},
                },
                "required": ["key", "point"],
            },
        },
    }


def test_every_corpus_parameter_keeps_only_what_the_client_keeps(corpus):
    for tool in corpus:
        parameters = ollama.project(tool).definition["function"]["parameters"]
        assert set(parameters) <= {"type", "properties", "required"}
        for prop in parameters["properties"].values():
            assert set(prop) <= KEPT, (tool.spec.name, prop)


def test_every_corpus_tool_survives_the_ollama_client_unchanged(corpus):
    types = pytest.importorskip("ollama._types")
    for definition in ollama.format_tools(corpus):
        model = types.Tool.model_validate(definition)
        assert model.model_dump(exclude_none=True, by_alias=True) == definition


def test_recursive_parameter_is_opened_one_level_and_named():
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "required": ["tree"],
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    projection = ollama.project(spec(schema))
    tree = projection.definition["function"]["parameters"]["properties"]["tree"]
    assert tree == {"type": "object", "description": "Keys: kids (array of Node)."}
    assert projection.notes[0].keyword == "$ref"


def test_full_schema_sends_the_loose_schema_for_raw_http():
    params = ollama.project(spec(WIDE), full_schema=True).definition["function"]["parameters"]
    assert params["properties"]["point"]["properties"] == WIDE["properties"]["point"]["properties"]


def test_format_tool_choice_auto_needs_nothing_and_others_explain():
    assert ollama.format_tool_choice("auto") is None
    with pytest.raises(ValueError, match="send no tools"):
        ollama.format_tool_choice("none")
    with pytest.raises(ValueError, match="cannot force a tool call"):
        ollama.format_tool_choice({"name": "t"})


RESPONSE = {
    "model": "llama3.2",
    "created_at": "2026-01-01T00:00:00Z",
    "done": True,
    "message": {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"index": 0, "name": "weather", "arguments": {"city": "Oslo"}}},
            {"function": {"name": "clock", "arguments": {}}},
        ],
    },
}


def test_parse_calls_mints_distinct_ids_and_keeps_object_arguments():
    calls = ollama.parse_calls(RESPONSE)
    assert [(c.name, c.arguments, c.provider_data) for c in calls] == [
        ("weather", {"city": "Oslo"}, {"index": 0}),
        ("clock", {}, {}),
    ]
    assert len({c.id for c in calls}) == 2
    assert all(c.id.startswith("ollama_") for c in calls)
    assert {c.id for c in ollama.parse_calls(RESPONSE)}.isdisjoint(c.id for c in calls)


def test_parse_calls_reads_client_objects_and_stream_chunks():
    types = pytest.importorskip("ollama._types")
    calls = ollama.parse_calls(types.ChatResponse.model_validate(RESPONSE))
    assert [c.name for c in calls] == ["weather", "clock"]
    chunks = [{**RESPONSE, "done": False}, {"message": {"role": "assistant", "content": "ok"}}]
    assert [c.name for c in ollama.parse_calls(chunks)] == ["weather", "clock"]


def test_format_results_answers_in_call_order_by_tool_name():
    """Complaint §9.9: no ids, so order and `tool_name` carry the correlation."""
    calls = [ToolCall("a", "weather", "{}"), ToolCall("b", "clock", "{}")]
    late = ToolOutcome(call_id="b", tool_name="clock", content=(TextPart("12:00"),), text="12:00")
    assert ollama.format_results([late], calls=calls) == [
        {
            "role": "tool",
            "tool_name": "weather",
            "content": "Error: The call to 'weather' was not run.",
        },
        {"role": "tool", "tool_name": "clock", "content": "12:00"},
    ]


def test_format_results_puts_images_in_the_images_field():
    outcome = ToolOutcome(
        call_id="a", tool_name="cam", content=(TextPart("Photo"), ImagePart(b"img")), text="Photo"
    )
    (message,) = ollama.format_results([outcome])
    assert message["images"] == [base64.b64encode(b"img").decode()]
    assert message["content"] == "Photo\n[image: image/png, 3 bytes, not shown]"
    json.dumps(message)
