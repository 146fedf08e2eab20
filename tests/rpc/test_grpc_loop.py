"""Through the loop with ScriptedModel: create, alias shown, alias used, UUID at the server."""

from __future__ import annotations

import json

from conftest import Compiled, Running
from toolcast import Catalog, ToolCall
from toolcast.aliases import AliasSession
from toolcast.grpc import tools_from_descriptors
from toolcast.loop import Conversation, run
from toolcast.policy import Policy
from toolcast.testing import ScriptedModel, call


async def test_create_alias_use_alias_uuid_reaches_the_server(
    compiled: Compiled, server: Running
) -> None:
    tools = tools_from_descriptors(compiled.with_comments, channel=server.channel)
    toolset = Catalog(tools).select()
    conversation = Conversation(id="conv-1")
    conversation.aliases = AliasSession("conv-1")
    args = {"destination": "https://example.com", "shortlink": "", "kind": "LINK_KIND_PAGE"}
    model = ScriptedModel(
        [
            [call("links_create", **args, max_clicks=5)],
            [ToolCall("c2", "links_get", '{"id": "link-1"}')],  # call() takes id= itself
            "Done.",
        ]
    )
    result = await run(
        model,
        "Make a link",
        tools=toolset,
        conversation=conversation,
        policy=Policy(allow=["links_*"]),
    )
    assert result.status == "done", result
    created, fetched = (record.outcome for record in result.calls)
    assert created is not None
    assert fetched is not None
    shown = json.loads(created.text)["link"]
    assert shown["id"] == "link-1"  # the model sees the alias
    sent = server.state.requests[0][1]
    assert server.state.requests[1][0] == "GetLink"
    assert server.state.requests[1][1].id in server.state.links  # the UUID reached the server
    assert shown["workspace_id"] in {link.workspace_id for link in server.state.links.values()}
    assert json.loads(fetched.text)["id"] == "link-1"
    assert sent.destination == "https://example.com"


async def test_an_invented_alias_never_reaches_the_server(
    compiled: Compiled, server: Running
) -> None:
    tools = tools_from_descriptors(compiled.with_comments, channel=server.channel)
    toolset = Catalog(tools).select()
    conversation = Conversation(id="conv-2")
    conversation.aliases = AliasSession("conv-2")
    model = ScriptedModel([[ToolCall("c1", "links_get", '{"id": "link-7"}')], "Sorry."])
    result = await run(
        model, "Get link-7", tools=toolset, conversation=conversation, policy=Policy(allow=["*"])
    )
    (record,) = result.calls
    assert record.outcome is not None
    assert record.outcome.is_error
    assert "is not a link id in this conversation" in record.outcome.text
    assert server.state.requests == []


async def test_a_list_response_aliases_with_its_items_prefixes(
    compiled: Compiled, server: Running
) -> None:
    import uuid

    tools = tools_from_descriptors(compiled.with_comments, channel=server.channel)
    toolset = Catalog(tools).select()
    session = AliasSession("conv-3")
    link = str(uuid.uuid4())
    assert await session.register("link", link) == "link-1"
    outcome = await toolset.invoke(
        ToolCall("c1", "workflow_steps_list", '{"link_id": "link-1"}'), aliases=session
    )
    assert server.state.requests[-1][1].link_id == link
    steps = json.loads(outcome.text)["steps"]
    assert [s["id"] for s in steps] == ["step-1", "step-2"]
    assert {s["link_id"] for s in steps} == {"link-1"}
    assert link not in outcome.text


def test_strict_projections_keep_strict_rules(compiled: Compiled) -> None:
    from toolcast.providers import openai_chat

    tools = tools_from_descriptors(compiled.with_comments)
    strict = [t for t in tools if t.spec.strict and t.name != "kitchen_sink_strict"]
    assert {t.name for t in strict} == {"kitchen_choose", "links_list", "workflow_steps_add"}

    def closed(node: object) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" or "properties" in node:
                assert node["additionalProperties"] is False
                assert sorted(node["required"]) == sorted(node["properties"])
            for value in node.values():
                closed(value)
        elif isinstance(node, list):
            for value in node:
                closed(value)

    for entry in openai_chat.format_tools(strict):
        assert entry["function"]["strict"] is True
        closed(entry["function"]["parameters"])
