"""Every provider's `Model` adapter through its official client, against a 127.0.0.1 server.

Each test sends two requests the way the run loop does (the user message, then
the assistant turn and the result messages the adapter produced) and checks what
the SDK put on the wire (tools, tool choice, the parallel switch, the system
prompt, options, the history shape) and what came back (calls, text, usage).
"""

from __future__ import annotations

import json
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

import toolcast
from providers.fakeserver import FakeServer
from toolcast import Tool, ToolCall, ToolError, ToolOutcome
from toolcast.loop import ModelRequest, ModelTurn, Usage
from toolcast.providers import anthropic as tc_anthropic
from toolcast.providers import bedrock as tc_bedrock
from toolcast.providers import gemini as tc_gemini
from toolcast.providers import mistral as tc_mistral
from toolcast.providers import ollama as tc_ollama
from toolcast.providers import openai_chat, openai_responses


def weather(city: str, days: int = 1) -> str:
    """Forecast for a city.

    Args:
        city: City name.
        days: How many days ahead.
    """
    if city == "Atlantis":
        raise ToolError("No forecast for Atlantis; pick a real city.")
    return f"{city}: sunny for {days} day(s)"


def convert(amount: float, currency: str) -> float:
    """Convert euros to another currency.

    Args:
        amount: Euros.
        currency: ISO code.
    """
    return round(amount * {"USD": 1.1}.get(currency, 1.0), 2)


TOOLS = {t.spec.name: t for t in (Tool.from_function(weather), Tool.from_function(convert))}
SPECS = [t.spec for t in TOOLS.values()]
ASK = "Weather in Paris and Atlantis?"


async def run_calls(turn: ModelTurn) -> list[ToolOutcome]:
    outcomes = []
    for call in turn.calls:
        tool = TOOLS[call.name]
        options = {"null_means_default": bool(call.provider_data.get("null_means_default"))}
        outcomes.append(await tool.invoke(call.arguments, call_id=call.id, **options))
    return outcomes


def first_request(model: Any, **overrides: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "messages": model.user_message(ASK),
        "tools": SPECS,
        "system": "Answer briefly.",
        "tool_choice": "required",
        "parallel_calls": False,
        "options": {"temperature": 0},
    }
    return ModelRequest(**{**values, **overrides})


async def two_rounds(
    model: Any, **overrides: Any
) -> tuple[ModelTurn, ModelTurn, list[ToolOutcome]]:
    """Request, run the calls, answer them, request again: what the loop does."""
    first = await model.complete(first_request(model, **overrides))
    outcomes = await run_calls(first)
    history = [*model.user_message(ASK), first.message, *model.result_messages(outcomes)]
    json.dumps(history)  # the history is JSON-ready, so a conversation can be saved
    second = await model.complete(ModelRequest(messages=history, tools=SPECS))
    return first, second, outcomes


def names_and_args(calls: tuple[ToolCall, ...]) -> list[tuple[str, Any]]:
    def args(call: ToolCall) -> Any:
        return json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments

    return [(c.name, args(c)) for c in calls]


EXPECTED_CALLS = [("weather", {"city": "Paris"}), ("weather", {"city": "Atlantis"})]


# ---------------------------------------------------------------- OpenAI Chat Completions


def chat_completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49},
    }


def chat_calls() -> list[dict[str, Any]]:
    return [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "weather", "arguments": json.dumps({"city": city})},
        }
        for i, city in enumerate(["Paris", "Atlantis"])
    ]


