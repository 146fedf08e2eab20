"""OpenAI Chat Completions projection, tool choice, call parsing and tool messages.

Wire rules pinned here (sources in src/toolcast/providers/openai_chat.py):
- tool = {"type": "function", "function": {name, description?, parameters, strict}};
  every corpus tool validates against the SDK's `ChatCompletionToolUnionParam`;
- strict form: every object closed and fully required, optional -> nullable with
  null meaning the default, no `default`, unsupported formats and lengths in words,
  `$ref` never next to a description; a dict parameter falls back to non-strict
  with a note (PROVIDERS.md §9.1, §9.2, §9.3, §1 observed rejections);
- tool_choice: "auto" | "none" | "required" | named | allowed_tools;
- calls: from `ChatCompletion`, message, dicts and streamed chunks, raw JSON kept;
- results: one `tool` message per call, every call answered, errors marked in text.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionMessageParam,
    ChatCompletionToolChoiceOptionParam,
    ChatCompletionToolUnionParam,
)
from pydantic import TypeAdapter

from toolcast import Catalog, ImagePart, TextPart, Tool, ToolCall, ToolOutcome, ToolSpec
from toolcast import tool as tool_decorator
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers import openai_chat

TOOLS = TypeAdapter(list[ChatCompletionToolUnionParam])
CHOICE = TypeAdapter(ChatCompletionToolChoiceOptionParam)
MESSAGES = TypeAdapter(list[ChatCompletionMessageParam])


def spec(schema: dict[str, Any], **kw: Any) -> ToolSpec:
    return ToolSpec(
        name=kw.pop("name", "t"),
        description=kw.pop("description", "Do it."),
        input_schema=schema,
        **kw,
    )


def obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return {**schema, **extra}


def assert_strict_shape(schema: dict[str, Any]) -> None:
    """Every object closed and fully required; no `default`; `$ref` alone."""
    Draft202012Validator.check_schema(schema)
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            assert "default" not in node
            if "$ref" in node:
                assert set(node) == {"$ref"}
            if node.get("type") == "object" or "properties" in node:
                assert node["additionalProperties"] is False
                assert node["required"] == list(node["properties"])
            stack.extend(v for k, v in node.items() if k not in ("enum", "const"))
        elif isinstance(node, list):
            stack.extend(node)


# ----------------------------------------------------------------------- projection


def test_project_pins_the_strict_wire_shape():
    tool = spec(
        obj(
            {"city": {"type": "string"}, "days": {"type": "integer", "default": 3}},
            ["city"],
        ),
        name="weather",
    )
    projection = openai_chat.project(tool)
    assert projection.strict is True
    assert projection.definition == {
        "type": "function",
        "function": {
            "name": "weather",
            "description": "Do it.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {
                        "type": ["integer", "null"],
                        "description": "Defaults to 3 when null.",
                    },
                },
                "required": ["city", "days"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }


def test_project_non_strict_keeps_the_canonical_schema():
    schema = obj({"n": {"type": "integer", "minimum": 1, "default": 3}})
    projection = openai_chat.project(spec(schema, strict=False))
    assert projection.definition["function"]["parameters"] == schema
    assert projection.definition["function"]["strict"] is False
    assert projection.notes == ()


def test_project_omits_an_empty_description():
    assert (
        "description"
        not in openai_chat.project(spec(obj({}), description="")).definition["function"]
    )


def test_project_strict_argument_overrides_the_tool_setting():
    tool = spec(obj({"a": {"type": "string"}}, ["a"]), strict=False)
    assert openai_chat.project(tool, strict=True).strict is True
    assert openai_chat.project(spec(obj({}))).strict is True


def test_project_is_cached_per_spec_and_option():
    tool = spec(obj({}))
    assert openai_chat.project(tool) is openai_chat.project(tool)
    assert openai_chat.project(tool, strict=False) is not openai_chat.project(tool)


def test_every_corpus_tool_validates_against_the_sdk_types(corpus):
    for strict in (None, False):
        definitions = openai_chat.format_tools(corpus, strict=strict)
        TOOLS.validate_python(definitions)
        for definition in definitions:
            Draft202012Validator.check_schema(definition["function"]["parameters"])
            json.dumps(definition)


def test_every_strict_corpus_projection_obeys_structured_outputs_rules(corpus):
    strict = [openai_chat.project(tool) for tool in corpus]
    for projection in strict:
        if projection.strict:
            assert_strict_shape(projection.definition["function"]["parameters"])
        else:
            assert any(n.action == "strict_disabled" for n in projection.notes)
    assert sum(p.strict for p in strict) >= len(strict) - 6


def test_optional_parameter_null_means_its_default_end_to_end():
    """Complaint §9.1: strict makes optionals required; null brings the default."""

    def search(query: str, limit: int = 10, exact: bool = False) -> str:
        """Search."""
        return f"{query}:{limit}:{exact}"

    tool = Tool.from_function(search)
    schema = openai_chat.project(tool).definition["function"]["parameters"]
    assert schema["required"] == ["query", "limit", "exact"]
    assert schema["properties"]["limit"] == {
        "type": ["integer", "null"],
        "description": "Defaults to 10 when null.",
    }
    call = openai_chat.parse_calls(
        {
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "search",
                        "arguments": '{"query":"q","limit":null,"exact":null}',
                    },
                }
            ]
        }
    )[0]
    outcome = asyncio.run(
        tool.invoke(call.arguments, call_id=call.id, **openai_chat.invoke_options(call))
    )
    assert outcome.text == "q:10:False"


def test_dict_parameter_falls_back_to_non_strict_and_says_why():
    """Complaint §9.2: `dict[str, int]` must not become an empty object under strict."""
    schema = obj(
        {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
        ["counts"],
    )
    projection = openai_chat.project(spec(schema))
    assert projection.strict is False
    function = projection.definition["function"]
    assert function["strict"] is False
    assert function["parameters"]["properties"]["counts"] == {
        "type": "object",
        "properties": {},
        "additionalProperties": {"type": "integer"},
    }
    assert [(n.path, n.action) for n in projection.notes] == [
        ("/properties/counts", "strict_disabled")
    ]


def test_forced_strict_refuses_what_cannot_be_strict():
    schema = obj({"counts": {"type": "object", "additionalProperties": {"type": "integer"}}})
    with pytest.raises(UnsupportedSchemaError) as info:
        openai_chat.project(spec(schema), strict=True)
    assert str(info.value) == (
        "This schema cannot be strict (strict=True was asked for):\n"
        "  /properties/counts: The object at /properties/counts allows free keys "
        "(values: integer); strict mode needs every key declared and would turn it "
        "into an empty object."
    )


def test_ref_with_description_is_isolated_under_strict():
    """Complaint §9.3: "$ref cannot have keywords {'description'}" (PA #1488)."""
    schema = obj(
        {"home": {"$ref": "#/$defs/Addr", "description": "Where they live."}},
        ["home"],
        **{"$defs": {"Addr": obj({"street": {"type": "string"}}, ["street"])}},
    )
    params = openai_chat.project(spec(schema)).definition["function"]["parameters"]
    assert params["properties"]["home"] == {
        "description": "Where they live.",
        "anyOf": [{"$ref": "#/$defs/Addr"}],
    }
    assert_strict_shape(params)


def test_recursive_schema_stays_strict_with_refs():
    schema = obj(
        {"tree": {"$ref": "#/$defs/Node"}},
        ["tree"],
        **{
            "$defs": {
                "Node": obj(
                    {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                    ["kids"],
                )
            }
        },
    )
    projection = openai_chat.project(spec(schema))
    assert projection.strict is True
    assert projection.definition["function"]["parameters"]["$defs"]["Node"]["properties"]["kids"][
        "items"
    ] == {"$ref": "#/$defs/Node"}


@pytest.mark.parametrize(
    ("prop", "words"),
    [
        ({"type": "string", "format": "uri"}, "Format: uri."),
        (
            {"type": "string", "minLength": 2, "maxLength": 8},
            "At least 2 characters. At most 8 characters.",
        ),
        ({"type": "string", "contentEncoding": "base64"}, "Encoded as base64."),
        (
            {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
            "Items must be unique.",
        ),
        (
            {"type": "string", "pattern": "^(?!x).*$"},
            'Must match the regular expression "^(?!x).*$".',
        ),
    ],
)
def test_strict_moves_unsupported_keywords_into_words(prop, words):
    """Complaint §9.6: `format: uri` is a 400 under strict (chatlas #255)."""
    projection = openai_chat.project(spec(obj({"p": prop}, ["p"])))
    assert projection.strict is True
    assert (
        projection.definition["function"]["parameters"]["properties"]["p"]["description"] == words
    )
    assert {n.action for n in projection.notes} == {"moved_to_description"}


def test_strict_keeps_supported_formats_and_bounds():
    prop = {"type": "integer", "minimum": 0, "maximum": 9}
    when = {"type": "string", "format": "date-time"}
    params = openai_chat.project(spec(obj({"n": prop, "w": when}, ["n", "w"]))).definition[
        "function"
    ]["parameters"]
    assert params["properties"] == {"n": prop, "w": when}


@pytest.mark.parametrize(
    ("schema", "fixed"),
    [
        (
            {"type": "object", "properties": {"a": {"type": "string"}}},
            "additionalProperties",
        ),
        (obj({"a": {"type": "string"}}), "required"),
        ({"type": "object"}, "properties"),
    ],
)
def test_strict_repairs_what_openai_observably_rejects(schema, fixed):
    """§1 observed: no additionalProperties, partial required, no properties."""
    params = openai_chat.project(spec(schema)).definition["function"]["parameters"]
    assert fixed in params
    assert_strict_shape(params)


def test_strict_one_of_becomes_any_of():
    schema = obj({"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, ["v"])
    params = openai_chat.project(spec(schema)).definition["function"]["parameters"]
    assert params["properties"]["v"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}


def test_strict_refuses_too_deep_nesting_and_falls_back():
    inner: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        inner = obj({"x": inner}, ["x"])
    projection = openai_chat.project(spec(obj({"root": inner}, ["root"])))
    assert projection.strict is False
    assert "nest deeper than 10" in projection.notes[-1].detail


def test_strict_accepts_ten_levels_of_objects():
    inner: dict[str, Any] = {"type": "string"}
    for _ in range(9):
        inner = obj({"x": inner}, ["x"])
    assert openai_chat.project(spec(obj({"root": inner}, ["root"]))).strict is True


def test_union_of_objects_sharing_a_first_key_falls_back():
    """§1 observed: anyOf object branches must not share their first key."""
    a = obj({"name": {"type": "string"}, "age": {"type": "integer"}}, ["name", "age"])
    b = obj({"name": {"type": "string"}, "url": {"type": "string"}}, ["name", "url"])
    projection = openai_chat.project(spec(obj({"who": {"anyOf": [a, b]}}, ["who"])))
    assert projection.strict is False
    assert projection.notes[-1].detail == (
        "Object branches of the anyOf at /properties/who start with the same key (name), "
        "which strict mode rejects."
    )
    c = obj({"id": {"type": "string"}}, ["id"])
    assert openai_chat.project(spec(obj({"who": {"anyOf": [a, c]}}, ["who"]))).strict


def test_vendor_extensions_never_reach_the_wire():
    schema = obj({"id": {"type": "string", "x-mcp-header": "Id"}}, ["id"], **{"x-fastmcp": 1})
    for strict in (True, False):
        params = openai_chat.project(spec(schema), strict=strict).definition["function"][
            "parameters"
        ]
        assert "x-" not in json.dumps(params)


def test_invalid_name_is_refused_with_the_rule():
    """Complaint §9.7: MCP names with dots are not valid OpenAI function names."""
    with pytest.raises(UnsupportedSchemaError, match=r"'fs\.read' is not valid for OpenAI Chat"):
        openai_chat.format_tools([spec(obj({}), name="fs.read")])


def test_format_tools_keeps_order_allows_empty_and_refuses_duplicates():
    a, b = spec(obj({}), name="a"), spec(obj({}), name="b")
    assert [d["function"]["name"] for d in openai_chat.format_tools([b, a])] == [
        "b",
        "a",
    ]
    assert openai_chat.format_tools([]) == []
    with pytest.raises(ValueError, match="Two tools are named 'a'"):
        openai_chat.format_tools([a, spec(obj({}), name="a")])


def test_format_tools_refuses_more_than_128_tools():
    with pytest.raises(ValueError, match="at most 128"):
        openai_chat.format_tools([spec(obj({}), name=f"t{i}") for i in range(129)])


def test_root_union_is_refused_for_openai_targets():
    with pytest.raises(UnsupportedSchemaError, match="object schema at the root"):
        openai_chat.project(spec({"anyOf": [{"type": "string"}, {"type": "integer"}]}))


# ----------------------------------------------------------------------- tool choice


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ({"name": "a"}, {"type": "function", "function": {"name": "a"}}),
        (
            {"allowed": ["a", "b"], "mode": "required"},
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "required",
                    "tools": [
                        {"type": "function", "function": {"name": "a"}},
                        {"type": "function", "function": {"name": "b"}},
                    ],
                },
            },
        ),
    ],
)
def test_format_tool_choice_maps_every_mode(choice, wire):
    tools = [spec(obj({}), name="a"), spec(obj({}), name="b")]
    assert openai_chat.format_tool_choice(choice, tools=tools) == wire
    CHOICE.validate_python(wire)


def test_format_tool_choice_accepts_a_tool_and_checks_names():
    a = spec(obj({}), name="a")
    assert openai_chat.format_tool_choice(a) == {
        "type": "function",
        "function": {"name": "a"},
    }
    with pytest.raises(ValueError, match="names zz, not among the tools: a"):
        openai_chat.format_tool_choice({"name": "zz"}, tools=[a])


# ----------------------------------------------------------------------- calls


COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-test",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {
                            "name": "weather",
                            "arguments": '{"city":"Paris"}',
                        },
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "clock", "arguments": ""},
                    },
                ],
            },
        }
    ],
}


