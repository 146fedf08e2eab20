"""Descriptor sources -> `RpcDefinition`s -> `Tool`s.

Three sources give the same definitions: a `FileDescriptorSet` (bytes, a path,
or the message; comments included when built with `--include_source_info`),
imported `_pb2` modules (no comments: they embed descriptors without source
info), and a module written by `protoc-gen-toolcast` (comments included).
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from toolcast._arguments import Limits
from toolcast._tool import Tool
from toolcast.errors import ToolError
from toolcast.grpc._definition import METHOD_CHOICES, Choices, RpcDefinition, collect
from toolcast.grpc._executor import MetadataHook, make_executor
from toolcast.grpc._index import DescriptorIndex
from toolcast.grpc._schema import REQUIRED_RULES, RequiredRule

__all__ = (
    "DEFINITIONS_ATTR",
    "Source",
    "definitions_from",
    "is_generated_module",
    "load_protobuf",
    "tools_from_descriptors",
)

DEFINITIONS_ATTR = "TOOLCAST_DEFINITIONS"
"""The attribute a `protoc-gen-toolcast` module defines: a tuple of definition dicts."""
PB2_ATTR = "TOOLCAST_PB2_MODULES"
"""The `_pb2` modules a generated module's tools need at call time."""

Source = Any
"""bytes | os.PathLike | str path | FileDescriptorSet | module | sequence of modules."""

_HINT = "toolcast.grpc needs protobuf and grpcio: pip install 'toolcast[grpc]'"


def load_protobuf() -> Any:
    """The `google.protobuf.descriptor_pb2` module, or ImportError with the install hint."""
    try:
        from google.protobuf import descriptor_pb2  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise ImportError(_HINT) from None
    return descriptor_pb2


def is_generated_module(value: object) -> bool:
    """True for a module written by `protoc-gen-toolcast`."""
    return isinstance(value, ModuleType) and hasattr(value, DEFINITIONS_ATTR)


def _file_protos(module: ModuleType) -> tuple[list[Any], str]:
    """A `_pb2` module's file and every file it depends on, dependencies first."""
    descriptor_pb2 = load_protobuf()
    root = getattr(module, "DESCRIPTOR", None)
    if root is None or not hasattr(root, "serialized_pb"):
        msg = (
            f"module {module.__name__!r} is neither a protoc-generated _pb2 module nor "
            "one written by protoc-gen-toolcast."
        )
        raise TypeError(msg)
    ordered: list[Any] = []
    seen: set[str] = set()

    def visit(file: Any) -> None:
        if file.name in seen:
            return
        seen.add(file.name)
        for dependency in file.dependencies:
            visit(dependency)
        ordered.append(descriptor_pb2.FileDescriptorProto.FromString(file.serialized_pb))

    visit(root)
    return ordered, root.name


class _Classes:
    """Finds message classes by full name, building what it needs on first use."""

    def __init__(self, find: Callable[[str], Any]) -> None:
        self._find = find

    def pair(self, definition: RpcDefinition) -> Callable[[], tuple[Any, Any]]:
        def classes() -> tuple[Any, Any]:
            from google.protobuf import message_factory  # type: ignore[import-untyped,unused-ignore]

            request = self._find(definition.request)
            response = self._find(definition.response)
            return message_factory.GetMessageClass(request), message_factory.GetMessageClass(
                response
            )

        return classes


def _set_classes(files: Sequence[Any]) -> _Classes:
    pool: list[Any] = []

    def find(name: str) -> Any:
        if not pool:
            from google.protobuf import descriptor_pool  # type: ignore[import-untyped,unused-ignore]

            made = descriptor_pool.DescriptorPool()
            by_name = {f.name: f for f in files}
            added: set[str] = set()

            def add(file: Any) -> None:
                if file.name in added:
                    return
                added.add(file.name)
                for dependency in file.dependency:
                    if dependency in by_name:
                        add(by_name[dependency])
                made.Add(file)

            for file in files:
                add(file)
            pool.append(made)
        return pool[0].FindMessageTypeByName(name)

    return _Classes(find)


def _default_classes(modules: Iterable[str] = ()) -> _Classes:
    names = tuple(modules)

    def find(name: str) -> Any:
        from google.protobuf import descriptor_pool  # type: ignore[import-untyped,unused-ignore]

        for module in names:
            importlib.import_module(module)
        return descriptor_pool.Default().FindMessageTypeByName(name)

    return _Classes(find)


def definitions_from(
    source: Source, choices: Choices | None = None, skipped: list[str] | None = None
) -> tuple[list[RpcDefinition], _Classes]:
    """The definitions of `source` and where its message classes come from.

    A module written by `protoc-gen-toolcast` holds definitions made when it was
    generated: `choices` do not apply to it.
    """
    if isinstance(source, (bytes, bytearray, memoryview, str, os.PathLike)):
        if isinstance(source, (str, os.PathLike)):
            with open(source, "rb") as handle:
                source = handle.read()
        descriptor_pb2 = load_protobuf()
        source = descriptor_pb2.FileDescriptorSet.FromString(bytes(source))
    if type(source).__name__ == "FileDescriptorSet" and hasattr(source, "file"):
        files = list(source.file)
        return collect(DescriptorIndex(files), None, choices, skipped), _set_classes(files)
    modules = [source] if isinstance(source, ModuleType) else list(source)
    generated = [m for m in modules if is_generated_module(m)]
    if generated:
        definitions = [
            RpcDefinition.from_dict(d) for m in generated for d in getattr(m, DEFINITIONS_ATTR)
        ]
        pb2 = [name for m in generated for name in getattr(m, PB2_ATTR, ())]
        plain = [m for m in modules if not is_generated_module(m)]
        if plain:
            more, _ = definitions_from(plain, choices, skipped)
            definitions += more
        return sorted(definitions, key=lambda d: d.name), _default_classes(pb2)
    protos: list[Any] = []
    wanted: list[str] = []
    for module in modules:
        if not isinstance(module, ModuleType):
            msg = f"cannot read gRPC descriptors from a {type(module).__name__}."
            raise TypeError(msg)
        found, name = _file_protos(module)
        protos += found
        wanted.append(name)
    return collect(DescriptorIndex(protos), wanted, choices, skipped), _default_classes()


