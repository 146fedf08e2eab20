"""The workflow gives what `toolcast.run` gives: same RunResult, same Conversation; toolboxes,
guards, evaluators, costs and continue-as-new keep working."""

from __future__ import annotations

import threading
import time

from temporalio.client import WorkflowExecutionStatus
from tests.providers.fakeserver import FakeServer
from tests.temporal.helpers import connect, eventually, queue, worker
from tests.temporal.tools import POLICY, completion, make_model, tool_set

import toolcast.temporal as tt
from toolcast import Decision, Policy, run
from toolcast.testing import ScriptedModel, call

CHAT = "/v1/chat/completions"


def script() -> list:
    return [
        [call("lookup", id="a", order=1), call("spend", id="b", units=3)],
        [call("shipping", id="c")],
        [call("ship", id="d", order=1, carrier="ups")],
        "Shipped.",
    ]


def comparable(result) -> dict:
    data = result.conversation.to_dict()
    del data["id"], data["version"]
    data["aliases"] = data["aliases"]["aliases"] if data["aliases"] else None
    return {
        "status": result.status,
        "text": result.text,
        "rounds": result.rounds,
        "usage": result.usage,
        "costs": result.costs,
        "calls": [r.id for r in result.calls],
        "outcomes": [r.outcome.text for r in result.calls],
        "conversation": data,
    }


async def test_same_result_and_conversation_as_toolcast_run(temporal):
    local = await run(ScriptedModel(script()), "Ship order 1", tools=tool_set(), policy=POLICY)
    client = await connect(temporal.address)
    task_queue = queue()
    model = ScriptedModel(script())
    async with worker(client, task_queue, {"default": model}):
        handle = await tt.start_run(client, task_queue, "Ship order 1", id="parity-" + task_queue)
        durable = await handle.result()
        _usage, totals = await handle.usage()
    assert comparable(durable) == comparable(local)
    assert durable.total_costs == {"usd": 1.5}
    assert totals == {"usd": 1.5}
    # The toolbox opened inside the workflow: the member came with its description.
    shown = [[s.name for s in r.tools] for r in model.requests]
    assert "ship" not in shown[1]
    assert "ship" in shown[2]
    ship = next(s for s in model.requests[2].tools if s.name == "ship")
    assert ship.description.startswith("Ship an order with a carrier")


async def test_guards_and_max_rounds(temporal):
    stuck = [[call("lookup", id=f"r{i}", order=5)] for i in range(4)]
    client = await connect(temporal.address)
    task_queue = queue()
    async with worker(
        client, task_queue, {"default": ScriptedModel(stuck), "other": ScriptedModel(list(stuck))}
    ):
        repeated = await (
            await tt.start_run(
                client, task_queue, "Look", id="repeat-" + task_queue, repeat_limit=3
            )
        ).result()
        capped = await (
            await tt.start_run(
                client, task_queue, "Look", id="cap-" + task_queue, model="other", max_rounds=2
            )
        ).result()
    assert repeated.status == "repeated"
    assert repeated.rounds == 3
    assert repeated.calls[-1].outcome.error.kind == "not_run"
    assert capped.status == "max_rounds"
    assert capped.rounds == 2
    assert len(capped.calls) == 2


async def test_blocking_sync_evaluator_runs_as_an_activity_once_per_call(temporal):
    asked: list[tuple[str, int]] = []
    threads: set[int] = set()

    def evaluator(spec, tool_call, arguments):
        time.sleep(0.3)  # I/O: fine in an activity, fatal in workflow code
        threads.add(threading.get_ident())
        asked.append((tool_call.id, arguments["amount"]))
        return Decision.allow() if arguments["amount"] <= 10 else Decision.deny("too much")

    turns = [[call("spend", id="s1", units=1)], "ok"]
    policy = Policy(evaluator=lambda spec, c, a: evaluator(spec, c, {"amount": a["units"]}))
    model = ScriptedModel(turns)
    client = await connect(temporal.address)
    task_queue = queue()
    async with worker(client, task_queue, {"default": model}, policy=policy):
        result = await (
            await tt.start_run(client, task_queue, "Spend", id="eval-" + task_queue)
        ).result()
    assert result.status == "done"
    assert asked == [("s1", 1)]  # decided once, recorded
    assert threading.get_ident() not in threads
    assert result.calls[0].decision.allowed
    assert result.calls[0].outcome.text == "spent 1"


async def test_long_conversation_continues_as_new_without_losing_anything(temporal):
    turns = [[call("spend", id=f"s{i}", units=1)] for i in range(6)] + ["Spent six."]
    client = await connect(temporal.address)
    task_queue = queue()
    async with worker(client, task_queue, {"default": ScriptedModel(turns)}):
        handle = await tt.start_run(
            client, task_queue, "Spend", id="long-" + task_queue, max_rounds=20, history_limit=20
        )
        first_run = (await handle.workflow.describe()).run_id
        result = await handle.result()
        latest = await client.get_workflow_handle(handle.id).describe()
    local = await run(
        ScriptedModel(list(turns)), "Spend", tools=tool_set(), policy=POLICY, max_rounds=20
    )
    assert latest.run_id != first_run  # it did continue as new
    assert latest.status == WorkflowExecutionStatus.COMPLETED
    assert comparable(result) == comparable(local)
    assert result.rounds == 7
    assert len(result.calls) == 6
    assert result.total_costs == {"usd": 3.0}


async def test_queries_while_it_waits(temporal):
    with FakeServer() as server:
        server.queue(CHAT, completion(calls=[("p1", "refund", {"order": 9, "amount": 2})]))
        client = await connect(temporal.address)
        task_queue = queue()
        async with worker(client, task_queue, {"default": make_model(server.url)}):
            handle = await tt.start_run(client, task_queue, "Refund", id="query-" + task_queue)
            await eventually(handle.pending, lambda p: len(p) == 1)
            usage, totals = await handle.usage()
            conversation = await handle.conversation()
            await handle.cancel()
    assert usage.input_tokens == 30
    assert usage.output_tokens == 7
    assert totals == {}
    assert [m["role"] for m in conversation.messages] == ["user", "assistant"]
    assert conversation.pending[0].name == "refund"
