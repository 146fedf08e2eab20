"""Decide a run's calls from another process, as a stateless API would.

    python -m tests.temporal.decide ADDRESS CONVERSATION_ID approve CALL_ID [deny CALL_ID REASON]...

It finds the run by its conversation id alone (`get_run`) and prints one line
per decision: `approved ID` / `denied ID`, or `refused ID: why`.
"""

from __future__ import annotations

import asyncio
import os
import sys

from temporalio.client import Client

import toolcast.temporal as tt
from toolcast.loop import ConversationError


async def main(address: str, conversation_id: str, steps: list[str]) -> None:
    client = await Client.connect(address, plugins=[tt.ToolcastPlugin()])
    handle = tt.get_run(client, conversation_id)
    pending = {r.id: r for r in await handle.pending()}
    while steps:
        verb = steps.pop(0)
        call_id = steps.pop(0)
        try:
            if verb == "approve":
                # The arguments the approver was shown: they must still be the call's.
                await handle.approve(call_id, arguments=pending[call_id].arguments)
                print(f"approved {call_id}", flush=True)
            else:
                await handle.deny(call_id, steps.pop(0))
                print(f"denied {call_id}", flush=True)
        except (ConversationError, KeyError) as exc:
            print(f"refused {call_id}: {exc}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
    sys.stdout.flush()
    # temporalio imports grpc when it is installed; grpc's threads can abort the
    # interpreter's finalization (SIGABRT, "PyGILState_Release ... must be current"),
    # seen once in CI under load. The decisions are made and printed: leave at once.
    os._exit(0)
