"""gRPC targets for the CLI: a descriptor set file, a `_pb2` module or a plugin module.

`toolcast inspect links.binpb`, `toolcast call links.v1.links_pb2 links_get '{...}'
--grpc 127.0.0.1:50051` and `toolcast lock` see these tools like any others.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

__all__ = ("DESCRIPTOR_SUFFIXES", "grpc_tools_of", "is_grpc_module")

DESCRIPTOR_SUFFIXES = (".binpb", ".pb", ".desc", ".protoset", ".fds")
"""File names read as a serialized FileDescriptorSet."""


def is_grpc_module(module: ModuleType) -> bool:
    """A protoc `_pb2` module, or one written by `protoc-gen-toolcast`."""
    from toolcast.grpc._tools import is_generated_module

    descriptor = getattr(module, "DESCRIPTOR", None)
    return is_generated_module(module) or hasattr(descriptor, "serialized_pb")


def grpc_tools_of(source: Any, address: str | None) -> list[Any]:
    """The tools of `source`; with `address`, auto_execute tools call it (insecure channel)."""
    from toolcast.grpc import tools_from_descriptors

    channel = None
    if address is not None:
        import grpc  # type: ignore[import-untyped,unused-ignore]

        made: list[Any] = []

        def channel() -> Any:  # opened inside the command's event loop, once
            if not made:
                made.append(grpc.aio.insecure_channel(address))
            return made[0]

    return tools_from_descriptors(source, channel=channel)
