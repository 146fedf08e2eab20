"""toolcast.providers.gemini against google-genai's pydantic types.

Wire rules pinned here (PROVIDERS.md §5, Gemini function-calling and thought-signature docs):
- `tools: [{"functionDeclarations": [{name, description?, parametersJsonSchema | parameters}]}]`;
  a tool without arguments sends no schema at all ("properties: should be non-empty").
- `parametersJsonSchema`: no `$schema`, `const` as a one-value enum, enums of strings
  and numbers only (null goes to its own branch), `$ref` without siblings, string
  formats other than date-time described, unknown keywords described; recursion kept.
- `parameters` (OpenAPI subset, Live API): refs inlined and recursion refused clearly,
  `nullable` instead of type arrays, string-only enums, upper-case types, no
  `additionalProperties` on the Developer API (kept on Vertex), tuples widened.
- toolConfig: AUTO / NONE / ANY (+ allowedFunctionNames) / VALIDATED.
- Calls: `functionCall {id?, name, args}`; the part's `thoughtSignature` survives the
  round trip; calls without ids get synthetic ids that never reach the wire.
- Results: one user turn of `functionResponse {id?, name, response: {output} | {error}}`,
  every call answered.
"""

from __future__ import annotations

import base64
import functools
import json
from typing import Any

import pytest
from google.genai import types
from inline_snapshot import snapshot

from corpus import corpus_tools
from toolcast import ImagePart, TextPart, Tool, ToolCall, ToolOutcome, ToolResult, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers import gemini
from toolcast.providers._schema import walk

SIGNATURE = b"\x12\x34opaque-signature\xff"
SIGNATURE_B64 = base64.b64encode(SIGNATURE).decode()


def find_flight(origin: str, stops: int | None = None, cabin: str = "economy") -> str:
    """Find a flight.

    Args:
        origin: IATA code of the departure airport.
        stops: Most stops allowed; null for any.
        cabin: The cabin class.
    """
    return f"{origin}: 2 flights"


def spec(name: str, schema: dict[str, Any]) -> ToolSpec:
    return ToolSpec(name=name, description=f"The {name} tool.", input_schema=schema)


def _sdk(model: type[Any], value: dict[str, Any]) -> dict[str, Any]:
    """`value` read by a google-genai model (extra keys forbidden) and written back as REST."""
    dumped: dict[str, Any] = model.model_validate(value).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    return dumped


@functools.cache
def corpus() -> tuple[Tool, ...]:
    """The shared corpus (tests/corpus.py), built once per module."""
    return tuple(corpus_tools())


def corpus_tool(name: str) -> Tool:
    return next(t for t in corpus() if t.name == name)


# ----------------------------------------------------------------------------- tools


def test_format_tools_pins_the_json_schema_wire_shape() -> None:
    tools = gemini.format_tools([Tool.from_function(find_flight)])
    assert tools == snapshot(
        [
            {
                "functionDeclarations": [
                    {
                        "name": "find_flight",
                        "description": "Find a flight.",
                        "parametersJsonSchema": {
                            "type": "object",
                            "properties": {
                                "origin": {
                                    "type": "string",
                                    "description": "IATA code of the departure airport.",
                                },
                                "stops": {
                                    "type": ["integer", "null"],
                                    "description": "Most stops allowed; null for any.",
                                },
                                "cabin": {
                                    "type": "string",
                                    "description": 'The cabin class. Default: "economy".',
                                },
                            },
                            "required": ["origin"],
                            "additionalProperties": False,
                        },
                    }
                ]
            }
        ]
    )
    assert _sdk(types.Tool, tools[0]) == tools[0]


def test_format_tools_pins_the_openapi_wire_shape() -> None:
    tools = gemini.format_tools([Tool.from_function(find_flight)], variant="openapi")
    assert tools == snapshot(
        [
            {
                "functionDeclarations": [
                    {
                        "name": "find_flight",
                        "description": "Find a flight.",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {
                                "origin": {
                                    "type": "STRING",
                                    "description": "IATA code of the departure airport.",
                                },
                                "stops": {
                                    "type": "INTEGER",
                                    "nullable": True,
                                    "description": "Most stops allowed; null for any.",
                                },
                                "cabin": {
                                    "type": "STRING",
                                    "description": 'The cabin class. Default: "economy".',
                                },
                            },
                            "required": ["origin"],
                        },
                    }
                ]
            }
        ]
    )
    assert _sdk(types.Tool, tools[0]) == tools[0]


