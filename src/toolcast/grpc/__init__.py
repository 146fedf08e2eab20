"""gRPC methods become tools: annotated RPCs -> ToolSpecs, a protoc plugin, an executor.

`tools_from_descriptors(source, channel=...)` reads a `FileDescriptorSet`, `_pb2`
modules or a `protoc-gen-toolcast` module; `include_path()` is the `-I` for the
shipped `ai/tools/v1/annotations.proto`. This wing imports the root runtime and
`_define`; protobuf and grpcio only when used (`pip install 'toolcast[grpc]'`).
"""

from __future__ import annotations

from pathlib import Path

from toolcast.grpc._tools import tools_from_descriptors

__all__ = ("include_path", "tools_from_descriptors")


def include_path() -> str:
    """The directory to pass to protoc as `-I`, holding `ai/tools/v1/annotations.proto`."""
    return str(Path(__file__).resolve().parent / "proto")


def __dir__() -> list[str]:
    return list(__all__)