def test_parse_calls_reads_sdk_objects_and_dicts_alike():
    expected = [
        ToolCall("call_a", "weather", '{"city":"Paris"}', {"null_means_default": True}),
        ToolCall("call_b", "clock", "{}", {"null_means_default": True}),
    ]
    completion = ChatCompletion.model_validate(COMPLETION)
    assert openai_chat.parse_calls(completion) == expected
    assert openai_chat.parse_calls(COMPLETION) == expected
    assert openai_chat.parse_calls(completion.choices[0].message) == expected
    assert openai_chat.parse_calls(COMPLETION["choices"][0]["message"]["tool_calls"]) == expected


def test_parse_calls_keeps_malformed_arguments_for_the_invoker():
    """Complaint §9.10: invalid JSON is answered with an error, not a crash."""
    raw = {
        "tool_calls": [
            {
                "id": "c",
                "type": "function",
                "function": {"name": "t", "arguments": '{"a": 1'},
            }
        ]
    }
    assert openai_chat.parse_calls(raw)[0].arguments == '{"a": 1'


def test_parse_calls_without_tool_calls_is_empty():
    message = {"role": "assistant", "content": "Hi"}
    assert openai_chat.parse_calls(message) == []


def chunks() -> list[dict[str, Any]]:
    def chunk(tool_calls: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": "x",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"tool_calls": tool_calls}, "finish_reason": None}],
        }

    return [
        chunk(
            [
                {
                    "index": 0,
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "weather", "arguments": ""},
                }
            ]
        ),
        chunk([{"index": 0, "function": {"arguments": '{"ci'}}]),
        chunk(
            [
                {
                    "index": 1,
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "clock", "arguments": "{}"},
                }
            ]
        ),
        chunk([{"index": 0, "function": {"arguments": 'ty":"Paris"}'}}]),
    ]