def test_format_tools_keeps_order_and_sends_nothing_for_no_tools() -> None:
    tools = [spec(n, {"type": "object", "properties": {"x": {"type": "string"}}}) for n in "bac"]
    (tool,) = gemini.format_tools(tools)
    assert [d["name"] for d in tool["functionDeclarations"]] == ["b", "a", "c"]
    assert gemini.format_tools([]) == []


@pytest.mark.parametrize(
    ("variant", "api"), [("json_schema", "gemini"), ("openapi", "gemini"), ("openapi", "vertex")]
)
def test_every_corpus_tool_is_a_valid_sdk_tool(variant: gemini.Variant, api: gemini.Api) -> None:
    recursive = {"recursive_model", "recursive_dataclass"}
    tools = [t for t in list(corpus()) if variant == "json_schema" or t.name not in recursive]
    (tool,) = gemini.format_tools(tools, variant=variant, api=api)
    assert _sdk(types.Tool, tool) == tool
    assert len(tool["functionDeclarations"]) == len(tools)


def test_openapi_corpus_uses_only_the_live_api_subset() -> None:
    """Gemini schema-subset rejections: pydantic-ai #3538, zed #53919, opencode #2687."""
    recursive = {"recursive_model", "recursive_dataclass"}
    for tool in list(corpus()):
        if tool.name in recursive:
            continue
        declaration = gemini.project(tool, variant="openapi").definition
        for _path, node in walk(declaration.get("parameters", {})):
            assert not {"$ref", "$defs", "const", "additionalProperties", "oneOf", "allOf"} & set(
                node
            )
            assert isinstance(node.get("type", "STRING"), str), (tool.name, node)
            assert all(isinstance(v, str) for v in node.get("enum", ())), (tool.name, node)
            assert node.get("format", "date-time") in (
                "date-time",
                "enum",
                "float",
                "double",
                "int32",
                "int64",
            )


def test_json_schema_corpus_avoids_the_refused_keywords() -> None:
    for tool in list(corpus()):
        declaration = gemini.project(tool).definition
        for _path, node in walk(declaration.get("parametersJsonSchema", {})):
            assert not {"$schema", "const", "oneOf", "default", "multipleOf"} & set(node)
            assert all(
                isinstance(v, (str, int, float)) and not isinstance(v, bool)
                for v in node.get("enum", ())
            )
            if "$ref" in node:
                assert all(key.startswith("$") for key in node)


def test_tool_without_arguments_sends_no_parameters() -> None:
    """vercel/ai #3371: "properties: should be non-empty for OBJECT type"."""
    tool = corpus_tool("no_params")
    for variant in ("json_schema", "openapi"):
        declaration = gemini.project(tool, variant=variant).definition  # type: ignore[arg-type]
        assert declaration == {"name": "no_params", "description": "Return the current status."}


def test_recursive_schema_is_refused_clearly_by_openapi_and_kept_by_json_schema() -> None:
    """pydantic-ai #1598, python-genai #1205: recursive models crash or loop."""
    tool = corpus_tool("recursive_model")
    with pytest.raises(UnsupportedSchemaError) as info:
        gemini.project(tool, variant="openapi")
    assert str(info.value) == snapshot(
        "The schema is recursive (#/$defs/Node -> #/$defs/Node, reached at "
        "/properties/tree/properties/children/items). Gemini's OpenAPI `parameters` "
        "(Live API) cannot take recursive schemas: make this parameter non-recursive "
        "(e.g. cap the depth with a separate type), or use a target that supports $ref."
    )
    schema = gemini.project(tool).definition["parametersJsonSchema"]
    assert "$defs" in schema


