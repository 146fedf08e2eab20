"""Approvals that hold: recorded decisions are final, journalled calls never run twice."""

from __future__ import annotations

import json
from typing import Any

import pytest

from loop.tools import RUNS, SEEN, reset, shop
from toolcast import Conversation, Decision, Policy, ToolCall, run
from toolcast.loop import ConversationError, MemoryStore, ModelRequest, UndecidedCallsError
from toolcast.testing import ScriptedModel, call


@pytest.fixture(autouse=True)
def _fresh() -> None:
    reset()


class Counting:
    """An evaluator that counts the calls it is asked about."""

    def __init__(self, verdict: Decision | bool) -> None:
        self.verdict = verdict
        self.asked: list[str] = []

    def __call__(self, spec: Any, call: ToolCall, args: Any) -> Decision | bool:
        self.asked.append(call.id)
        return self.verdict


async def test_resume_never_reevaluates_a_recorded_decision() -> None:
    evaluator = Counting(Decision.pending("a human must look"))
    policy = Policy(allow=["find_product"], evaluator=evaluator)
    model = ScriptedModel(
        [[call("find_product", id="f", query="mug"), call("refund", id="r", amount=9)], "Done."]
    )
    first = await run(model, "Go", tools=shop().select(), policy=policy)
    assert first.status == "pending"
    assert [p.id for p in first.pending] == ["r"]
    assert evaluator.asked == ["r"]
    saved = first.conversation.to_json()

    conversation = Conversation.from_json(saved)
    conversation.approve("r")
    evaluator.verdict = Decision.deny("would now refuse")  # must not be asked again
    second = await run(model, conversation=conversation, tools=shop().select(), policy=policy)
    assert second.status == "done"
    assert evaluator.asked == ["r"]
    assert RUNS == {"find_product": 1, "refund": 1}
    assert [c.decided_by for c in second.conversation.history] == ["policy", "host"]


