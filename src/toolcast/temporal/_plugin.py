"""`ToolcastPlugin`: registers the run workflow and its activities on a Temporal worker.

On a worker it registers `ToolcastRun` and the model, tool and policy activities,
and makes the worker's tools, models and policy the ones the workflow uses. On a
client it changes nothing (payloads are plain JSON), so `ToolcastPlugin()` there
only marks the client as one that starts toolcast runs; a worker built from a
client whose plugin has tools gets them too, as Temporal plugins do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import temporalio.client
import temporalio.worker
from temporalio.common import RetryPolicy
from temporalio.service import ConnectConfig, ServiceClient

from toolcast._catalog._catalog import Catalog
from toolcast._catalog._toolset import ToolSet
from toolcast._context import ToolContext
from toolcast.loop._events import EventHook
from toolcast.loop._model import Model
from toolcast.policy._policy import Policy
from toolcast.temporal._worker import ModelFactory, Runtime, as_tool_set, register_runtime
from toolcast.temporal._workflow import WORKFLOW, ToolcastRun

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

__all__ = ("ToolcastPlugin",)


class ToolcastPlugin(temporalio.client.Plugin, temporalio.worker.Plugin):
    """The toolcast plugin for Temporal clients, workers and replayers.

    Example:
        >>> worker = Worker(client, task_queue="agents", plugins=[ToolcastPlugin(
        ...     tools=catalog, models={"default": make_model}, policy=policy)])
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> ToolcastPlugin:
        # Without tools or models this is a client's plugin: its own type, so a worker
        # that also gets the full plugin is not warned that one type came twice.
        if (
            cls is ToolcastPlugin
            and not args
            and not kwargs.get("tools")
            and not kwargs.get("models")
        ):
            return super().__new__(_ClientPlugin)
        return super().__new__(cls)

    def __init__(
        self,
        *,
        tools: ToolSet | Catalog | None = None,
        models: Mapping[str, ModelFactory | Model] | None = None,
        policy: Policy | None = None,
        context: ToolContext | None = None,
        on_event: EventHook | None = None,
        model_timeout: timedelta = timedelta(minutes=5),
        model_retry: RetryPolicy | None = None,
        tool_timeout: timedelta = timedelta(minutes=10),
        tool_retry: RetryPolicy | None = None,
        heartbeat_timeout: timedelta = timedelta(seconds=20),
        evaluator_timeout: timedelta = timedelta(seconds=60),
        tracing: bool | TracerProvider = False,
    ) -> None:
        """Give a worker what its runs use.

        Args:
            tools: The tool set (`catalog.select(...)`), or a `Catalog` (all of it,
                toolboxes as selectors). Every worker of a task queue has the same.
            models: Model adapters by name, or functions building them on the
                worker (`{"default": lambda: openai_chat.Model(AsyncOpenAI(), "gpt-5")}`).
            policy: Who may run what; `Policy()` (everything pending) when None.
                Its evaluator, sync or async, runs as an activity.
            context: Host state for the tools (`ToolContext.state`).
            on_event: Called on the worker with each `LoopEvent` (not on replay).
            model_timeout: Start-to-close timeout of one model request.
            model_retry: Retry policy of model requests (3 attempts; 4xx not retried).
            tool_timeout: Start-to-close timeout of a tool without its own `timeout`.
            tool_retry: Retry policy of `idempotent` tools (others are never retried).
            heartbeat_timeout: A tool call whose worker sends no heartbeat for this
                long is taken as lost.
            evaluator_timeout: Start-to-close timeout of one evaluator question.
            tracing: Add Temporal's OpenTelemetry `TracingInterceptor` to the client
                (and so to the workers built from it) or to the worker, once, so the
                `execute_tool` spans the tool activities open are children of
                Temporal's `RunActivity` spans, in the trace of the client's
                `start_run`. True: the global tracer provider; a `TracerProvider`:
                that one, for Temporal's spans and toolcast's. Needs `opentelemetry-api`.
        """
        self.tracing = tracing
        self.runtime = Runtime(
            tools=as_tool_set(tools),
            models=dict(models or {}),
            policy=policy or Policy(),
            context=context,
            on_event=on_event,
            model_timeout=model_timeout,
            tool_timeout=tool_timeout,
            heartbeat_timeout=heartbeat_timeout,
            evaluator_timeout=evaluator_timeout,
            tracer=_toolcast_tracer(tracing),
        )
        if model_retry is not None:
            self.runtime.model_retry = model_retry
        if tool_retry is not None:
            self.runtime.tool_retry = tool_retry

    def name(self) -> str:
        """The plugin's name."""
        return "toolcast.ToolcastPlugin"

    # -- client -------------------------------------------------------------------------

    def configure_client(
        self, config: temporalio.client.ClientConfig
    ) -> temporalio.client.ClientConfig:
        """Add the tracing interceptor when asked; toolcast's payloads are plain JSON."""
        if self.tracing is not False:
            interceptors = list(config.get("interceptors") or ())
            if not _has_tracing(interceptors):
                config["interceptors"] = [*interceptors, _interceptor(self.tracing)]
        return config

    async def connect_service_client(
        self,
        config: ConnectConfig,
        next: Callable[[ConnectConfig], Awaitable[ServiceClient]],
    ) -> ServiceClient:
        """Connect as usual."""
        return await next(config)

    # -- worker -------------------------------------------------------------------------

    def configure_worker(
        self, config: temporalio.worker.WorkerConfig
    ) -> temporalio.worker.WorkerConfig:
        """Register the workflow (once) and this runtime's activities."""
        self.runtime.build_models()
        register_runtime(config.get("task_queue") or "*", self.runtime)
        config["workflows"] = _with_workflow(config.get("workflows"))
        activities = list(config.get("activities") or ())
        config["activities"] = [*activities, *self.runtime.activities()]
        if self.tracing is not False:
            client = config.get("client")
            inherited = list(client.config()["interceptors"]) if client is not None else []
            interceptors = list(config.get("interceptors") or ())
            if not _has_tracing([*inherited, *interceptors]):
                config["interceptors"] = [*interceptors, _interceptor(self.tracing)]
        return config

    async def run_worker(
        self,
        worker: temporalio.worker.Worker,
        next: Callable[[temporalio.worker.Worker], Awaitable[None]],
    ) -> None:
        """Run the worker."""
        await next(worker)

    def configure_replayer(
        self, config: temporalio.worker.ReplayerConfig
    ) -> temporalio.worker.ReplayerConfig:
        """Register the workflow for replay, with this runtime for any task queue."""
        self.runtime.build_models()
        register_runtime("*", self.runtime)
        config["workflows"] = _with_workflow(config.get("workflows"))
        return config

    def run_replayer(
        self,
        replayer: temporalio.worker.Replayer,
        histories: AsyncIterator[temporalio.client.WorkflowHistory],
        next: Callable[
            [temporalio.worker.Replayer, AsyncIterator[temporalio.client.WorkflowHistory]],
            AbstractAsyncContextManager[AsyncIterator[temporalio.worker.WorkflowReplayResult]],
        ],
    ) -> AbstractAsyncContextManager[AsyncIterator[temporalio.worker.WorkflowReplayResult]]:
        """Replay as usual."""
        return _passthrough(next(replayer, histories))


