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
