"""auto_execute tools against a real grpc.aio server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from conftest import Compiled, Running
from toolcast import Catalog, Tool, ToolContext
from toolcast.aliases import RAW_IDS
from toolcast.errors import ToolError
from toolcast.grpc import tools_from_descriptors

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")


def by_name(tools: list[Tool]) -> dict[str, Tool]:
    return {tool.name: tool for tool in tools}


@pytest.fixture
def tools(compiled: Compiled, server: Running) -> dict[str, Tool]:
    return by_name(tools_from_descriptors(compiled.with_comments, channel=server.channel))


async def test_create_returns_proto_named_json_with_int64_as_string(
    tools: dict[str, Tool], server: Running
) -> None:
    outcome = await tools["links_create"].invoke(
        {
            "destination": "https://example.com",
            "shortlink": "",
            "kind": "LINK_KIND_PAGE",
            "max_clicks": "18446744073709551615",
            "cache_ttl": "1.5s",
            "tags": ["a"],
        },
        aliases=RAW_IDS,
    )
    assert not outcome.is_error, outcome.text
    link = json.loads(outcome.text)["link"]
    assert UUID.match(link["id"])
    assert UUID.match(link["workspace_id"])
    assert link["clicks"] == str(1 << 40)  # protojson writes int64 as a decimal string
    assert link["created_at"] == "2023-11-14T22:13:20Z"
    assert link["kind"] == "LINK_KIND_PAGE"
    assert link["cache_ttl"] == "1.500s"
    assert "page_theme_id" not in link  # unset fields are left out
    method, request = server.state.requests[-1]
    assert method == "CreateLink"
    assert request.max_clicks == 2**64 - 1


async def test_int64_accepts_a_number_too(tools: dict[str, Tool], server: Running) -> None:
    args = {"destination": "https://a.b", "shortlink": "", "kind": "LINK_KIND_PAGE"}
    outcome = await tools["links_create"].invoke({**args, "max_clicks": 7}, aliases=RAW_IDS)
    assert not outcome.is_error, outcome.text
    assert server.state.requests[-1][1].max_clicks == 7


async def test_null_leaves_an_optional_unset(compiled: Compiled, server: Running) -> None:
    tools = by_name(tools_from_descriptors(compiled.with_comments, channel=server.channel))
    outcome = await tools["links_create"].invoke(
        {
            "destination": "https://a.b",
            "shortlink": "",
            "kind": "LINK_KIND_PAGE",
            "max_clicks": 1,
            "note": "hello",
        },
        aliases=RAW_IDS,
    )
    assert json.loads(outcome.text)["link"]["note"] == "hello"
    # Strict projections send null for every optional they leave out.
    outcome = await tools["links_create"].invoke(
        {
            "destination": "https://a.b",
            "shortlink": "",
            "kind": "LINK_KIND_PAGE",
            "max_clicks": 1,
            "note": None,
            "title": None,
            "expires_at": None,
        },
        null_means_default=True,
        aliases=RAW_IDS,
    )
    assert not outcome.is_error, outcome.text
    request = server.state.requests[-1][1]
    assert not request.HasField("note")
    assert not request.HasField("title")


async def test_field_mask_string_reaches_the_server(
    tools: dict[str, Tool], server: Running
) -> None:
    created = await tools["links_create"].invoke(
        {
            "destination": "https://a.b",
            "shortlink": "",
            "kind": "LINK_KIND_PAGE",
            "max_clicks": 1,
        },
        aliases=RAW_IDS,
    )
    link_id = json.loads(created.text)["link"]["id"]
    outcome = await tools["links_update"].invoke(
        {
            # Plain proto3 scalars are required, nested ones too (as in the original);
            # the mask says which of them the server applies.
            "link": {
                "id": link_id,
                "workspace_id": "",
                "destination": "https://new.example",
                "kind": "LINK_KIND_PAGE",
                "clicks": 0,
                "tags": ["x"],
            },
            "update_mask": "destination,tags",
        },
        aliases=RAW_IDS,
    )
    assert not outcome.is_error, outcome.text
    request = server.state.requests[-1][1]
    assert list(request.update_mask.paths) == ["destination", "tags"]
    assert json.loads(outcome.text)["destination"] == "https://new.example"


async def test_invalid_argument_message_is_passed_through(tools: dict[str, Tool]) -> None:
    outcome = await tools["links_create"].invoke(
        {
            "destination": "ftp://x",
            "shortlink": "",
            "kind": "LINK_KIND_PAGE",
            "max_clicks": 1,
        },
        aliases=RAW_IDS,
    )
    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "tool_error"
    assert outcome.text == "INVALID_ARGUMENT: destination must start with https://"


async def test_not_found_names_the_code(tools: dict[str, Tool]) -> None:
    outcome = await tools["links_get"].invoke(
        {"id": "0f8fad5b-d9cb-469f-a165-70867728950e"}, aliases=RAW_IDS
    )
    assert outcome.is_error
    assert outcome.text == "NOT_FOUND: no link 0f8fad5b-d9cb-469f-a165-70867728950e"


async def test_deadline_is_a_timeout_and_the_server_sees_the_cancel(
    compiled: Compiled, server: Running
) -> None:
    tools = by_name(
        tools_from_descriptors(compiled.with_comments, channel=server.channel, timeout=0.2)
    )
    outcome = await tools["links_slow"].invoke({"delay": "5s"}, aliases=RAW_IDS)
    assert outcome.is_error
    assert outcome.text == (
        "Tool 'links_slow' timed out after 0.2 s (DEADLINE_EXCEEDED); "
        "the call can be retried, or ask for less."
    )
    for _ in range(50):  # the server's handler is cancelled when the deadline passes
        if server.state.cancelled:
            break
        await asyncio.sleep(0.02)
    assert server.state.cancelled == ["Slow"]
    quick = await tools["links_slow"].invoke({"delay": "0.01s"}, aliases=RAW_IDS)
    assert json.loads(quick.text) == {"done": True}


async def test_unavailable_is_retryable_and_internal_hides_details(compiled: Compiled) -> None:
    import grpc

    channel = grpc.aio.insecure_channel("127.0.0.1:1")  # nothing listens on port 1
    try:
        tools = by_name(tools_from_descriptors(compiled.with_comments, channel=channel))
        outcome = await tools["links_get"].invoke({"id": "x"}, aliases=RAW_IDS)
    finally:
        await channel.close()
    assert outcome.text == (
        "UNAVAILABLE: the service is unreachable right now; the same call can be retried."
    )


async def test_metadata_comes_from_the_context(tools: dict[str, Tool], server: Running) -> None:
    context = ToolContext(state={"grpc_metadata": [("authorization", "Bearer user-7")]})
    await tools["links_list"].invoke({"page_size": 1}, context=context, aliases=RAW_IDS)
    assert server.state.metadata[-1]["authorization"] == "Bearer user-7"


async def test_metadata_hook(compiled: Compiled, server: Running) -> None:
    def hook(context: ToolContext | None) -> list[tuple[str, str]]:
        user = context.state["user"] if context else "anonymous"
        return [("x-user", user)]

    tools = by_name(
        tools_from_descriptors(compiled.with_comments, channel=server.channel, metadata=hook)
    )
    await tools["links_list"].invoke(
        {"page_size": 1}, context=ToolContext(state={"user": "ann"}), aliases=RAW_IDS
    )
    assert server.state.metadata[-1]["x-user"] == "ann"


async def test_server_streaming_is_collected_and_bounded(
    compiled: Compiled, server: Running
) -> None:
    tools = by_name(
        tools_from_descriptors(compiled.with_comments, channel=server.channel, max_messages=3)
    )
    few = json.loads(
        (
            await tools["workflow_steps_watch"].invoke(
                {"link_id": "l", "count": 2}, aliases=RAW_IDS
            )
        ).text
    )
    assert [m["title"] for m in few["messages"]] == ["s0", "s1"]
    assert few["truncated"] is False
    many = json.loads(
        (
            await tools["workflow_steps_watch"].invoke(
                {"link_id": "l", "count": 50}, aliases=RAW_IDS
            )
        ).text
    )
    assert len(many["messages"]) == 3
    assert many["truncated"] is True


async def test_recursive_request(tools: dict[str, Tool]) -> None:
    tree = {"root": {"title": "a", "children": [{"title": "b", "children": [{"title": "c"}]}]}}
    outcome = await tools["workflow_tree_import"].invoke(tree, aliases=RAW_IDS)
    assert json.loads(outcome.text) == {"count": 3}


async def test_validation_happens_before_the_rpc(tools: dict[str, Tool], server: Running) -> None:
    outcome = await tools["links_slow"].invoke({"delay": "five seconds"}, aliases=RAW_IDS)
    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "invalid_arguments"
    assert server.state.requests == []


async def test_host_handler_for_a_tool_that_is_not_auto_execute(compiled: Compiled) -> None:
    seen: list[Any] = []

    def get_theme(arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append(arguments)
        return {"id": arguments["id"], "name": "dark"}

    tools = by_name(
        tools_from_descriptors(compiled.with_comments, handlers={"themes_get": get_theme})
    )
    outcome = await tools["themes_get"].invoke({"id": "t"}, aliases=RAW_IDS)
    assert json.loads(outcome.text) == {"id": "t", "name": "dark"}
    assert seen == [{"id": "t"}]
    # Without a channel an auto_execute tool says why it cannot run.
    refused = await tools["links_get"].invoke({"id": "x"}, aliases=RAW_IDS)
    assert refused.text == "Tool 'links_get' cannot run here: the host gave no gRPC channel."


async def test_tools_live_in_a_catalog(tools: dict[str, Tool], server: Running) -> None:
    catalog = Catalog(tools.values())
    toolset = catalog.select()
    from toolcast import ToolCall

    outcome = await toolset.invoke(
        ToolCall("c1", "links_list", '{"page_size": 5}'), aliases=RAW_IDS
    )
    assert not outcome.is_error
    assert outcome.call_id == "c1"


async def test_a_service_is_a_toolbox(tools: dict[str, Tool], server: Running) -> None:
    from toolcast import ToolCall
    from toolcast.grpc import service_toolboxes

    boxes = service_toolboxes(tools.values())
    assert [box.name for box in boxes][:2] == ["kitchen_service", "links_service"]
    catalog = Catalog(boxes)
    links = catalog.toolbox("links_service")
    assert "links_create" in links.member_names
    assert links.description == "Tools of the links.v1.LinksService gRPC service."
    primary = [tool.name for tool in catalog.primary()]
    assert "links_create" not in primary
    assert "links_service" in primary
    listed = await catalog.select().invoke(ToolCall("c1", "links_service", "{}"), aliases=RAW_IDS)
    assert "links_create" in listed.text
    outcome = await catalog.select().invoke(
        ToolCall("c2", "links_list", '{"page_size": 1}'), aliases=RAW_IDS
    )
    assert not outcome.is_error


def test_status_words() -> None:
    from toolcast.grpc._executor import status_message

    assert status_message("INTERNAL", "Traceback: secret") == (
        "INTERNAL: the service failed to handle the call."
    )
    assert status_message("DEADLINE_EXCEEDED", "x").startswith("DEADLINE_EXCEEDED: the service")
    assert status_message("FAILED_PRECONDITION", "link is archived") == (
        "FAILED_PRECONDITION: link is archived"
    )


async def test_every_shape_round_trips_through_a_real_call(
    tools: dict[str, Tool], server: Running
) -> None:
    from test_grpc_schema import sink_args

    outcome = await tools["kitchen_sink"].invoke(sink_args(), aliases=RAW_IDS)
    assert not outcome.is_error, outcome.text
    back = json.loads(outcome.text)
    assert back["big"] == "-9223372036854775808"
    assert back["huge"] == "18446744073709551615"
    assert back["wait"] == "90s"
    assert back["mask"] == "ratio,bigWrapped,inner.label"
    assert back["at"] == "2024-05-01T10:00:00Z"  # the offset is normalised to Z
    assert back["packed"] == {
        "@type": "type.googleapis.com/google.protobuf.Duration",
        "value": "1s",
    }
    assert back["by_number"] == {"7": "seven"}
    assert back["list"] == [1.0, "two"]
    assert back["inner"] == {"label": "y", "nothing": {}}
    assert back["big_wrapped"] == "42"
    assert "maybe" not in back
    assert "flag_wrapped" not in back
    output = tools["kitchen_sink"].spec.output_schema
    assert output is not None
    from jsonschema import Draft202012Validator

    Draft202012Validator(output).validate(back)  # the output schema describes the answer


async def test_what_protojson_refuses_is_an_error_result(
    tools: dict[str, Tool], server: Running
) -> None:
    from test_grpc_schema import sink_args

    from toolcast.grpc._convert import RequestConverter

    # Two members of a oneof: the schema refuses them, nothing is sent.
    outcome = await tools["kitchen_sink"].invoke(
        {**sink_args(), "a": "x", "b": "y"}, aliases=RAW_IDS
    )
    assert outcome.is_error
    assert "Argument 'a' must not" in outcome.text or "must not" in outcome.text
    # A strict tool's schema has no `not` (strict grammars lack it): the executor's
    # conversion refuses them with protojson's words, naming the oneof.
    from kitchen.v1 import kitchen_pb2

    with pytest.raises(ToolError, match='"first" oneof'):
        RequestConverter("kitchen_sink_strict", kitchen_pb2.Sink)({"a": "x", "b": "y"})
    assert server.state.requests == []  # never sent
