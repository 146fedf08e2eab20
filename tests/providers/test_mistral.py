"""Mistral projection, tool choice, calls, tool messages and nine-character call ids.

Wire rules pinned here (sources in src/toolcast/providers/mistral.py):
- tool {"type": "function", "function": {name, description?, parameters, strict}};
  `parameters` always present; every corpus tool validates as mistralai `Tool`;
- tool_choice: "auto" | "none" | "any" | {"type": "function", "function": {name}};
- call ids must be exactly nine `[a-zA-Z0-9]` (langchain PR 24668, magentic #276):
  foreign ids map to valid ones, stably and reversibly;
- calls arrive with JSON-text or object arguments; results are `tool` messages
  with `name`, every call answered;
- the real `mistralai` client runs request -> calls -> results -> request against
  the local fake server.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from mistralai.client import Mistral
from mistralai.client.models import (
    AssistantMessage,
    ChatCompletionResponse,
    ToolChoice,
    ToolMessage,
)
from mistralai.client.models import (
    Tool as MistralTool,
)

from toolcast import ImagePart, TextPart, Tool, ToolCall, ToolOutcome, ToolSpec
from toolcast.providers import mistral

VALID = re.compile(r"^[a-zA-Z0-9]{9}$")


def spec(**kw: Any) -> ToolSpec:
    schema = kw.pop(
        "schema",
        {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    )
    return ToolSpec(
        name=kw.pop("name", "weather"), description="Weather.", input_schema=schema, **kw
    )


def test_project_pins_the_wire_shape():
    assert mistral.project(spec()).definition == {
        "type": "function",
        "function": {
            "name": "weather",
            "description": "Weather.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }


def test_no_argument_tool_still_sends_parameters():
    tool = spec(schema={"type": "object", "additionalProperties": False})
    function = mistral.project(tool, strict=False).definition["function"]
    assert function["parameters"] == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_every_corpus_tool_validates_as_a_mistralai_tool(corpus):
    for strict in (None, False):
        for definition in mistral.format_tools(corpus, strict=strict):
            model = MistralTool.model_validate(definition)
            assert model.model_dump(by_alias=True, exclude_none=True) == definition


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "any"),
        ({"name": "weather"}, {"type": "function", "function": {"name": "weather"}}),
    ],
)
def test_format_tool_choice_maps_modes(choice, wire):
    assert mistral.format_tool_choice(choice) == wire
    if isinstance(wire, dict):
        ToolChoice.model_validate(wire)


def test_format_tool_choice_says_mistral_lacks_allowed_tools():
    with pytest.raises(ValueError, match="with tool_choice 'any' instead"):
        mistral.format_tool_choice({"allowed": ["a", "b"], "mode": "required"})


class TestCallIds:
    def test_foreign_ids_map_to_valid_stable_and_reversible_ids(self):
        ids = mistral.CallIds()
        wire = ids.to_wire("call_8xPq2Lm0AbCdEfGh")
        assert VALID.match(wire)
        assert ids.to_wire("call_8xPq2Lm0AbCdEfGh") == wire
        assert mistral.CallIds().to_wire("call_8xPq2Lm0AbCdEfGh") == wire
        assert ids.from_wire(wire) == "call_8xPq2Lm0AbCdEfGh"

    def test_valid_ids_pass_through(self):
        ids = mistral.CallIds()
        assert ids.to_wire("a1B2c3D4e") == "a1B2c3D4e"
        assert ids.from_wire("zzzzzzzzz") == "zzzzzzzzz"

    def test_colliding_ids_get_distinct_wire_ids(self):
        ids = mistral.CallIds()
        taken = mistral._digest("toolu_01", 0)
        assert ids.to_wire(taken) == taken  # a valid id claims it first
        other = ids.to_wire("toolu_01")
        assert other != taken
        assert VALID.match(other)
        assert (ids.from_wire(taken), ids.from_wire(other)) == (taken, "toolu_01")
        assert len({ids.to_wire(f"toolu_{i}") for i in range(500)}) == 500


RESPONSE = {
    "id": "cmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "mistral-large-latest",
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "D681PevKs",
                        "type": "function",
                        "index": 0,
                        "function": {"name": "weather", "arguments": '{"city":"Lyon"}'},
                    },
                    {"id": "null", "function": {"name": "clock", "arguments": {}}},
                ],
            },
        }
    ],
}


def test_parse_calls_reads_sdk_responses_and_object_arguments():
    calls = mistral.parse_calls(ChatCompletionResponse.model_validate(RESPONSE))
    assert calls[0] == ToolCall(
        "D681PevKs", "weather", '{"city":"Lyon"}', {"null_means_default": True}
    )
    assert (calls[1].name, calls[1].arguments) == ("clock", {})
    assert VALID.match(calls[1].id)
    assert mistral.parse_calls(RESPONSE)[0] == calls[0]
    tool_calls = RESPONSE["choices"][0]["message"]["tool_calls"]
    assert mistral.parse_calls(tool_calls)[0] == calls[0]


def test_stream_chunks_accumulate_into_calls():
    chunk = {
        "data": {
            "id": "x",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "id": "Ab3De6Gh9",
                                "index": 0,
                                "function": {"name": "weather", "arguments": '{"city":"Nice"}'},
                            }
                        ]
                    },
                    "finish_reason": None,
                }
            ],
        }
    }
    assert mistral.parse_calls([chunk]) == [
        ToolCall("Ab3De6Gh9", "weather", '{"city":"Nice"}', {"null_means_default": True})
    ]


def test_history_from_another_provider_gets_valid_ids_on_both_sides():
    """Complaint §9.9: ids from OpenAI/Anthropic must be re-minted for Mistral."""
    calls = [
        ToolCall("call_abc123DEF456", "weather", {"city": "Paris"}),
        ToolCall("toolu_01X", "clock", "{}"),
    ]
    ids = mistral.CallIds()
    assistant = mistral.format_assistant_message(calls, ids=ids)
    done = ToolOutcome(
        call_id="call_abc123DEF456", tool_name="weather", content=(TextPart("Sun"),), text="Sun"
    )
    results = mistral.format_results([done], calls=calls, ids=ids)
    sent = [c["id"] for c in assistant["tool_calls"]]
    assert [m["tool_call_id"] for m in results] == sent
    assert all(VALID.match(i) for i in sent)
    assert [ids.from_wire(i) for i in sent] == ["call_abc123DEF456", "toolu_01X"]
    assert results[1]["content"] == "Error: The call to 'clock' was not run."
    AssistantMessage.model_validate(assistant)
    for message in results:
        ToolMessage.model_validate(message)


def test_format_results_pins_tool_messages_and_images():
    outcome = ToolOutcome(
        call_id="a1B2c3D4e",
        tool_name="plot",
        content=(TextPart("Chart"), ImagePart(b"\x89PNG")),
        text="Chart",
    )
    (message,) = mistral.format_results([outcome])
    assert message == {
        "role": "tool",
        "tool_call_id": "a1B2c3D4e",
        "name": "plot",
        "content": [
            {"type": "text", "text": "Chart"},
            {"type": "image_url", "image_url": "data:image/png;base64,iVBORw=="},
        ],
    }
    ToolMessage.model_validate(message)


def reply(tool_calls: list[dict[str, Any]] | None, content: str = "") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {**RESPONSE, "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}


def test_real_mistral_client_round_trip(fake_server):
    def weather(city: str, days: int = 1) -> str:
        """Forecast for a city."""
        return f"{city}: sunny for {days} day(s)"

    tool = Tool.from_function(weather)
    call = {
        "id": "Xy12Ab34C",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city":"Lyon","days":null}'},
    }
    fake_server.queue("/v1/chat/completions", reply([call]))
    fake_server.queue("/v1/chat/completions", reply(None, "Sunny in Lyon."))
    client = Mistral(api_key="test", server_url=fake_server.url)
    messages: list[Any] = [{"role": "user", "content": "Weather in Lyon?"}]
    first = client.chat.complete(
        model="mistral-large-latest",
        messages=messages,
        tools=mistral.format_tools([tool]),
        tool_choice=mistral.format_tool_choice("required"),
    )
    calls = mistral.parse_calls(first)
    outcomes = [
        asyncio.run(tool.invoke(c.arguments, call_id=c.id, **mistral.invoke_options(c)))
        for c in calls
    ]
    messages += [
        mistral.format_assistant_message(calls),
        *mistral.format_results(outcomes, calls=calls),
    ]
    second = client.chat.complete(model="mistral-large-latest", messages=messages)
    assert second.choices[0].message.content == "Sunny in Lyon."
    sent_first, sent_second = fake_server.bodies("/v1/chat/completions")
    assert sent_first["tools"] == mistral.format_tools([tool])
    assert sent_first["tool_choice"] == "any"
    assert sent_second["messages"][1]["tool_calls"][0]["id"] == "Xy12Ab34C"
    assert sent_second["messages"][2] == {
        "role": "tool",
        "tool_call_id": "Xy12Ab34C",
        "name": "weather",
        "content": "Lyon: sunny for 1 day(s)",
    }
