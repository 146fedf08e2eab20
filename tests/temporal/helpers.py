"""Shared pieces of the Temporal tests: clients, in-process workers, waiting for a state."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import Worker
from tests.temporal.tools import POLICY, tool_set

import toolcast.temporal as tt

T = TypeVar("T")


async def connect(address: str) -> Client:
    return await Client.connect(address, plugins=[tt.ToolcastPlugin()])


def queue() -> str:
    return f"q-{uuid.uuid4().hex[:8]}"


def worker(client: Client, task_queue: str, models: dict[str, Any], **options: Any) -> Worker:
    """An in-process worker with the shared catalog (fast retries, so failures show soon)."""
    options.setdefault("policy", POLICY)
    options.setdefault(
        "model_retry", RetryPolicy(maximum_attempts=2, initial_interval=timedelta(milliseconds=100))
    )
    options.setdefault("heartbeat_timeout", timedelta(seconds=5))
    plugin = tt.ToolcastPlugin(tools=options.pop("tools", tool_set()), models=models, **options)
    return Worker(client, task_queue=task_queue, plugins=[plugin])


async def eventually(
    get: Callable[[], Awaitable[T]], ok: Callable[[T], bool], tries: int = 600
) -> T:
    """Poll `get` until `ok` holds (a bounded number of times, 50 ms apart)."""
    for _ in range(tries):
        value = await get()
        if ok(value):
            return value
        await asyncio.sleep(0.05)
    msg = f"the state never came: last {value!r}"
    raise AssertionError(msg)