def test_stream_chunks_accumulate_into_calls():
    accumulator = openai_chat.CallAccumulator()
    for chunk in chunks():
        accumulator.add(ChatCompletionChunk.model_validate(chunk))
    assert accumulator.calls() == [
        ToolCall("call_a", "weather", '{"city":"Paris"}', {"null_means_default": True}),
        ToolCall("call_b", "clock", "{}", {"null_means_default": True}),
    ]
    assert openai_chat.parse_calls(iter(chunks())) == accumulator.calls()


# ----------------------------------------------------------------------- results


def ok(call_id: str, text: str, name: str = "weather") -> ToolOutcome:
    return ToolOutcome(call_id=call_id, tool_name=name, content=(TextPart(text),), text=text)


def test_format_results_pins_tool_messages():
    failed = ToolOutcome.failure(
        "tool_error", "No such city.", tool_name="weather", call_id="call_b"
    )
    messages = openai_chat.format_results([ok("call_a", "Sunny"), failed])
    assert messages == [
        {"role": "tool", "tool_call_id": "call_a", "content": "Sunny"},
        {"role": "tool", "tool_call_id": "call_b", "content": "Error: No such city."},
    ]
    MESSAGES.validate_python(messages)


def test_format_results_answers_every_call_in_call_order():
    """Complaint §9.9: an unanswered call is a 400 (agno #3105)."""
    calls = openai_chat.parse_calls(COMPLETION)
    messages = openai_chat.format_results([ok("call_b", "12:00", "clock")], calls=calls)
    assert messages == [
        {
            "role": "tool",
            "tool_call_id": "call_a",
            "content": "Error: The call to 'weather' was not run.",
        },
        {"role": "tool", "tool_call_id": "call_b", "content": "12:00"},
    ]


