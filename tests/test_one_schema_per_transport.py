"""One tool, one parameter schema on both OpenAI transports (issue 16, item 2)."""

from __future__ import annotations

import json
from typing import Any

from corpus import corpus_tools
from toolcast import Tool
from toolcast.providers import openai_realtime, openai_responses


def test_responses_and_realtime_send_the_same_parameters_for_every_corpus_tool() -> None:
    tools = corpus_tools()
    responses = openai_responses.format_tools(tools)
    realtime = openai_realtime.format_tools(tools)
    assert len(responses) == len(realtime) == len(tools)
    for sent, spoken in zip(responses, realtime, strict=True):
        assert sent["name"] == spoken["name"]
        assert sent.get("description") == spoken.get("description")
        assert sent["parameters"] == spoken["parameters"], sent["name"]


def test_the_same_holds_with_strict_off() -> None:
    tools = corpus_tools()
    responses = openai_responses.format_tools(tools, strict=False)
    realtime = openai_realtime.format_tools(tools, strict=False)
    assert [t["parameters"] for t in responses] == [t["parameters"] for t in realtime]


def forecast(city: str, days: int = 3, units: str = "metric") -> str:
    """Forecast."""
    return f"{city} {days} {units}"


async def test_a_realtime_call_sending_null_for_defaulted_parameters_gets_the_defaults() -> None:
    tool = Tool.from_function(forecast)
    parameters = openai_realtime.format_tools([tool])[0]["parameters"]
    # The strict shape asks for every parameter, defaulted ones as nullable.
    assert parameters["required"] == ["city", "days", "units"]
    event: dict[str, Any] = {
        "type": "response.function_call_arguments.done",
        "event_id": "e1",
        "response_id": "r1",
        "item_id": "i1",
        "output_index": 0,
        "call_id": "c1",
        "name": "forecast",
        "arguments": json.dumps({"city": "Oslo", "days": None, "units": None}),
    }
    (call,) = openai_realtime.parse_calls(event)
    assert call.provider_data["null_means_default"] is True
    outcome = await tool.invoke(call)
    assert not outcome.is_error, outcome.text
    assert outcome.text == "Oslo 3 metric"
    assert outcome.call_id == "c1"