def test_reused_model_is_inlined_twice_not_mistaken_for_recursion() -> None:
    """pydantic-ai #1667: a model used twice was reported as recursive."""
    point = {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/P"},
            "b": {"$ref": "#/$defs/P", "description": "End."},
        },
        "$defs": {"P": point},
    }
    parameters = gemini.project(spec("segment", schema), variant="openapi").definition["parameters"]
    assert parameters["properties"]["a"]["properties"] == {"x": {"type": "NUMBER"}}
    assert parameters["properties"]["b"]["description"] == "End."
    json_schema = gemini.project(spec("segment", schema)).definition["parametersJsonSchema"]
    assert json_schema["properties"]["b"] == {
        "description": "End.",
        "anyOf": [{"$ref": "#/$defs/P"}],
    }


def test_const_and_type_arrays_become_enum_and_nullable_in_openapi() -> None:
    """zed #44875 "Unknown name const"; zed #53919 "Proto field is not repeating"."""
    schema = {
        "type": "object",
        "properties": {
            "kind": {"const": "circle"},
            "radius": {"type": ["number", "null"]},
            "level": {"type": "integer", "enum": [1, 2, 3]},
        },
        "required": ["kind", "radius"],
    }
    projection = gemini.project(spec("shape", schema), variant="openapi")
    assert projection.definition["parameters"]["properties"] == snapshot(
        {
            "kind": {"type": "STRING", "enum": ["circle"]},
            "radius": {"type": "NUMBER", "nullable": True},
            "level": {"type": "INTEGER", "description": "One of: 1, 2, 3."},
        }
    )
    assert [(n.keyword, n.action) for n in projection.notes] == snapshot(
        [("const", "rewritten"), ("type", "rewritten"), ("enum", "moved_to_description")]
    )


def test_optional_enum_keeps_its_null_in_a_separate_branch_in_json_schema() -> None:
    tool = corpus_tool("optional_union")
    schema = gemini.project(tool).definition["parametersJsonSchema"]
    assert "null" in json.dumps(schema["properties"]["key"])
    literal = {
        "type": "object",
        "properties": {"m": {"type": ["string", "null"], "enum": ["a", None]}},
    }
    converted = gemini.project(spec("lit", literal)).definition["parametersJsonSchema"]
    assert converted["properties"]["m"] == {
        "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]
    }


def test_additional_properties_is_dropped_on_the_developer_api_and_kept_on_vertex() -> None:
    """pydantic-ai #3538: "Unknown name additionalProperties" on the Developer API."""
    tool = corpus_tool("dict_param")
    developer = gemini.project(tool, variant="openapi").definition["parameters"]
    assert developer["properties"]["counts"] == {
        "type": "OBJECT",
        "description": "Other keys map to integer.",
    }
    vertex = gemini.project(tool, variant="openapi", api="vertex").definition["parameters"]
    assert vertex["properties"]["counts"] == {
        "type": "OBJECT",
        "additionalProperties": {"type": "INTEGER"},
    }
    assert vertex["additionalProperties"] is False


def test_string_formats_other_than_date_time_are_described() -> None:
    """gemini-cli #3178: "only 'enum' and 'date-time' are supported for STRING type"."""
    schema = {
        "type": "object",
        "properties": {
            "at": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri"},
        },
    }
    for variant, key in (("json_schema", "parametersJsonSchema"), ("openapi", "parameters")):
        props = gemini.project(spec("formats", schema), variant=variant).definition[key][
            "properties"
        ]  # type: ignore[arg-type]
        assert props["at"]["format"] == "date-time"
        assert props["site"] == {"type": props["site"]["type"], "description": "Format: uri."}


def test_schema_dialect_and_extensions_from_mcp_are_stripped() -> None:
    """CLIProxyAPI #97: `$schema` is refused."""
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"q": {"type": "string", "x-mcp-header": "Q"}},
    }
    declaration = gemini.project(spec("mcp_tool", schema)).definition
    assert declaration["parametersJsonSchema"] == {
        "type": "object",
        "properties": {"q": {"type": "string"}},
    }


