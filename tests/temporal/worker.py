"""A worker process for the Temporal tests.

    python -m tests.temporal.worker ADDRESS TASK_QUEUE MODEL_URL

It serves `tests/temporal/tools.py`'s catalog with a real `openai_chat.Model`
pointed at the test's scripted server, until it is stopped (or SIGKILLed).
It prints "ready" once it polls.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker
from tests.temporal.tools import POLICY, make_model, tool_set

import toolcast.temporal as tt


async def main(address: str, task_queue: str, url: str) -> None:
    client = await Client.connect(address)
    plugin = tt.ToolcastPlugin(
        tools=tool_set(),
        models={"default": make_model(url)},
        policy=POLICY,
        heartbeat_timeout=timedelta(seconds=2),
    )
    worker = Worker(
        client,
        task_queue=task_queue,
        plugins=[plugin],
        # A killed worker's sticky queue is given up on quickly, so its runs move on.
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
    )
    async with worker:
        print("ready", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
