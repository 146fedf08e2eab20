"""toolcast.providers.mcp against the official MCP SDK (types, server and client).

Wire rules pinned here (MCP tools spec 2026-07-28 and 2025-11-25, PROVIDERS.md §6):
- A `Tool` is `{name, title?, description?, inputSchema, outputSchema?, annotations?,
  icons?, _meta?}`. The input schema is the canonical one with a root
  `type: object`; a no-argument tool is `{"type": "object",
  "additionalProperties": false}`.
- `outputSchema` appears exactly when the tool has an output schema. Before
  2026-07-28 it must be an object, so other schemas are wrapped as
  `{"result": ...}`; before 2025-06-18 it does not exist.
- Behaviour hints are never invented; toolcast metadata goes in `_meta`
  under `toolcast/`.
- `tools/call` comes as a JSON-RPC request (dict, text or SDK object) or its
  params; the JSON-RPC id correlates.
- `CallToolResult` is `{content, structuredContent?, isError?, resultType}`. A
  structured result is also sent as JSON text; failures are results with
  `isError: true`; an unknown tool is a JSON-RPC error (-32602).
"""

from __future__ import annotations

import copy
import json
import sys
import textwrap
from typing import Any

import mcp.types as mcp_types
import pytest
from inline_snapshot import snapshot
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types.methods import serialize_server_result

from corpus import corpus_tools
from toolcast import (
    Catalog,
    ImagePart,
    TextPart,
    Tool,
    ToolError,
    ToolOutcome,
    ToolResult,
    ToolSpec,
)
from toolcast.errors import CatalogError, ResponseFormatError, UnsupportedSchemaError
from toolcast.providers import mcp

STRUCTURED_VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")


def _sdk_dump(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def _list_result(tools: list[dict[str, Any]], version: str) -> dict[str, Any]:
    body: dict[str, Any] = {"tools": tools}
    if version == "2026-07-28":
        body |= {"ttlMs": 0, "cacheScope": "public", "resultType": "complete"}
    return body


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def greet(name: str) -> str:
    """Say hello."""
    return f"Hello, {name}!"


def fail(reason: str) -> str:
    """Always fails."""
    raise ToolError(f"Cannot do that: {reason}.")


def crash() -> str:
    """Raises an unexpected exception."""
    raise ValueError("boom")


def picture() -> ToolResult:
    """Returns an image and a caption."""
    return ToolResult([ImagePart(b"\x89PNG fake", "image/png"), TextPart("a dot")])


def where() -> dict[str, float]:
    """A structured object result."""
    return {"lat": 1.5, "lon": 2.5}


def _tools() -> list[Tool]:
    return [
        Tool.from_function(add),
        Tool.from_function(greet, aliases=("hello",)),
        Tool.from_function(fail),
        Tool.from_function(crash),
        Tool.from_function(picture),
        Tool.from_function(where),
    ]


# -- tools/list ------------------------------------------------------------------------


@pytest.mark.parametrize("version", STRUCTURED_VERSIONS)
def test_every_corpus_tool_is_a_valid_sdk_tool_for_each_revision(version: str) -> None:
    tools = mcp.format_tools(corpus_tools(), protocol_version=version)
    assert len(tools) >= 40
    for tool in tools:
        # The SDK model ignores unknown keys: only a lossless round trip proves it.
        assert _sdk_dump(mcp_types.Tool.model_validate(tool)) == tool
    # The per-revision wire surface validates what the SDK server would send.
    wire = serialize_server_result("tools/list", version, _list_result(tools, version))
    assert [t["name"] for t in wire["tools"]] == [t["name"] for t in tools]


def test_corpus_goes_over_as_is_at_the_latest_revision() -> None:
    for tool in corpus_tools():
        projection = mcp.project(tool)
        assert projection.notes == ()
        assert projection.strict is False
        assert projection.definition["inputSchema"]["type"] == "object"


def test_input_schema_is_the_canonical_schema() -> None:
    tool = Tool.from_function(add)
    (definition,) = mcp.format_tools([tool])
    assert definition == snapshot(
        {
            "name": "add",
            "description": "Add two integers.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "additionalProperties": False,
            },
            "outputSchema": {"type": "integer"},
        }
    )
    assert definition["inputSchema"] == tool.spec.input_schema


