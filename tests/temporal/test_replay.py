"""Histories replayed with `temporalio.worker.Replayer` against the current workflow code.

`histories/approval.json` was recorded by `record_history` below (run it with
`TOOLCAST_RECORD_HISTORY=1`); the repository keeps it so a change to the workflow
that breaks determinism fails here, against runs already in flight in production.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer
from temporalio.workflow import NondeterminismError
from tests.providers.fakeserver import FakeServer
from tests.temporal.helpers import connect, eventually, queue, worker
from tests.temporal.tools import POLICY, completion, make_model, tool_set

import toolcast.temporal as tt
from toolcast import Policy

CHAT = "/v1/chat/completions"
RECORDED = Path(__file__).parent / "histories" / "approval.json"


def replayer(policy: Policy = POLICY) -> Replayer:
    # The adapter only formats messages during replay: it is never asked anything.
    plugin = tt.ToolcastPlugin(
        tools=tool_set(), models={"default": make_model("http://127.0.0.1:9")}, policy=policy
    )
    return Replayer(workflows=[], plugins=[plugin])


async def record(address: str) -> WorkflowHistory:
    with FakeServer() as server:
        server.queue(
            CHAT,
            completion(
                calls=[
                    ("c1", "lookup", {"order": 42}),
                    ("c2", "refund", {"order": 42, "amount": 5}),
                    ("c3", "delete_account", {"user": "bob"}),
                ]
            ),
        )
        server.queue(CHAT, completion(calls=[("c4", "shipping", {})]))
        server.queue(CHAT, completion("Done."))
        client = await connect(address)
        task_queue = queue()
        async with worker(client, task_queue, {"default": make_model(server.url)}):
            handle = await tt.start_run(
                client, task_queue, "Refund order 42", id="replay-" + task_queue
            )
            await eventually(handle.pending, lambda p: len(p) == 1)
            await handle.approve("c2")
            result = await handle.result()
        assert result.status == "done"
        return await handle.workflow.fetch_history()


async def test_fresh_history_replays(temporal):
    history = await record(temporal.address)
    if os.environ.get("TOOLCAST_RECORD_HISTORY"):
        RECORDED.write_text(json.dumps(history.to_json_dict(), indent=1) + "\n")
    await replayer().replay_workflow(history)


async def test_committed_history_replays_against_current_code():
    history = WorkflowHistory.from_json("replay-recorded", RECORDED.read_text())
    await replayer().replay_workflow(history)


async def test_a_change_that_breaks_determinism_fails_the_replay():
    # Policy rules run in workflow code: denying a tool that a recorded run ran
    # makes the workflow skip an activity the history has.
    history = WorkflowHistory.from_json("replay-recorded", RECORDED.read_text())
    with pytest.raises(NondeterminismError):
        await replayer(Policy(allow=["*"], deny=["lookup", "delete_*"])).replay_workflow(history)