def test_openapi_avoids_every_keyword_users_saw_refused() -> None:
    """PROVIDERS.md §9 item 5: additionalProperties, $schema, title, const, default,
    exclusiveMinimum, type arrays, non-string enums and empty properties were all refused."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "title": "Args",
        "properties": {
            "mode": {"const": "fast", "title": "Mode"},
            "limit": {"type": ["integer", "null"], "exclusiveMinimum": 0, "default": 10},
            "level": {"enum": [1, 2]},
        },
        "additionalProperties": False,
    }
    parameters = gemini.project(spec("refusals", schema), variant="openapi").definition[
        "parameters"
    ]
    assert parameters == snapshot(
        {
            "type": "OBJECT",
            "properties": {
                "mode": {"type": "STRING", "enum": ["fast"]},
                "limit": {
                    "type": "INTEGER",
                    "nullable": True,
                    "description": "Must be greater than 0. Default: 10.",
                },
                "level": {"description": "One of: 1, 2."},
            },
        }
    )
    assert _sdk(types.Schema, parameters) == parameters


def test_union_item_types_become_an_any_of_for_openapi() -> None:
    """copilot-cli #4623: an MCP tool with `items: {type: [string, number]}` 400s on Gemini."""
    schema = {
        "type": "object",
        "properties": {"values": {"type": "array", "items": {"type": ["string", "number"]}}},
    }
    parameters = gemini.project(spec("mixed", schema), variant="openapi").definition["parameters"]
    assert parameters["properties"]["values"]["items"] == {
        "anyOf": [{"type": "STRING"}, {"type": "NUMBER"}]
    }


def test_tuples_are_widened_for_openapi() -> None:
    parameters = gemini.project(corpus_tool("tuple_fixed"), variant="openapi").definition[
        "parameters"
    ]
    assert parameters["properties"]["pair"] == snapshot(
        {
            "type": "ARRAY",
            "description": "Items in order: integer, string.",
            "items": {"anyOf": [{"type": "INTEGER"}, {"type": "STRING"}]},
            "minItems": 2,
            "maxItems": 2,
        }
    )


def test_names_gemini_refuses_are_reported() -> None:
    with pytest.raises(UnsupportedSchemaError, match="start with a letter or '_'"):
        gemini.project(spec("3d_view", {"type": "object"}))
    bad_param = {"type": "object", "properties": {"page-size": {"type": "integer"}}}
    with pytest.raises(UnsupportedSchemaError, match="'page-size'"):
        gemini.project(spec("paged", bad_param), variant="openapi")


def test_duplicate_names_are_refused() -> None:
    tools = [spec("twin", {"type": "object"}), spec("twin", {"type": "object"})]
    with pytest.raises(ValueError, match="repeated: twin"):
        gemini.format_tools(tools)


def test_format_tools_returns_fresh_copies() -> None:
    tool = Tool.from_function(find_flight)
    first = gemini.format_tools([tool])
    first[0]["functionDeclarations"][0]["parametersJsonSchema"]["properties"].clear()
    assert gemini.format_tools([tool])[0]["functionDeclarations"][0]["parametersJsonSchema"][
        "properties"
    ]


# ------------------------------------------------------------------------ tool choice


@pytest.mark.parametrize(
    ("choice", "validated", "expected"),
    [
        ("auto", False, {"mode": "AUTO"}),
        ("auto", True, {"mode": "VALIDATED"}),
        ("none", False, {"mode": "NONE"}),
        ("required", False, {"mode": "ANY"}),
        ({"name": "find_flight"}, False, {"mode": "ANY", "allowedFunctionNames": ["find_flight"]}),
        (
            {"allowed": ["a", "b"], "mode": "required"},
            False,
            {"mode": "ANY", "allowedFunctionNames": ["a", "b"]},
        ),
        (
            {"allowed": ["a", "b"], "mode": "auto"},
            False,
            {"mode": "VALIDATED", "allowedFunctionNames": ["a", "b"]},
        ),
    ],
)
def test_tool_choice_maps_to_function_calling_config(
    choice: Any, validated: bool, expected: dict[str, Any]
) -> None:
    config = gemini.format_tool_choice(choice, validated=validated)
    assert config == {"functionCallingConfig": expected}
    assert _sdk(types.ToolConfig, config) == config


