"""A real local model (Gemma 3 270M, llama-cpp-python's server) in pydantic-ai with toolcast tools.

Part of the `model` suite (`python -m pytest -m model tests/integrations/test_local_model.py`,
needs the `model` extra); the server comes from `tests/model/conftest.py`. What is
asserted is toolcast's side, whatever the small model says: the run never raises
out of a tool call (it ends with an answer, pydantic-ai's retry limit, or the
request limit that keeps it inside the model's context), and every tool result the
model read is either a tool's value or a toolcast message naming what was wrong.
"""

from __future__ import annotations

import pytest

from model.conftest import gguf, llama_server  # noqa: F401 - the model suite's fixtures
from model.null_content import EmptyContent
from model.tools import TOOLS
from toolcast import Catalog, Policy

pytestmark = pytest.mark.model

pytest.importorskip("pydantic_ai")
pytest.importorskip("openai")


async def test_a_local_model_calls_toolcast_tools_through_pydantic_ai(llama_server: str) -> None:  # noqa: F811
    from pydantic_ai import Agent, capture_run_messages
    from pydantic_ai.exceptions import UnexpectedModelBehavior, UsageLimitExceeded
    from pydantic_ai.messages import RetryPromptPart, ToolReturnPart
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    from toolcast.integrations import pydantic_ai as tc_pai

    tools = Catalog(TOOLS).select()
    model = OpenAIChatModel(
        "gemma-3-270m",
        provider=OpenAIProvider(
            base_url=llama_server,
            api_key="local",
            # llama-cpp-python refuses the null content pydantic-ai sends beside tool_calls
            http_client=EmptyContent.client(timeout=120),
        ),
    )
    agent = Agent(
        model,
        system_prompt="You are a helpful assistant. Use the tools to answer.",
        toolsets=[tc_pai.toolset(tools, policy=Policy(allow=["*"]), max_retries=3)],
    )
    with capture_run_messages() as messages:
        try:
            # A request limit keeps a small model's retries inside its 2,048-token context.
            await agent.run(
                "What is 2 plus 3? Use the add tool.", usage_limits=UsageLimits(request_limit=6)
            )
        except UnexpectedModelBehavior as exc:
            # pydantic-ai's own retry limit (max_retries=3 above), by design.
            assert "exceeded max retries" in str(exc)  # noqa: PT017 - either outcome is allowed
        except UsageLimitExceeded:
            pass  # the request limit above: what was answered so far is checked below
    parts = [p for m in messages for p in m.parts]
    answered = [p for p in parts if isinstance(p, (ToolReturnPart, RetryPromptPart))]
    names = set(tools.names())
    for part in answered:
        assert part.tool_name in names or "Unknown tool" in str(part.content)
        assert "Traceback" not in str(part.content)