class _ClientPlugin(ToolcastPlugin):
    """`ToolcastPlugin()` on a client: registers nothing on workers built from it."""

    def configure_worker(
        self, config: temporalio.worker.WorkerConfig
    ) -> temporalio.worker.WorkerConfig:
        """Nothing: the worker's own `ToolcastPlugin(tools=...)` registers the run."""
        return config

    def configure_replayer(
        self, config: temporalio.worker.ReplayerConfig
    ) -> temporalio.worker.ReplayerConfig:
        """Nothing to register."""
        return config


def _toolcast_tracer(tracing: Any) -> Any:
    """The tracer of toolcast's spans on the worker: the given provider's, else None.

    None means the global provider's, looked up when a tool runs, as `toolcast.run` does.
    """
    if tracing is True or tracing is False:
        return None
    return tracing.get_tracer("toolcast")


def _interceptor(tracing: Any) -> Any:
    try:
        from temporalio.contrib.opentelemetry import TracingInterceptor
    except ImportError:  # pragma: no cover - the test extra installs it
        msg = "ToolcastPlugin(tracing=...) needs opentelemetry-api: pip install 'toolcast[otel]'"
        raise ImportError(msg) from None
    if tracing is True:
        return TracingInterceptor()
    return TracingInterceptor(tracing.get_tracer("temporalio.contrib.opentelemetry"))


def _has_tracing(interceptors: list[Any]) -> bool:
    """A `TracingInterceptor` (or Temporal's newer `OpenTelemetryInterceptor`) is there."""
    names = {"TracingInterceptor", "OpenTelemetryInterceptor"}
    return any(c.__name__ in names for i in interceptors for c in type(i).__mro__)


def _with_workflow(workflows: Any) -> list[type]:
    found = list(workflows or ())
    if not any(_name(w) == WORKFLOW for w in found):
        found.append(ToolcastRun)
    return found


def _name(workflow_class: type) -> str | None:
    definition = getattr(workflow_class, "__temporal_workflow_definition", None)
    return getattr(definition, "name", None)


@asynccontextmanager
async def _passthrough(
    inner: AbstractAsyncContextManager[AsyncIterator[temporalio.worker.WorkflowReplayResult]],
) -> AsyncIterator[AsyncIterator[temporalio.worker.WorkflowReplayResult]]:
    async with inner as results:
        yield results