async def test_openai_chat_model(fake_server: FakeServer) -> None:
    path = "/v1/chat/completions"
    fake_server.queue(
        path,
        chat_completion(
            {"role": "assistant", "content": None, "tool_calls": chat_calls()}, "tool_calls"
        ),
    )
    fake_server.queue(path, chat_completion({"role": "assistant", "content": "Sunny."}, "stop"))
    client = openai.AsyncOpenAI(base_url=fake_server.url + "/v1", api_key="t", max_retries=0)
    model = openai_chat.Model(client, "gpt-test", max_completion_tokens=200)

    first, second, _ = await two_rounds(model)

    assert names_and_args(first.calls) == EXPECTED_CALLS
    assert [c.id for c in first.calls] == ["call_0", "call_1"]
    assert first.usage == Usage(40, 9)
    assert first.finish_reason == "tool_calls"
    assert (second.text, second.calls, second.finish_reason) == ("Sunny.", (), "stop")
    sent, again = fake_server.bodies(path)
    assert sent["model"] == "gpt-test"
    assert sent["tools"] == openai_chat.format_tools(SPECS)
    assert sent["tool_choice"] == "required"
    assert sent["parallel_tool_calls"] is False
    assert (sent["temperature"], sent["max_completion_tokens"]) == (0, 200)
    assert sent["messages"] == [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": ASK},
    ]
    assistant, *answers = again["messages"][1:]
    assert assistant == {"role": "assistant", "content": None, "tool_calls": chat_calls()}
    assert [(m["role"], m["tool_call_id"]) for m in answers] == [
        ("tool", "call_0"),
        ("tool", "call_1"),
    ]
    assert answers[0]["content"] == "Paris: sunny for 1 day(s)"
    assert answers[1]["content"] == "Error: No forecast for Atlantis; pick a real city."
    assert (again["tool_choice"], "parallel_tool_calls" in again) == ("auto", False)


async def test_openai_chat_named_choice_and_no_tools(fake_server: FakeServer) -> None:
    path = "/v1/chat/completions"
    fake_server.queue(path, chat_completion({"role": "assistant", "content": "Hi"}, "stop"))
    fake_server.queue(path, chat_completion({"role": "assistant", "content": "Hi"}, "stop"))
    client = openai.AsyncOpenAI(base_url=fake_server.url + "/v1", api_key="t", max_retries=0)
    model = openai_chat.Model(client, "gpt-test")

    await model.complete(first_request(model, tool_choice="convert", parallel_calls=True))
    turn = await model.complete(ModelRequest(messages=model.user_message("hi"), tools=()))

    named, bare = fake_server.bodies(path)
    assert named["tool_choice"] == {"type": "function", "function": {"name": "convert"}}
    assert "parallel_tool_calls" not in named
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(bare)
    assert turn.message == {"role": "assistant", "content": "Hi"}


def test_a_client_without_the_method_is_refused_with_the_install_hint() -> None:
    with pytest.raises(TypeError, match=r"openai.AsyncOpenAI.*toolcast\[openai\]"):
        openai_chat.Model(object(), "gpt-test")
    with pytest.raises(TypeError, match=r"anthropic.AsyncAnthropic.*toolcast\[anthropic\]"):
        tc_anthropic.Model(openai.AsyncOpenAI(api_key="t"), "claude")


# ---------------------------------------------------------------- OpenAI Responses


def response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-test",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 30,
            "output_tokens": 7,
            "total_tokens": 37,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 2},
        },
    }


async def test_openai_responses_model(fake_server: FakeServer) -> None:
    path = "/v1/responses"
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    calls = [
        {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": f"call_{i}",
            "name": "weather",
            "arguments": json.dumps({"city": city}),
            "status": "completed",
        }
        for i, city in enumerate(["Paris", "Atlantis"])
    ]
    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
    }
    fake_server.queue(path, response([reasoning, *calls]))
    fake_server.queue(path, response([text]))
    client = openai.AsyncOpenAI(base_url=fake_server.url + "/v1", api_key="t", max_retries=0)
    model = openai_responses.Model(client, "gpt-test")

    first, second, _ = await two_rounds(model)

    assert names_and_args(first.calls) == EXPECTED_CALLS
    assert first.usage == Usage(30, 7)
    assert first.message["type"] == openai_responses.TURN
    assert (second.text, second.calls) == ("Sunny.", ())
    sent, again = fake_server.bodies(path)
    assert sent["instructions"] == "Answer briefly."
    assert sent["input"] == [{"role": "user", "content": ASK}]
    assert sent["tools"] == openai_responses.format_tools(SPECS)
    assert (sent["tool_choice"], sent["parallel_tool_calls"]) == ("required", False)
    # The reasoning item and the calls go back as sent, then one output per call.
    assert again["input"][1:4] == [reasoning, *calls]
    outputs = again["input"][4:]
    assert [(o["type"], o["call_id"]) for o in outputs] == [
        ("function_call_output", "call_0"),
        ("function_call_output", "call_1"),
    ]
    assert outputs[1]["output"].startswith("Error: No forecast")


