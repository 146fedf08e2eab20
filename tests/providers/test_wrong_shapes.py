"""Issue 21, defect 4: a response in another provider's shape is named, never `[]`.

A matrix: every provider's `parse_calls` (the one asked) against one genuine
response with one call from every provider (the shape given), as the official
SDK's own object where it has one (openai, anthropic, google-genai, mistralai,
ollama, mcp types; Bedrock's botocore client returns plain dicts). The asked
provider's own shape (and Chat Completions/Mistral, which share one) gives the
call; every other pair raises `ResponseFormatError` naming both providers.
"""

from __future__ import annotations

from typing import Any

import anthropic.types as anthropic_types
import mcp.types as mcp_types
import ollama
import openai.types.chat as chat_types
import openai.types.responses as responses_types
import pydantic
import pytest
from google.genai import types as genai_types
from mistralai.client.models import ChatCompletionResponse, CompletionEvent

from toolcast import ResponseFormatError
from toolcast.providers import (
    anthropic,
    bedrock,
    gemini,
    hermes,
    mcp,
    mistral,
    openai_chat,
    openai_realtime,
    openai_responses,
)
from toolcast.providers import ollama as ollama_provider

from .test_malformed import (
    _anthropic,
    _anthropic_stream,
    _bedrock,
    _bedrock_stream,
    _chat,
    _chat_stream,
    _gemini,
    _mcp,
    _mistral,
    _ollama,
    _realtime,
    _responses,
    _responses_stream,
)

CALL = [("call_1", "add", {"a": 1, "b": 2})]


def _sdk(kind: Any, data: Any) -> Any:
    if isinstance(data, list):
        return [_sdk(kind, item) for item in data]
    if isinstance(kind, type) and hasattr(kind, "model_validate"):
        return kind.model_validate(data)
    return pydantic.TypeAdapter(kind).validate_python(data)


def _realtime_events() -> list[Any]:
    from openai.types.realtime import RealtimeServerEvent

    events = _realtime(CALL)
    events[0] = {**events[0], "event_id": "e0", "response_id": "r", "output_index": 0,
                 "arguments": '{"a": 1, "b": 2}'}  # fmt: skip
    events[-1]["response"] = {**events[-1]["response"], "object": "realtime.response", "id": "r"}
    return [pydantic.TypeAdapter(RealtimeServerEvent).validate_python(e) for e in events]


