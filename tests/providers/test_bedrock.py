"""toolcast.providers.bedrock against botocore's bedrock-runtime service model (no network).

Wire rules pinned here (PROVIDERS.md §7.1, Converse API reference):
- `toolConfig.tools[] = {toolSpec: {name, description?, inputSchema: {json}, strict?}}`;
  strict specs follow Anthropic's strict subset and share its per-request caps.
- `toolChoice` is the union `{auto: {}}` / `{any: {}}` / `{tool: {name}}`; there is no
  "none" (and toolConfig cannot be left out once tool blocks are in the history).
- Calls are `toolUse {toolUseId, name, input}` blocks, or `contentBlockStart` /
  `contentBlockDelta` stream events whose input fragments are joined.
- Results are one user message of `toolResult {toolUseId, content: [...], status}`;
  content is never empty (empty text blocks are refused) and every call is answered.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import botocore.session
import pytest
from botocore.validate import ParamValidator
from inline_snapshot import snapshot

from corpus import corpus_tools
from toolcast import ImagePart, TextPart, Tool, ToolCall, ToolOutcome, ToolResult, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers import bedrock

CONVERSE = (
    botocore.session.get_session()
    .get_service_model("bedrock-runtime")
    .operation_model("Converse")
    .input_shape
)
USER_TURN = {"role": "user", "content": [{"text": "Book it."}]}


def assert_valid_converse(**params: Any) -> None:
    """Validate a Converse request with botocore's own parameter validator."""
    request = {"modelId": "anthropic.claude-sonnet-4-5", "messages": [USER_TURN], **params}
    report = ParamValidator().validate(request, CONVERSE)
    assert not report.has_errors(), report.generate_report()


def book_room(hotel: str, nights: int = 1, notes: list[str] | None = None) -> dict[str, Any]:
    """Book a hotel room.

    Args:
        hotel: The hotel's name.
        nights: How many nights.
        notes: Requests for the front desk.
    """
    return {"hotel": hotel, "nights": nights, "confirmed": True}


def spec(name: str, schema: dict[str, Any]) -> ToolSpec:
    return ToolSpec(name=name, description=f"The {name} tool.", input_schema=schema)


@functools.cache
def corpus() -> tuple[Tool, ...]:
    """The shared corpus (tests/corpus.py), built once per module."""
    return tuple(corpus_tools())


def corpus_tool(name: str) -> Tool:
    return next(t for t in corpus() if t.name == name)


# ----------------------------------------------------------------------------- tools


def test_format_tools_pins_the_tool_spec_shape() -> None:
    tools = bedrock.format_tools([Tool.from_function(book_room)])
    assert tools == snapshot(
        [
            {
                "toolSpec": {
                    "name": "book_room",
                    "description": "Book a hotel room.",
                    "inputSchema": {
                        "json": {
                            "type": "object",
                            "properties": {
                                "hotel": {"type": "string", "description": "The hotel's name."},
                                "nights": {
                                    "type": "integer",
                                    "description": "How many nights.",
                                    "default": 1,
                                },
                                "notes": {
                                    "type": ["array", "null"],
                                    "description": "Requests for the front desk.",
                                    "items": {"type": "string"},
                                },
                            },
                            "required": ["hotel"],
                            "additionalProperties": False,
                        }
                    },
                    "strict": True,
                }
            }
        ]
    )
    assert_valid_converse(toolConfig={"tools": tools, "toolChoice": bedrock.format_tool_choice()})


