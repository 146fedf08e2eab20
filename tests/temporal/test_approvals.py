"""Allowed, denied and approval-gated calls in one turn, decided from another process."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from tests.providers.fakeserver import FakeServer
from tests.temporal.helpers import connect, eventually, queue, worker
from tests.temporal.tools import completion, lines, make_model

import toolcast.temporal as tt
from toolcast.loop import ConversationError, RunResult

ROOT = Path(__file__).resolve().parents[2]
CHAT = "/v1/chat/completions"


@pytest.fixture
def effects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "effects.log"
    monkeypatch.setenv("TOOLCAST_TEMPORAL_LOG", str(path))
    return path


async def test_approve_and_deny_from_another_process(temporal, effects):
    with FakeServer() as server:
        server.queue(
            CHAT,
            completion(
                calls=[
                    ("c1", "lookup", {"order": 42}),
                    ("c2", "delete_account", {"user": "bob"}),
                    ("c3", "refund", {"order": 42, "amount": 5}),
                    ("c4", "cancel_order", {"order": 42}),
                ]
            ),
        )
        server.queue(CHAT, completion("Refunded 5 on order 42; not cancelled."))
        client = await connect(temporal.address)
        task_queue = queue()
        async with worker(client, task_queue, {"default": make_model(server.url)}):
            handle = await tt.start_run(
                client, task_queue, "Refund 5 on order 42", id="conv-42-" + task_queue
            )
            pending = await eventually(handle.pending, lambda p: len(p) == 2)
            assert [(r.id, r.name, json.loads(r.arguments)) for r in pending] == [
                ("c3", "refund", {"order": 42, "amount": 5}),
                ("c4", "cancel_order", {"order": 42}),
            ]
            # The allowed call runs while the others wait; the denied one never will.
            await eventually(handle.conversation, lambda c: c.batch[0].outcome is not None)
            assert lines(effects) == ["lookup 42"]

            # Validators refuse, and record nothing: an unknown id, a decided call,
            # arguments that are not the call's.
            with pytest.raises(ConversationError, match="No call 'nope' awaits"):
                await handle.approve("nope")
            with pytest.raises(ConversationError, match="'c1' \\(lookup\\) is already answered"):
                await handle.approve("c1")
            with pytest.raises(ConversationError, match="fingerprint mismatch"):
                await handle.approve("c3", arguments={"order": 42, "amount": 500})
            assert len(await handle.pending()) == 2

            # A stateless process finds the run by the conversation id alone.
            # (asyncio's subprocess: the in-process worker shares this event loop.)
            decider = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.temporal.decide",
                temporal.address,
                handle.id,
                "approve",
                "c3",
                "deny",
                "c4",
                "out of policy",
                cwd=ROOT,
                env=os.environ.copy(),
                stdout=asyncio.subprocess.PIPE,
            )
            out, _ = await asyncio.wait_for(decider.communicate(), 120)
            assert decider.returncode == 0
            assert out.decode().splitlines() == ["approved c3", "denied c4"]
            # A second decision for the same call is refused, from any process.
            with pytest.raises(
                ConversationError,
                match=r"already answered|does not wait|No call 'c3' awaits|cannot take a decision",
            ):
                await handle.deny("c3", "too late")

            result = await tt.get_run(client, handle.id).result()
        assert isinstance(result, RunResult)
        assert result.status == "done"
        assert result.text == "Refunded 5 on order 42; not cancelled."
        assert result.rounds == 2
        assert result.usage.input_tokens == 60
        assert result.usage.output_tokens == 14
        # Each approved call ran once, with exactly its arguments; nothing else ran.
        assert lines(effects) == ["lookup 42", "refund 42 5"]
        by_id = {r.id: r for r in result.calls}
        assert [r.id for r in result.calls] == ["c1", "c2", "c3", "c4"]
        assert (
            by_id["c2"].outcome.text
            == "Tool 'delete_account' was denied: the policy does not allow it"
        )
        assert by_id["c3"].decided_by == "host"
        assert by_id["c3"].outcome.text == "refunded 5 on order 42"
        assert by_id["c4"].outcome.text == "Tool 'cancel_order' was denied: out of policy"
        # The model got every answer, in call order, correlated by id.
        second = server.bodies(CHAT)[1]["messages"]
        answers = [(m["tool_call_id"], m["content"]) for m in second if m["role"] == "tool"]
        assert answers == [
            ("c1", '{"order":42,"total":40}'),
            ("c2", "Error: Tool 'delete_account' was denied: the policy does not allow it"),
            ("c3", "refunded 5 on order 42"),
            ("c4", "Error: Tool 'cancel_order' was denied: out of policy"),
        ]


async def test_deferred_call_completed_from_outside(temporal, effects):
    with FakeServer() as server:
        server.queue(CHAT, completion(calls=[("d1", "refund", {"order": 7, "amount": 1})]))
        server.queue(CHAT, completion("Queued."))
        client = await connect(temporal.address)
        task_queue = queue()
        from toolcast import Policy

        policy = Policy(allow=["*"], defer=["refund"])
        async with worker(client, task_queue, {"default": make_model(server.url)}, policy=policy):
            handle = await tt.start_run(client, task_queue, "Refund", id="deferred-" + task_queue)
            pending = await eventually(handle.pending, lambda p: len(p) == 1)
            assert pending[0].deferred
            with pytest.raises(ConversationError, match="deferred"):
                await handle.approve("d1")
            await handle.complete("d1", {"job": 17, "state": "queued"})
            result = await handle.result()
        assert result.status == "done"
        assert lines(effects) == []  # it ran elsewhere
        assert result.calls[0].outcome.text == '{"job":17,"state":"queued"}'
        tool_messages = [m for m in server.bodies(CHAT)[1]["messages"] if m["role"] == "tool"]
        assert tool_messages[0]["content"] == '{"job":17,"state":"queued"}'


async def test_approval_timeout_set_by_the_host_ends_pending(temporal, effects):
    with FakeServer() as server:
        server.queue(CHAT, completion(calls=[("t1", "refund", {"order": 1, "amount": 1})]))
        client = await connect(temporal.address)
        task_queue = queue()
        async with worker(client, task_queue, {"default": make_model(server.url)}):
            handle = await tt.start_run(
                client, task_queue, "Refund", id="timer-" + task_queue, approval_timeout=0.5
            )
            result = await handle.result()
        assert result.status == "pending"
        assert [r.id for r in result.pending] == ["t1"]
        # The conversation moves on elsewhere: toolcast.run resumes it as it is.
        result.conversation.approve("t1")
        assert result.conversation.pending == ()
        await asyncio.sleep(0)
