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

from toolcast._content import JsonPart
from toolcast._outcome import ToolOutcome
from toolcast._spec import Arguments, ToolCall, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers import _mcp_transport as transport
from toolcast.providers._common import answer_all
from toolcast.providers._mcp_blocks import content_block
from toolcast.providers._mcp_remote import (
    RemoteToolProblem,
    RemoteTools,
    connect_http,
    connect_stdio,
    tools_from_session,
)
from toolcast.providers._mcp_server import ServerWire, build_server
from toolcast.providers._mcp_task_client import TasksClient
from toolcast.providers._projection import (
    ConversionNote,
    Projection,
    ToolChoice,
    cached_projection,
    fresh_definitions,
    normalize_choice,
    specs_of,
)
from toolcast.providers._read import Wire
from toolcast.providers._shapes import expect

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from toolcast._context import ToolContext

__all__ = (
    "LATEST_PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "RemoteToolProblem",
    "RemoteTools",
    "TasksClient",
    "connect_http",
    "connect_stdio",
    "create_server",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
    "serve_http",
    "serve_stdio",
    "tools_from_session",
)

TARGET = "mcp"
_WIRE = Wire("MCP", "request")

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
    version = _check_version(protocol_version)
    return fresh_definitions(specs_of(tools), TARGET, version, lambda s: _project(s, version))


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
    out: dict[str, Any] = {"idempotentHint": True} if spec.idempotent else {}
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
    (https://modelcontextprotocol.io/specification/2025-11-25/changelog, SEP-1303);
    a request without a tool name becomes a call answered with an error result.

    Raises:
        ResponseFormatError: the message is not JSON, or not a JSON-RPC request
            or `params` object (`MCP request: [1].params is a string, not an object`).
    """
    if isinstance(request, (str, bytes, bytearray)):
        try:
            request = json.loads(request)
        except (ValueError, RecursionError) as exc:
            _WIRE.fail("", f"is not valid JSON ({exc})")
    top = isinstance(request, Sequence) and not isinstance(request, Mapping)
    items = list(request) if top else [request]
    calls: list[ToolCall] = []
    for number, item in enumerate(items):
        call = _parse_one(item, len(calls), f"[{number}]" if top else "")
        if call is not None:
            calls.append(call)
    return calls


def _parse_one(item: Any, index: int, path: str) -> ToolCall | None:
    at = f"{path}." if path else ""
    item = _WIRE.obj(_wire(item), path)
    expect(_WIRE, "mcp", item)
    method = item.get("method")
    if method is not None:
        if method != "tools/call":
            return None
        params = _WIRE.obj(_wire(item.get("params")), f"{at}params")
        request_id = item.get("id")
        at += "params."
        if request_id is not None and (
            isinstance(request_id, bool) or not isinstance(request_id, (str, int, float))
        ):
            _WIRE.fail(f"{path}.id" if path else "id", "is not a string or a number")
    else:
        params, request_id = item, None
    raw = params.get("arguments")
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
    meta = params.get("_meta")
    if meta:
        provider_data["meta"] = meta
    call_id = f"call_{index}" if request_id is None else str(request_id)
    return _WIRE.call(at.rstrip("."), call_id, params.get("name"), arguments, provider_data)


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
    result: dict[str, Any] = {"content": [content_block(p) for p in outcome.content]}
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


def _server_wire() -> ServerWire:
    def results(outcome: ToolOutcome, tool: Any, version: str) -> dict[str, Any]:
        return format_results([outcome], tools=[tool], protocol_version=version)[0]

    return ServerWire(
        lambda tools, version: format_tools(tools, protocol_version=version),
        results,
        PROTOCOL_VERSIONS,
    )


def create_server(
    tools: Iterable[_Invocable] | Any,
    *,
    name: str = "toolcast",
    version: str | None = None,
    instructions: str | None = None,
    context: ToolContext | None = None,
    policy: Any = None,
    toolboxes: bool = True,
    state_keys: Sequence[bytes] | None = None,
    redis_url: str | None = None,
    list_ttl: float = 300.0,
    tasks: Mapping[str, str] | None = None,
    task_ttl: float = 3600.0,
) -> Server[Any]:
    """An MCP low-level `Server` that lists `tools` and runs them on `tools/call`.

    It serves both protocol eras (see docs/mcp.md). In the handshake era every
    session has its own state: calling a toolbox's selector adds its members to
    that session's `tools/list` and sends `notifications/tools/list_changed`; a
    member not opened yet is an unknown tool for the session. In 2026-07-28
    nothing lives in a session: the selector's result reveals the members with a
    sealed handle, and approvals are `input_required` round trips. A call that
    `policy` makes pending (or, without a policy, a `requires_approval` tool) is
    put to the user through MCP elicitation when the client supports it, else
    answered with an error result. `ToolContext` progress reports and log entries
    become `notifications/progress` and `notifications/message`;
    `notifications/cancelled` cancels the call. Results follow `format_results`;
    an unknown tool is a protocol error (JSON-RPC -32602), as the spec asks. Run
    it with `serve_stdio` or `serve_http`.

    Args:
        tools: Tools, a `Catalog` or a `ToolSet` (not bare ToolSpecs: the server
            must be able to run them).
        name: The server name announced to clients.
        version: The server version announced to clients (toolcast's own by default).
        instructions: Optional instructions for the client's model.
        context: The `ToolContext` whose `state` every call sees.
        policy: A `toolcast.policy.Policy` deciding each call (allowed, denied,
            pending approval).
        toolboxes: For a `Catalog`: show toolboxes as selectors to open (True) or
            list every member directly (False).
        state_keys: The key ring (each >= 32 bytes) sealing 2026-07-28
            `requestState`s and toolbox handles, shared by every replica; None
            makes a key for this process alone.
        redis_url: A Redis shared by the replicas: the once-only record of spent
            approval states and the 2026-07-28 aliases. None keeps both in memory.
        list_ttl: Seconds a 2026-07-28 client may cache `tools/list`.
        tasks: Tools run as tasks (2026-07-28 Tasks extension) by name: `"optional"`
            (a task for a client that declares the extension, a plain call for
            others), `"required"` (refused `-32021` without it) or `"off"`. Tools
            marked `long_running=True` are `"optional"` unless named here.
        task_ttl: Seconds a task's record (and its result) is kept.

    Raises:
        ImportError: the MCP SDK is not installed.
        TypeError: an item cannot be invoked.
        ValueError: `tasks` gives a value other than optional, required or off.
        CatalogError: two tools share a name or alias.
    """
    from toolcast.providers._mcp_stateless import StatelessState, toolcast_version
    from toolcast.providers._mcp_tasks import Tasks, task_support

    state = StatelessState(name, keys=state_keys, redis_url=redis_url)
    support = task_support(tasks or {})
    runner = Tasks(name, support, redis=state.redis, ttl_ms=int(task_ttl * 1000))
    return build_server(
        tools,
        _server_wire(),
        name=name,
        version=toolcast_version() if version is None else version,
        instructions=instructions,
        context=context,
        policy=policy,
        toolboxes=toolboxes,
        state=state,
        list_ttl=list_ttl,
        tasks=runner,
    )


async def serve_stdio(tools: Iterable[_Invocable] | Any, **options: Any) -> None:
    """Serve `tools` over this process's stdin/stdout until the client disconnects.

    `options` are those of `create_server`, plus `handle_signals=True` to stop
    cleanly on SIGINT/SIGTERM.

    Raises:
        ImportError: the MCP SDK is not installed.
    """
    handle_signals = bool(options.pop("handle_signals", False))
    server = create_server(tools, **options)
    await transport.serve_stdio(server, handle_signals=handle_signals)


async def serve_http(
    tools: Iterable[_Invocable] | Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    path: str = "/mcp",
    **options: Any,
) -> None:
    """Serve `tools` over streamable HTTP at `http://host:port/path` until cancelled.

    Binds loopback by default with the SDK's DNS-rebinding protection on. Other
    `options` go to `create_server`, or to the transport (`allowed_hosts`,
    `allowed_origins`, `max_request_bytes`, `handle_signals`, `on_ready`,
    `max_sessions`, `session_idle_timeout`).

    Raises:
        ImportError: the MCP SDK is not installed.
    """
    keys = (
        "allowed_hosts",
        "allowed_origins",
        "max_request_bytes",
        "handle_signals",
        "on_ready",
        "max_sessions",
        "session_idle_timeout",
    )
    transport_options = {k: options.pop(k) for k in keys if k in options}
    server = create_server(tools, **options)
    await transport.serve_http(server, host=host, port=port, path=path, **transport_options)