@pytest.mark.parametrize("strict", [None, False])
def test_every_corpus_tool_passes_the_botocore_validator(strict: bool | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 40+ strict tools exceed the caps on purpose
        tools = bedrock.format_tools(list(corpus()), strict=strict)
    assert_valid_converse(toolConfig={"tools": tools})


def test_strict_spec_moves_numeric_bounds_into_the_description() -> None:
    tool = corpus_tool("int_bounds")
    (definition,) = bedrock.format_tools([tool])
    assert definition["toolSpec"]["strict"] is True
    assert definition["toolSpec"]["inputSchema"]["json"]["properties"]["n"] == {
        "type": "integer",
        "description": "Must be at least 0. Must be at most 100.",
    }


def test_dict_parameters_keep_the_spec_non_strict() -> None:
    tool = corpus_tool("dict_param")
    projection = bedrock.project(tool)
    assert projection.strict is False
    assert "strict" not in projection.definition["toolSpec"]
    assert any(n.action == "strict_disabled" for n in projection.notes)


def test_strict_caps_are_checked_per_request() -> None:
    """Anthropic/Bedrock: at most 20 strict tools per request (PROVIDERS.md §9 item 13)."""
    tools = [spec(f"t{i}", {"type": "object", "properties": {}}) for i in range(21)]
    with pytest.warns(UserWarning, match="21 strict tools"):
        definitions = bedrock.format_tools(tools)
    assert not any("strict" in d["toolSpec"] for d in definitions)
    with pytest.raises(UnsupportedSchemaError, match="21 strict tools"):
        bedrock.format_tools(tools, strict=True)


def test_empty_description_is_omitted() -> None:
    """The service model gives `description` a minimum length of 1."""
    (definition,) = bedrock.format_tools([ToolSpec(name="bare", input_schema={"type": "object"})])
    assert "description" not in definition["toolSpec"]
    assert_valid_converse(toolConfig={"tools": [definition]})


def test_names_bedrock_refuses_are_reported() -> None:
    with pytest.raises(UnsupportedSchemaError, match="not valid for Bedrock"):
        bedrock.format_tools([spec("server.tool", {"type": "object"})])


# ------------------------------------------------------------------------ tool choice


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", {"auto": {}}),
        ("required", {"any": {}}),
        ({"name": "book_room"}, {"tool": {"name": "book_room"}}),
    ],
)
def test_tool_choice_is_the_converse_union(choice: Any, expected: dict[str, Any]) -> None:
    assert bedrock.format_tool_choice(choice) == expected
    tools = bedrock.format_tools([Tool.from_function(book_room)])
    assert_valid_converse(toolConfig={"tools": tools, "toolChoice": expected})


def test_tool_choice_none_is_refused_with_the_remedies() -> None:
    """zot #18, pentagi #196: toolConfig must stay once tool blocks are in the history."""
    with pytest.raises(ValueError, match="no 'none' tool choice") as info:
        bedrock.format_tool_choice("none")
    assert "toolUse/toolResult" in str(info.value)


def test_tool_choice_refuses_a_subset() -> None:
    with pytest.raises(ValueError, match="pass only those tools"):
        bedrock.format_tool_choice({"allowed": ["a", "b"], "mode": "required"})


# ------------------------------------------------------------------------------ calls

RESPONSE: dict[str, Any] = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"text": "Booking."},
                {
                    "toolUse": {
                        "toolUseId": "tooluse_1",
                        "name": "book_room",
                        "input": {"hotel": "Ritz"},
                    }
                },
                {
                    "toolUse": {
                        "toolUseId": "tooluse_2",
                        "name": "book_room",
                        "input": {"hotel": "Savoy", "nights": 2},
                    }
                },
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {"inputTokens": 10, "outputTokens": 20, "totalTokens": 30},
    "metrics": {"latencyMs": 100},
}
EXPECTED_CALLS = [
    ToolCall("tooluse_1", "book_room", {"hotel": "Ritz"}),
    ToolCall("tooluse_2", "book_room", {"hotel": "Savoy", "nights": 2}),
]


def test_parse_calls_reads_the_response_its_message_and_content() -> None:
    message = RESPONSE["output"]["message"]
    assert bedrock.parse_calls(RESPONSE) == EXPECTED_CALLS
    assert bedrock.parse_calls(message) == EXPECTED_CALLS
    assert bedrock.parse_calls(message["content"]) == EXPECTED_CALLS
    assert (
        bedrock.parse_calls(
            {"output": {"message": {"role": "assistant", "content": [{"text": "Hi"}]}}}
        )
        == []
    )


def stream_events(fragments: list[str]) -> list[dict[str, Any]]:
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "Booking."}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {
            "contentBlockStart": {
                "start": {"toolUse": {"toolUseId": "tooluse_9", "name": "book_room"}},
                "contentBlockIndex": 1,
            }
        },
        *(
            {"contentBlockDelta": {"delta": {"toolUse": {"input": f}}, "contentBlockIndex": 1}}
            for f in fragments
        ),
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]


