"""toolcast.providers.anthropic against the official `anthropic` SDK types.

Wire rules pinned here (PROVIDERS.md §4, Anthropic tool-use and structured-outputs docs):
- A tool is `{name, description?, input_schema, strict?}`; `input_schema` has an object
  root, and a root `anyOf`/`oneOf`/`allOf` (common in MCP servers) is merged into one
  object instead of 400-ing the whole request (claude-code #27337).
- `strict: true` only where the schema fits the strict subset: numeric and length
  constraints, `maxItems`, `minItems` > 1 and unknown formats move into descriptions;
  recursion, free-form dicts and any-value fields keep the tool non-strict (with a
  `strict_disabled` note, or an error when strict=True is insisted on).
- Per request: at most 20 strict tools, 24 optional and 16 union-typed parameters.
- tool_choice: auto / none / any / tool, plus `disable_parallel_tool_use`.
- Calls are `tool_use` blocks (object input) or streamed `input_json_delta` fragments.
- All results of a turn go in ONE user message of `tool_result` blocks with `is_error`;
  every call is answered, a call that was not run with an explicit error.
"""

from __future__ import annotations

import functools
import json
import warnings
from typing import Annotated, Any

import anthropic.types as at
import pytest
from annotated_types import Ge, Le
from inline_snapshot import snapshot
from pydantic import TypeAdapter

from corpus import corpus_tools
from toolcast import ImagePart, TextPart, Tool, ToolCall, ToolOutcome, ToolResult, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers import anthropic

TOOLS_ADAPTER = TypeAdapter(list[at.ToolUnionParam])
CHOICE_ADAPTER = TypeAdapter(at.ToolChoiceParam)
MESSAGE_ADAPTER = TypeAdapter(at.MessageParam)
EVENTS_ADAPTER = TypeAdapter(list[at.RawMessageStreamEvent])


def get_weather(city: str, days: Annotated[int, Ge(1), Le(7)] = 1) -> str:
    """Get the forecast for a city.

    Args:
        city: The city name.
        days: How many days ahead.
    """
    return f"Sunny in {city} for {days} day(s)."


def _sdk(adapter: TypeAdapter[Any], value: Any) -> Any:
    """`value` as the SDK type reads it back: unknown keys and wrong shapes show up."""
    return adapter.dump_python(adapter.validate_python(value), mode="json", exclude_unset=True)


def spec(name: str, schema: dict[str, Any], *, strict: bool = True) -> ToolSpec:
    return ToolSpec(name=name, description=f"The {name} tool.", input_schema=schema, strict=strict)


def optional_params(name: str, count: int) -> ToolSpec:
    props = {f"p{i}": {"type": "string"} for i in range(count)}
    return spec(name, {"type": "object", "properties": props, "additionalProperties": False})


@functools.cache
def corpus() -> tuple[Tool, ...]:
    """The shared corpus (tests/corpus.py), built once per module."""
    return tuple(corpus_tools())


def corpus_tool(name: str) -> Tool:
    return next(t for t in corpus() if t.name == name)


# ----------------------------------------------------------------------------- tools


def test_format_tools_pins_the_strict_wire_shape() -> None:
    tools = anthropic.format_tools([Tool.from_function(get_weather)])
    assert tools == snapshot(
        [
            {
                "name": "get_weather",
                "description": "Get the forecast for a city.",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "description": "The city name."},
                        "days": {
                            "type": "integer",
                            "description": "How many days ahead. "
                            "Must be at least 1. Must be at most 7.",
                            "default": 1,
                        },
                    },
                    "required": ["city"],
                    "additionalProperties": False,
                },
                "strict": True,
            }
        ]
    )


def test_non_strict_tool_keeps_its_constraints_and_omits_the_flag() -> None:
    (tool,) = anthropic.format_tools([Tool.from_function(get_weather)], strict=False)
    assert "strict" not in tool
    assert tool["input_schema"]["properties"]["days"] == {
        "type": "integer",
        "description": "How many days ahead.",
        "minimum": 1,
        "maximum": 7,
        "default": 1,
    }


