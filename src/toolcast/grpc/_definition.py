"""Annotated RPCs -> `RpcDefinition`s: plain data the plugin writes and the runtime reads.

A definition holds everything a tool needs except the code that runs it: name,
description, schemas in both directions, and where to send the call. Every
problem in every method is collected and raised once, each naming its method.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from toolcast._define._names import check_name
from toolcast._json import JsonSchema
from toolcast.errors import DefinitionProblem, ToolDefinitionError
from toolcast.grpc._index import DescriptorIndex, ServiceEntry
from toolcast.grpc._schema import RequiredRule, message_schema
from toolcast.grpc._wire import RpcTool, read_field_annotations, read_rpc_tool

__all__ = ("METHOD_CHOICES", "Choices", "RpcDefinition", "collect", "primary_prefix")

METHOD_CHOICES = ("annotated", "all")
"""`annotated`: only RPCs with `ai.tools.v1.rpc_tool`. `all`: also every unary and
server-streaming RPC without it (named after the method, auto-executed)."""

_MESSAGE = 11


@dataclass(frozen=True, slots=True, kw_only=True)
class RpcDefinition:
    """One annotated RPC as a tool definition (no runtime objects, so it can be written out)."""

    name: str
    """The model-visible tool name."""
    description: str
    """`rpc_tool.description`, else the RPC's leading comment."""
    strict: bool
    """`rpc_tool.strict`: ask providers for strict decoding."""
    auto_execute: bool
    """toolcast calls the RPC itself."""
    method: str
    """The gRPC method path, `/package.Service/Method`."""
    service: str
    """The service's full name."""
    service_description: str
    """The service's leading comment (its toolbox's description)."""
    file: str
    """The .proto file declaring the service."""
    request: str
    """The request message's full name."""
    response: str
    """The response message's full name."""
    server_streaming: bool
    """The RPC streams its responses (collected into a list)."""
    input_schema: JsonSchema
    output_schema: JsonSchema

    def to_dict(self) -> dict[str, Any]:
        """The definition as plain JSON data."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RpcDefinition:
        """The inverse of `to_dict`."""
        return cls(**data)


def _prefixes(index: DescriptorIndex, type_name: str) -> list[tuple[str, str]]:
    """`(field name, alias_prefix)` of a message's annotated fields, in order."""
    entry = index.messages.get(type_name.lstrip("."))
    if entry is None:
        return []
    found = []
    for f in entry.proto.field:
        prefix = read_field_annotations(f.options.SerializeToString()).alias_prefix
        if prefix:
            found.append((f.name, prefix))
    return found


def primary_prefix(index: DescriptorIndex, request: str, response: str) -> str:
    """The tool's primary alias prefix, by the original plugin's rule.

    The response's own `id` prefix; else the `id` prefix of its first top-level
    message field (repeated included, maps and well-known types not) that has
    one; else the request's `id` prefix; else its first annotated field's.
    """
    own = dict(_prefixes(index, response))
    if "id" in own:
        return own["id"]
    entry = index.messages.get(response.lstrip("."))
    if entry is not None:
        for f in entry.proto.field:
            name = f.type_name.lstrip(".")
            if f.type != _MESSAGE or name.startswith("google.protobuf."):
                continue
            nested = index.messages.get(name)
            if nested is None or nested.proto.options.map_entry:
                continue
            inner = dict(_prefixes(index, name))
            if "id" in inner:
                return inner["id"]
    asked = _prefixes(index, request)
    return dict(asked).get("id") or (asked[0][1] if asked else "")


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


@dataclass(frozen=True, slots=True)
class Choices:
    """What `collect` turns into definitions, and how."""

    methods: str = "annotated"
    services: frozenset[str] | None = None
    required: RequiredRule = "field_behavior"
    any_types: tuple[str, ...] | None = None


def _hoisted(schema: JsonSchema) -> tuple[JsonSchema, JsonSchema]:
    schema = dict(schema)
    defs = schema.pop("$defs", {})
    return schema, defs