# ---------------------------------------------------------------- Anthropic


def claude_message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 5, "cache_read_input_tokens": 100},
    }


async def test_anthropic_model(fake_server: FakeServer) -> None:
    uses = [
        {"type": "tool_use", "id": f"toolu_{i}", "name": "weather", "input": {"city": city}}
        for i, city in enumerate(["Paris", "Atlantis"])
    ]
    fake_server.queue(
        "/v1/messages", claude_message([{"type": "text", "text": "Checking."}, *uses], "tool_use")
    )
    fake_server.queue(
        "/v1/messages", claude_message([{"type": "text", "text": "Sunny."}], "end_turn")
    )
    client = anthropic.AsyncAnthropic(base_url=fake_server.url, api_key="t", max_retries=0)
    model = tc_anthropic.Model(client, "claude-test", stop_sequences=["END"])

    first, second, _ = await two_rounds(model, options={"metadata": {"user_id": "u1"}})

    assert names_and_args(first.calls) == EXPECTED_CALLS
    assert (first.text, first.finish_reason) == ("Checking.", "tool_use")
    assert first.usage == Usage(120, 5)
    assert second.text == "Sunny."
    sent, again = fake_server.bodies("/v1/messages")
    assert (sent["system"], sent["max_tokens"]) == ("Answer briefly.", 4096)
    assert (sent["stop_sequences"], sent["metadata"]) == (["END"], {"user_id": "u1"})
    assert sent["tools"] == tc_anthropic.format_tools(SPECS)
    assert sent["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
    assert again["tool_choice"] == {"type": "auto"}
    assistant, results = again["messages"][1:]
    assert assistant == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Checking."}, *uses],
    }
    assert [(b["tool_use_id"], b.get("is_error", False)) for b in results["content"]] == [
        ("toolu_0", False),
        ("toolu_1", True),
    ]


# ---------------------------------------------------------------- Gemini

GEMINI = "gemini-test"


def gemini_response(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": {
            "promptTokenCount": 25,
            "candidatesTokenCount": 6,
            "thoughtsTokenCount": 4,
        },
        "modelVersion": GEMINI,
    }