def test_no_argument_tool_uses_the_recommended_closed_object() -> None:
    def ping() -> str:
        """Check the server."""
        return "pong"

    (definition,) = mcp.format_tools([Tool.from_function(ping)])
    assert definition["inputSchema"] == {
        "type": "object",
        "additionalProperties": False,
    }
    assert "outputSchema" not in definition


def test_output_schema_is_wrapped_as_an_object_before_2026() -> None:
    projection = mcp.project(Tool.from_function(add), protocol_version="2025-11-25")
    assert projection.definition["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
        "additionalProperties": False,
    }
    assert [(n.keyword, n.action) for n in projection.notes] == [("outputSchema", "rewritten")]


def test_object_output_schema_is_not_wrapped_before_2026() -> None:
    projection = mcp.project(Tool.from_function(where), protocol_version="2025-11-25")
    assert projection.definition["outputSchema"]["type"] == "object"
    assert "result" not in projection.definition["outputSchema"].get("properties", {})
    assert projection.notes == ()


def test_output_schema_is_dropped_before_2025_06_18_with_a_note() -> None:
    projection = mcp.project(Tool.from_function(add), protocol_version="2025-03-26")
    assert "outputSchema" not in projection.definition
    assert [(n.keyword, n.action) for n in projection.notes] == [("outputSchema", "dropped")]


def test_unknown_protocol_version_is_refused() -> None:
    with pytest.raises(ValueError, match="Unknown MCP protocol version '2099-01-01'"):
        mcp.format_tools([Tool.from_function(add)], protocol_version="2099-01-01")


def test_metadata_travels_in_meta_and_no_hints_are_invented() -> None:
    tool = Tool.from_function(
        greet,
        status="Greeting",
        version="2",
        deprecated="Use welcome.",
        replaced_by="welcome",
        categories=("social",),
    )
    (definition,) = mcp.format_tools([tool])
    assert "annotations" not in definition
    assert definition["_meta"] == snapshot(
        {
            "toolcast/status": "Greeting",
            "toolcast/version": "2",
            "toolcast/deprecated": "Use welcome.",
            "toolcast/replacedBy": "welcome",
            "toolcast/categories": ["social"],
        }
    )
    assert _sdk_dump(mcp_types.Tool.model_validate(definition)) == definition


def test_host_given_title_and_annotations_are_sent() -> None:
    spec = ToolSpec(
        name="lookup",
        input_schema={"type": "object", "properties": {}},
        extra={
            "title": "Look up",
            "mcp_annotations": {"read_only_hint": True, "openWorldHint": False},
        },
    )
    (definition,) = mcp.format_tools([spec])
    assert definition == snapshot(
        {
            "name": "lookup",
            "title": "Look up",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True, "openWorldHint": False},
        }
    )
    sdk = mcp_types.Tool.model_validate(definition)
    assert sdk.annotations is not None
    assert sdk.annotations.read_only_hint is True


def test_unknown_annotation_is_refused() -> None:
    spec = ToolSpec(
        name="x",
        input_schema={"type": "object"},
        extra={"mcp_annotations": {"safe": True}},
    )
    with pytest.raises(ValueError, match="unknown MCP annotation 'safe'"):
        mcp.project(spec)


def test_untyped_root_gets_type_object_with_a_note() -> None:
    spec = ToolSpec(name="x", input_schema={"properties": {"a": {"type": "string"}}})
    projection = mcp.project(spec)
    assert projection.definition["inputSchema"] == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
    }
    assert [(n.keyword, n.action) for n in projection.notes] == [("type", "rewritten")]


def test_non_object_root_is_refused() -> None:
    spec = ToolSpec(name="x", input_schema={"type": "array", "items": {}})
    with pytest.raises(UnsupportedSchemaError, match="object input schema"):
        mcp.project(spec)


def test_format_tools_returns_fresh_copies_and_leaves_the_spec_alone() -> None:
    tool = Tool.from_function(add)
    before = copy.deepcopy(tool.spec.input_schema)
    first = mcp.format_tools([tool])
    first[0]["inputSchema"]["properties"]["a"]["type"] = "string"
    assert mcp.format_tools([tool])[0]["inputSchema"]["properties"]["a"] == {"type": "integer"}
    assert tool.spec.input_schema == before