def _mistral_stream() -> list[Any]:
    # Mistral streams each call whole (`chat.stream`), one chunk per call.
    call = {"id": "abcdefghi", "type": "function", "index": 0,
            "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}  # fmt: skip
    chunk = {"id": "c", "model": "m", "object": "chat.completion.chunk", "created": 0,
             "choices": [{"index": 0, "finish_reason": None,
                          "delta": {"role": "assistant", "tool_calls": [call]}}]}  # fmt: skip
    return [CompletionEvent.model_validate({"data": chunk})]


# shape given -> (family, the genuine response as the SDK gives it)
GIVEN: dict[str, tuple[str, Any]] = {
    "openai_chat": ("chat", _sdk(chat_types.ChatCompletion, _chat(CALL))),
    "openai_chat stream": ("chat", _sdk(chat_types.ChatCompletionChunk, _chat_stream(CALL))),
    "openai_responses": ("responses", _sdk(responses_types.Response, _responses(CALL))),
    "openai_responses stream": (
        "responses",
        _sdk(
            responses_types.ResponseStreamEvent,
            [
                {**e, "sequence_number": k, "item_id": "fc_0"}
                if "delta" in e
                else {**e, "sequence_number": k}
                for k, e in enumerate(_responses_stream(CALL))
            ],
        ),
    ),
    "openai_realtime": ("realtime", _realtime_events()),
    "anthropic": ("anthropic", _sdk(anthropic_types.Message, _anthropic(CALL))),
    "anthropic stream": (
        "anthropic",
        _sdk(anthropic_types.RawMessageStreamEvent, _anthropic_stream(CALL)),
    ),
    "gemini": ("gemini", _sdk(genai_types.GenerateContentResponse, _gemini(CALL))),
    "bedrock": ("bedrock", _bedrock(CALL)),
    "bedrock stream": ("bedrock", _bedrock_stream(CALL)),
    "mistral": ("chat", _sdk(ChatCompletionResponse, _mistral(CALL))),
    "mistral stream": ("chat", _mistral_stream()),
    "ollama": ("ollama", _sdk(ollama.ChatResponse, _ollama(CALL))),
    "mcp": ("mcp", _sdk(mcp_types.JSONRPCRequest, _mcp(CALL))),
}

# provider asked -> (family, parse_calls, the name its errors use)
ASKED: dict[str, tuple[str, Any, str]] = {
    "openai_chat": ("chat", openai_chat.parse_calls, "OpenAI Chat"),
    "openai_responses": ("responses", openai_responses.parse_calls, "OpenAI Responses"),
    "openai_realtime": ("realtime", openai_realtime.parse_calls, "OpenAI Realtime"),
    "anthropic": ("anthropic", anthropic.parse_calls, "Anthropic"),
    "gemini": ("gemini", gemini.parse_calls, "Gemini"),
    "bedrock": ("bedrock", bedrock.parse_calls, "Bedrock"),
    "mistral": ("chat", mistral.parse_calls, "Mistral"),
    "ollama": ("ollama", ollama_provider.parse_calls, "Ollama"),
    "mcp": ("mcp", mcp.parse_calls, "MCP"),
    "hermes": ("hermes", hermes.parse_calls, "Hermes"),
}

MODULE = {
    "chat": "openai_chat",
    "responses": "openai_responses",
    "realtime": "openai_realtime",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
    "ollama": "ollama",
    "mcp": "mcp",
}

PAIRS = [(asked, given) for asked in ASKED for given in GIVEN]


@pytest.mark.parametrize(("asked", "given"), PAIRS, ids=[f"{a}<-{g}" for a, g in PAIRS])
def test_defect_4_a_response_of_another_providers_shape_is_named(asked: str, given: str) -> None:
    family, parse, name = ASKED[asked]
    shape, response = GIVEN[given]
    if family == shape:
        calls = parse(response)
        assert [c.name for c in calls] == ["add"]
        return
    with pytest.raises(ResponseFormatError) as raised:
        parse(response)
    message = str(raised.value)
    assert message.startswith(f"{name} ")
    assert f"toolcast.providers.{MODULE[shape]}" in message, message


def test_defect_4_genuine_responses_without_calls_still_give_no_calls() -> None:
    assert openai_chat.parse_calls(_sdk(chat_types.ChatCompletion, _chat([]))) == []
    assert mistral.parse_calls(_sdk(ChatCompletionResponse, _mistral([]))) == []
    assert openai_responses.parse_calls(_sdk(responses_types.Response, _responses([]))) == []
    assert anthropic.parse_calls(_sdk(anthropic_types.Message, _anthropic([]))) == []
    assert gemini.parse_calls(_sdk(genai_types.GenerateContentResponse, _gemini([]))) == []
    assert bedrock.parse_calls(_bedrock([])) == []
    assert ollama_provider.parse_calls(_sdk(ollama.ChatResponse, _ollama([]))) == []
    assert openai_realtime.parse_calls(_realtime([])) == []
    assert mcp.parse_calls([]) == []
    assert hermes.parse_calls({"role": "assistant", "content": "Just text."}) == []


def test_defect_4_the_error_names_both_providers() -> None:
    with pytest.raises(ResponseFormatError) as raised:
        anthropic.parse_calls(GIVEN["openai_chat"][1])
    assert str(raised.value) == (
        "Anthropic response looks like an OpenAI Chat Completions (or Mistral) response, "
        "not an Anthropic Messages response: use toolcast.providers.openai_chat."
    )
    assert raised.value.provider == "Anthropic"