async def test_gemini_model(fake_server: FakeServer) -> None:
    path = f"/v1/models/{GEMINI}:generateContent"
    signature = "c2lnbmF0dXJl"
    parts = [
        {"functionCall": {"id": "fc-1", "name": "weather", "args": {"city": "Paris"}}},
        {"functionCall": {"id": "fc-2", "name": "weather", "args": {"city": "Atlantis"}}},
    ]
    parts[0]["thoughtSignature"] = signature
    fake_server.queue(path, gemini_response(parts))
    fake_server.queue(path, gemini_response([{"text": "Sunny."}]))
    options = types.HttpOptions(
        base_url=fake_server.url, retry_options=types.HttpRetryOptions(attempts=1)
    )
    model = tc_gemini.Model(genai.Client(api_key="t", http_options=options), GEMINI)

    first, second, _ = await two_rounds(model)

    assert names_and_args(first.calls) == EXPECTED_CALLS
    assert first.usage == Usage(25, 10)
    assert first.finish_reason == "STOP"
    assert second.text == "Sunny."
    sent, again = fake_server.bodies(path)
    assert sent["systemInstruction"]["parts"] == [{"text": "Answer briefly."}]
    assert sent["generationConfig"]["temperature"] == 0
    assert sent["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert len(sent["tools"][0]["functionDeclarations"]) == 2
    assert sent["contents"] == [{"role": "user", "parts": [{"text": ASK}]}]
    model_turn, answers = again["contents"][1:]
    assert model_turn["role"] == "model"
    assert [p["functionCall"]["id"] for p in model_turn["parts"]] == ["fc-1", "fc-2"]
    assert model_turn["parts"][0]["thoughtSignature"].rstrip("=") == signature
    responses = [p["functionResponse"] for p in answers["parts"]]
    assert [(r["id"], list(r["response"])) for r in responses] == [
        ("fc-1", ["output"]),
        ("fc-2", ["error"]),
    ]


# ---------------------------------------------------------------- Mistral


async def test_mistral_model(fake_server: FakeServer) -> None:
    path = "/v1/chat/completions"
    calls = [
        {
            "id": wire_id,
            "type": "function",
            "function": {"name": "weather", "arguments": json.dumps({"city": city})},
        }
        for wire_id, city in [("abcDEF123", "Paris"), ("xyzXYZ789", "Atlantis")]
    ]
    fake_server.queue(
        path,
        chat_completion({"role": "assistant", "content": "", "tool_calls": calls}, "tool_calls"),
    )
    fake_server.queue(path, chat_completion({"role": "assistant", "content": "Sunny."}, "stop"))
    model = tc_mistral.Model(Mistral(api_key="t", server_url=fake_server.url), "mistral-test")

    first, second, _ = await two_rounds(model)

    assert names_and_args(first.calls) == EXPECTED_CALLS
    assert first.usage == Usage(40, 9)
    assert second.text == "Sunny."
    sent, again = fake_server.bodies(path)
    assert sent["messages"][0] == {"role": "system", "content": "Answer briefly."}
    assert sent["tools"] == tc_mistral.format_tools(SPECS)
    assert (sent["tool_choice"], sent["parallel_tool_calls"]) == ("any", False)
    assistant, *answers = again["messages"][1:]
    assert [(m["role"], m["tool_call_id"]) for m in answers] == [
        ("tool", "abcDEF123"),
        ("tool", "xyzXYZ789"),
    ]
    assert [c["id"] for c in assistant["tool_calls"]] == ["abcDEF123", "xyzXYZ789"]


# ---------------------------------------------------------------- Ollama


def ollama_response(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "qwen-test",
        "created_at": "2026-01-01T00:00:00Z",
        "message": message,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 33,
        "eval_count": 8,
    }


async def test_ollama_model(fake_server: FakeServer) -> None:
    calls = [
        {"function": {"name": "weather", "arguments": {"city": city}}}
        for city in ["Paris", "Atlantis"]
    ]
    fake_server.queue(
        "/api/chat", ollama_response({"role": "assistant", "content": "", "tool_calls": calls})
    )
    fake_server.queue("/api/chat", ollama_response({"role": "assistant", "content": "Sunny."}))
    model = tc_ollama.Model(ollama.AsyncClient(host=fake_server.url), "qwen-test")

    first = await model.complete(first_request(model, tool_choice="weather", options={}))
    outcomes = await run_calls(first)
    history = [*model.user_message(ASK), first.message, *model.result_messages(outcomes)]
    second = await model.complete(ModelRequest(messages=history, tools=SPECS, tool_choice="none"))

    assert names_and_args(first.calls) == EXPECTED_CALLS
    assert first.usage == Usage(33, 8)
    assert second.text == "Sunny."
    sent, again = fake_server.bodies("/api/chat")
    # No tool_choice in Ollama: a named choice sends only that tool, "none" sends none.
    assert [t["function"]["name"] for t in sent["tools"]] == ["weather"]
    assert "tools" not in again or not again["tools"]
    assert sent["messages"][0] == {"role": "system", "content": "Answer briefly."}
    answers = again["messages"][2:]
    assert [(m["role"], m["tool_name"]) for m in answers] == [
        ("tool", "weather"),
        ("tool", "weather"),
    ]
    assert answers[1]["content"].startswith("Error: ")


# ---------------------------------------------------------------- Bedrock (botocore)


def converse(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 50, "outputTokens": 12, "totalTokens": 62},
        "metrics": {"latencyMs": 1},
    }