def test_format_results_sends_images_in_a_following_user_message():
    image = ToolOutcome(
        call_id="c",
        tool_name="plot",
        content=(TextPart("Chart:"), ImagePart(b"\x89PNG")),
        text="Chart:",
    )
    messages = openai_chat.format_results([image])
    assert messages == [
        {
            "role": "tool",
            "tool_call_id": "c",
            "content": "Chart:\n[image: image/png, 4 bytes, not shown]",
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Images from tool call c (plot):"},
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64,iVBORw=="},
                },
            ],
        },
    ]
    MESSAGES.validate_python(messages)
    assert len(openai_chat.format_results([image], images="omit")) == 1


def test_format_results_needs_a_call_id():
    with pytest.raises(ValueError, match="no call_id"):
        openai_chat.format_results([ToolOutcome(call_id=None, tool_name="t")])


def test_format_assistant_message_replays_calls():
    calls = [ToolCall("c1", "weather", {"city": "Paris"})]
    message = openai_chat.format_assistant_message(calls)
    assert message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city":"Paris"}'},
            }
        ],
    }
    MESSAGES.validate_python([message])


def _fill_missing_with_null(validator: Draft202012Validator, instance: Any) -> list[str]:
    """Send omitted optional keys as null, as a strict model must; return what remains."""
    for _ in range(100):
        errors = list(validator.iter_errors(instance))
        missing = [e for e in errors if e.validator == "required"]
        if not missing:
            return [e.message for e in errors]
        for error in missing:
            for name in error.validator_value:
                if isinstance(error.instance, dict) and name not in error.instance:
                    error.instance[name] = None
    return ["did not converge"]