async def test_resume_never_reruns_a_journalled_call() -> None:
    model = ScriptedModel(
        [
            [
                call("find_product", id="f", query="mug"),
                call("place_order", id="o", product="mug", quantity=2),
            ],
            "ok",
        ]
    )
    policy = Policy(allow=["*"])
    first = await run(model, "Go", tools=shop().select(), policy=policy)
    assert first.status == "pending"
    assert RUNS == {"find_product": 1}  # the allowed call ran; its outcome is journalled
    conversation = Conversation.from_json(first.conversation.to_json())
    conversation.approve("o")
    second = await run(model, conversation=conversation, tools=shop().select(), policy=policy)
    assert second.status == "done"
    assert RUNS == {"find_product": 1, "place_order": 1}
    tool_messages = [m for m in second.messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["f", "o"]
    assert json.loads(tool_messages[0]["content"]) == ["mug #1", "mug #2"]
    # Resuming the finished conversation again runs nothing more.
    model.turns.append("still ok")
    third = await run(
        model, "again?", conversation=second.conversation, tools=shop().select(), policy=policy
    )
    assert third.status == "done"
    assert RUNS == {"find_product": 1, "place_order": 1}


async def test_approved_call_runs_with_exactly_the_approved_arguments() -> None:
    model = ScriptedModel([call("place_order", id="o", product="mug", quantity=2), "ok", "ok"])
    first = await run(model, "Go", tools=shop().select(), policy=Policy(allow=["*"]))
    conversation = first.conversation
    conversation.approve("o")
    saved = json.loads(conversation.to_json())
    # Someone edits the stored arguments after the approval: the approval does not cover them.
    saved["batch"][0]["arguments"] = json.dumps({"product": "mug", "quantity": 200})
    tampered = Conversation.from_json(saved)
    result = await run(
        model, conversation=tampered, tools=shop().select(), policy=Policy(allow=["*"])
    )
    outcome = result.calls[0].outcome
    assert outcome is not None
    assert outcome.error is not None
    assert outcome.error.kind == "not_allowed"
    assert "arguments changed after they were approved" in outcome.text
    assert RUNS == {}
    # The untouched copy runs once, with the approved arguments.
    result = await run(
        model, conversation=conversation, tools=shop().select(), policy=Policy(allow=["*"])
    )
    assert SEEN == [("place_order", {"product": "mug", "quantity": 2})]
    assert result.status == "done"


async def test_same_tool_parallel_approvals_are_all_kept() -> None:
    orders = [call("place_order", id=f"o{i}", product=f"p{i}", quantity=i) for i in range(1, 4)]
    model = ScriptedModel([orders, "ok"])
    policy = Policy(allow=["*"])
    first = await run(model, "Go", tools=shop().select(), policy=policy)
    assert [p.id for p in first.pending] == ["o1", "o2", "o3"]
    conversation = Conversation.from_json(first.conversation.to_json())
    assert [p.id for p in conversation.pending] == ["o1", "o2", "o3"]
    conversation.approve("o1")
    conversation.deny("o2", "out of stock")
    conversation.approve("o3")
    second = await run(model, conversation=conversation, tools=shop().select(), policy=policy)
    assert second.status == "done"
    assert SEEN == [
        ("place_order", {"product": "p1", "quantity": 1}),
        ("place_order", {"product": "p3", "quantity": 3}),
    ]
    answers = {m["tool_call_id"]: m["content"] for m in second.messages if m["role"] == "tool"}
    assert answers == {
        "o1": "ordered 1 x p1",
        "o2": "Tool 'place_order' was denied: out of stock",
        "o3": "ordered 3 x p3",
    }


class Crash(BaseException):
    """The process dies here (not an Exception: nothing may catch it)."""


class CrashingStore(MemoryStore):
    """A store that 'kills the process' at its n-th save, after keeping the saves before."""

    def __init__(self, crash_at: int) -> None:
        super().__init__()
        self.crash_at = crash_at
        self.saves = 0

    async def save(self, conversation: Conversation) -> None:
        self.saves += 1
        if self.saves == self.crash_at:
            raise Crash
        await super().save(conversation)


async def test_crash_between_run_and_send_does_not_rerun() -> None:
    """Crash at every save point in turn; resume from the store; nothing runs twice."""
    script = [
        [call("find_product", id="f", query="mug"), call("refund", id="r", amount=4)],
        "Done.",
    ]
    crash_points = 0
    for crash_at in range(1, 20):
        reset()
        store = CrashingStore(crash_at)
        conversation = Conversation(id="c")
        model = ScriptedModel(script)
        try:
            result = await run(
                model,
                "Go",
                tools=shop().select(),
                policy=Policy(default="allow"),
                store=store,
                conversation=conversation,
            )
        except Crash:
            crash_points += 1
        else:
            assert result.status == "done"
            break
        saved = await store.load("c")
        if saved is None:
            continue  # nothing reached the store: nothing ran, the run starts over
        # Resume in "another process": the stored copy, the rest of the script.
        resumed_model = ScriptedModel(script[1:])
        result = await run(
            resumed_model,
            conversation=saved,
            tools=shop().select(),
            policy=Policy(default="allow"),
            store=store,
        )
        assert result.status == "done"
        assert all(count <= 1 for count in RUNS.values()), (crash_at, RUNS)
        answered = [m["tool_call_id"] for m in result.messages if m["role"] == "tool"]
        assert answered == ["f", "r"], crash_at
    assert crash_points >= 4


async def test_resume_refuses_while_pending_calls_are_undecided() -> None:
    model = ScriptedModel(
        [
            [
                call("place_order", id="a", product="x", quantity=1),
                call("place_order", id="b", product="y", quantity=1),
            ]
        ]
    )
    first = await run(model, "Go", tools=shop().select(), policy=Policy(allow=["*"]))
    first.conversation.approve("a")
    with pytest.raises(
        UndecidedCallsError, match=r"1 pending call\(s\) have no decision yet \('b'\)"
    ) as info:
        await run(model, conversation=first.conversation, tools=shop().select())
    assert info.value.call_ids == ("b",)
    assert RUNS == {}


async def test_decisions_on_unknown_or_answered_calls_are_refused() -> None:
    model = ScriptedModel(
        [[call("place_order", id="a", product="x", quantity=1), call("refund", id="b", amount=1)]]
    )
    first = await run(
        model, "Go", tools=shop().select(), policy=Policy(allow=["refund", "place_order"])
    )
    conversation = first.conversation
    with pytest.raises(ConversationError, match=r"No call 'zzz' awaits a decision .*pending: 'a'"):
        conversation.approve("zzz")
    with pytest.raises(ConversationError, match="already answered"):
        conversation.deny("b", "no")
    conversation.approve("a")
    conversation.approve("a")  # idempotent
    with pytest.raises(ConversationError, match="already approved"):
        conversation.deny("a", "changed my mind")


async def test_an_inline_approver_decides_pending_calls_with_typed_arguments() -> None:
    asked: list[Any] = []

    async def approver(spec: Any, call: ToolCall, args: Any) -> Decision:
        asked.append((spec.name, args))
        return Decision.allow() if args["quantity"] < 10 else Decision.deny("too many")

    model = ScriptedModel(
        [
            [
                call("place_order", id="a", product="x", quantity=1),
                call("place_order", id="b", product="y", quantity=50),
            ],
            "ok",
        ]
    )
    result = await run(
        model, "Go", tools=shop().select(), policy=Policy(allow=["*"]), approver=approver
    )
    assert result.status == "done"
    assert asked == [
        ("place_order", {"product": "x", "quantity": 1}),
        ("place_order", {"product": "y", "quantity": 50}),
    ]
    assert RUNS == {"place_order": 1}
    assert result.calls[1].outcome is not None
    assert result.calls[1].outcome.text == "Tool 'place_order' was denied: too many"
    assert [c.decided_by for c in result.calls] == ["approver", "approver"]


async def test_an_approver_that_raises_fails_the_call_without_crashing() -> None:
    def approver(spec: Any, call: ToolCall, args: Any) -> bool:
        raise KeyError("session")

    model = ScriptedModel([call("place_order", id="a", product="x", quantity=1), "ok"])
    result = await run(model, "Go", tools=shop().select(), policy=Policy(), approver=approver)
    record = result.calls[0]
    assert record.decision is not None
    assert record.decision.status == "failed"
    assert record.outcome is not None
    assert record.outcome.error is not None
    assert record.outcome.error.kind == "not_allowed"
    assert "KeyError" not in record.outcome.text  # the model never sees internals
    assert RUNS == {}


async def test_a_deferred_tool_ends_pending_and_the_host_completes_it() -> None:
    model = ScriptedModel(
        [
            [call("find_product", id="f", query="mug"), call("refund", id="r", amount=3)],
            "Refund queued.",
        ]
    )
    policy = Policy(allow=["find_product"], defer=["refund"])
    first = await run(model, "Go", tools=shop().select(), policy=policy)
    assert first.status == "pending"
    (waiting,) = first.pending
    assert waiting.id == "r"
    assert waiting.deferred
    conversation = Conversation.from_json(first.conversation.to_json())
    conversation.complete("r", {"queued": True, "job": 17})
    second = await run(model, conversation=conversation, tools=shop().select(), policy=policy)
    assert second.status == "done"
    assert RUNS == {"find_product": 1}
    answers = {m["tool_call_id"]: m["content"] for m in second.messages if m["role"] == "tool"}
    assert json.loads(answers["r"]) == {"queued": True, "job": 17}


async def test_policy_denials_and_failures_reach_the_model() -> None:
    model = ScriptedModel(
        [[call("delete_order", id="d", order_id="1"), call("refund", id="r", amount=1)], "ok"]
    )
    policy = Policy(allow=["refund"], deny=["delete_*"])
    result = await run(model, "Go", tools=shop().select(), policy=policy)
    outcome = result.calls[0].outcome
    assert outcome is not None
    assert outcome.error is not None
    assert outcome.error.kind == "not_allowed"
    assert outcome.text == "Tool 'delete_order' was denied: the policy does not allow it"
    assert RUNS == {"refund": 1}


async def test_pending_by_default() -> None:
    model = ScriptedModel([call("refund", id="r", amount=1)])
    result = await run(model, "Go", tools=shop().select())
    assert result.status == "pending"
    assert result.pending[0].reason == "No policy rule matched."
    assert RUNS == {}


async def test_the_whole_batch_is_evaluated_even_when_some_are_pending_or_failed() -> None:
    evaluator = Counting(True)
    model = ScriptedModel(
        [
            [
                call("nope", id="u"),
                call("place_order", id="p", product="x", quantity=1),
                call("refund", id="r", amount=1),
                call("find_product", id="f", query="q"),
            ]
        ]
    )
    result = await run(model, "Go", tools=shop().select(), policy=Policy(evaluator=evaluator))
    assert result.status == "pending"
    assert evaluator.asked == ["p", "r", "f"]
    assert RUNS == {"refund": 1, "find_product": 1}


def _by_history(request: ModelRequest) -> Any:
    """The turn for this point of the conversation (so a re-sent request gets the same turn)."""
    script: list[Any] = [
        [
            call("find_product", id="f", query="mug"),
            call("refund", id="r", amount=4),
            call("place_order", id="o", product="mug", quantity=1),
        ],
        [call("refund", id="r2", amount=5), call("slow_read", id="s", key="k", delay=0.0)],
        "Done.",
    ]
    return script[sum(1 for m in request.messages if m["role"] == "assistant")]


async def test_a_crash_at_any_save_point_never_runs_a_call_twice_or_loses_one() -> None:
    """A whole approval scenario, crashed once at each save point in turn, then resumed."""
    policy = Policy(default="allow")
    crashes = 0
    for crash_at in range(1, 40):
        reset()
        model = ScriptedModel([_by_history] * 10)
        store = CrashingStore(crash_at)
        conversation: Conversation | None = Conversation(id="c")
        prompt: str | None = "Go"
        for _attempt in range(10):
            assert conversation is not None
            for waiting in conversation.pending:
                conversation.approve(waiting.id)
            try:
                result = await run(
                    model,
                    prompt,
                    conversation=conversation,
                    tools=shop().select(),
                    policy=policy,
                    store=store,
                )
            except Crash:
                crashes += 1
                store.crash_at = 0  # one crash per scenario
                conversation = await store.load("c")
                prompt = None
                if conversation is None:  # nothing was stored: start over
                    conversation, prompt = Conversation(id="c"), "Go"
                continue
            if result.status == "pending":
                conversation, prompt = result.conversation, None
                continue
            break
        assert result.status == "done", crash_at
        answered = [m["tool_call_id"] for m in result.messages if m["role"] == "tool"]
        assert answered == ["f", "r", "o", "r2", "s"], crash_at
        assert RUNS == {"find_product": 1, "refund": 2, "place_order": 1, "slow_read": 1}, crash_at
        if store.saves < crash_at:
            break  # the scenario has fewer save points than this
    assert crashes >= 10, crashes