def _definition(
    index: DescriptorIndex,
    service: ServiceEntry,
    position: int,
    problems: list[DefinitionProblem],
    choices: Choices,
    skipped: list[str],
) -> RpcDefinition | None:
    method = service.proto.method[position]
    where = f"{service.full_name}/{method.name}"
    options = read_rpc_tool(method.options.SerializeToString())
    if options is None:
        if choices.methods != "all":
            skipped.append(f"{where}: no ai.tools.v1.rpc_tool annotation")
            return None
        if method.client_streaming:
            kind = "bidirectional" if method.server_streaming else "client"
            skipped.append(f"{where}: {kind}-streaming (a model sends one argument object)")
            return None
        options = RpcTool(
            description=service.comments.get(position, "") or f"Calls the gRPC method {where}.",
            auto_execute=True,
        )
    found: list[DefinitionProblem] = []
    name = options.name or _snake(method.name)
    check_name(name, found)
    if method.client_streaming:
        kind = "bidirectional" if method.server_streaming else "client"
        found.append(
            DefinitionProblem(
                "grpc-streaming",
                "",
                f"{kind}-streaming RPCs cannot be tools (a model sends one argument "
                "object); remove rpc_tool or offer a unary RPC.",
            )
        )
    request, response = method.input_type.lstrip("."), method.output_type.lstrip(".")
    for type_name in (request, response):
        if type_name not in index.messages:
            found.append(
                DefinitionProblem(
                    "unknown-type",
                    "",
                    f"message {type_name} is not in the descriptors; include its file "
                    "(--include_imports).",
                )
            )
    if found:
        problems.extend(_located(found, where))
        return None
    primary = primary_prefix(index, request, response)
    local: list[DefinitionProblem] = []
    input_schema = message_schema(
        index,
        request,
        "input",
        id_prefix=primary,
        problems=local,
        required=choices.required,
        any_types=choices.any_types,
        strict=options.strict,
    )
    output = message_schema(index, response, "output", id_prefix=primary, problems=local)
    if method.server_streaming:
        items, defs = _hoisted(output)
        output = {
            "type": "object",
            "properties": {
                "messages": {"type": "array", "items": items},
                "truncated": {
                    "type": "boolean",
                    "description": "True when the stream was cut at the message limit.",
                },
            },
        }
        if defs:
            output["$defs"] = defs
    if local:
        problems.extend(_located(local, where))
        return None
    return RpcDefinition(
        name=name,
        description=options.description or service.comments.get(position, ""),
        strict=options.strict,
        auto_execute=options.auto_execute,
        method=f"/{where}",
        service=service.full_name,
        service_description=service.comment,
        file=service.file_name,
        request=request,
        response=response,
        server_streaming=method.server_streaming,
        input_schema=input_schema,
        output_schema=output,
    )


def _located(problems: Sequence[DefinitionProblem], where: str) -> list[DefinitionProblem]:
    return [
        DefinitionProblem(p.code, f"{where} {p.path}" if p.path else where, p.message)
        for p in problems
    ]


def collect(
    index: DescriptorIndex,
    file_names: Sequence[str] | None = None,
    choices: Choices | None = None,
    skipped: list[str] | None = None,
) -> list[RpcDefinition]:
    """The RPCs of `file_names` (all files when None) that `choices` take, sorted by name.

    Each RPC left out is appended to `skipped` as "Service/Method: reason".

    Raises:
        ToolDefinitionError: Listing every problem of every method at once.
        ValueError: `choices.services` names a service that is not in the files.
    """
    choices = choices or Choices()
    skipped = [] if skipped is None else skipped
    problems: list[DefinitionProblem] = []
    found: dict[str, RpcDefinition] = {}
    offered = list(index.services_of(file_names))
    if choices.services is not None:
        unknown = sorted(choices.services - {s.full_name for s in offered})
        if unknown:
            known = ", ".join(s.full_name for s in offered) or "none"
            msg = f"unknown service(s) {', '.join(unknown)} (the source has: {known})."
            raise ValueError(msg)
        offered = [s for s in offered if s.full_name in choices.services]
    for service in offered:
        for position in range(len(service.proto.method)):
            definition = _definition(index, service, position, problems, choices, skipped)
            if definition is None:
                continue
            if definition.name in found:
                first = found[definition.name].method
                problems.append(
                    DefinitionProblem(
                        "duplicate-name",
                        definition.method.lstrip("/"),
                        f"tool name {definition.name!r} is already used by {first.lstrip('/')}; "
                        "set a distinct rpc_tool.name.",
                    )
                )
                continue
            found[definition.name] = definition
    if problems:
        raise ToolDefinitionError("gRPC tools", problems)
    return [found[name] for name in sorted(found)]
