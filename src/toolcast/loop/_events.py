"""What the loop reports as it goes: `LoopEvent`s to a hook, and OpenTelemetry spans.

Spans follow the OpenTelemetry GenAI semantic conventions for tool execution
(https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span):
`execute_tool {gen_ai.tool.name}`, kind INTERNAL, with `gen_ai.operation.name`,
`gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, and `error.type` on
failure. They are made only when `opentelemetry-api` is installed and a tracer
provider is configured, so an untraced host pays nothing.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolSpec
from toolcast.loop._conversation import CallRecord, RunStatus
from toolcast.loop._model import ModelRequest, ModelTurn, Usage
from toolcast.policy._decision import Decision

__all__ = ("EventHook", "EventKind", "LoopEvent", "tracer", "tool_span")

EventKind: TypeAlias = Literal["request", "call", "decision", "result", "pending", "usage", "done"]
"""request (about to ask the model), call (one call came in), decision (the
policy decided it), result (it was answered), pending (the run stops to wait),
usage (tokens of one response), done (the run stopped; `status` says why)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopEvent:
    """One thing that happened in a run."""

    kind: EventKind
    """What happened."""
    conversation_id: str
    """The conversation it happened in."""
    round: int
    """The conversation's round (model request number)."""
    request: ModelRequest | None = None
    """`request`: what is sent."""
    turn: ModelTurn | None = None
    """`usage`: the model's turn."""
    call: CallRecord | None = None
    """`call`, `decision`, `result`, `pending`: the call."""
    decision: Decision | None = None
    """`decision`: the decision."""
    outcome: ToolOutcome | None = None
    """`result`: the answer the model gets."""
    usage: Usage | None = None
    """`usage`: this response's tokens; `done`: the run's total."""
    status: RunStatus | None = None
    """`done`: why the run stopped."""


EventHook: TypeAlias = "Callable[[LoopEvent], Awaitable[None] | None]"
"""`on_event=`: called with each `LoopEvent`, sync or async."""


_OTEL = importlib.util.find_spec("opentelemetry") is not None


def tracer() -> Any:
    """The `toolcast` tracer, or None when nothing would record its spans."""
    if not _OTEL:
        return None
    from opentelemetry import trace

    provider = trace.get_tracer_provider()
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    return provider.get_tracer("toolcast")


class _ToolSpan:
    """`execute_tool {name}`: marks failures with `error.type` and an error status."""

    __slots__ = ("_manager", "_span")

    def __init__(self, tracer: Any, spec: ToolSpec | None, name: str, call_id: str) -> None:
        from opentelemetry.trace import SpanKind

        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
        }
        if spec is not None and spec.description:
            attributes["gen_ai.tool.description"] = spec.description
        self._manager = tracer.start_as_current_span(
            f"execute_tool {name}", kind=SpanKind.INTERNAL, attributes=attributes
        )
        self._span: Any = None

    def __enter__(self) -> _ToolSpan:
        self._span = self._manager.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._manager.__exit__(*exc)

    def record(self, outcome: ToolOutcome) -> None:
        if outcome.is_error and outcome.error is not None:
            from opentelemetry.trace import Status, StatusCode

            self._span.set_attribute("error.type", outcome.error.kind)
            self._span.set_status(Status(StatusCode.ERROR, outcome.error.kind))


def tool_span(
    tracer: Any, spec: ToolSpec | None, name: str, call_id: str
) -> AbstractContextManager[Any]:
    """The span around one tool execution (a no-op context without a tracer)."""
    if tracer is None:
        return nullcontext()
    return _ToolSpan(tracer, spec, name, call_id)