def test_format_tools_keeps_order_and_accepts_empty() -> None:
    tools = [spec(name, {"type": "object", "properties": {}}) for name in ("b", "a", "c")]
    assert [t["name"] for t in anthropic.format_tools(tools)] == ["b", "a", "c"]
    assert anthropic.format_tools([]) == []


@pytest.mark.parametrize("strict", [None, False])
def test_every_corpus_tool_is_a_valid_sdk_tool_param(strict: bool | None) -> None:
    tools = list(corpus())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the corpus exceeds the strict caps on purpose
        definitions = anthropic.format_tools(tools, strict=strict)
    assert _sdk(TOOLS_ADAPTER, definitions) == definitions
    for tool in tools:
        projection = anthropic.project(tool, strict=strict)
        assert projection.definition["input_schema"]["type"] == "object"
        if projection.strict:
            assert anthropic.strict_budget_problem([projection.definition["input_schema"]]) is None


def test_strict_corpus_tools_only_use_the_strict_subset() -> None:
    allowed = {
        "type", "description", "title", "enum", "const", "anyOf", "allOf", "$ref", "$defs",
        "default", "properties", "required", "additionalProperties", "items", "format",
        "pattern", "minItems",
    }  # fmt: skip
    for tool in list(corpus()):
        projection = anthropic.project(tool)
        if not projection.strict:
            continue
        for node in _nodes(projection.definition["input_schema"]):
            assert set(node) <= allowed, (tool.name, node)
            assert node.get("minItems", 0) in (0, 1)
            if "properties" in node:
                assert node["additionalProperties"] is False


def test_format_tools_returns_fresh_copies_and_leaves_the_spec_alone() -> None:
    tool = Tool.from_function(get_weather)
    before = json.dumps(tool.spec.input_schema)
    first = anthropic.format_tools([tool])
    first[0]["input_schema"]["properties"].clear()
    assert anthropic.format_tools([tool])[0]["input_schema"]["properties"]
    assert json.dumps(tool.spec.input_schema) == before


def test_project_is_cached_per_strict_option() -> None:
    tool = Tool.from_function(get_weather)
    assert anthropic.project(tool) is anthropic.project(tool.spec)
    assert anthropic.project(tool, strict=False) is not anthropic.project(tool)


def test_duplicate_tool_names_are_refused() -> None:
    tools = [spec("same", {"type": "object"}), spec("same", {"type": "object"})]
    with pytest.raises(ValueError, match="Two tools are named 'same'"):
        anthropic.format_tools(tools)


# ------------------------------------------------------------------ schema conversion


def test_optional_parameters_stay_optional_under_strict() -> None:
    """Unlike OpenAI strict (openai-agents #43), Anthropic strict allows optional keys:
    nothing is forced into `required` or made nullable."""
    projection = anthropic.project(corpus_tool("defaults"))
    assert projection.strict
    schema = projection.definition["input_schema"]
    assert schema["required"] == ["query"]
    assert schema["properties"]["limit"] == {"type": "integer", "default": 10}


def test_names_anthropic_refuses_are_reported() -> None:
    """An MCP name with a dot (vscode #243602) must be mapped before it reaches Claude."""
    with pytest.raises(UnsupportedSchemaError, match="not valid for Anthropic"):
        anthropic.format_tools([spec("github.search", {"type": "object"})])