def test_parse_calls_joins_converse_stream_fragments() -> None:
    events = stream_events(['{"hotel": ', '"Ritz"}'])
    expected = [ToolCall("tooluse_9", "book_room", '{"hotel": "Ritz"}')]
    assert bedrock.parse_calls(events) == expected
    assert bedrock.parse_calls({"stream": iter(events)}) == expected
    assert bedrock.parse_calls(stream_events([]))[0].arguments == "{}"


async def test_truncated_stream_input_becomes_an_error_result() -> None:
    (call,) = bedrock.parse_calls(stream_events(['{"hotel": "Ri']))
    outcome = await Tool.from_function(book_room).invoke(call.arguments, call_id=call.id)
    (block,) = bedrock.format_results([outcome])["content"]
    assert block["toolResult"]["status"] == "error"


# ---------------------------------------------------------------------------- results


async def test_round_trip_request_passes_the_botocore_validator() -> None:
    tool = Tool.from_function(book_room)
    calls = bedrock.parse_calls(RESPONSE)
    outcomes = [await tool.invoke(c.arguments, call_id=c.id) for c in calls]
    results = bedrock.format_results(outcomes, calls=calls)
    assert results == snapshot(
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tooluse_1",
                        "content": [{"json": {"hotel": "Ritz", "nights": 1, "confirmed": True}}],
                        "status": "success",
                    }
                },
                {
                    "toolResult": {
                        "toolUseId": "tooluse_2",
                        "content": [{"json": {"hotel": "Savoy", "nights": 2, "confirmed": True}}],
                        "status": "success",
                    }
                },
            ],
        }
    )
    history = [USER_TURN, RESPONSE["output"]["message"], results]
    report = ParamValidator().validate(
        {
            "modelId": "m",
            "messages": history,
            "toolConfig": {"tools": bedrock.format_tools([tool])},
        },
        CONVERSE,
    )
    assert not report.has_errors(), report.generate_report()


def test_failures_carry_status_error_and_unanswered_calls_are_answered() -> None:
    failed = ToolOutcome.failure(
        "tool_error", "Hotel is full.", tool_name="book_room", call_id="tooluse_2"
    )
    message = bedrock.format_results([failed], calls=EXPECTED_CALLS)
    first, second = (block["toolResult"] for block in message["content"])
    assert first["toolUseId"] == "tooluse_1"
    assert first["status"] == "error"
    assert "not run" in first["content"][0]["text"]
    assert second == {
        "toolUseId": "tooluse_2",
        "content": [{"text": "Hotel is full."}],
        "status": "error",
    }


def test_status_can_be_left_out_for_models_that_refuse_it() -> None:
    outcome = ToolOutcome(call_id="t1", tool_name="x", content=(TextPart("ok"),), text="ok")
    (block,) = bedrock.format_results([outcome], status=False)["content"]
    assert block == {"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}}


def test_empty_results_get_a_placeholder_instead_of_an_empty_text_block() -> None:
    """hermes-agent #55092: "text content blocks must be non-empty"."""
    outcome = Tool.from_function(lambda: None, name="noop").invoke_sync({}, call_id="t2")
    (block,) = bedrock.format_results([outcome])["content"]
    assert block["toolResult"]["content"] == [{"text": "(no output)"}]


def test_images_are_sent_as_bytes_and_unknown_formats_are_described() -> None:
    picture = ToolResult(
        [TextPart("a dot"), ImagePart(b"\x89PNG", "image/png"), ImagePart(b"BM", "image/bmp")]
    )
    outcome = Tool.from_function(lambda: picture, name="picture").invoke_sync({}, call_id="t3")
    message = bedrock.format_results([outcome])
    assert message["content"][0]["toolResult"]["content"] == [
        {"text": "a dot"},
        {"image": {"format": "png", "source": {"bytes": b"\x89PNG"}}},
        {
            "text": "[An image of type image/bmp was left out: "
            "Converse reads png, jpeg, gif and webp.]"
        },
    ]
    assert_valid_converse(messages=[USER_TURN, message])


def test_outcomes_without_call_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="has no call_id"):
        bedrock.format_results([ToolOutcome(call_id=None, tool_name="x", text="ok")])
