"""What a worker holds (the tools, the models by name, the policy) and the activities it runs.

One `Runtime` per worker: the plugin builds it and registers it under the
worker's task queue, so the workflow finds the same tool set, the same model
adapter (for its message format) and the same policy rules on whatever worker
replays it. Models are built here, on the worker, from `models[name]`: no client
object ever crosses a process.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.common import RetryPolicy

from toolcast._catalog._catalog import Catalog
from toolcast._catalog._toolset import ToolSet
from toolcast._context import ToolContext
from toolcast._spec import ToolCall, ToolSpec
from toolcast.aliases._required import RAW_IDS
from toolcast.aliases._session import AliasSession
from toolcast.loop._events import EventHook, tool_span, tracer
from toolcast.loop._model import Model, ModelRequest
from toolcast.policy._policy import Policy, call_evaluator
from toolcast.temporal._codec import encode_outcome, encode_turn, unjsonable

__all__ = ("MODEL_ACTIVITY", "POLICY_ACTIVITY", "TOOL_ACTIVITY", "Runtime", "runtime_for")

MODEL_ACTIVITY = "toolcast.model_turn"
TOOL_ACTIVITY = "toolcast.tool_call"
POLICY_ACTIVITY = "toolcast.evaluate"

ModelFactory = Callable[[], Model]

# Error type names a retry cannot fix, across the provider SDKs (400, 401, 403, 404, 422).
_NOT_RETRYABLE = [
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "UnprocessableEntityError",
    "UnknownModelError",
]


@dataclass(kw_only=True)
class Runtime:
    """A worker's tools, models and policy, and the activity options derived from them."""

    tools: ToolSet
    models: Mapping[str, ModelFactory | Model]
    policy: Policy
    context: ToolContext | None = None
    on_event: EventHook | None = None
    model_timeout: timedelta = timedelta(minutes=5)
    model_retry: RetryPolicy = field(
        default_factory=lambda: RetryPolicy(
            maximum_attempts=3, non_retryable_error_types=_NOT_RETRYABLE
        )
    )
    tool_timeout: timedelta = timedelta(minutes=10)
    tool_retry: RetryPolicy = field(default_factory=lambda: RetryPolicy(maximum_attempts=5))
    heartbeat_timeout: timedelta = timedelta(seconds=20)
    evaluator_timeout: timedelta = timedelta(seconds=60)
    tracer: Any = None
    """The tracer of the `execute_tool` spans; None: the global provider's, if any."""
    _built: dict[str, Model] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- models -----------------------------------------------------------------------

    def model(self, name: str) -> Model:
        """The adapter for `name`, built once per worker.

        Raises:
            LookupError: The worker has no model by that name.
        """
        with self._lock:
            built = self._built.get(name)
            if built is not None:
                return built
            made = self.models.get(name)
            if made is None:
                known = ", ".join(repr(n) for n in self.models) or "none"
                msg = f"This worker has no model {name!r} (its models: {known})."
                raise LookupError(msg)
            model = made if hasattr(made, "complete") else made()
            self._built[name] = model  # type: ignore[assignment]
            return model  # type: ignore[return-value]

    def build_models(self) -> None:
        """Build every model now, on the worker, never inside a workflow task.

        A slow import or constructor there would trip Temporal's deadlock detector.
        """
        for name in self.models:
            self.model(name)

    # -- activity options ---------------------------------------------------------------

    def tool_options(self, spec: ToolSpec) -> dict[str, Any]:
        """Start-to-close from the tool's timeout; retries only for idempotent tools."""
        if spec.timeout is not None:
            # A second more than the tool's own limit, so its own "timed out" answer
            # (the one `toolcast.run` gives) normally wins the race with Temporal's.
            timeout = timedelta(seconds=spec.timeout + 1)
        else:
            timeout = self.tool_timeout
        # A tool that is not idempotent is never started again once it may have run.
        retry = self.tool_retry if spec.idempotent else RetryPolicy(maximum_attempts=1)
        return {
            "start_to_close_timeout": timeout,
            "heartbeat_timeout": self.heartbeat_timeout,
            "retry_policy": retry,
        }

    # -- activities ---------------------------------------------------------------------

    def activities(self) -> list[Callable[..., Any]]:
        """The activity functions this worker registers."""
        return [self.model_turn, self.tool_call, self.evaluate]

    @activity.defn(name=MODEL_ACTIVITY)
    async def model_turn(self, data: dict[str, Any]) -> dict[str, Any]:
        """One model request, through the adapter built on this worker."""
        model = self.model(data["model"])
        specs = []
        for name in data["tools"]:
            found = self.tools.get(name)
            if found is not None:
                specs.append(found.spec)
        request = ModelRequest(
            messages=tuple(unjsonable(data["messages"])),
            tools=tuple(specs),
            system=data.get("system"),
            tool_choice=data.get("tool_choice", "auto"),
            parallel_calls=bool(data.get("parallel_calls", True)),
            options=data.get("options") or {},
        )
        return encode_turn(await model.complete(request))

    @activity.defn(name=TOOL_ACTIVITY)
    async def tool_call(self, data: dict[str, Any]) -> dict[str, Any]:
        """One tool call, heartbeating (with the tool's last progress report) while it runs."""
        call = ToolCall(data["id"], data["name"], data["arguments"], unjsonable(data["provider"]))
        session = AliasSession.from_json(data["aliases"]) if data.get("aliases") else None
        # No session: the workflow sent none (a tool without marks, or RAW_IDS).
        aliases = RAW_IDS if session is None else session
        progress: list[Any] = []

        def report(done: float, total: float | None, message: str | None) -> None:
            progress[:] = [
                done,
                total,
                message,
            ]  # read by the heartbeat loop; a list swap is atomic

        base = self.context or ToolContext()
        context = ToolContext(state=base.state, clock=base.clock, progress_hook=report)
        beat = asyncio.create_task(_heartbeat(self.heartbeat_timeout, progress))
        # The `execute_tool` span `toolcast.run` opens, here on the worker: inside
        # Temporal's `RunActivity` span when its TracingInterceptor is configured.
        traced = self.tracer if self.tracer is not None else tracer()
        spec = tool.spec if traced is not None and (tool := self.tools.get(call.name)) else None
        try:
            with tool_span(traced, spec, call.name, call.id) as span:
                outcome = await self.tools.invoke(call, context=context, aliases=aliases)
                if span is not None:
                    span.record(outcome)
        finally:
            beat.cancel()
        return {
            "outcome": encode_outcome(outcome),
            "aliases": session.to_json() if session is not None else None,
        }

    @activity.defn(name=POLICY_ACTIVITY)
    async def evaluate(self, data: dict[str, Any]) -> list[Any] | None:
        """The policy evaluator about one call, on the validated arguments."""
        evaluator = self.policy.evaluator
        tool = self.tools.get(data["name"])
        if evaluator is None or tool is None:
            return None
        call = ToolCall(data["id"], data["name"], data["arguments"], unjsonable(data["provider"]))
        session = AliasSession.from_json(data["aliases"]) if data.get("aliases") else None
        # No session: the workflow sent none (a tool without marks, or RAW_IDS).
        aliases = RAW_IDS if session is None else session
        try:
            arguments = await tool.validate_call(
                call.arguments,
                null_means_default=bool(call.provider_data.get("null_means_default")),
                aliases=aliases,
            )
        except ValueError as exc:
            return ["failed", f"Tool policy evaluation failed: {exc}"[:300]]
        decision = await call_evaluator(
            _threaded(evaluator), tool.spec, call, arguments, "evaluator"
        )
        return None if decision is None else [decision.status, decision.reason]