# -- tools/call parsing ----------------------------------------------------------------


def test_parse_calls_reads_a_json_rpc_request() -> None:
    request = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
    }
    (call,) = mcp.parse_calls(request)
    assert (call.id, call.name, call.arguments) == ("7", "add", {"a": 1, "b": 2})
    assert call.provider_data["jsonrpc_id"] == 7  # the original type survives
    assert mcp.parse_calls(json.dumps(request)) == [call]


def test_parse_calls_reads_the_sdk_request_and_params_types() -> None:
    params = mcp_types.CallToolRequestParams(
        name="greet", arguments={"name": "Ada"}, _meta={"progressToken": "p1"}
    )
    request = mcp_types.CallToolRequest(params=params)
    (from_request,) = mcp.parse_calls(request)
    (from_params,) = mcp.parse_calls(params)
    (from_dump,) = mcp.parse_calls({"jsonrpc": "2.0", "id": "r-1", **_sdk_dump(request)})
    assert from_request.name == from_params.name == from_dump.name == "greet"
    assert from_request.arguments == from_dump.arguments == {"name": "Ada"}
    assert from_request.id == "call_0"
    assert from_dump.id == "r-1"
    assert from_params.provider_data["meta"]["progressToken"] == "p1"
    assert from_dump.provider_data["meta"] == {"progressToken": "p1"}


def test_parse_calls_skips_other_methods_in_a_batch() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "a"}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "b"}},
    ]
    calls = mcp.parse_calls(batch)
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("2", "a", {}),
        ("3", "b", {}),
    ]


async def test_non_object_arguments_become_an_error_result_not_a_crash() -> None:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "add", "arguments": [1, 2]},
    }
    (call,) = mcp.parse_calls(request)
    assert call.arguments == "[1, 2]"
    outcome = await Tool.from_function(add).invoke(call.arguments, call_id=call.id)
    (result,) = mcp.format_results([outcome])
    assert result["isError"] is True
    assert "must be a JSON object" in result["content"][0]["text"]


def test_parse_calls_answers_a_call_without_a_name_with_an_error_result() -> None:
    (call,) = mcp.parse_calls({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}})
    outcome = Catalog([add]).select().invoke_sync(call)
    assert outcome.is_error
    assert outcome.text == "The call has no tool name; send the name of one of the tools."
    assert call.provider_data["error_path"] == "params.name"


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ("", "MCP request is not valid JSON (Expecting value: line 1 column 1 (char 0))"),
        ("[1]", "MCP request: [0] is a number, not an object"),
        ({"method": "tools/call", "params": "x"}, "MCP request: params is a string, not an object"),
        ({"method": "tools/call", "id": [1], "params": {"name": "a"}}, "MCP request: id is not"),
    ],
)
def test_parse_calls_raises_response_format_error_on_malformed_requests(
    request_: Any, message: str
) -> None:
    with pytest.raises(ResponseFormatError) as caught:
        mcp.parse_calls(request_)
    assert str(caught.value).startswith(message)


# -- CallToolResult --------------------------------------------------------------------


async def _outcomes() -> list[ToolOutcome]:
    tools = {t.name: t for t in _tools()}
    return [
        await tools["add"].invoke({"a": 2, "b": 3}, call_id="1"),
        await tools["greet"].invoke({"name": "Ada"}, call_id="2"),
        await tools["fail"].invoke({"reason": "no"}, call_id="3"),
        await tools["crash"].invoke({}, call_id="4"),
        await tools["picture"].invoke({}, call_id="5"),
        await tools["where"].invoke({}, call_id="6"),
        await tools["add"].invoke({"a": "x"}, call_id="7"),
    ]


@pytest.mark.parametrize("version", mcp.PROTOCOL_VERSIONS)
async def test_results_are_valid_sdk_results_for_each_revision(version: str) -> None:
    results = mcp.format_results(await _outcomes(), tools=_tools(), protocol_version=version)
    for result in results:
        assert _sdk_dump(mcp_types.CallToolResult.model_validate(result)) == {
            "isError": False,
            "resultType": "complete",
            **result,
        }
        serialize_server_result("tools/call", version, result)


