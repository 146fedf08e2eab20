"""Durable runs on Temporal: the loop as a workflow, tools and model turns as activities.

`ToolcastPlugin(tools=..., models=..., policy=...)` on the workers,
`start_run(client, task_queue, prompt, id=...)` anywhere, `get_run(client, id)`
from any process to approve, deny, complete and read the result, which is the
same `RunResult` and `Conversation` as `toolcast.run` gives (docs/temporal.md).
Needs the `temporal` extra: `pip install 'toolcast[temporal]'`.
"""

from __future__ import annotations

try:
    import temporalio  # noqa: F401 - checked here so the hint names the extra
except ImportError:  # pragma: no cover - the test extra installs it
    msg = "toolcast.temporal needs temporalio: pip install 'toolcast[temporal]'"
    raise ImportError(msg) from None

from toolcast.temporal._client import RunFailedError, RunHandle, get_run, start_run
from toolcast.temporal._plugin import ToolcastPlugin
from toolcast.temporal._workflow import WORKFLOW, ToolcastRun

__all__ = (
    "RunFailedError",
    "RunHandle",
    "ToolcastPlugin",
    "ToolcastRun",
    "WORKFLOW",
    "get_run",
    "start_run",
)
