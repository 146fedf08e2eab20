"""Tools from a running server's reflection service: no .proto files at hand.

The server reflection protocol (grpcio-reflection, `grpc.reflection.v1alpha`)
lists the services and sends each one's file with its dependencies as
serialized `FileDescriptorProto`s; those make a `FileDescriptorSet`, which
`tools_from_descriptors` reads like any other. Reflection sends no comments, so
descriptions come from annotations, else a sentence naming the method.
"""

from __future__ import annotations

from typing import Any

from toolcast._tool import Tool
from toolcast.grpc._tools import tools_from_descriptors

__all__ = ("tools_from_reflection",)

_HINT = "tools_from_reflection needs grpcio-reflection: pip install 'toolcast[grpc]'"
_OWN = ("grpc.reflection.",)


async def tools_from_reflection(
    channel: Any,
    services: list[str] | None = None,
    *,
    methods: str = "all",
    **options: Any,
) -> list[Tool]:
    """Tools for the services a server offers, read through its reflection service.

    Args:
        channel: A `grpc.aio` channel to the server; the tools call on it too.
        services: Full service names to take (default: every service the server
            lists, except the reflection service itself).
        methods: As for `tools_from_descriptors`; "all" by default, since a
            server found by reflection is rarely annotated.
        **options: Passed on to `tools_from_descriptors` (`handlers`,
            `metadata`, `timeout`, `required`, ...).

    Raises:
        LookupError: The server has no reflection service, or does not know a
            service or file asked for.
        ImportError: grpcio-reflection is not installed.
    """
    try:
        import grpc  # type: ignore[import-untyped,unused-ignore]
        from google.protobuf import descriptor_pb2  # type: ignore[import-untyped,unused-ignore]
        from grpc_reflection.v1alpha import (  # type: ignore[import-untyped,unused-ignore]
            reflection_pb2,
            reflection_pb2_grpc,
        )
    except ImportError:
        raise ImportError(_HINT) from None
    stream = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo()
    request = reflection_pb2.ServerReflectionRequest

    async def ask(**what: str) -> Any:
        await stream.write(request(**what))
        answer = await stream.read()
        if answer is grpc.aio.EOF or answer.HasField("error_response"):
            detail = "" if answer is grpc.aio.EOF else answer.error_response.error_message
            msg = f"server reflection could not answer {what}: {detail or 'no answer'}."
            raise LookupError(msg)
        return answer

    try:
        listed = await ask(list_services="")
        names = [s.name for s in listed.list_services_response.service]
        wanted = (
            list(services) if services is not None else [n for n in names if not n.startswith(_OWN)]
        )
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            msg = f"the server does not offer {', '.join(unknown)} (it offers: {', '.join(names)})."
            raise LookupError(msg)
        files: dict[str, Any] = {}

        def keep(answer: Any) -> None:
            for raw in answer.file_descriptor_response.file_descriptor_proto:
                proto = descriptor_pb2.FileDescriptorProto.FromString(raw)
                files.setdefault(proto.name, proto)

        for name in wanted:
            keep(await ask(file_containing_symbol=name))
        missing = [d for f in list(files.values()) for d in f.dependency if d not in files]
        while missing:  # servers should send dependencies too; ask for any they did not
            keep(await ask(file_by_filename=missing.pop()))
            missing = [d for f in list(files.values()) for d in f.dependency if d not in files]
        await stream.done_writing()
    except grpc.aio.AioRpcError as exc:
        msg = f"server reflection failed: {exc.code().name}: {exc.details()}"
        raise LookupError(msg) from exc
    finally:
        stream.cancel()
    descriptor_set = descriptor_pb2.FileDescriptorSet(file=list(files.values()))
    return tools_from_descriptors(
        descriptor_set, channel=channel, services=wanted, methods=methods, **options
    )