# ------------------------------------------------------------------------------ calls


def rest_response(*parts: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}]
    }


PARALLEL = rest_response(
    {"text": "Looking."},
    {
        "functionCall": {"name": "find_flight", "args": {"origin": "OSL"}},
        "thoughtSignature": SIGNATURE_B64,
    },
    {"functionCall": {"name": "find_flight", "args": {"origin": "ROM"}}},
)


def test_parse_calls_reads_the_sdk_response_and_keeps_thought_signatures() -> None:
    response = types.GenerateContentResponse.model_validate(PARALLEL)
    assert response.candidates
    assert response.candidates[0].content
    assert response.candidates[0].content.parts
    assert response.candidates[0].content.parts[1].thought_signature == SIGNATURE  # as bytes
    assert gemini.parse_calls(response) == [
        ToolCall(
            "toolcast:0:find_flight",
            "find_flight",
            {"origin": "OSL"},
            {"thought_signature": SIGNATURE_B64},
        ),
        ToolCall("toolcast:1:find_flight", "find_flight", {"origin": "ROM"}),
    ]


def test_parse_calls_reads_rest_dicts_contents_and_part_lists_alike() -> None:
    expected = gemini.parse_calls(PARALLEL)
    content = PARALLEL["candidates"][0]["content"]
    assert gemini.parse_calls(content) == expected
    assert gemini.parse_calls(content["parts"]) == expected
    assert gemini.parse_calls(types.Content.model_validate(content)) == expected


def test_parse_calls_keeps_real_ids() -> None:
    response = rest_response({"functionCall": {"id": "fc-7", "name": "find_flight", "args": {}}})
    assert gemini.parse_calls(response) == [ToolCall("fc-7", "find_flight", {})]


def test_parse_calls_reads_nothing_from_a_blocked_prompt() -> None:
    blocked = {"promptFeedback": {"blockReason": "SAFETY"}}
    assert gemini.parse_calls(blocked) == []
    assert gemini.parse_calls(types.GenerateContentResponse.model_validate(blocked)) == []


def test_parse_calls_collects_calls_across_stream_chunks() -> None:
    chunks = [
        types.GenerateContentResponse.model_validate(rest_response({"text": "One moment."})),
        types.GenerateContentResponse.model_validate(
            rest_response(PARALLEL["candidates"][0]["content"]["parts"][1])
        ),
        types.GenerateContentResponse.model_validate(
            rest_response(PARALLEL["candidates"][0]["content"]["parts"][2])
        ),
    ]
    calls = gemini.parse_calls(iter(chunks))
    assert [c.arguments for c in calls] == [{"origin": "OSL"}, {"origin": "ROM"}]
    assert [c.id for c in calls] == ["toolcast:0:find_flight", "toolcast:1:find_flight"]


def test_format_calls_puts_the_thought_signature_back_on_the_call_part() -> None:
    """qwen-code #1202, spring-ai #4977: a dropped signature is a 400 on every Gemini 3 turn."""
    calls = gemini.parse_calls(types.GenerateContentResponse.model_validate(PARALLEL))
    turn = gemini.format_calls(calls, text="Looking.")
    assert turn == snapshot(
        {
            "role": "model",
            "parts": [
                {"text": "Looking."},
                {
                    "functionCall": {"name": "find_flight", "args": {"origin": "OSL"}},
                    "thoughtSignature": "EjRvcGFxdWUtc2lnbmF0dXJl/w==",
                },
                {"functionCall": {"name": "find_flight", "args": {"origin": "ROM"}}},
            ],
        }
    )
    content = types.Content.model_validate(turn)
    assert content.parts is not None
    assert content.parts[1].thought_signature == SIGNATURE  # byte for byte


def test_format_calls_parses_text_arguments_and_refuses_non_objects() -> None:
    assert gemini.format_calls([ToolCall("fc-1", "f", '{"a": 1}')])["parts"] == [
        {"functionCall": {"id": "fc-1", "name": "f", "args": {"a": 1}}}
    ]
    with pytest.raises(ValueError, match="not a JSON object"):
        gemini.format_calls([ToolCall("fc-2", "f", "[1]")])


