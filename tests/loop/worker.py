"""A host process for the crash tests: runs one batch against Redis, with a slow call in it.

    python tests/loop/worker.py REDIS_URL CONVERSATION_ID LOG_FILE

Every tool appends a line to LOG_FILE when it runs, so the parent can see what
ran, and how often, after SIGKILLing this process in the middle of the batch.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from toolcast import Catalog, Conversation, Policy, run, tool
from toolcast.loop.redis import RedisStore
from toolcast.testing import ScriptedModel, call

LOG = Path(sys.argv[3]) if len(sys.argv) > 3 else Path("worker.log")


def log(line: str) -> None:
    with LOG.open("a") as handle:
        handle.write(line + "\n")


@tool(parallel_safe=False, blocking=False)
def note(n: int) -> str:
    """Write a note."""
    log(f"note {n}")
    return f"noted {n}"


@tool(parallel_safe=False)
def slow() -> str:
    """Take a long time."""
    log("slow start")
    time.sleep(60)
    log("slow end")
    return "slow done"


def tools() -> Catalog:
    return Catalog([note, slow])


SCRIPT = [
    [
        call("note", id="n1", n=1),
        call("note", id="n2", n=2),
        call("slow", id="s"),
        call("note", id="n3", n=3),
    ],
    "All done.",
]


async def main(url: str, conversation_id: str) -> None:
    store = RedisStore.from_url(url)
    await run(
        ScriptedModel(SCRIPT),
        "Take notes",
        tools=tools().select(),
        policy=Policy(default="allow"),
        store=store,
        conversation=Conversation(id=conversation_id),
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