def _unavailable(name: str, why: str) -> Callable[[Mapping[str, Any]], Any]:
    def unavailable(arguments: Mapping[str, Any]) -> Any:
        raise ToolError(f"Tool '{name}' cannot run here: {why}")

    return unavailable


def tools_from_descriptors(
    source: Source,
    *,
    channel: Any = None,
    services: Iterable[str] | None = None,
    methods: str = "annotated",
    required: RequiredRule = "field_behavior",
    any_types: Iterable[str] | None = None,
    handlers: Mapping[str, Callable[..., Any]] | None = None,
    metadata: MetadataHook | None = None,
    timeout: float | None = 30.0,
    max_messages: int = 100,
    limits: Limits | None = None,
) -> list[Tool]:
    """Tools for the RPCs of `source`, sorted by name.

    Args:
        source: A `FileDescriptorSet` (serialized bytes, a path to one, or the
            message), an imported `_pb2` module or a list of them, or a module
            written by `protoc-gen-toolcast`.
        channel: The host's `grpc.aio` channel (or a zero-argument callable that
            returns one) on which `auto_execute` tools call their RPC.
        services: Full names of the services to take (default: every service of
            the source's files); an unknown name is a ValueError.
        methods: "annotated" (RPCs with `ai.tools.v1.rpc_tool`) or "all" (also
            every unary and server-streaming RPC without it, auto-executed, named
            after the method, described by its comment). Each RPC left out is
            listed in one `UserWarning`.
        required: "field_behavior" (only `google.api.field_behavior = REQUIRED`
            fields are required, AIP-203) or "every_scalar" (also every plain
            proto3 scalar, the original plugin's rule).
        any_types: Full names of the messages a `google.protobuf.Any` may pack
            (default: the well-known types, then the request file's messages).
        handlers: Handlers by tool name, for tools that are not `auto_execute`
            (or to replace the RPC call); each takes `(arguments)` or
            `(arguments, context)`, like a `Tool.from_schema` handler.
        metadata: `(context) -> [(key, value), ...]`, the call metadata of each
            call; by default `context.state["grpc_metadata"]` is sent.
        timeout: Seconds per call: the RPC's deadline. It is not also set as the
            tool's `ToolSpec.timeout`: the deadline already bounds the call, and a
            second timer would cost an asyncio task per call.
        max_messages: How many messages a server-streaming RPC may return.
        limits: Bounds on argument size and depth.

    Raises:
        ToolDefinitionError: An RPC cannot become a tool (every problem listed).
        TypeError: `source` is none of the kinds above.
        ValueError: `handlers` names a tool `source` does not define.
        ImportError: protobuf or grpcio is not installed.
    """
    if methods not in METHOD_CHOICES:
        msg = f"methods={methods!r}: expected one of {', '.join(METHOD_CHOICES)}."
        raise ValueError(msg)
    if required not in REQUIRED_RULES:
        msg = f"required={required!r}: expected one of {', '.join(REQUIRED_RULES)}."
        raise ValueError(msg)
    choices = Choices(
        methods=methods,
        services=None if services is None else frozenset(services),
        required=required,
        any_types=None if any_types is None else tuple(any_types),
    )
    skipped: list[str] = []
    definitions, classes = definitions_from(source, choices, skipped)
    if skipped and (methods == "all" or not definitions):
        hint = "" if methods == "all" else " (pass methods='all' for RPCs without rpc_tool)"
        warnings.warn(
            f"{len(skipped)} gRPC method(s) are not tools{hint}: " + "; ".join(skipped),
            UserWarning,
            stacklevel=2,
        )
    handlers = dict(handlers or {})
    unknown = sorted(set(handlers) - {d.name for d in definitions})
    if unknown:
        msg = f"handlers given for unknown tools: {', '.join(unknown)}."
        raise ValueError(msg)
    tools = []
    for definition in definitions:
        handler = handlers.get(definition.name)
        if handler is None and definition.auto_execute and channel is not None:
            handler = make_executor(
                name=definition.name,
                method=definition.method,
                streaming=definition.server_streaming,
                classes=classes.pair(definition),
                channel=channel,
                metadata=metadata,
                deadline=timeout,
                max_messages=max_messages,
            )
        elif handler is None:
            why = (
                "the host gave no gRPC channel."
                if definition.auto_execute
                else "it is not auto_execute and the host gave no handler."
            )
            handler = _unavailable(definition.name, why)
        tools.append(
            Tool.from_schema(
                definition.name,
                definition.description,
                definition.input_schema,
                handler,
                output_schema=definition.output_schema,
                limits=limits,
                strict=definition.strict,
                extra={
                    "grpc": {
                        "method": definition.method,
                        "service": definition.service,
                        "service_description": definition.service_description,
                    }
                },
            )
        )
    return tools
