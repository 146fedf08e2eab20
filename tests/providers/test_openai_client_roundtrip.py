"""The real `openai` client, end to end against a local recording server.

Each test runs: request with projected tools -> parse the calls -> invoke the
tools -> format the results -> next request, and checks what the client actually
put on the wire (Chat Completions and Responses, plain and streamed). The server
listens on 127.0.0.1 only; nothing reaches OpenAI.
"""

from __future__ import annotations

import asyncio
from typing import Any

import openai
import pytest

from toolcast import Tool, ToolCall, ToolOutcome
from toolcast.providers import openai_chat, openai_responses


def weather(city: str, days: int = 1) -> str:
    """Forecast for a city.

    Args:
        city: City name.
        days: How many days ahead.
    """
    return f"{city}: sunny for {days} day(s)"


def counts(values: dict[str, int]) -> int:
    """Sum named counts."""
    return sum(values.values())


TOOLS = {t.spec.name: t for t in (Tool.from_function(weather), Tool.from_function(counts))}


def run(calls: list[ToolCall]) -> list[ToolOutcome]:
    async def one(call: ToolCall) -> ToolOutcome:
        tool = TOOLS[call.name]
        options = openai_chat.invoke_options(call)
        return await tool.invoke(call.arguments, call_id=call.id, **options)

    async def all_of() -> list[ToolOutcome]:
        return list(await asyncio.gather(*(one(c) for c in calls)))

    return asyncio.run(all_of())


@pytest.fixture
def client(fake_server):
    with openai.OpenAI(base_url=fake_server.url + "/v1", api_key="test", max_retries=0) as c:
        yield c


def completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
    }


CHAT_CALLS = [
    {
        "id": "call_w",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city":"Paris","days":null}'},
    },
    {
        "id": "call_c",
        "type": "function",
        "function": {"name": "counts", "arguments": '{"values":{"a":2,"b":3}}'},
    },
    {
        "id": "call_x",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"town":"Rome"}'},
    },
]


def test_chat_completions_round_trip(client, fake_server):
    path = "/v1/chat/completions"
    fake_server.queue(
        path, completion({"role": "assistant", "content": None, "tool_calls": CHAT_CALLS})
    )
    fake_server.queue(path, completion({"role": "assistant", "content": "Done."}))
    tools = openai_chat.format_tools(TOOLS.values())
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris, and add these up."}]

    first = client.chat.completions.create(
        model="gpt-test",
        messages=messages,
        tools=tools,
        tool_choice=openai_chat.format_tool_choice("auto"),
    )
    calls = openai_chat.parse_calls(first)
    outcomes = run(calls)
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        *openai_chat.format_results(outcomes, calls=calls),
    ]
    second = client.chat.completions.create(model="gpt-test", messages=messages, tools=tools)

    assert second.choices[0].message.content == "Done."
    sent_first, sent_second = fake_server.bodies(path)
    assert sent_first["tools"] == tools
    assert [t["function"]["strict"] for t in sent_first["tools"]] == [True, False]
    assert sent_first["tool_choice"] == "auto"
    answers = sent_second["messages"][2:]
    assert [m["tool_call_id"] for m in answers] == ["call_w", "call_c", "call_x"]
    assert answers[0]["content"] == "Paris: sunny for 1 day(s)"
    assert answers[1]["content"] == "5"
    assert answers[2]["content"].startswith("Error: ")
    assert "town" in answers[2]["content"]
    assert fake_server.pending() == {}


def test_chat_completions_streamed_calls(client, fake_server):
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-test",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    fake_server.queue_stream(
        "/v1/chat/completions",
        [
            chunk(
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_s",
                            "type": "function",
                            "function": {"name": "weather", "arguments": ""},
                        }
                    ],
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]}),
            chunk({}, "tool_calls"),
        ],
    )
    accumulator = openai_chat.CallAccumulator()
    stream = client.chat.completions.create(
        model="gpt-test",
        messages=[{"role": "user", "content": "Oslo?"}],
        tools=openai_chat.format_tools(TOOLS.values()),
        stream=True,
    )
    for event in stream:
        accumulator.add(event)
    (call,) = accumulator.calls()
    assert (call.id, call.name, call.arguments) == ("call_s", "weather", '{"city":"Oslo"}')
    assert run([call])[0].text == "Oslo: sunny for 1 day(s)"


def response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-test",
        "status": "completed",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": output,
    }


FUNCTION_CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_r",
    "name": "weather",
    "arguments": '{"city":"Lima","days":2}',
    "status": "completed",
}


def test_responses_round_trip(client, fake_server):
    path = "/v1/responses"
    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
    }
    fake_server.queue(path, response([FUNCTION_CALL]))
    fake_server.queue(path, response([text]))
    tools = openai_responses.format_tools(TOOLS.values())

    first = client.responses.create(
        model="gpt-test",
        input="Lima?",
        tools=tools,
        tool_choice=openai_responses.format_tool_choice({"name": "weather"}),
    )
    calls = openai_responses.parse_calls(first)
    outcomes = run(calls)
    follow_up = [
        *openai_responses.format_call_items(calls),
        *openai_responses.format_results(outcomes, calls=calls),
    ]
    second = client.responses.create(model="gpt-test", input=follow_up, tools=tools)

    assert second.output_text == "Done."
    sent_first, sent_second = fake_server.bodies(path)
    assert sent_first["tools"] == tools
    assert all(isinstance(t["strict"], bool) for t in sent_first["tools"])
    assert sent_first["tool_choice"] == {"type": "function", "name": "weather"}
    assert sent_second["input"] == [
        {
            "type": "function_call",
            "call_id": "call_r",
            "name": "weather",
            "arguments": '{"city":"Lima","days":2}',
            "id": "fc_1",
        },
        {"type": "function_call_output", "call_id": "call_r", "output": "Lima: sunny for 2 day(s)"},
    ]


def test_responses_streamed_calls(client, fake_server):
    item = {**FUNCTION_CALL, "arguments": "", "status": "in_progress"}
    events = [
        {"type": "response.created", "sequence_number": 0, "response": response([])},
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": item,
        },
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": 2,
            "output_index": 0,
            "item_id": "fc_1",
            "delta": '{"city":"Li',
        },
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": 3,
            "output_index": 0,
            "item_id": "fc_1",
            "delta": 'ma","days":2}',
        },
        {
            "type": "response.function_call_arguments.done",
            "sequence_number": 4,
            "output_index": 0,
            "item_id": "fc_1",
            "arguments": '{"city":"Lima","days":2}',
        },
        {"type": "response.completed", "sequence_number": 5, "response": response([FUNCTION_CALL])},
    ]
    fake_server.queue_stream("/v1/responses", events, named=True, done=False)
    accumulator = openai_responses.CallAccumulator()
    with client.responses.stream(
        model="gpt-test", input="Lima?", tools=openai_responses.format_tools(TOOLS.values())
    ) as stream:
        for event in stream:
            accumulator.add(event)
    (call,) = accumulator.calls()
    assert (call.id, call.name, call.arguments) == ("call_r", "weather", '{"city":"Lima","days":2}')
    assert run([call])[0].text == "Lima: sunny for 2 day(s)"
