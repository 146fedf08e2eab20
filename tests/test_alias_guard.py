"""An aliased tool invoked without an alias session is refused (issue 24, item 3).

Claims: a tool whose input or output carries alias marks, invoked with no
`aliases=`, raises a TypeError naming the tool, where its marks are and
`aliases=` (invoke, invoke_sync, ToolSet.invoke/invoke_sync, validate_call);
`aliases=RAW_IDS` sends the raw UUIDs as before; a session aliases them; a tool
without marks needs nothing; tools imported from a toolcast MCP server are not
aliased again locally.
"""

from __future__ import annotations

import asyncio
import json
import pickle
import uuid
from typing import Annotated, Any
from uuid import UUID

import pytest
from pydantic import BaseModel

from toolcast import Alias, Catalog, Tool, ToolCall, ToolSet
from toolcast.aliases import RAW_IDS, AliasSession, RawIds

LINK = uuid.uuid4()


class Link(BaseModel):
    id: Annotated[UUID, Alias("link")]
    name: str


def make_link(name: str) -> Link:
    """Make a link."""
    return Link(id=LINK, name=name)


def open_link(link_id: Annotated[UUID, Alias("link")]) -> str:
    """Open a link."""
    return f"opened {link_id}"


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def make_link_later(name: str) -> Link:
    """Make a link, asynchronously."""
    return Link(id=LINK, name=name)


def toolset(tools: list[Tool]) -> ToolSet:
    return Catalog(tools).select()


def refusal(exc: pytest.ExceptionInfo[TypeError]) -> str:
    message = str(exc.value)
    assert "aliases=" in message
    assert "RAW_IDS" in message
    assert "AliasSession" in message
    return message


# -- the refusal ------------------------------------------------------------------------


def test_invoke_without_a_session_is_refused_naming_the_tool_and_the_output_mark() -> None:
    made = Tool.from_function(make_link)
    with pytest.raises(TypeError) as exc:
        asyncio.run(made.invoke({"name": "a"}))
    message = refusal(exc)
    assert message.startswith("Tool 'make_link' aliases ids (output.id) but was invoked")


def test_invoke_sync_without_a_session_is_refused() -> None:
    made = Tool.from_function(make_link)
    for arguments in ('{"name": "a"}', {"name": "a"}, ToolCall("c1", "make_link", {"name": "a"})):
        with pytest.raises(TypeError) as exc:
            made.invoke_sync(arguments)
        assert "Tool 'make_link' aliases ids (output.id)" in refusal(exc)


def test_an_async_tool_without_a_session_is_refused_through_invoke_sync() -> None:
    made = Tool.from_function(make_link_later)
    with pytest.raises(TypeError) as exc:
        made.invoke_sync('{"name": "a"}')
    assert "Tool 'make_link_later' aliases ids (output.id)" in refusal(exc)


def test_input_marks_only_are_named_as_input() -> None:
    made = Tool.from_function(open_link)
    with pytest.raises(TypeError) as exc:
        made.invoke_sync({"link_id": str(LINK)})
    assert "Tool 'open_link' aliases ids (input.link_id)" in refusal(exc)
    with pytest.raises(TypeError):
        asyncio.run(made.invoke({"link_id": str(LINK)}))


def test_input_and_output_marks_are_both_named() -> None:
    def rename(link_id: Annotated[UUID, Alias("link")], name: str) -> Link:
        """Rename a link."""
        return Link(id=link_id, name=name)

    with pytest.raises(TypeError) as exc:
        Tool.from_function(rename).invoke_sync({"link_id": str(LINK), "name": "b"})
    assert "(input.link_id, output.id)" in refusal(exc)


def test_a_hand_written_schema_with_marks_is_refused_too() -> None:
    made = Tool.from_schema(
        "get_item",
        "Get an item.",
        {
            "type": "object",
            "properties": {"ids": {"type": "array", "items": {"type": "string"}}},
        },
        lambda args: {"items": [{"id": str(LINK)}]},
        output_schema={
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"id": {"type": "string", "x-toolcast-alias": "item"}},
                    },
                }
            },
        },
    )
    with pytest.raises(TypeError) as exc:
        made.invoke_sync({})
    assert "Tool 'get_item' aliases ids (output.items[].id)" in refusal(exc)


