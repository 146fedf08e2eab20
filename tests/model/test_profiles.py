"""The `llama-cpp-python` profile against the real server: what it avoids fails, and with it works.

Each premise of the profile is checked on the server itself first (a request as a
plain OpenAI client would send it fails), then the same request through the
profile succeeds.
"""

from __future__ import annotations

from typing import Any

import pytest

from model.tools import TOOLS, history
from toolcast import Tool
from toolcast.loop import ModelRequest
from toolcast.providers import openai_chat

pytestmark = pytest.mark.model

openai = pytest.importorskip("openai")

SPECS = [Tool.from_function(f).spec for f in TOOLS]


def models(url: str) -> tuple[Any, Any]:
    client = openai.AsyncOpenAI(base_url=url, api_key="local", max_retries=0)
    plain = openai_chat.Model(client, "gemma-3-270m", temperature=0, max_tokens=64)
    local = openai_chat.Model(client, "gemma-3-270m", profile="llama-cpp-python", temperature=0)
    return plain, local


async def test_a_null_assistant_content_fails_and_the_profile_sends_an_empty_string(
    llama_server: str,
) -> None:
    plain, local = models(llama_server)
    with pytest.raises(openai.InternalServerError):
        await plain.complete(ModelRequest(messages=history(plain), tools=SPECS))

    turn = await local.complete(ModelRequest(messages=history(local), tools=SPECS))

    assert turn.finish_reason in ("stop", "tool_calls", "length")


async def test_required_fails_and_the_profile_gets_it_through_the_grammar(
    llama_server: str,
) -> None:
    plain, local = models(llama_server)
    first = plain.user_message("Weather in Paris?")
    with pytest.raises(openai.InternalServerError):
        await plain.complete(ModelRequest(messages=first, tools=SPECS, tool_choice="required"))

    turn = await local.complete(ModelRequest(messages=first, tools=SPECS, tool_choice="weather"))

    assert [call.name for call in turn.calls] == ["weather"]
    outcome = await Tool.from_function(TOOLS[0]).invoke(turn.calls[0].arguments)
    assert not outcome.is_error, outcome.text


STORY = Tool.from_schema(
    "story",
    "Write a story.",
    {
        "type": "object",
        "properties": {"text": {"type": "string", "minLength": 600}},
        "required": ["text"],
    },
    lambda **_: None,
).spec
LONG = {"grammar": "root ::= [a-z]{1200}"}  # about a minute of generation on 2 CPUs


async def _quick(url: str, timeout: float) -> None:
    client = openai.AsyncOpenAI(base_url=url, api_key="local", max_retries=0, timeout=timeout)
    messages = [{"role": "user", "content": "Hi"}]
    await client.chat.completions.create(model="g", messages=messages, max_tokens=2)


async def test_a_timed_out_request_goes_on_and_the_profile_streams_to_stop_it(
    llama_server: str,
) -> None:
    # Premise: after a non-streamed request times out, the server goes on generating
    # it, and the next request waits behind it.
    short = openai.AsyncOpenAI(base_url=llama_server, api_key="local", max_retries=0, timeout=3)
    messages = [{"role": "user", "content": "Write."}]
    with pytest.raises(openai.APITimeoutError):
        await short.chat.completions.create(
            model="g", messages=messages, max_tokens=1300, extra_body=LONG
        )
    with pytest.raises(openai.APITimeoutError):
        await _quick(llama_server, timeout=8)
    await _quick(llama_server, timeout=300)  # waits until the server is free again

    # Through the profile: the constrained request is streamed, and the client's
    # timeout closes the stream, which stops the server at once.
    model = openai_chat.Model(short, "g", profile="llama-cpp-python", temperature=0)
    request = ModelRequest(messages=messages, tools=[STORY], tool_choice="story")
    with pytest.raises(openai.APITimeoutError):
        await model.complete(request)
    await _quick(llama_server, timeout=8)