@functools.cache
def _call_strategies(names: tuple[str, ...]) -> dict[str, Any]:
    """Canonical-argument strategies per strict corpus tool, built once."""
    from corpus import corpus_tools

    found = {}
    for tool in corpus_tools():
        canonical = json.loads(json.dumps(tool.spec.input_schema))
        # hypothesis-jsonschema cannot generate recursive schemas.
        if tool.spec.name in names and "$defs" not in canonical:
            with contextlib.suppress(Exception):  # formats or patterns it cannot generate
                found[tool.spec.name] = (canonical, from_schema(canonical))
    return found


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_strict_projection_accepts_every_valid_call_with_nulls_for_omissions(corpus, data):
    """A strict schema must never forbid a call the canonical schema allows."""
    projections = {t.spec.name: openai_chat.project(t) for t in corpus}
    strict_names = tuple(sorted(n for n, p in projections.items() if p.strict))
    for name, (canonical, strategy) in _call_strategies(strict_names).items():
        instance = data.draw(strategy, label=name)
        if not Draft202012Validator(canonical).is_valid(instance):
            continue  # hypothesis-jsonschema reads draft 7; `prefixItems` is 2020-12
        params = projections[name].definition["function"]["parameters"]
        strict = Draft202012Validator(json.loads(json.dumps(params)))
        assert _fill_missing_with_null(strict, instance) == [], name


