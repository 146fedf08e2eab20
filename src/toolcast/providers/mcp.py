"""MCP: `tools/list` entries, `tools/call` parsing, `CallToolResult`s, and a server.

Wire shapes follow the MCP tools spec
(https://modelcontextprotocol.io/specification/2026-07-28/server/tools) and its schema
(https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2026-07-28/schema.ts).
MCP takes any JSON Schema 2020-12 keyword, so the canonical schema goes over as is; the
only rewrites serve protocol revisions before 2026-07-28, whose `outputSchema` and
`structuredContent` must be objects. The pure functions build plain JSON-ready dicts
and never import the SDK; `create_server` and `serve_stdio` expose tools through the
official MCP Python SDK's low-level server and need the `mcp` extra.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from toolcast._content import ImagePart, JsonPart, TextPart
from toolcast._frozen import thaw
from toolcast._outcome import ToolOutcome
from toolcast._spec import Arguments, ToolCall, ToolSpec
from toolcast.errors import CatalogError, UnsupportedSchemaError
from toolcast.providers._common import answer_all
from toolcast.providers._projection import (
    ConversionNote,
    Projection,
    ToolChoice,
    cached_projection,
    normalize_choice,
    specs_of,
)

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from toolcast._context import ToolContext

__all__ = (
    "LATEST_PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "create_server",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
    "serve_stdio",
)

TARGET = "mcp"

PROTOCOL_VERSIONS = (
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
)
"""The MCP revisions this module writes for, oldest first."""
LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[-1]
"""The default revision: the newest one."""

# `title`, `outputSchema` and `structuredContent` arrived in 2025-06-18; before it a
# structured result travels only as the JSON text block.
_STRUCTURED_SINCE = "2025-06-18"
# 2026-07-28 accepts any schema and any JSON value; earlier revisions require
# `outputSchema.type == "object"` and an object `structuredContent`
# (https://modelcontextprotocol.io/specification/2026-07-28/changelog, item 10).
_ANY_OUTPUT_SINCE = "2026-07-28"
# Key that wraps a non-object result for older revisions (the SDK's MCPServer uses it too).
_WRAP_KEY = "result"
_META_PREFIX = "toolcast/"
# https://modelcontextprotocol.io/specification/2026-07-28/server/tools#tool-annotations
_ANNOTATION_KEYS = {
    "title": "title",
    "readOnlyHint": "readOnlyHint",
    "read_only_hint": "readOnlyHint",
    "destructiveHint": "destructiveHint",
    "destructive_hint": "destructiveHint",
    "idempotentHint": "idempotentHint",
    "idempotent_hint": "idempotentHint",
    "openWorldHint": "openWorldHint",
    "open_world_hint": "openWorldHint",
}
_INSTALL_HINT = "The MCP server needs the MCP SDK: pip install 'toolcast[mcp]'"


def _at_least(version: str, floor: str) -> bool:
    return PROTOCOL_VERSIONS.index(version) >= PROTOCOL_VERSIONS.index(floor)


def _check_version(version: str) -> str:
    if version not in PROTOCOL_VERSIONS:
        msg = (
            f"Unknown MCP protocol version {version!r}; use one of {', '.join(PROTOCOL_VERSIONS)}."
        )
        raise ValueError(msg)
    return version


def _wraps_output(schema: Mapping[str, Any] | None, version: str) -> bool:
    """Whether a result under `schema` must be wrapped as `{"result": value}`."""
    return (
        schema is not None
        and not _at_least(version, _ANY_OUTPUT_SINCE)
        and schema.get("type") != "object"
    )


def format_tools(
    tools: Iterable[Any],
    *,
    strict: bool | None = None,
    protocol_version: str = LATEST_PROTOCOL_VERSION,
) -> list[dict[str, Any]]:
    """The `tools` of a `tools/list` result: one MCP `Tool` dict per tool, order kept.

    Args:
        tools: Tools, ToolSpecs or a ToolSet.
        strict: Accepted for symmetry with the other targets; MCP has no strict flag.
        protocol_version: The negotiated MCP revision.
    """
    # MCP servers validate arguments themselves: there is no strict flag to set.
    del strict
    return [
        thaw(project(spec, protocol_version=protocol_version).definition)
        for spec in specs_of(tools)
    ]


def project(tool: Any, *, protocol_version: str = LATEST_PROTOCOL_VERSION) -> Projection:
    """One tool as an MCP `Tool`, cached per (spec, protocol version)."""
    spec: ToolSpec = getattr(tool, "spec", tool)
    version = _check_version(protocol_version)
    return cached_projection(spec, TARGET, version, lambda s: _project(s, version))


def _project(spec: ToolSpec, version: str) -> Projection:
    notes: list[ConversionNote] = []
    definition: dict[str, Any] = {"name": spec.name}
    title = spec.extra.get("title")
    if title and _at_least(version, _STRUCTURED_SINCE):
        definition["title"] = str(title)
    if spec.description:
        definition["description"] = spec.description
    definition["inputSchema"] = _input_schema(spec, notes)
    if spec.output_schema is not None:
        output = copy.deepcopy(dict(spec.output_schema))
        if not _at_least(version, _STRUCTURED_SINCE):
            notes.append(
                ConversionNote(
                    "",
                    "outputSchema",
                    "dropped",
                    f"MCP {version} has no outputSchema; results go as JSON text only.",
                )
            )
        else:
            if _wraps_output(output, version):
                output = {
                    "type": "object",
                    "properties": {_WRAP_KEY: output},
                    "required": [_WRAP_KEY],
                    "additionalProperties": False,
                }
                notes.append(
                    ConversionNote(
                        "",
                        "outputSchema",
                        "rewritten",
                        f"MCP {version} needs an object outputSchema; the result is "
                        f"wrapped as {{{_WRAP_KEY!r}: value}}.",
                    )
                )
            definition["outputSchema"] = output
    annotations = _annotations(spec)
    if annotations:
        definition["annotations"] = annotations
    icons = spec.extra.get("mcp_icons")
    if icons:
        definition["icons"] = copy.deepcopy(list(icons))
    meta = _meta(spec)
    if meta:
        definition["_meta"] = meta
    return Projection(TARGET, spec.name, definition, False, tuple(notes))


def _input_schema(spec: ToolSpec, notes: list[ConversionNote]) -> dict[str, Any]:
    schema = copy.deepcopy(dict(spec.input_schema))
    kind = schema.get("type")
    if kind is None:
        # A hand-written schema may leave the root untyped; MCP requires `type: object`
        # at the root (https://modelcontextprotocol.io/specification/2026-07-28/server/tools).
        schema = {"type": "object", **schema}
        notes.append(
            ConversionNote(
                "",
                "type",
                "rewritten",
                "MCP requires a root `type: object`; it was added to the untyped root.",
            )
        )
    elif kind != "object":
        msg = (
            f"Tool {spec.name!r}: MCP needs an object input schema at the root, "
            f"not type {kind!r}. Take the arguments as named properties of an object."
        )
        raise UnsupportedSchemaError(msg)
    if schema.get("properties") == {}:
        # The spec's recommended no-argument schema is
        # `{"type": "object", "additionalProperties": false}`.
        del schema["properties"]
    if schema.get("required") == []:
        del schema["required"]
    return schema


def _annotations(spec: ToolSpec) -> dict[str, Any]:
    # Behaviour hints (read-only, destructive, ...) are not known from a signature,
    # so only what the host states in `extra["mcp_annotations"]` is sent.
    given = spec.extra.get("mcp_annotations") or {}
    out: dict[str, Any] = {}
    for key, value in dict(given).items():
        wire = _ANNOTATION_KEYS.get(key)
        if wire is None:
            msg = (
                f"Tool {spec.name!r}: unknown MCP annotation {key!r}; use title, "
                "readOnlyHint, destructiveHint, idempotentHint or openWorldHint."
            )
            raise ValueError(msg)
        out[wire] = value
    return out


def _meta(spec: ToolSpec) -> dict[str, Any]:
    # `_meta` keys carry a `prefix/` so they cannot clash with MCP's reserved ones
    # (https://modelcontextprotocol.io/specification/2026-07-28/basic#meta).
    fields: dict[str, Any] = {
        "status": spec.status,
        "version": spec.version,
        "deprecated": spec.deprecated,
        "replacedBy": spec.replaced_by,
        "categories": list(spec.categories) or None,
    }
    return {_META_PREFIX + k: v for k, v in fields.items() if v is not None}


def format_tool_choice(choice: ToolChoice = "auto") -> dict[str, Any]:
    """A sampling request's `toolChoice` (`{"mode": "auto" | "none" | "required"}`).

    MCP has tool choice only where a server asks the client to sample a model
    (`sampling/createMessage`), and it cannot name tools there.

    Raises:
        ValueError: the choice names tools; send only those tools with `"required"`.
    """
    # ToolChoice in https://modelcontextprotocol.io/specification/2025-11-25/client/sampling
    norm = normalize_choice(choice)
    if norm.names:
        msg = (
            f"MCP sampling cannot restrict tool choice to {list(norm.names)}; "
            "send only those tools with tool choice 'required' instead."
        )
        raise ValueError(msg)
    return {"mode": norm.mode}


def parse_calls(request: Any) -> list[ToolCall]:
    """The `tools/call` requests in a message, in order.

    Accepts a JSON-RPC request (dict, JSON text or SDK object), its `params`
    (`{"name", "arguments"}` or the SDK's `CallToolRequestParams`), an SDK
    `CallToolRequest`, or a list of these. Other methods are skipped. The JSON-RPC
    id becomes the call id (its original value stays in
    `provider_data["jsonrpc_id"]`); without one the id is `call_<index>`.
    Arguments that are not an object are passed on as JSON text, so the invoker
    answers with an error result as MCP asks
    (https://modelcontextprotocol.io/specification/2025-11-25/changelog, SEP-1303).

    Raises:
        ValueError: a `tools/call` request has no tool name.
    """
    if isinstance(request, (str, bytes, bytearray)):
        request = json.loads(request)
    items = (
        list(request)
        if isinstance(request, Sequence) and not isinstance(request, Mapping)
        else [request]
    )
    calls: list[ToolCall] = []
    for item in items:
        call = _parse_one(item, len(calls))
        if call is not None:
            calls.append(call)
    return calls


def _parse_one(item: Any, index: int) -> ToolCall | None:
    item = _wire(item)
    method = _get(item, "method")
    if method is not None:
        if method != "tools/call":
            return None
        params = _get(item, "params")
        request_id = _get(item, "id")
    else:
        params, request_id = item, None
    params = _wire(params)
    name = _get(params, "name")
    if not isinstance(name, str) or not name:
        msg = f"A tools/call request needs a tool name in params.name, got {params!r}."
        raise ValueError(msg)
    raw = _get(params, "arguments")
    arguments: Arguments
    if raw is None:
        arguments = {}
    elif isinstance(raw, (Mapping, str)):
        arguments = raw
    else:
        arguments = json.dumps(raw)
    provider_data: dict[str, Any] = {}
    if request_id is not None:
        provider_data["jsonrpc_id"] = request_id
    meta = _get(params, "_meta")
    if meta:
        provider_data["meta"] = meta
    call_id = f"call_{index}" if request_id is None else str(request_id)
    return ToolCall(call_id, name, arguments, provider_data)


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    tools: Iterable[Any] | None = None,
    protocol_version: str = LATEST_PROTOCOL_VERSION,
) -> list[dict[str, Any]]:
    """One `CallToolResult` dict per outcome (each answers its own JSON-RPC request).

    Failures carry `isError: true` and their message as text, so the model can
    correct itself. A structured result goes out twice, as `structuredContent` and
    as JSON text, as the spec asks for older clients. Pass the `tools` the calls
    ran against so `structuredContent` follows each tool's output schema exactly
    (always present when it has one, wrapped for revisions before 2026-07-28);
    without them it is sent whenever the outcome has a structured value. Given
    `calls`, results follow the calls' order and a call without an outcome is
    answered with an error result saying it was not run.

    Raises:
        ValueError: with `calls`, an outcome answers no call, or two answer one.
    """
    version = _check_version(protocol_version)
    specs: dict[str, ToolSpec] | None = None
    if tools is not None:
        specs = {}
        for spec in specs_of(tools):
            for name in (spec.name, *spec.aliases):
                specs[name] = spec
    return [_result(outcome, specs, version) for outcome in answer_all(outcomes, calls)]


def _result(
    outcome: ToolOutcome, specs: Mapping[str, ToolSpec] | None, version: str
) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [_content_block(p) for p in outcome.content]}
    spec = None if specs is None else specs.get(outcome.tool_name)
    schema = None if spec is None else spec.output_schema
    structured = outcome.structured
    if structured is None and spec is not None and spec.envelope:
        structured = _enveloped_value(outcome)
    send = (schema is not None or structured is not None) and not outcome.is_error
    if send and _at_least(version, _STRUCTURED_SINCE):
        if schema is not None:
            wrap = _wraps_output(schema, version)
        else:
            # No schema to go by (a `ToolResult` with `structured`, or no `tools`):
            # older revisions take objects only, so anything else is wrapped.
            wrap = not _at_least(version, _ANY_OUTPUT_SINCE) and not isinstance(structured, Mapping)
        result["structuredContent"] = {_WRAP_KEY: structured} if wrap else structured
    if outcome.is_error:
        result["isError"] = True
    if _at_least(version, _ANY_OUTPUT_SINCE):
        # 2026-07-28 servers MUST send `resultType`; older peers do not know it.
        result["resultType"] = "complete"
    return result


def _enveloped_value(outcome: ToolOutcome) -> Any:
    """The `result` of a `{"schema": ..., "result": ...}` envelope the model got."""
    # `structuredContent` must match `outputSchema`, which describes the bare value.
    for part in outcome.content:
        if isinstance(part, JsonPart):
            value = part.value
            if isinstance(value, Mapping) and "result" in value:
                return value["result"]
    return None


def _content_block(part: TextPart | JsonPart | ImagePart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {"type": "image", "data": part.base64, "mimeType": part.mime_type}
    return {"type": "text", "text": part.text}


def _wire(obj: Any) -> Any:
    """An SDK (pydantic) object as its wire dict; anything else as it is."""
    dump = getattr(obj, "model_dump", None)
    if isinstance(obj, Mapping) or not callable(dump):
        return obj
    return dump(by_alias=True, exclude_none=True, mode="json")


def _get(obj: Any, key: str) -> Any:
    """`obj[key]` for dicts, `obj.key` for SDK objects, None when absent."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


class _Invocable(Protocol):
    """What the server needs from a tool: its spec and a way to run it."""

    @property
    def spec(self) -> ToolSpec: ...

    async def invoke(
        self,
        arguments: Arguments,
        *,
        context: ToolContext | None = ...,
        call_id: str | None = ...,
    ) -> ToolOutcome: ...


def create_server(
    tools: Iterable[_Invocable],
    *,
    name: str = "toolcast",
    version: str = "",
    instructions: str | None = None,
    context: ToolContext | None = None,
) -> Server[Any]:
    """An MCP low-level `Server` that lists `tools` and runs them on `tools/call`.

    `tools/list` answers with `format_tools` for the client's protocol revision;
    `tools/call` runs `tool.invoke` and answers with `format_results`, so argument
    and tool failures come back as `isError` results. An unknown tool name is a
    protocol error (JSON-RPC -32602), as the spec asks. Run it with
    `server.run(read, write, server.create_initialization_options())` on any
    transport, or use `serve_stdio`.

    Args:
        tools: Tools (not bare ToolSpecs: the server must be able to run them).
        name: The server name announced to clients.
        version: The server version announced to clients.
        instructions: Optional instructions for the client's model.
        context: The `ToolContext` handed to every call (host state, injected values).

    Raises:
        ImportError: the MCP SDK is not installed.
        TypeError: an item cannot be invoked.
        CatalogError: two tools share a name or alias.
    """
    try:
        import mcp.types as mcp_types
        from mcp.server.lowlevel import Server
        from mcp.shared.exceptions import MCPError
    except ImportError:
        raise ImportError(_INSTALL_HINT) from None

    by_name: dict[str, _Invocable] = {}
    listed: list[_Invocable] = []
    for tool in tools:
        if not callable(getattr(tool, "invoke", None)):
            msg = (
                f"{type(tool).__name__} cannot be served: pass Tools "
                "(with an invoke method), not bare ToolSpecs."
            )
            raise TypeError(msg)
        listed.append(tool)
        for key in (tool.spec.name, *tool.spec.aliases):
            if key in by_name:
                msg = f"Two tools answer to the name {key!r}; MCP names must be unique."
                raise CatalogError(msg)
            by_name[key] = tool
    available = ", ".join(tool.spec.name for tool in listed)

    async def list_tools(
        ctx: Any, params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        wire = format_tools(listed, protocol_version=_negotiated(ctx))
        return mcp_types.ListToolsResult(
            tools=[mcp_types.Tool.model_validate(tool) for tool in wire]
        )

    async def call_tool(
        ctx: Any, params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        tool = by_name.get(params.name)
        if tool is None:
            message = f"Unknown tool {params.name!r}. Available tools: {available}."
            raise MCPError(mcp_types.INVALID_PARAMS, message)
        request_id = getattr(ctx, "request_id", None)
        outcome = await tool.invoke(
            params.arguments if params.arguments is not None else {},
            context=context,
            call_id=None if request_id is None else str(request_id),
        )
        (result,) = format_results([outcome], tools=[tool], protocol_version=_negotiated(ctx))
        return mcp_types.CallToolResult.model_validate(result)

    def input_schema(tool_name: str) -> Mapping[str, Any] | None:
        found = by_name.get(tool_name)
        return None if found is None else found.spec.input_schema

    return Server(
        name,
        version=version,
        instructions=instructions,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _negotiated(ctx: Any) -> str:
    """The revision a request speaks, falling back to the newest for unknown ones."""
    version = getattr(ctx, "protocol_version", None)
    return version if version in PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION


async def serve_stdio(tools: Iterable[_Invocable], **options: Any) -> None:
    """Serve `tools` over this process's stdin/stdout until the client disconnects.

    `options` are those of `create_server`.

    Raises:
        ImportError: the MCP SDK is not installed.
    """
    server = create_server(tools, **options)
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
