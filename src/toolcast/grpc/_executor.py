"""The handler of an `auto_execute` tool: validated arguments -> RPC -> JSON-ready dict.

Arguments arrive already validated against the tool's schema (and with aliases
resolved by the core). They become the request message with `ParseDict`, the
call goes over the host's `grpc.aio` channel with the deadline and metadata of
this call, and the response comes back as `MessageToDict` output with proto
field names. gRPC status codes become `ToolError`s worded for the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from toolcast._context import ToolContext
from toolcast.errors import ToolError
from toolcast.grpc._convert import RequestConverter, response_json

__all__ = ("Metadata", "MetadataHook", "make_executor", "status_message")

Metadata: TypeAlias = "Iterable[tuple[str, str | bytes]]"
MetadataHook: TypeAlias = "Callable[[ToolContext | None], Metadata | None]"
"""Returns the call metadata for one call (e.g. a per-user authorization header)."""


STATE_KEY = "grpc_metadata"
"""`ToolContext.state` key read for call metadata when no hook is given."""

# The server's words are meant for the caller for these codes; for the others
# (UNKNOWN, INTERNAL, DATA_LOSS, ...) they may carry internals and are not shown.
_PASSED_THROUGH = {
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "FAILED_PRECONDITION",
    "OUT_OF_RANGE",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "ABORTED",
}
_FIXED_WORDS = {
    "UNAVAILABLE": "the service is unreachable right now; the same call can be retried.",
    "DEADLINE_EXCEEDED": "the service did not answer in time; retry, or ask for less.",
    "CANCELLED": "the call was cancelled.",
    "UNAUTHENTICATED": "the service refused the caller's credentials.",
    "UNIMPLEMENTED": "the service does not offer this method.",
}


def status_message(code: str, details: str | None) -> str:
    """The model-facing text for a gRPC status."""
    if code in _PASSED_THROUGH:
        return f"{code}: {details}" if details else code
    words = _FIXED_WORDS.get(code, "the service failed to handle the call.")
    return f"{code}: {words}"


@dataclass(frozen=True, slots=True)
class _Call:
    """What one tool needs at call time."""

    name: str
    method: str
    streaming: bool
    classes: Callable[[], tuple[Any, Any]]
    channel: Any
    metadata: MetadataHook | None
    deadline: float | None
    max_messages: int


def _metadata(hook: MetadataHook | None, context: ToolContext | None) -> tuple[Any, ...] | None:
    if hook is not None:
        found = hook(context)
    elif context is not None:
        found = context.state.get(STATE_KEY)
    else:
        found = None
    return tuple(found) if found else None


def make_executor(
    *,
    name: str,
    method: str,
    streaming: bool,
    classes: Callable[[], tuple[Any, Any]],
    channel: Any,
    metadata: MetadataHook | None,
    deadline: float | None,
    max_messages: int,
) -> Callable[[Mapping[str, Any], ToolContext | None], Awaitable[Any]]:
    """The async handler that calls `method` on `channel` (a channel or a factory of one).

    `classes()` returns the request and response message classes; it runs on the
    first call, so building many tools costs no descriptor pool work.
    """
    import grpc  # type: ignore[import-untyped,unused-ignore]
    from google.protobuf import json_format  # type: ignore[import-untyped,unused-ignore]

    plan = _Call(name, method, streaming, classes, channel, metadata, deadline, max_messages)
    stubs: dict[int, tuple[Any, RequestConverter, Any, Any]] = {}

    def stub_for(channel: Any) -> tuple[Any, RequestConverter, Any, Any]:
        key = id(channel)
        found = stubs.get(key)
        if found is None:
            request_cls, response_cls = plan.classes()
            make = channel.unary_stream if plan.streaming else channel.unary_unary
            found = (
                make(
                    plan.method,
                    request_serializer=request_cls.SerializeToString,
                    response_deserializer=response_cls.FromString,
                ),
                RequestConverter(plan.name, request_cls),
                request_cls.DESCRIPTOR.file.pool,
                channel,  # kept so the id stays this channel's while cached
            )
            stubs[key] = found
        return found

    to_dict = json_format.MessageToDict
    aio_error = grpc.aio.AioRpcError

    async def execute(arguments: Mapping[str, Any], context: ToolContext | None) -> Any:
        channel = plan.channel() if callable(plan.channel) else plan.channel
        call, convert, pool, _ = stub_for(channel)
        request = convert(arguments)
        headers = _metadata(plan.metadata, context)
        try:
            if not plan.streaming:
                response = await call(request, timeout=plan.deadline, metadata=headers)
                return response_json(plan.name, response, to_dict, pool)
            messages: list[Any] = []
            stream = call(request, timeout=plan.deadline, metadata=headers)
            truncated = False
            async for item in stream:
                if len(messages) == plan.max_messages:
                    truncated = True
                    stream.cancel()
                    break
                messages.append(response_json(plan.name, item, to_dict, pool))
            return {"messages": messages, "truncated": truncated}
        except aio_error as exc:
            code = exc.code().name
            if code == "DEADLINE_EXCEEDED" and plan.deadline is not None:
                text = (
                    f"Tool '{plan.name}' timed out after {plan.deadline:g} s "
                    "(DEADLINE_EXCEEDED); the call can be retried, or ask for less."
                )
            else:
                text = status_message(code, exc.details())
            raise ToolError(text) from exc

    execute.__qualname__ = execute.__name__ = f"grpc_{name}"
    return execute