# -- small API edges (issue 9 item 4) -------------------------------------------------


def test_format_tools_with_one_tool_says_pass_a_list() -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    single = Tool.from_function(ping)
    for wrong in (single, single.spec, ping):
        with pytest.raises(TypeError, match=r"Pass a list of tools"):
            openai_chat.format_tools(wrong)  # type: ignore[arg-type]


def test_format_tools_accepts_decorated_functions_as_catalog_does() -> None:
    @tool_decorator
    def ping() -> str:
        """Ping."""
        return "pong"

    def plain(x: int) -> int:
        """Plain."""
        return x

    assert openai_chat.format_tools([ping, plain]) == openai_chat.format_tools(
        Catalog([ping, plain]).select()
    )


def test_format_results_with_one_outcome_says_pass_a_list() -> None:
    outcome = ToolOutcome(call_id="c", tool_name="t", text="x")
    with pytest.raises(TypeError, match=r"format_results\(\[outcome\]\)"):
        openai_chat.format_results(outcome)  # type: ignore[arg-type]


# -- the Model adapter's requests ---------------------------------------------------


class _Completions:
    """A stand-in for `client.chat.completions`: records each request, answers in turn."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = answers
        self.sent: list[dict[str, Any]] = []

    async def create(self, **kwargs: Any) -> dict[str, Any]:
        self.sent.append(kwargs)
        return self.answers[len(self.sent) - 1]


def _answer(*calls: tuple[str, str]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else "Booked."}
    if calls:
        message["tool_calls"] = [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)
        ]
    return {"object": "chat.completion", "choices": [{"message": message}]}


def test_the_models_requests_show_the_tools_opened_since_and_public_requests_are_fresh() -> None:
    from loop.tools import shop
    from toolcast import Policy, run
    from toolcast.loop import ModelRequest

    completions = _Completions(
        [
            _answer(("calendar", "{}")),
            _answer(("list_rooms", "{}")),
            _answer(("list_rooms", "{}")),
            _answer(),
        ]
    )
    client = type("Client", (), {"chat": type("Chat", (), {"completions": completions})()})()
    model = openai_chat.Model(client, "m")
    tools = shop().select(include_selectors=True)
    result = asyncio.run(run(model, "Book", tools=tools, policy=Policy(default="allow")))
    assert result.status == "done"
    names = [[t["function"]["name"] for t in kwargs["tools"]] for kwargs in completions.sent]
    assert "list_rooms" not in names[0]
    assert names[1] == [*names[0], "book_room", "list_rooms"]
    assert names[2] == names[3] == names[1]
    request = ModelRequest(messages=(), tools=tuple(t.spec for t in tools.tools()))
    first, second = model.request(request), model.request(request)
    assert first["tools"] == second["tools"]
    assert first["tools"] is not second["tools"]
