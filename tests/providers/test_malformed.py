"""Provider responses never crash (issue 10 requirement 5).

For every provider, responses are generated in the provider's own shape (checked
against the official SDK type where one is installed), parsed, then mutated
(keys dropped, values replaced by the wrong type, `None`, huge or deeply nested
junk) and parsed again. The claim: `parse_calls` returns calls or raises
`ResponseFormatError`, never another exception; every parsed call is answered by
`ToolSet.invoke_sync` with an outcome; `format_results` answers every call,
duplicate ids included.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from typing import Any

import anthropic.types as anthropic_types
import mcp.types as mcp_types
import ollama
import openai.types.chat as chat_types
import openai.types.responses as responses_types
import pytest
from google.genai import types as genai_types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mistralai.client.models import ChatCompletionResponse

from toolcast import Catalog, ResponseFormatError, ToolCall
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
from toolcast.providers import (
    ollama as ollama_provider,
)


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


TOOLS = Catalog([add]).select()
# TOOLCAST_FUZZ_EXAMPLES=2000 runs a longer search (the default keeps the file ~15 s).
EXAMPLES = int(os.environ.get("TOOLCAST_FUZZ_EXAMPLES", "40"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- the pieces of a call --------------------------------------------------------

_IDS = st.sampled_from(["call_1", "call_2", "toolu_01", "abc123XYZ"])  # repeats on purpose
_NAMES = st.sampled_from(["add", "add", "missing_tool", "a-b_c"])
_ARGS = st.fixed_dictionaries({"a": st.integers(-5, 5), "b": st.integers(-5, 5)}) | st.dictionaries(
    st.text(max_size=4), st.integers() | st.text(max_size=4) | st.none(), max_size=3
)
_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.just("x" * 200_000),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(json.loads("[" * 200 + "]" * 200)),
    st.just({"type": "tool_use", "function": None, "index": -1}),
)


@st.composite
def _calls(draw: st.DrawFn) -> list[tuple[str, str, dict[str, Any]]]:
    return draw(st.lists(st.tuples(_IDS, _NAMES, _ARGS), min_size=0, max_size=4))


# -- valid responses, per provider ------------------------------------------------


def _chat(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
    }


def _chat_stream(calls: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    chunks = []
    for index, (i, n, a) in enumerate(calls):
        text = json.dumps(a)
        for piece, first in ((text[: len(text) // 2], True), (text[len(text) // 2 :], False)):
            delta: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if first:
                delta.update(id=i, type="function")
                delta["function"]["name"] = n
            chunks.append(
                {
                    "id": "c",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "m",
                    "choices": [{"index": 0, "delta": {"tool_calls": [delta]}}],
                }
            )
    return chunks


def _responses(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "m",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": [
            {
                "type": "function_call",
                "id": f"fc_{k}",
                "call_id": i,
                "name": n,
                "arguments": json.dumps(a),
                "status": "completed",
            }
            for k, (i, n, a) in enumerate(calls)
        ],
    }


def _responses_stream(calls: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for k, (i, n, a) in enumerate(calls):
        item = {"type": "function_call", "id": f"fc_{k}", "call_id": i, "name": n, "arguments": ""}
        events.append({"type": "response.output_item.added", "output_index": k, "item": item})
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "output_index": k,
                "delta": json.dumps(a),
            }
        )
    return events


def _realtime(calls: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    output = [
        {
            "type": "function_call",
            "id": f"item_{k}",
            "call_id": i,
            "name": n,
            "arguments": json.dumps(a),
        }
        for k, (i, n, a) in enumerate(calls)
    ]
    done = [
        {
            "type": "response.function_call_arguments.done",
            "item_id": f"item_{k}",
            "call_id": i,
            "name": n,
        }
        for k, (i, n, _) in enumerate(calls)
    ]
    return [*done, {"type": "response.done", "event_id": "e", "response": {"output": output}}]


def _anthropic(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _anthropic_stream(calls: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "message_start", "message": _anthropic([])}]
    for k, (i, n, a) in enumerate(calls):
        block = {"type": "tool_use", "id": i, "name": n, "input": {}}
        events.append({"type": "content_block_start", "index": k, "content_block": block})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(a)}
        events.append({"type": "content_block_delta", "index": k, "delta": delta})
        events.append({"type": "content_block_stop", "index": k})
    return [*events, {"type": "message_stop"}]


def _gemini(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    parts = [{"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls]
    return {"candidates": [{"content": {"role": "model", "parts": parts}}]}


def _bedrock(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    content = [{"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in calls]
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use",
    }


def _bedrock_stream(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for k, (i, n, a) in enumerate(calls):
        start = {"toolUse": {"toolUseId": i, "name": n}}
        events.append({"contentBlockStart": {"start": start, "contentBlockIndex": k}})
        delta = {"toolUse": {"input": json.dumps(a)}}
        events.append({"contentBlockDelta": {"delta": delta, "contentBlockIndex": k}})
    return {"stream": events}


def _mistral(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
    ]
    return {
        "id": "x",
        "object": "chat.completion",
        "model": "m",
        "created": 0,
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": "", "tool_calls": tool_calls},
            }
        ],
    }


def _ollama(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    tool_calls = [{"function": {"name": n, "arguments": a}} for _, n, a in calls]
    return {
        "model": "m",
        "created_at": "2025-01-01T00:00:00Z",
        "done": True,
        "message": {"role": "assistant", "content": "", "tool_calls": tool_calls},
    }


def _mcp(calls: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [
        {"jsonrpc": "2.0", "id": k, "method": "tools/call", "params": {"name": n, "arguments": a}}
        for k, (_, n, a) in enumerate(calls)
    ]


# (build, parse, SDK type that must accept the valid form, or None)
PROVIDERS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], list[ToolCall]], Any]] = {
    "openai_chat": (_chat, openai_chat.parse_calls, chat_types.ChatCompletion),
    "openai_chat stream": (_chat_stream, openai_chat.parse_calls, chat_types.ChatCompletionChunk),
    "openai_responses": (_responses, openai_responses.parse_calls, responses_types.Response),
    "openai_responses stream": (_responses_stream, openai_responses.parse_calls, None),
    "openai_realtime": (_realtime, openai_realtime.parse_calls, None),
    "anthropic": (_anthropic, anthropic.parse_calls, anthropic_types.Message),
    "anthropic stream": (
        _anthropic_stream,
        anthropic.parse_calls,
        anthropic_types.RawMessageStreamEvent,
    ),
    "gemini": (_gemini, gemini.parse_calls, genai_types.GenerateContentResponse),
    "bedrock": (_bedrock, bedrock.parse_calls, None),
    "bedrock stream": (_bedrock_stream, bedrock.parse_calls, None),
    "mistral": (_mistral, mistral.parse_calls, ChatCompletionResponse),
    "ollama": (_ollama, ollama_provider.parse_calls, ollama.ChatResponse),
    "mcp": (_mcp, mcp.parse_calls, mcp_types.CallToolRequest),
}


def _sdk_accepts(sdk: Any, response: Any) -> None:
    """The valid form is what the official SDK itself reads (a list: each item)."""
    if sdk is None:
        return
    items = response if isinstance(response, list) else [response]
    for item in items:
        if isinstance(sdk, type) and hasattr(sdk, "model_validate"):
            sdk.model_validate(item)
        else:  # a union type alias (anthropic's stream events)
            import pydantic

            pydantic.TypeAdapter(sdk).validate_python(item)


def _answered(calls: list[ToolCall], format_results: Callable[..., Any] | None) -> None:
    outcomes = [TOOLS.invoke_sync(call) for call in calls]
    assert [o.call_id for o in outcomes] == [c.id for c in calls]
    for call, outcome in zip(calls, outcomes, strict=True):
        assert call.name != "None"
        assert call.id != "None"
        if call.provider_data.get("error"):
            assert outcome.is_error
            assert outcome.text == call.provider_data["error"]
    if format_results is not None:
        format_results(outcomes, calls=calls)


_FORMATS: dict[str, Callable[..., Any] | None] = {
    "openai_chat": openai_chat.format_results,
    "openai_responses": openai_responses.format_results,
    "openai_realtime": openai_realtime.format_results,
    "anthropic": anthropic.format_results,
    "gemini": gemini.format_results,
    "bedrock": bedrock.format_results,
    "mistral": mistral.format_results,
    "ollama": ollama_provider.format_results,
    "mcp": mcp.format_results,
}


@pytest.mark.parametrize("provider", list(PROVIDERS))
@settings(SETTINGS, max_examples=max(EXAMPLES // 3, 1))
@given(calls=_calls())
def test_valid_responses_parse_into_every_call(
    provider: str, calls: list[tuple[str, str, dict[str, Any]]]
) -> None:
    build, parse, sdk = PROVIDERS[provider]
    response = build(calls)
    _sdk_accepts(sdk, response["stream"] if provider == "bedrock stream" else response)
    parsed = parse(response)
    assert [c.name for c in parsed] == [n for _, n, _ in calls]
    _answered(parsed, _FORMATS[provider.split()[0]])


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if len(path) > 8:  # inside deep junk: the response's own shape is above
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


@st.composite
def _mutated(draw: st.DrawFn, build: Callable[[Any], Any]) -> Any:
    response = build(draw(_calls()))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(response)
        path = draw(st.sampled_from(paths))
        junk = copy.deepcopy(draw(_JUNK))  # `st.just` values are shared between examples
        if not path:
            response = junk
            continue
        parent = response
        for step in path[:-1]:
            parent = parent[step]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = junk
    return response


@pytest.mark.parametrize("provider", list(PROVIDERS))
@SETTINGS
@given(data=st.data())
def test_mutated_responses_parse_or_raise_response_format_error(
    provider: str, data: st.DataObject
) -> None:
    build, parse, _ = PROVIDERS[provider]
    response = data.draw(_mutated(build))
    try:
        parsed = parse(response)
    except ResponseFormatError as error:
        problem = error  # our one exception; anything else fails the test
    else:
        _answered(parsed, _FORMATS[provider.split()[0]])
        return
    assert str(problem).startswith(f"{problem.provider} ")
    assert problem.problem


_HERMES_PIECES = st.sampled_from(
    [
        "<tool_call>",
        "</tool_call>",
        "<think>",
        "</think>",
        '{"name": "add", "arguments": {"a": 1, "b": 2}}',
        '{"name": "add", "parameters": {}}',
        "<function=add>",
        "<parameter=a>",
        "1",
        "</parameter>",
        "</function>",
        "```json\n",
        "```",
        ", ",
        "\n",
        "[",
        "]",
        '"',
        "'",
        "prose ",
    ]
)


@SETTINGS
@given(st.lists(_HERMES_PIECES | st.text(max_size=6), max_size=25), st.integers(0, 400))
def test_hermes_text_parses_or_raises_response_format_error(pieces: list[str], cut: int) -> None:
    text = "".join(pieces)
    for candidate in (text, text[:cut]):
        parsed = hermes.parse_text(candidate, tools=[TOOLS.get("add")])
        assert all(c.id == f"call_{k}" for k, c in enumerate(parsed.calls))
        _answered(
            list(parsed.calls), lambda outcomes, calls: hermes.format_results(outcomes, calls=calls)
        )


@pytest.mark.parametrize(
    "response",
    [42, 1.5, None, object(), b"bytes", "text"],
)
@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_non_responses_raise_response_format_error(provider: str, response: Any) -> None:
    _, parse, _ = PROVIDERS[provider]
    if provider == "mcp" and response == "text":
        response = "{not json"
    with pytest.raises(ResponseFormatError):
        parse(response)


# -- the crashes issue 10 names, one by one ---------------------------------------

KNOWN_CRASHES = [
    (openai_chat.parse_calls, {"choices": []}, "OpenAI Chat response: choices is empty"),
    (
        openai_chat.parse_calls,
        {"choices": [{"message": {"tool_calls": [{"id": "a", "function": {}}, 7]}}]},
        "OpenAI Chat response: choices[0].message.tool_calls[1] is a number, not an object",
    ),
    (
        openai_responses.parse_calls,
        {"output": [{"type": "function_call", "name": "add", "arguments": "{}"}]},
        "OpenAI Responses response: output[0].call_id is missing",
    ),
    (
        bedrock.parse_calls,
        {"output": {"message": {"content": [{"toolUse": {"name": "add", "input": {}}}]}}},
        "Bedrock response: output.message.content[0].toolUse.toolUseId is missing",
    ),
    (
        anthropic.parse_calls,
        [{"type": "content_block_start", "content_block": {"type": "tool_use", "id": "t"}}],
        "Anthropic stream response: event[0].index is missing",
    ),
    (mcp.parse_calls, "", "MCP request is not valid JSON"),
    (gemini.parse_calls, {"functionCalls": "add"}, "Gemini response: functionCalls is a string"),
    (
        openai_realtime.parse_calls,
        {"type": "response.done", "response": {"output": "x"}},
        "OpenAI Realtime response: response.output is a string, not a list",
    ),
]


@pytest.mark.parametrize(("parse", "response", "message"), KNOWN_CRASHES)
def test_provider_responses_never_crash_on_the_known_cases(
    parse: Callable[[Any], Any], response: Any, message: str
) -> None:
    with pytest.raises(ResponseFormatError) as caught:
        parse(response)
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("parse", "response"),
    [
        (openai_chat.parse_calls, {"tool_calls": [{"id": "c1", "function": {"arguments": "{}"}}]}),
        (anthropic.parse_calls, {"content": [{"type": "tool_use", "id": "t1", "input": {}}]}),
        (gemini.parse_calls, {"parts": [{"functionCall": {"args": {}}}]}),
        (bedrock.parse_calls, {"content": [{"toolUse": {"toolUseId": "b1", "input": {}}}]}),
        (ollama_provider.parse_calls, {"message": {"tool_calls": [{"function": {}}]}}),
        (mistral.parse_calls, {"tool_calls": [{"function": {"name": None}}]}),
        (mcp.parse_calls, {"method": "tools/call", "params": {"name": 5}}),
        (openai_responses.parse_calls, [{"type": "function_call", "call_id": "r1"}]),
    ],
)
def test_a_call_without_a_name_is_answered_with_an_error_never_none(
    parse: Callable[[Any], list[ToolCall]], response: Any
) -> None:
    (call,) = parse(response)
    assert call.name == ""
    assert call.id not in ("", "None")
    outcome = TOOLS.invoke_sync(call)
    assert outcome.is_error
    assert outcome.call_id == call.id
    assert outcome.text.startswith("The call has ")
    assert "Unknown tool" not in outcome.text


def test_duplicate_call_ids_get_every_call_answered() -> None:
    # Two calls share an id: results keep the wire id and are matched in order.
    response = _chat([("dup", "add", {"a": 1, "b": 2}), ("dup", "add", {"a": 3, "b": 4})])
    calls = openai_chat.parse_calls(response)
    outcomes = [TOOLS.invoke_sync(c) for c in calls]
    messages = openai_chat.format_results(reversed(outcomes[:1]), calls=calls)
    assert [(m["tool_call_id"], m["content"]) for m in messages] == [
        ("dup", "3"),
        ("dup", "Error: The call to 'add' was not run."),
    ]
    messages = openai_chat.format_results(outcomes, calls=calls)
    assert [m["content"] for m in messages] == ["3", "7"]
    for parse, build, fmt in (
        (anthropic.parse_calls, _anthropic, anthropic.format_results),
        (bedrock.parse_calls, _bedrock, bedrock.format_results),
        (openai_responses.parse_calls, _responses, openai_responses.format_results),
        (gemini.parse_calls, _gemini, gemini.format_results),
    ):
        calls = parse(build([("dup", "add", {"a": 1, "b": 2}), ("dup", "add", {"a": 3, "b": 4})]))
        assert len(calls) == 2
        fmt([TOOLS.invoke_sync(c) for c in calls], calls=calls)  # answers both, raises nothing
    with pytest.raises(ValueError, match="Two results answer call 'dup'"):
        openai_chat.format_results([*outcomes, outcomes[0]], calls=calls)


def test_openai_realtime_keeps_two_calls_that_share_an_id() -> None:
    calls = openai_realtime.parse_calls(_realtime([("dup", "add", {"a": 1, "b": 2})] * 2))
    assert [(c.id, c.provider_data["item_id"]) for c in calls] == [
        ("dup", "item_0"),
        ("dup", "item_1"),
    ]
    events = openai_realtime.format_results([TOOLS.invoke_sync(c) for c in calls], calls=calls)
    assert [e["item"]["output"] for e in events[:-1]] == ["3", "3"]
