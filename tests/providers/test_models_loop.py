"""`toolcast.run` over every provider's `Model` adapter and official client (127.0.0.1 server).

The same two-round conversation on each provider: the model calls `weather`
twice (one call fails with a `ToolError`), the loop runs both, answers them in
call order, and the model's final text ends the run. The loop knows no provider;
these tests pin that each adapter gives it what it needs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anthropic
import botocore.config
import botocore.session
import ollama
import openai
import pytest
from google import genai
from google.genai import types
from mistralai.client import Mistral

from providers import test_models as t
from providers.fakeserver import FakeServer
from toolcast import Catalog, Policy, run
from toolcast.loop import Usage
from toolcast.providers import anthropic as tc_anthropic
from toolcast.providers import bedrock as tc_bedrock
from toolcast.providers import gemini as tc_gemini
from toolcast.providers import mistral as tc_mistral
from toolcast.providers import ollama as tc_ollama
from toolcast.providers import openai_chat, openai_responses


@dataclass
class Case:
    path: str
    make: Callable[[str], Any]
    calls: dict[str, Any]
    final: dict[str, Any]
    usage: Usage
    answers: Callable[[dict[str, Any]], list[Any]]
    """The results the second request carried, as (id-or-name, is_error) pairs."""


def chat_answers(body: dict[str, Any]) -> list[Any]:
    return [(m["tool_call_id"], m["content"].startswith("Error")) for m in body["messages"][2:]]


CASES = {
    "openai_chat": Case(
        "/v1/chat/completions",
        lambda url: openai_chat.Model(
            openai.AsyncOpenAI(base_url=url + "/v1", api_key="t", max_retries=0), "gpt-test"
        ),
        t.chat_completion(
            {"role": "assistant", "content": None, "tool_calls": t.chat_calls()}, "tool_calls"
        ),
        t.chat_completion({"role": "assistant", "content": "Sunny."}, "stop"),
        Usage(80, 18),
        chat_answers,
    ),
    "openai_responses": Case(
        "/v1/responses",
        lambda url: openai_responses.Model(
            openai.AsyncOpenAI(base_url=url + "/v1", api_key="t", max_retries=0), "gpt-test"
        ),
        t.response(
            [
                {
                    "type": "function_call",
                    "id": f"fc_{i}",
                    "call_id": f"call_{i}",
                    "name": "weather",
                    "arguments": json.dumps({"city": city}),
                }
                for i, city in enumerate(["Paris", "Atlantis"])
            ]
        ),
        t.response(
            [
                {
                    "type": "message",
                    "id": "m",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
                }
            ]
        ),
        Usage(60, 14),
        lambda body: [
            (i["call_id"], i["output"].startswith("Error"))
            for i in body["input"]
            if i.get("type") == "function_call_output"
        ],
    ),
    "anthropic": Case(
        "/v1/messages",
        lambda url: tc_anthropic.Model(
            anthropic.AsyncAnthropic(base_url=url, api_key="t", max_retries=0), "claude-test"
        ),
        t.claude_message(
            [
                {"type": "tool_use", "id": f"toolu_{i}", "name": "weather", "input": {"city": c}}
                for i, c in enumerate(["Paris", "Atlantis"])
            ],
            "tool_use",
        ),
        t.claude_message([{"type": "text", "text": "Sunny."}], "end_turn"),
        Usage(240, 10),
        lambda body: [
            (b["tool_use_id"], b.get("is_error", False)) for b in body["messages"][2]["content"]
        ],
    ),
    "gemini": Case(
        f"/v1/models/{t.GEMINI}:generateContent",
        lambda url: tc_gemini.Model(
            genai.Client(
                api_key="t",
                http_options=types.HttpOptions(
                    base_url=url, retry_options=types.HttpRetryOptions(attempts=1)
                ),
            ),
            t.GEMINI,
        ),
        t.gemini_response(
            [
                {"functionCall": {"id": f"fc-{i}", "name": "weather", "args": {"city": c}}}
                for i, c in enumerate(["Paris", "Atlantis"])
            ]
        ),
        t.gemini_response([{"text": "Sunny."}]),
        Usage(50, 20),
        lambda body: [
            (p["functionResponse"]["id"], "error" in p["functionResponse"]["response"])
            for p in body["contents"][2]["parts"]
        ],
    ),
    "mistral": Case(
        "/v1/chat/completions",
        lambda url: tc_mistral.Model(Mistral(api_key="t", server_url=url), "mistral-test"),
        t.chat_completion(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{**c, "id": f"abcdefgh{i}"} for i, c in enumerate(t.chat_calls())],
            },
            "tool_calls",
        ),
        t.chat_completion({"role": "assistant", "content": "Sunny."}, "stop"),
        Usage(80, 18),
        chat_answers,
    ),
    "ollama": Case(
        "/api/chat",
        lambda url: tc_ollama.Model(ollama.AsyncClient(host=url), "qwen-test"),
        t.ollama_response(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "weather", "arguments": {"city": c}}}
                    for c in ["Paris", "Atlantis"]
                ],
            }
        ),
        t.ollama_response({"role": "assistant", "content": "Sunny."}),
        Usage(66, 16),
        lambda body: [
            (m["tool_name"], m["content"].startswith("Error")) for m in body["messages"][2:]
        ],
    ),
    "bedrock": Case(
        "/model/claude-test/converse",
        lambda url: tc_bedrock.Model(
            botocore.session.get_session().create_client(
                "bedrock-runtime",
                region_name="us-east-1",
                endpoint_url=url,
                aws_access_key_id="t",
                aws_secret_access_key="t",
                config=botocore.config.Config(retries={"max_attempts": 1}),
            ),
            "claude-test",
        ),
        t.converse(
            [
                {"toolUse": {"toolUseId": f"tu_{i}", "name": "weather", "input": {"city": c}}}
                for i, c in enumerate(["Paris", "Atlantis"])
            ],
            "tool_use",
        ),
        t.converse([{"text": "Sunny."}], "end_turn"),
        Usage(100, 24),
        lambda body: [
            (r["toolResult"]["toolUseId"], r["toolResult"]["status"] == "error")
            for r in body["messages"][2]["content"]
        ],
    ),
}


@pytest.mark.parametrize("provider", list(CASES))
async def test_run_drives_every_provider_through_its_official_client(
    fake_server: FakeServer, provider: str
) -> None:
    case = CASES[provider]
    fake_server.queue(case.path, case.calls)
    fake_server.queue(case.path, case.final)
    model = case.make(fake_server.url)
    tools = Catalog(list(t.TOOLS.values())).select()

    result = await run(model, t.ASK, tools=tools, policy=Policy(default="allow"))

    assert (result.status, result.text, result.rounds) == ("done", "Sunny.", 2)
    assert result.usage == case.usage
    outcomes = [r.outcome for r in result.calls]
    assert [o.is_error for o in outcomes if o is not None] == [False, True]
    assert "Atlantis" in outcomes[1].text if outcomes[1] else False
    _, second = fake_server.bodies(case.path)
    assert [error for _, error in case.answers(second)] == [False, True]
    assert fake_server.pending() == {}
    json.dumps(list(result.messages))
