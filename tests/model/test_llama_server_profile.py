"""The `llama-server` profile against upstream llama.cpp's server with `--jinja`.

Each premise is checked on the server itself first (what the server renders or
answers to a plain request), then the same request through the profile. The
server's `/apply-template` returns the prompt a request would be generated from,
so what reaches the model is read directly.
"""

from __future__ import annotations

from typing import Any

import pytest

from model.conftest import Upstream
from model.tools import RESULT, TOOLS, history
from toolcast import Tool, constraint
from toolcast.loop import ModelRequest
from toolcast.providers import openai_chat

pytestmark = pytest.mark.model

openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")

SPECS = [Tool.from_function(f).spec for f in TOOLS]


def profiled(server: Upstream, **options: Any) -> Any:
    client = openai.AsyncOpenAI(base_url=server.url, api_key="local", max_retries=0)
    return openai_chat.Model(
        client, "gemma-3-270m", profile="llama-server", temperature=0, **options
    )


async def post(server: Upstream, path: str, body: dict[str, Any]) -> Any:
    async with httpx.AsyncClient(base_url=server.root, timeout=300) as client:
        return await client.post(path, json=body)


async def test_null_content_results_calls_and_descriptions_reach_the_prompt_unchanged(
    upstream: Upstream,
) -> None:
    local = profiled(upstream)
    sent = local.request(ModelRequest(messages=history(local), tools=SPECS))
    assert sent["messages"][1]["content"] is None  # the profile leaves the history as is

    answer = await post(upstream, "/apply-template", {k: sent[k] for k in ("messages", "tools")})

    assert answer.status_code == 200
    prompt = answer.json()["prompt"]
    assert RESULT in prompt
    assert '{"name": "weather", "arguments": {"city": "Paris"}}' in prompt
    assert all(spec.description.splitlines()[0] in prompt for spec in SPECS)


async def test_a_named_choice_is_ignored_and_the_profile_gets_it_through_the_grammar(
    upstream: Upstream,
) -> None:
    named = {"type": "function", "function": {"name": "weather"}}
    body = {"messages": [{"role": "user", "content": "Weather in Paris?"}], "max_tokens": 1}
    body |= {"tools": openai_chat.format_tools(SPECS), "tool_choice": named}
    answer = await post(upstream, "/v1/chat/completions", body)
    assert answer.status_code == 200
    assert "Wrong type supplied for parameter 'tool_choice'" in upstream.log.read_text()

    local = profiled(upstream)
    first = local.user_message("Weather in Paris?")
    turn = await local.complete(ModelRequest(messages=first, tools=SPECS, tool_choice="weather"))

    assert [call.name for call in turn.calls] == ["weather"]
    outcome = await Tool.from_function(TOOLS[0]).invoke(turn.calls[0].arguments)
    assert not outcome.is_error, outcome.text


async def test_a_grammar_beside_tools_is_refused_so_constrained_requests_send_none(
    upstream: Upstream,
) -> None:
    rule = constraint(SPECS, text=True)
    body = {"messages": [{"role": "user", "content": "What is 17 plus 25?"}], "max_tokens": 8}
    body |= {"tools": openai_chat.format_tools(SPECS), "grammar": rule.grammar}
    answer = await post(upstream, "/v1/chat/completions", body)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == "Cannot use custom grammar constraints with tools."

    local = profiled(upstream, constrain=True)
    request = ModelRequest(messages=local.user_message("What is 17 plus 25?"), tools=SPECS)
    sent = local.request(request, local.constraint_for(request))
    assert "tools" not in sent
    # The grammar sent is bounded to the request's budget, so a call always ends.
    bounded = constraint(SPECS, text=True, max_tokens=local.budget(request))
    assert sent["extra_body"] == {"grammar": bounded.grammar}

    turn = await local.complete(request)

    assert turn.calls, turn.text  # the model could reply in text, but a call is what it wrote
    by_name = {f.__name__: Tool.from_function(f) for f in TOOLS}
    for call in turn.calls:
        outcome = await by_name[call.name].invoke(call.arguments)
        assert not outcome.is_error, outcome.text


async def test_response_format_json_schema_constrains_too(upstream: Upstream) -> None:
    client = openai.AsyncOpenAI(base_url=upstream.url, api_key="local", max_retries=0)
    profile = openai_chat.PROFILES["llama-server"].but(constraint_field="json_schema")
    local = openai_chat.Model(client, "gemma-3-270m", profile=profile, temperature=0)
    first = local.user_message("What is 17 plus 25?")

    turn = await local.complete(ModelRequest(messages=first, tools=SPECS, tool_choice="add"))

    assert [call.name for call in turn.calls] == ["add"]
    outcome = await Tool.from_function(TOOLS[1]).invoke(turn.calls[0].arguments)
    assert not outcome.is_error, outcome.text
