"""gRPC methods become tools: annotated RPCs -> ToolSpecs, a protoc plugin, an executor.

`tools_from_descriptors(source, channel=...)` reads a `FileDescriptorSet`, `_pb2`
modules or a `protoc-gen-toolcast` module; `service_toolboxes(tools)` groups them
per service; `tools_from_reflection(channel)` asks a running server's
reflection service; `include_path()` is the `-I` for the shipped annotations. This wing
imports the root runtime, `_define` and `_catalog`; protobuf and grpcio only when
used (`pip install 'toolcast[grpc]'`).
"""

from __future__ import annotations

from pathlib import Path

from toolcast.grpc._reflection import tools_from_reflection
from toolcast.grpc._toolbox import service_toolboxes
from toolcast.grpc._tools import tools_from_descriptors

__all__ = ("include_path", "service_toolboxes", "tools_from_descriptors", "tools_from_reflection")


def include_path() -> str:
    """The directory to pass to protoc as `-I`, holding `ai/tools/v1/annotations.proto`."""
    return str(Path(__file__).resolve().parent / "proto")


def __dir__() -> list[str]:
    return list(__all__)