async def test_bedrock_model(fake_server: FakeServer) -> None:
    model_id = "anthropic.claude-test"
    path = f"/model/{model_id}/converse"
    uses = [
        {"toolUse": {"toolUseId": f"tu_{i}", "name": "weather", "input": {"city": city}}}
        for i, city in enumerate(["Paris", "Atlantis"])
    ]
    fake_server.queue(path, converse(uses, "tool_use"))
    fake_server.queue(path, converse([{"text": "Sunny."}], "end_turn"))
    client = botocore.session.get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=fake_server.url,
        aws_access_key_id="t",
        aws_secret_access_key="t",
        config=botocore.config.Config(retries={"max_attempts": 1}),
    )
    model = tc_bedrock.Model(client, model_id, inferenceConfig={"maxTokens": 300})

    first = await model.complete(first_request(model, options={}))
    outcomes = await run_calls(first)
    history = [*model.user_message(ASK), first.message, *model.result_messages(outcomes)]
    second = await model.complete(ModelRequest(messages=history, tools=SPECS))

    assert names_and_args(first.calls) == EXPECTED_CALLS
    assert (first.usage, first.finish_reason) == (Usage(50, 12), "tool_use")
    assert second.text == "Sunny."
    sent, again = fake_server.bodies(path)
    assert sent["system"] == [{"text": "Answer briefly."}]
    assert sent["inferenceConfig"] == {"maxTokens": 300}
    assert sent["toolConfig"]["toolChoice"] == {"any": {}}
    assert sent["toolConfig"]["tools"] == tc_bedrock.format_tools(SPECS)
    results = again["messages"][2]["content"]
    assert [(r["toolResult"]["toolUseId"], r["toolResult"]["status"]) for r in results] == [
        ("tu_0", "success"),
        ("tu_1", "error"),
    ]


# ---------------------------------------------------------------- OpenAI-compatible profiles


def local_history(model: Any) -> list[dict[str, Any]]:
    call = {"id": "call_0", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
    return [
        *model.user_message(ASK),
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_0", "content": "Paris: sunny"},
    ]


async def test_the_llama_cpp_python_profile_reshapes_requests(fake_server: FakeServer) -> None:
    path = "/v1/chat/completions"
    fake_server.queue(path, chat_completion({"role": "assistant", "content": "Sunny."}, "stop"))
    client = openai.AsyncOpenAI(base_url=fake_server.url + "/v1", api_key="t", max_retries=0)
    model = openai_chat.Model(client, "gemma", profile="llama-cpp-python")

    turn = await model.complete(ModelRequest(messages=local_history(model), tools=SPECS))

    (sent,) = fake_server.bodies(path)
    system, _user, assistant, results = sent["messages"]
    assert system["role"] == "system"
    assert "- weather: Forecast for a city." in system["content"]
    assert assistant["content"] == ""  # null is an HTTP 500 on this server
    assert results == {"role": "user", "content": "Result of weather (call call_0):\nParis: sunny"}
    assert [t["function"]["strict"] for t in sent["tools"]] == [False, False]
    assert sent["max_tokens"] == 256
    assert turn.text == "Sunny."


async def test_a_constrained_request_sends_the_grammar_and_reads_the_call_back(
    fake_server: FakeServer,
) -> None:
    path = "/v1/chat/completions"
    output = '{"name": "weather", "arguments": {"city": "Paris"}}'
    # This profile streams constrained requests (so a timeout can stop the server).
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "g"}
    fake_server.queue_stream(
        path,
        [
            {**chunk, "choices": [{"index": 0, "delta": {"content": output[:9]}}]},
            {**chunk, "choices": [{"index": 0, "delta": {"content": output[9:]}}]},
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ],
    )
    client = openai.AsyncOpenAI(base_url=fake_server.url + "/v1", api_key="t", max_retries=0)
    # "required" fails on this server, so the adapter asks for it through the grammar.
    model = openai_chat.Model(client, "gemma", profile="llama-cpp-python")

    turn = await model.complete(
        ModelRequest(messages=local_history(model), tools=SPECS, tool_choice="required")
    )

    (sent,) = fake_server.bodies(path)
    assert not {"tools", "tool_choice"} & set(sent)
    # The grammar is bounded to the constrained budget, and that budget is sent.
    budget = openai_chat.CONSTRAINED_MAX_TOKENS
    assert sent["grammar"] == toolcast.constraint(SPECS, max_tokens=budget).grammar
    assert sent["max_tokens"] == budget
    assert sent["stream"] is True
    assert '"name": TOOL' in sent["messages"][0]["content"]
    assert sent["messages"][2] == {
        "role": "assistant",
        "content": '{"name": "weather", "arguments": {}}',
    }
    assert names_and_args(turn.calls) == [("weather", {"city": "Paris"})]
    assert turn.message["tool_calls"][0]["id"] == turn.calls[0].id
    assert turn.message["content"] is None