async def _heartbeat(timeout: timedelta, progress: list[Any]) -> None:
    interval = max(timeout.total_seconds() / 3, 0.2)
    while True:
        activity.heartbeat(*progress)
        await asyncio.sleep(interval)


def _threaded(evaluator: Any) -> Any:
    """A sync evaluator runs in a thread, so one that blocks stalls nothing else."""
    if inspect.iscoroutinefunction(evaluator) or inspect.iscoroutinefunction(
        getattr(evaluator, "__call__", None)  # noqa: B004 - an object with an async __call__
    ):
        return evaluator

    async def in_thread(*args: Any) -> Any:
        value = await asyncio.to_thread(evaluator, *args)
        return await value if inspect.isawaitable(value) else value

    return in_thread


def as_tool_set(tools: ToolSet | Catalog | None) -> ToolSet:
    """The worker's tool set: a `Catalog` means all of it, its toolboxes as selectors."""
    if tools is None:
        return Catalog([]).select()
    if isinstance(tools, Catalog):
        return tools.select(include_selectors=True)
    return tools


_RUNTIMES: dict[str, Runtime] = {}
_RUNTIMES_LOCK = threading.Lock()


def register_runtime(key: str, runtime: Runtime) -> None:
    """Make `runtime` the one workflows on task queue `key` use (`*`: a replayer's)."""
    with _RUNTIMES_LOCK:
        _RUNTIMES[key] = runtime


def runtime_for(task_queue: str) -> Runtime:
    """The runtime of the worker serving `task_queue`.

    Raises:
        LookupError: No `ToolcastPlugin` with tools configured a worker in this process.
    """
    with _RUNTIMES_LOCK:
        found = _RUNTIMES.get(task_queue) or _RUNTIMES.get("*")
        if found is None and len(_RUNTIMES) == 1:
            found = next(iter(_RUNTIMES.values()))
    if found is None:
        msg = (
            f"No toolcast runtime for task queue {task_queue!r}: give the worker "
            "ToolcastPlugin(tools=..., models=..., policy=...)."
        )
        raise LookupError(msg)
    return found