def test_toolset_invoke_and_invoke_sync_without_a_session_are_refused() -> None:
    tools = toolset([Tool.from_function(make_link)])
    call = ToolCall("c1", "make_link", '{"name": "a"}')
    with pytest.raises(TypeError) as exc:
        asyncio.run(tools.invoke(call))
    assert "Tool 'make_link'" in refusal(exc)
    with pytest.raises(TypeError) as exc:
        tools.invoke_sync(call)
    assert "Tool 'make_link'" in refusal(exc)


def test_validate_call_without_a_session_is_refused() -> None:
    made = Tool.from_function(open_link)
    with pytest.raises(TypeError) as exc:
        asyncio.run(made.validate_call({"link_id": str(LINK)}))
    refusal(exc)
    checked = asyncio.run(made.validate_call({"link_id": str(LINK)}, aliases=RAW_IDS))
    assert checked["link_id"] == LINK


# -- RAW_IDS, a session, no marks -------------------------------------------------------


def test_raw_ids_sends_the_raw_uuids() -> None:
    made = Tool.from_function(make_link)
    outcome = made.invoke_sync({"name": "a"}, aliases=RAW_IDS)
    assert json.loads(outcome.text)["id"] == str(LINK)
    outcome = asyncio.run(made.invoke('{"name": "a"}', aliases=RAW_IDS))
    assert json.loads(outcome.text)["id"] == str(LINK)
    opened = Tool.from_function(open_link).invoke_sync({"link_id": str(LINK)}, aliases=RAW_IDS)
    assert opened.text == f"opened {LINK}"
    tools = toolset([made])
    ran = tools.invoke_sync(ToolCall("c1", "make_link", '{"name": "a"}'), aliases=RAW_IDS)
    assert json.loads(ran.text)["id"] == str(LINK)


def test_a_session_gives_aliases() -> None:
    session = AliasSession("c")
    made = Tool.from_function(make_link)
    outcome = made.invoke_sync({"name": "a"}, aliases=session)
    assert json.loads(outcome.text)["id"] == "link-1"
    assert outcome.value.id == LINK  # the host keeps the UUID
    opened = Tool.from_function(open_link).invoke_sync({"link_id": "link-1"}, aliases=session)
    assert opened.text == f"opened {LINK}"  # the code got the UUID
    again = asyncio.run(
        toolset([made]).invoke(ToolCall("c2", "make_link", '{"name": "b"}'), aliases=session)
    )
    assert json.loads(again.text)["id"] == "link-1"


def test_a_tool_without_marks_needs_nothing() -> None:
    made = Tool.from_function(add)
    assert made.invoke_sync('{"a": 1, "b": 2}').value == 3
    assert asyncio.run(made.invoke({"a": 1, "b": 2})).value == 3
    assert made.invoke_sync('{"a": 1, "b": 2}', aliases=RAW_IDS).value == 3
    assert made.invoke_sync('{"a": 1, "b": 2}', aliases=AliasSession("c")).value == 3
    assert toolset([made]).invoke_sync(ToolCall("c1", "add", {"a": 1, "b": 2})).value == 3


def test_raw_ids_is_one_final_sentinel() -> None:
    assert isinstance(RAW_IDS, RawIds)
    assert RawIds() is RAW_IDS
    assert pickle.loads(pickle.dumps(RAW_IDS)) is RAW_IDS
    assert repr(RAW_IDS) == "toolcast.aliases.RAW_IDS"
    with pytest.raises(TypeError):
        Tool.from_function(add).invoke_sync('{"a": 1, "b": 2}', aliases=object())  # type: ignore[arg-type]


# -- callers that have no session -------------------------------------------------------


def test_tools_imported_from_a_toolcast_server_are_not_aliased_again() -> None:
    from mcp import Client

    from toolcast.providers import mcp

    served = [Tool.from_function(make_link), Tool.from_function(open_link)]

    async def run() -> tuple[Any, Any, Any]:
        async with Client(mcp.create_server(served)) as client:
            tools = await mcp.tools_from_session(client)
            made, opened = tools
            assert "x-toolcast-alias" not in json.dumps(made.spec.output_schema)
            assert "x-toolcast-alias" not in json.dumps(opened.spec.input_schema)
            created = await made.invoke({"name": "a"})  # no session needed: the server aliases
            used = await opened.invoke({"link_id": "link-1"})
            return created, used, opened.spec.input_schema

    created, used, schema = asyncio.run(run())
    assert created.structured["id"] == "link-1"
    assert not used.is_error, used.text
    assert used.text == f"opened {LINK}"  # the server resolved `link-1`
    assert schema["properties"]["link_id"]["pattern"] == "^link-[1-9][0-9]*$"