async def test_constrain_true_with_auto_allows_a_reply_and_json_schema_servers(
    fake_server: FakeServer,
) -> None:
    path = "/v1/chat/completions"
    fake_server.queue(
        path, chat_completion({"role": "assistant", "content": '{"reply": "Hi!"}'}, "stop")
    )
    client = openai.AsyncOpenAI(base_url=fake_server.url + "/v1", api_key="t", max_retries=0)
    profile = openai_chat.PROFILES["openai"].but(name="vllm", strict=False)
    model = openai_chat.Model(client, "qwen", profile=profile, constrain=True)

    turn = await model.complete(ModelRequest(messages=model.user_message("hi"), tools=SPECS))

    (sent,) = fake_server.bodies(path)
    schema = sent["response_format"]["json_schema"]["schema"]
    assert schema == toolcast.constraint(SPECS, text=True).json_schema
    assert (turn.calls, turn.text, turn.message) == (
        (),
        "Hi!",
        {"role": "assistant", "content": "Hi!"},
    )


def test_an_unknown_profile_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="llama-cpp-python, llama-server, openai"):
        openai_chat.Model(openai.AsyncOpenAI(api_key="t"), "m", profile="vllm-nightly")


async def test_a_call_the_server_refused_as_cut_off_is_answered_and_the_run_goes_on(
    fake_server: FakeServer,
) -> None:
    # llama-server (0.6.0-dev) answers HTTP 500 when `max_tokens` ends a reply inside
    # a tool call's arguments, where other servers return the partial call.
    path = "/v1/chat/completions"
    refusal = {
        "error": {
            "code": 500,
            "type": "server_error",
            "message": "Failed to parse tool call arguments as JSON: [json.exception."
            "parse_error.101] parse error at line 1, column 12: unexpected end of input",
        }
    }
    fake_server.queue(path, refusal, status=500)
    fake_server.queue(path, chat_completion({"role": "assistant", "content": "Sunny."}, "stop"))
    client = openai.AsyncOpenAI(base_url=fake_server.url + "/v1", api_key="t", max_retries=0)
    model = openai_chat.Model(client, "gemma", profile="llama-server")

    result = await toolcast.run(model, ASK, tools=toolcast.Catalog([weather]).select())

    assert (result.status, result.text) == ("done", "Sunny.")
    refused, again = fake_server.bodies(path)
    assert refused["max_tokens"] == 256  # the profile's bound
    assistant, answer = again["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == answer["tool_call_id"] == "call_cut_off_1"
    assert answer["content"].startswith("Error: Your tool call was cut off before it ended")
    assert "send a shorter call" in answer["content"]


async def test_other_server_errors_still_reach_the_host(fake_server: FakeServer) -> None:
    path = "/v1/chat/completions"
    fake_server.queue(path, {"error": {"message": "model not loaded"}}, status=500)
    client = openai.AsyncOpenAI(base_url=fake_server.url + "/v1", api_key="t", max_retries=0)
    model = openai_chat.Model(client, "gemma", profile="llama-server")
    with pytest.raises(openai.InternalServerError, match="model not loaded"):
        await toolcast.run(model, ASK, tools=toolcast.Catalog([weather]).select())
