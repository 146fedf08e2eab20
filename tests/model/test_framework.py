"""The real model through a framework: pydantic-ai's Agent with toolcast's toolset.

Issue 23 asks for the `model` suite's local model through one framework. The agent
talks to llama-cpp-python's OpenAI-compatible server with pydantic-ai's own
`OpenAIChatModel`; every call the model makes goes through
`toolcast.integrations.pydantic_ai.toolset`. What is asserted is toolcast's side,
whatever the model says: each call to a known tool is answered (a return, or a
`RetryPromptPart` naming the problem) and toolcast's verdict agrees with an
independent JSON Schema validator. The model may still exhaust pydantic-ai's retry
budget, which pydantic-ai reports as `UnexpectedModelBehavior` by design; that is
counted, not hidden.

llama-cpp-python's server refuses the null `content` pydantic-ai sends beside
`tool_calls`; the agent's client sends through `model.null_content.EmptyContent`.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from model.conftest import FIGURES
from model.tools import CONVERSATIONS, TOOLS
from toolcast import Catalog, Policy

pytestmark = pytest.mark.model

pytest.importorskip("pydantic_ai")
pytest.importorskip("openai")

from pydantic_ai import Agent, UsageLimits, capture_run_messages  # noqa: E402
from pydantic_ai.exceptions import UnexpectedModelBehavior, UsageLimitExceeded  # noqa: E402
from pydantic_ai.messages import RetryPromptPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from model.null_content import EmptyContent  # noqa: E402
from toolcast.integrations import pydantic_ai as tc_pai  # noqa: E402

TOOLSET = Catalog(TOOLS).select()
SPECS = {t.spec.name: t.spec for t in TOOLSET.tools()}


def _valid(name: str, args: str | dict[str, Any] | None) -> bool:
    try:
        value = json.loads(args) if isinstance(args, str) else (args or {})
    except ValueError:
        return False
    schema = dict(SPECS[name].input_schema)
    return bool(jsonschema.Draft202012Validator(schema).is_valid(value))


@pytest.mark.parametrize(("expected", "prompt"), CONVERSATIONS, ids=[c[0] for c in CONVERSATIONS])
async def test_pydantic_ai_agent_with_a_real_model_gets_every_call_answered(
    llama_server: str, expected: str, prompt: str
) -> None:
    del expected  # the model may pick another tool; toolcast's side is what is checked
    model = OpenAIChatModel(
        "gemma-3-270m",
        provider=OpenAIProvider(
            base_url=llama_server,
            api_key="unused",
            http_client=EmptyContent.client(timeout=120),
        ),
    )
    agent = Agent(
        model,
        toolsets=[tc_pai.toolset(TOOLSET, policy=Policy(default="allow"), max_retries=2)],
        system_prompt="You are a helpful assistant. Use the tools to answer.",
    )
    figures = FIGURES.setdefault(
        "pydantic-ai agent (llama-cpp-python)",
        {"conversations": 0, "calls": 0, "ran": 0, "refused": 0, "retries_exhausted": 0},
    )
    ended = "done"
    with capture_run_messages() as messages:
        try:
            await agent.run(prompt, usage_limits=UsageLimits(request_limit=6))
        except UnexpectedModelBehavior:
            ended = "retries exhausted"  # pydantic-ai's answer to a spent retry budget
        except UsageLimitExceeded:
            ended = "request limit"
    figures["conversations"] += 1
    figures["retries_exhausted"] += ended == "retries exhausted"
    answers: dict[str, Any] = {}
    calls: list[ToolCallPart] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                calls.append(part)
            elif isinstance(part, (ToolReturnPart, RetryPromptPart)) and part.tool_call_id:
                answers[part.tool_call_id] = part
    for call in calls:
        if call.tool_name not in SPECS:
            continue  # pydantic-ai answers unknown names itself
        answer = answers.get(call.tool_call_id)
        if answer is None:
            # Only the last call of a run the framework ended may be unanswered.
            assert ended != "done", (call, ended)
            continue
        figures["calls"] += 1
        # pydantic-ai 2.x gives a refusal as a RetryPromptPart (`ModelRetry`) or as a
        # ToolReturnPart whose `outcome` is not "success" (`ToolFailed`, a spent budget).
        if isinstance(answer, ToolReturnPart) and answer.outcome == "success":
            figures["ran"] += 1
            assert _valid(call.tool_name, call.args), (call.args, answer.content)
        else:
            figures["refused"] += 1
            text = (
                answer.model_response_str()
                if isinstance(answer, ToolReturnPart)
                else answer.model_response()
            )
            assert text.strip(), call
            if _valid(call.tool_name, call.args):
                # A valid call refused: only a tool's own failure may say so.
                assert "failed" in text or "error" in text.lower(), text