def test_root_union_from_an_mcp_server_is_merged_into_one_object() -> None:
    """claude-code #27337: a root anyOf/oneOf/allOf makes the whole request a 400."""
    schema = {
        "oneOf": [
            {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
            {
                "type": "object",
                "properties": {"query": {"type": "string"}, "id": {"type": "string"}},
                "required": ["query"],
            },
        ]
    }
    projection = anthropic.project(spec("lookup", schema, strict=False))
    assert projection.definition["input_schema"] == snapshot(
        {
            "type": "object",
            "description": "Send the keys of one of these forms: {id} or {query, id}.",
            "properties": {"id": {"type": "string"}, "query": {"type": "string"}},
        }
    )
    assert [(n.keyword, n.action) for n in projection.notes] == [("oneOf", "rewritten")]


def test_non_object_root_is_refused_with_the_fix() -> None:
    with pytest.raises(UnsupportedSchemaError, match=r"must be a JSON object\. Wrap"):
        anthropic.project(spec("scalar", {"type": "string"}))


def test_recursive_schema_falls_back_to_non_strict_with_a_note() -> None:
    tool = corpus_tool("recursive_model")
    projection = anthropic.project(tool)
    assert projection.strict is False
    assert "strict" not in projection.definition
    assert "$defs" in projection.definition["input_schema"]  # non-strict keeps $ref
    (note,) = [n for n in projection.notes if n.action == "strict_disabled"]
    assert note.detail == snapshot(
        "The schema is recursive (#/$defs/Node -> #/$defs/Node); strict mode refuses recursion."
    )


def test_insisting_on_strict_for_a_recursive_schema_raises_clearly() -> None:
    tool = corpus_tool("recursive_model")
    with pytest.raises(UnsupportedSchemaError) as info:
        anthropic.project(tool, strict=True)
    assert str(info.value) == snapshot(
        """\
Tool 'recursive_model' cannot use Anthropic's strict mode:
  /: The schema is recursive (#/$defs/Node -> #/$defs/Node); strict mode refuses recursion.
Pass strict=False.\
"""
    )


def test_dict_parameter_is_not_sent_strict_as_an_empty_object() -> None:
    """openai-agents #992 / pydantic-ai: strict turns `dict[str, X]` into `{}` silently."""
    tool = corpus_tool("dict_param")
    projection = anthropic.project(tool)
    assert projection.strict is False
    assert projection.definition["input_schema"]["properties"]["counts"] == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }


def test_strict_moves_length_item_and_format_limits_into_descriptions() -> None:
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 2, "maxLength": 8},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 3},
            "site": {"type": "string", "format": "uri"},
            "color": {"type": "string", "format": "hex-color"},
            "word": {"type": "string", "pattern": "^(?=a)\\w+$"},
        },
        "required": ["code"],
    }
    projection = anthropic.project(spec("limits", schema))
    assert projection.strict
    assert projection.definition["input_schema"]["properties"] == snapshot(
        {
            "code": {
                "type": "string",
                "description": "At least 2 characters. At most 8 characters.",
            },
            "tags": {
                "type": "array",
                "description": "At least 2 items. At most 3 items.",
                "items": {"type": "string"},
            },
            "site": {"type": "string", "format": "uri"},
            "color": {"type": "string", "description": "Format: hex-color."},
            "word": {
                "type": "string",
                "description": 'Must match the regular expression "^(?=a)\\\\w+$".',
            },
        }
    )
    assert projection.definition["input_schema"]["additionalProperties"] is False


def test_extensions_and_meta_keywords_are_stripped() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"q": {"type": "string", "x-mcp-header": "Q"}},
    }
    projection = anthropic.project(spec("meta", schema, strict=False))
    assert projection.definition["input_schema"] == {
        "type": "object",
        "properties": {"q": {"type": "string"}},
    }


# ------------------------------------------------------------------ per-request caps


def test_more_than_twenty_strict_tools_fall_back_with_a_warning() -> None:
    tools = [optional_params(f"t{i}", 0) for i in range(21)]
    with pytest.warns(UserWarning, match="21 strict tools \\(at most 20\\)") as record:
        definitions = anthropic.format_tools(tools)
    assert not any("strict" in d for d in definitions)
    assert record[0].filename == __file__  # the warning points at the caller


def test_more_than_twenty_four_optional_parameters_raise_when_strict_is_insisted_on() -> None:
    tools = [optional_params("a", 13), optional_params("b", 12)]
    with pytest.raises(UnsupportedSchemaError) as info:
        anthropic.format_tools(tools, strict=True)
    assert str(info.value) == snapshot(
        "Anthropic caps strict tools per request, and these tools have 25 optional "
        "parameters (at most 24). Pass strict=False, mark fewer tools strict, or send "
        "fewer tools."
    )
    assert len(anthropic.format_tools([optional_params("c", 24)], strict=True)) == 1