async def test_result_shapes() -> None:
    *results, invalid = mcp.format_results(await _outcomes(), tools=_tools())
    assert results == snapshot(
        [
            {
                "content": [{"type": "text", "text": "5"}],
                "structuredContent": 5,
                "resultType": "complete",
            },
            {
                "content": [{"type": "text", "text": "Hello, Ada!"}],
                "resultType": "complete",
            },
            {
                "content": [{"type": "text", "text": "Cannot do that: no."}],
                "isError": True,
                "resultType": "complete",
            },
            {
                "content": [{"type": "text", "text": "Tool 'crash' failed: ValueError: boom"}],
                "isError": True,
                "resultType": "complete",
            },
            {
                "content": [
                    {"type": "image", "data": "iVBORyBmYWtl", "mimeType": "image/png"},
                    {"type": "text", "text": "a dot"},
                ],
                "resultType": "complete",
            },
            {
                "content": [{"type": "text", "text": '{"lat":1.5,"lon":2.5}'}],
                "structuredContent": {"lat": 1.5, "lon": 2.5},
                "resultType": "complete",
            },
        ]
    )
    # The invoker's wording is pinned in its own tests; here only the shape matters.
    assert invalid["isError"] is True
    assert [block["type"] for block in invalid["content"]] == ["text"]
    assert "'a'" in invalid["content"][0]["text"]


async def test_results_before_2026_wrap_scalars_and_omit_result_type() -> None:
    outcome = await Tool.from_function(add).invoke({"a": 1, "b": 1})
    (result,) = mcp.format_results(
        [outcome], tools=[Tool.from_function(add)], protocol_version="2025-11-25"
    )
    assert result == {
        "content": [{"type": "text", "text": "2"}],
        "structuredContent": {"result": 2},
    }


async def test_without_tools_structured_content_follows_the_value() -> None:
    outcome = await Tool.from_function(where).invoke({})
    (result,) = mcp.format_results([outcome], protocol_version="2025-11-25")
    assert result["structuredContent"] == {"lat": 1.5, "lon": 2.5}
    scalar = await Tool.from_function(add).invoke({"a": 1, "b": 1})
    (wrapped,) = mcp.format_results([scalar], protocol_version="2025-11-25")
    assert wrapped["structuredContent"] == {"result": 2}


async def test_enveloped_results_send_the_bare_value_as_structured_content() -> None:
    tool = Tool.from_function(add, envelope=True)
    outcome = await tool.invoke({"a": 1, "b": 2})
    (result,) = mcp.format_results([outcome], tools=[tool])
    assert json.loads(result["content"][0]["text"])["result"] == 3
    assert result["structuredContent"] == 3


def test_tool_result_with_structured_value_is_sent_without_an_output_schema() -> None:
    outcome = ToolOutcome(
        call_id="1",
        tool_name="x",
        content=(TextPart("two items"),),
        text="two items",
        structured_value={"count": 2},
    )
    (result,) = mcp.format_results([outcome])
    assert result["structuredContent"] == {"count": 2}


def test_results_follow_the_calls_and_answer_every_one() -> None:
    calls = mcp.parse_calls(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "b"}},
        ]
    )
    done = ToolOutcome(call_id="2", tool_name="b", content=(TextPart("ok"),), text="ok")
    first, second = mcp.format_results([done], calls=calls)
    assert first["isError"] is True
    assert first["content"][0]["text"] == "The call to 'a' was not run."
    assert second["content"] == [{"type": "text", "text": "ok"}]
    with pytest.raises(ValueError, match="not made"):
        mcp.format_results([done], calls=calls[:1])


# -- tool choice -----------------------------------------------------------------------


def test_tool_choice_is_a_sampling_mode() -> None:
    assert mcp.format_tool_choice("auto") == {"mode": "auto"}
    assert mcp.format_tool_choice("none") == {"mode": "none"}
    assert mcp.format_tool_choice("required") == {"mode": "required"}
    assert mcp_types.ToolChoice.model_validate(mcp.format_tool_choice("required"))
    with pytest.raises(ValueError, match="cannot restrict tool choice"):
        mcp.format_tool_choice({"name": "add"})


