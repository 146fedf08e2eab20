"""The real `anthropic` client against a 127.0.0.1 fake server: request -> parse_calls ->
invoke -> format_results -> next request, plain and streamed.

What is pinned: the SDK sends toolcast's `tools` and `tool_choice` exactly as formatted;
a response's `tool_use` blocks become calls; the follow-up request carries the
assistant turn and ONE user message answering every call by `tool_use_id`.
"""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from inline_snapshot import snapshot

from providers.fakeserver import FakeServer
from toolcast import Tool, ToolCall, ToolError
from toolcast.providers import anthropic as tc_anthropic

MODEL = "claude-sonnet-5"


def convert(amount: float, currency: str) -> dict[str, Any]:
    """Convert an amount of euros.

    Args:
        amount: Euros to convert.
        currency: ISO code of the target currency.
    """
    rates = {"USD": 1.1, "GBP": 0.85}
    if currency not in rates:
        raise ToolError(f"Unknown currency {currency!r}; use one of USD, GBP.")
    return {"amount": round(amount * rates[currency], 2), "currency": currency}


def message(content: list[dict[str, Any]], stop_reason: str = "tool_use") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 34},
    }


TOOL_TURN = message(
    [
        {"type": "text", "text": "Converting."},
        {
            "type": "tool_use",
            "id": "toolu_a",
            "name": "convert",
            "input": {"amount": 10, "currency": "USD"},
        },
        {
            "type": "tool_use",
            "id": "toolu_b",
            "name": "convert",
            "input": {"amount": 5, "currency": "XYZ"},
        },
        {
            "type": "tool_use",
            "id": "toolu_c",
            "name": "convert",
            "input": {"amount": 1, "currency": "GBP"},
        },
    ]
)
FINAL_TURN = message([{"type": "text", "text": "10 EUR is 11 USD."}], stop_reason="end_turn")


@pytest.fixture
def client(fake_server: FakeServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=fake_server.url, api_key="test", max_retries=0)


async def test_round_trip_through_the_real_client(
    fake_server: FakeServer, client: anthropic.Anthropic
) -> None:
    fake_server.queue("/v1/messages", TOOL_TURN)
    fake_server.queue("/v1/messages", FINAL_TURN)
    tool = Tool.from_function(convert)
    tools = tc_anthropic.format_tools([tool])
    choice = tc_anthropic.format_tool_choice("auto", parallel=True)
    history: list[Any] = [{"role": "user", "content": "Convert 10 EUR to USD, 5 to XYZ, 1 to GBP."}]

    response = client.messages.create(
        model=MODEL, max_tokens=512, messages=history, tools=tools, tool_choice=choice
    )
    calls = tc_anthropic.parse_calls(response)
    assert [c.id for c in calls] == ["toolu_a", "toolu_b", "toolu_c"]
    # toolu_c is deliberately left unrun: it must still be answered.
    outcomes = [await tool.invoke(c.arguments, call_id=c.id) for c in calls[:2]]
    history += [
        {"role": "assistant", "content": response.content},
        tc_anthropic.format_results(outcomes, calls=calls),
    ]
    final = client.messages.create(model=MODEL, max_tokens=512, messages=history, tools=tools)
    assert tc_anthropic.parse_calls(final) == []

    first, second = fake_server.bodies("/v1/messages")
    assert first["tools"] == tools
    assert first["tool_choice"] == {"type": "auto"}
    assistant, results = second["messages"][1:]
    assert [b["type"] for b in assistant["content"]] == ["text", "tool_use", "tool_use", "tool_use"]
    assert results == snapshot(
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_a",
                    "content": '{"amount":11.0,"currency":"USD"}',
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": "Unknown currency 'XYZ'; use one of USD, GBP.",
                    "is_error": True,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_c",
                    "content": "The call to 'convert' was not run.",
                    "is_error": True,
                },
            ],
        }
    )


def _sse_events(fragments: list[str]) -> list[dict[str, Any]]:
    start = {**message([], stop_reason="tool_use"), "stop_reason": None}
    tool_use = {"type": "tool_use", "id": "toolu_s", "name": "convert", "input": {}}
    return [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": tool_use},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": f},
            }
            for f in fragments
        ),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]


async def test_streamed_calls_round_trip(
    fake_server: FakeServer, client: anthropic.Anthropic
) -> None:
    fragments = ['{"amount": 2', ', "currency": "G', 'BP"}']
    fake_server.queue_stream("/v1/messages", _sse_events(fragments), named=True, done=False)
    fake_server.queue_stream("/v1/messages", _sse_events(fragments), named=True, done=False)
    tool = Tool.from_function(convert)
    request: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "2 EUR in GBP?"}],
        "tools": tc_anthropic.format_tools([tool]),
    }

    with client.messages.create(stream=True, **request) as stream:
        (call,) = tc_anthropic.parse_calls(stream)
    assert call.arguments == '{"amount": 2, "currency": "GBP"}'
    outcome = await tool.invoke(call.arguments, call_id=call.id)
    assert outcome.structured == {"amount": 1.7, "currency": "GBP"}

    # The helper stream mixes its own `input_json` events with the raw deltas.
    with client.messages.stream(**request) as helper:
        assert tc_anthropic.parse_calls(helper) == [call]
        final = helper.get_final_message()
    assert tc_anthropic.parse_calls(final) == [
        ToolCall("toolu_s", "convert", {"amount": 2, "currency": "GBP"})
    ]