def test_union_parameters_are_counted_across_strict_tools() -> None:
    nullable = {"type": ["string", "null"]}
    props = {f"u{i}": nullable for i in range(9)}
    schema = {"type": "object", "properties": props, "required": list(props)}
    tools = [spec("a", schema), spec("b", schema)]
    assert anthropic.strict_budget_problem(
        anthropic.project(t).definition["input_schema"] for t in tools
    ) == snapshot(
        "Anthropic caps strict tools per request, and these tools have 18 union-typed "
        "parameters (at most 16). Pass strict=False, mark fewer tools strict, or send "
        "fewer tools."
    )


def test_non_strict_tools_do_not_count_against_the_caps() -> None:
    tools = [optional_params(f"t{i}", 5) for i in range(30)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(anthropic.format_tools(tools, strict=False)) == 30


# ------------------------------------------------------------------------ tool choice


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ("required", {"type": "any"}),
        ({"name": "get_weather"}, {"type": "tool", "name": "get_weather"}),
        ({"allowed": ["get_weather"], "mode": "required"}, {"type": "tool", "name": "get_weather"}),
    ],
)
def test_tool_choice_maps_to_the_sdk_union(choice: Any, expected: dict[str, Any]) -> None:
    assert anthropic.format_tool_choice(choice) == expected
    assert _sdk(CHOICE_ADAPTER, expected) == expected


def test_tool_choice_accepts_a_tool() -> None:
    tool = Tool.from_function(get_weather)
    assert anthropic.format_tool_choice(tool) == {"type": "tool", "name": "get_weather"}


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", {"type": "any", "disable_parallel_tool_use": True}),
        ({"name": "x"}, {"type": "tool", "name": "x", "disable_parallel_tool_use": True}),
        ("none", {"type": "none"}),
    ],
)
def test_parallel_false_disables_parallel_tool_use(choice: Any, expected: dict[str, Any]) -> None:
    result = anthropic.format_tool_choice(choice, parallel=False)
    assert result == expected
    assert _sdk(CHOICE_ADAPTER, result) == result


def test_tool_choice_refuses_a_subset_it_cannot_express() -> None:
    with pytest.raises(ValueError, match="pass only those tools"):
        anthropic.format_tool_choice({"allowed": ["a", "b"], "mode": "auto"})


# ------------------------------------------------------------------------------ calls

RESPONSE: dict[str, Any] = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-5",
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 20},
    "content": [
        {"type": "text", "text": "Checking both."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
        {
            "type": "tool_use",
            "id": "toolu_2",
            "name": "get_weather",
            "input": {"city": "Rome", "days": 2},
        },
    ],
}
EXPECTED_CALLS = [
    ToolCall("toolu_1", "get_weather", {"city": "Oslo"}),
    ToolCall("toolu_2", "get_weather", {"city": "Rome", "days": 2}),
]


def test_parse_calls_reads_an_sdk_message() -> None:
    assert anthropic.parse_calls(at.Message.model_validate(RESPONSE)) == EXPECTED_CALLS


def test_parse_calls_reads_a_plain_message_dict_and_a_block_list() -> None:
    assert anthropic.parse_calls(RESPONSE) == EXPECTED_CALLS
    assert anthropic.parse_calls(RESPONSE["content"]) == EXPECTED_CALLS


def test_parse_calls_finds_nothing_in_a_text_only_message() -> None:
    assert anthropic.parse_calls({**RESPONSE, "content": [{"type": "text", "text": "Hi"}]}) == []


def _stream_events(fragments: list[str]) -> list[dict[str, Any]]:
    message = {**RESPONSE, "content": [], "stop_reason": None}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "On it."},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_9",
                "name": "get_weather",
                "input": {},
            },
        },
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": f},
        }
        for f in fragments
    ]
    events += [
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]
    return events


