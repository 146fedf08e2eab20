"""A tool that raises, a tool that times out, a model that fails, a cancelled run."""

from __future__ import annotations

import pytest
from tests.providers.fakeserver import FakeServer
from tests.temporal.helpers import connect, eventually, queue, worker
from tests.temporal.tools import completion, make_model

import toolcast.temporal as tt

CHAT = "/v1/chat/completions"


async def test_raising_and_timing_out_tools_reach_the_model(temporal):
    with FakeServer() as server:
        server.queue(CHAT, completion(calls=[("b1", "broken", {}), ("h1", "hang", {})]))
        server.queue(CHAT, completion("Both failed."))
        client = await connect(temporal.address)
        task_queue = queue()
        async with worker(client, task_queue, {"default": make_model(server.url)}):
            handle = await tt.start_run(client, task_queue, "Try", id="fail-" + task_queue)
            result = await handle.result()
    assert result.status == "done"
    broken, hang = (r.outcome for r in result.calls)
    # Exactly what toolcast.run answers: the tool's own error, and its own timeout.
    assert broken.error.kind == "exception"
    assert broken.text == "Tool 'broken' failed: RuntimeError: disk on fire"
    assert hang.error.kind == "timeout"
    assert hang.text == "Tool 'hang' timed out after 0.5 s."
    answers = [m["content"] for m in server.bodies(CHAT)[1]["messages"] if m["role"] == "tool"]
    assert answers == [f"Error: {broken.text}", f"Error: {hang.text}"]


async def test_failing_model_reaches_the_host_with_the_sdk_error(temporal):
    with FakeServer() as server:  # nothing queued: every request gets HTTP 500
        client = await connect(temporal.address)
        task_queue = queue()
        async with worker(client, task_queue, {"default": make_model(server.url)}):
            handle = await tt.start_run(client, task_queue, "Hello", id="model-" + task_queue)
            with pytest.raises(tt.RunFailedError) as caught:
                await handle.result()
        assert len(server.requests) == 2  # the activity's two attempts
    assert caught.value.kind == "InternalServerError"  # the openai SDK's own error
    assert caught.value.conversation is not None
    assert caught.value.conversation.messages[0]["content"] == "Hello"


async def test_unknown_model_name_fails_the_run_clearly(temporal):
    client = await connect(temporal.address)
    task_queue = queue()
    async with worker(client, task_queue, {"default": make_model("http://127.0.0.1:9")}):
        handle = await tt.start_run(
            client, task_queue, "Hello", id="nomodel-" + task_queue, model="big"
        )
        with pytest.raises(tt.RunFailedError, match="This worker has no model 'big'"):
            await handle.result()


async def test_cancelled_run_keeps_its_journal(temporal):
    with FakeServer() as server:
        server.queue(
            CHAT,
            completion(
                calls=[("l1", "lookup", {"order": 3}), ("r1", "refund", {"order": 3, "amount": 1})]
            ),
        )
        client = await connect(temporal.address)
        task_queue = queue()
        async with worker(client, task_queue, {"default": make_model(server.url)}):
            handle = await tt.start_run(client, task_queue, "Refund", id="cancel-" + task_queue)
            await eventually(
                handle.conversation, lambda c: c.batch and c.batch[0].outcome is not None
            )
            await handle.cancel()
            result = await handle.result()
    assert result.status == "cancelled"
    assert result.conversation.status == "cancelled"
    assert result.calls[0].outcome.text == '{"order":3,"total":40}'
    assert [r.id for r in result.pending] == ["r1"]


def test_manual_mode_is_refused_with_the_alternative():
    import asyncio

    with pytest.raises(ValueError, match="Policy\\(defer="):
        asyncio.run(tt.start_run(None, "q", "x", id="x", max_rounds=0))  # type: ignore[arg-type]