# -- the server, through the official client -------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_server_lists_what_format_tools_returns(mode: str) -> None:
    tools = _tools()
    async with Client(mcp.create_server(tools), mode=mode) as client:
        listed = await client.list_tools()
        version = client.protocol_version
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert [_sdk_dump(t) for t in listed.tools] == mcp.format_tools(tools, protocol_version=version)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_server_calls_run_the_real_tools(mode: str) -> None:
    tools = _tools()
    async with Client(mcp.create_server(tools), mode=mode) as client:
        version = client.protocol_version
        await client.list_tools()  # lets the client validate structured results
        added = await client.call_tool("add", {"a": 2, "b": 3})
        greeted = await client.call_tool("hello", {"name": "Ada"})  # an alias
        failed = await client.call_tool("fail", {"reason": "no"})
        crashed = await client.call_tool("crash", {})
        invalid = await client.call_tool("add", {"a": "x", "b": 1, "c": 0})
        located = await client.call_tool("where", {})
    direct = await Tool.from_function(add).invoke({"a": 2, "b": 3})
    (expected,) = mcp.format_results(
        [direct], tools=[Tool.from_function(add)], protocol_version=version
    )
    assert added.structured_content == expected["structuredContent"]
    assert [_sdk_dump(c) for c in added.content] == expected["content"]
    assert greeted.content[0].text == "Hello, Ada!"
    assert (failed.is_error, failed.content[0].text) == (True, "Cannot do that: no.")
    assert crashed.is_error is True
    assert invalid.is_error is True
    assert "'a' must be an integer" in invalid.content[0].text
    assert "'c'" in invalid.content[0].text
    assert located.structured_content == {"lat": 1.5, "lon": 2.5}


async def test_server_answers_an_unknown_tool_with_a_json_rpc_error() -> None:
    async with Client(mcp.create_server(_tools()), mode="legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("nope", {})
    assert caught.value.code == mcp_types.INVALID_PARAMS
    assert caught.value.message == (
        "Unknown tool 'nope'. Available tools: add, greet, fail, crash, picture, where."
    )


async def test_server_runs_corpus_tools() -> None:
    tools = corpus_tools()
    async with Client(mcp.create_server(tools)) as client:
        listed = await client.list_tools()
        assert len(listed.tools) == len(tools)
        result = await client.call_tool("int_bounds", {"n": 10, "step": 5})
        bad = await client.call_tool("int_bounds", {"n": 1000})
    assert result.is_error is False
    assert bad.is_error is True


def test_create_server_refuses_bare_specs_and_duplicate_names() -> None:
    with pytest.raises(TypeError, match="not bare ToolSpecs"):
        mcp.create_server([Tool.from_function(add).spec])
    with pytest.raises(CatalogError, match="'add'"):
        mcp.create_server([Tool.from_function(add), Tool.from_function(add)])


def test_create_server_without_the_sdk_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in list(sys.modules):
        if name == "mcp" or name.startswith("mcp."):
            monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"pip install 'toolcast\[mcp\]'"):
        mcp.create_server([Tool.from_function(add)])


_STDIO_SERVER = textwrap.dedent(
    """
    import anyio
    from toolcast import Tool
    from toolcast.providers.mcp import serve_stdio

    def add(a: int, b: int) -> int:
        '''Add two integers.'''
        return a + b

    anyio.run(serve_stdio, [Tool.from_function(add)])
    """
)


@pytest.mark.parametrize(
    ("mode", "version", "structured"),
    [
        # The client's default: the 2026-07-28 envelope, where any JSON value is a result.
        ("auto", "2026-07-28", 42),
        # A client that opens with `initialize` gets a session (the handshake era),
        # where a scalar result is wrapped; see docs/mcp.md.
        ("legacy", "2025-11-25", {"result": 42}),
    ],
)
async def test_serve_stdio_works_with_the_official_client_over_a_subprocess(
    mode: str, version: str, structured: object
) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-c", _STDIO_SERVER])
    async with Client(params, mode=mode) as client:
        listed = await client.list_tools()
        result = await client.call_tool("add", {"a": 20, "b": 22})
        spoken = client.protocol_version
    assert [t.name for t in listed.tools] == ["add"]
    assert spoken == version
    assert result.structured_content == structured