def test_parse_calls_joins_streamed_input_json_deltas() -> None:
    events = EVENTS_ADAPTER.validate_python(_stream_events(['{"ci', 'ty": "Os', 'lo"}']))
    (call,) = anthropic.parse_calls(events)
    assert call == ToolCall("toolu_9", "get_weather", '{"city": "Oslo"}')
    assert anthropic.parse_calls(iter(_stream_events(['{"city": "Oslo"}']))) == [
        ToolCall("toolu_9", "get_weather", '{"city": "Oslo"}')
    ]


def test_streamed_tool_use_without_input_has_empty_arguments() -> None:
    (call,) = anthropic.parse_calls(_stream_events([]))
    assert call.arguments == {}


async def test_truncated_streamed_input_becomes_an_error_result_not_a_crash() -> None:
    """openai-agents #280: malformed arguments must reach the model as an error."""
    (call,) = anthropic.parse_calls(_stream_events(['{"city": "Os']))
    outcome = await Tool.from_function(get_weather).invoke(call.arguments, call_id=call.id)
    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "invalid_arguments"
    message = anthropic.format_results([outcome])
    assert message["content"][0]["is_error"] is True


# ---------------------------------------------------------------------------- results


def test_format_results_puts_every_result_in_one_user_message() -> None:
    outcomes = [
        ToolOutcome(
            call_id="toolu_1", tool_name="get_weather", content=(TextPart("Sunny"),), text="Sunny"
        ),
        ToolOutcome.failure(
            "tool_error", "No city named Rome.", tool_name="get_weather", call_id="toolu_2"
        ),
    ]
    message = anthropic.format_results(outcomes)
    assert message == snapshot(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Sunny"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "No city named Rome.",
                    "is_error": True,
                },
            ],
        }
    )
    assert _sdk(MESSAGE_ADAPTER, message) == message


def test_a_call_without_an_outcome_is_answered_with_an_explicit_error() -> None:
    """langgraph #5109: "tool_use ids were found without tool_result blocks"."""
    done = ToolOutcome(
        call_id="toolu_2", tool_name="get_weather", content=(TextPart("ok"),), text="ok"
    )
    message = anthropic.format_results([done], calls=EXPECTED_CALLS)
    first, second = message["content"]
    assert (first["tool_use_id"], first["is_error"]) == ("toolu_1", True)
    assert "not run" in first["content"]
    assert second == {"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"}


def test_an_outcome_without_a_call_id_is_refused() -> None:
    outcome = ToolOutcome(call_id=None, tool_name="get_weather", text="x")
    with pytest.raises(ValueError, match="has no call_id"):
        anthropic.format_results([outcome])


def test_empty_results_omit_content_and_images_become_image_blocks() -> None:
    tool = Tool.from_function(lambda: None, name="nothing")
    empty = tool.invoke_sync({}, call_id="toolu_a")
    picture = ToolResult(
        [TextPart("a dot"), ImagePart(b"\x89PNG", "image/png"), ImagePart(b"BM", "image/bmp")]
    )
    image = Tool.from_function(lambda: picture, name="picture").invoke_sync({}, call_id="toolu_b")
    message = anthropic.format_results([empty, image])
    assert message["content"] == snapshot(
        [
            {"type": "tool_result", "tool_use_id": "toolu_a"},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_b",
                "content": [
                    {"type": "text", "text": "a dot"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="},
                    },
                    {
                        "type": "text",
                        "text": "[An image of type image/bmp was left out: "
                        "Claude reads jpeg, png, gif and webp.]",
                    },
                ],
            },
        ]
    )
    assert _sdk(MESSAGE_ADAPTER, message) == message


def test_structured_results_are_sent_as_json_text() -> None:
    outcome = Tool.from_function(lambda: {"temp": 21}, name="temp").invoke_sync(
        {}, call_id="toolu_c"
    )
    (block,) = anthropic.format_results([outcome])["content"]
    assert json.loads(block["content"]) == {"temp": 21}


def _nodes(schema: Any) -> list[dict[str, Any]]:
    from toolcast.providers._schema import walk

    return [dict(node) for _path, node in walk(schema)]
