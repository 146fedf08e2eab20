"""The conversation's alias session: calls resolve `link-1`, the evaluator sees the UUID."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from toolcast import Catalog, Conversation, Policy, ToolCall, run, tool
from toolcast.aliases import Alias
from toolcast.testing import ScriptedModel, call

OPENED: list[uuid.UUID] = []


@tool
def open_link(link: Annotated[uuid.UUID, Alias("link")]) -> str:
    """Open a link."""
    OPENED.append(link)
    return "opened"


async def test_calls_resolve_aliases_and_the_evaluator_sees_the_uuid() -> None:
    OPENED.clear()
    target = uuid.uuid4()
    seen: list[Any] = []

    def evaluator(spec: Any, call: ToolCall, arguments: Any) -> bool:
        seen.append(arguments["link"])
        return True

    conversation = Conversation(id="with-aliases")
    alias = await conversation.aliases.register("link", target)
    assert alias == "link-1"
    model = ScriptedModel(
        [[call("open_link", id="a", link="link-1"), call("open_link", id="b", link="link-7")], "ok"]
    )
    tools = Catalog([open_link]).select()
    result = await run(
        model, "Open it", tools=tools, policy=Policy(evaluator=evaluator), conversation=conversation
    )
    assert seen == [target]
    assert [target] == OPENED
    refused = result.calls[1].outcome
    assert refused is not None
    assert refused.is_error
    assert "link-7" in refused.text
    # The session travels with the conversation's JSON.
    loaded = Conversation.from_json(result.conversation.to_json())
    assert await loaded.aliases.resolve("link-1") == target