# ---------------------------------------------------------------------------- results


async def test_format_results_correlates_by_name_and_order_without_ids() -> None:
    tool = Tool.from_function(find_flight)
    calls = gemini.parse_calls(PARALLEL)
    outcomes = [await tool.invoke(call.arguments, call_id=call.id) for call in reversed(calls)]
    turn = gemini.format_results(outcomes, calls=calls)
    assert turn == snapshot(
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "find_flight",
                        "response": {"output": "OSL: 2 flights"},
                    }
                },
                {
                    "functionResponse": {
                        "name": "find_flight",
                        "response": {"output": "ROM: 2 flights"},
                    }
                },
            ],
        }
    )
    assert _sdk(types.Content, turn) == turn


def test_format_results_sends_real_ids_errors_and_structured_output() -> None:
    outcomes = [
        Tool.from_function(lambda: {"seats": 3}, name="seats").invoke_sync({}, call_id="fc-1"),
        ToolOutcome.failure(
            "tool_error", "No such airport.", tool_name="find_flight", call_id="fc-2"
        ),
    ]
    turn = gemini.format_results(outcomes)
    assert turn["parts"] == [
        {"functionResponse": {"id": "fc-1", "name": "seats", "response": {"output": {"seats": 3}}}},
        {
            "functionResponse": {
                "id": "fc-2",
                "name": "find_flight",
                "response": {"error": "No such airport."},
            }
        },
    ]
    assert _sdk(types.Content, turn) == turn


def test_a_call_without_an_outcome_gets_an_error_response() -> None:
    calls = [ToolCall("fc-1", "a", {}), ToolCall("fc-2", "b", {})]
    done = ToolOutcome(call_id="fc-2", tool_name="b", content=(TextPart("ok"),), text="ok")
    first, second = gemini.format_results([done], calls=calls)["parts"]
    assert first["functionResponse"]["name"] == "a"
    assert "not run" in first["functionResponse"]["response"]["error"]
    assert second["functionResponse"]["response"] == {"output": "ok"}


def test_images_travel_inside_the_function_response() -> None:
    picture = ToolResult([TextPart("a dot"), ImagePart(b"\x89PNG", "image/png")])
    outcome = Tool.from_function(lambda: picture, name="picture").invoke_sync({}, call_id="fc-3")
    turn = gemini.format_results([outcome])
    (part,) = turn["parts"]
    assert part["functionResponse"]["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}}
    ]
    assert _sdk(types.Content, turn) == turn


def test_structured_values_holding_refs_are_sent_as_json_text() -> None:
    """hermes-agent #93014: Gemini 3 resolves `$ref` inside function responses and 400s."""
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
    outcome = Tool.from_function(lambda: schema, name="describe").invoke_sync({}, call_id="fc-4")
    (part,) = gemini.format_results([outcome])["parts"]
    output = part["functionResponse"]["response"]["output"]
    assert isinstance(output, str)
    assert json.loads(output) == schema


def test_live_api_tool_calls_are_read_and_answered() -> None:
    """The Live API sends `toolCall.functionCalls` and takes bare function responses."""
    message = types.LiveServerMessage.model_validate(
        {
            "toolCall": {
                "functionCalls": [{"id": "fc-9", "name": "find_flight", "args": {"origin": "OSL"}}]
            }
        }
    )
    calls = gemini.parse_calls(message)
    assert calls == [ToolCall("fc-9", "find_flight", {"origin": "OSL"})]
    assert gemini.parse_calls(message.tool_call) == calls
    assert gemini.parse_calls({"toolCall": {"functionCalls": []}}) == []
    outcome = Tool.from_function(find_flight).invoke_sync(calls[0].arguments, call_id="fc-9")
    responses = [part["functionResponse"] for part in gemini.format_results([outcome])["parts"]]
    sent = types.LiveClientToolResponse.model_validate({"functionResponses": responses})
    assert sent.model_dump(mode="json", by_alias=True, exclude_none=True) == {
        "functionResponses": [
            {"id": "fc-9", "name": "find_flight", "response": {"output": "OSL: 2 flights"}}
        ]
    }
