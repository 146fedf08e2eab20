"""Conversations: complete, versioned JSON; the in-memory store's version check."""

from __future__ import annotations

import asyncio
import json

import pytest

from loop.tools import RUNS, reset, shop
from toolcast import (
    Conversation,
    ImagePart,
    JsonPart,
    Policy,
    TextPart,
    ToolOutcome,
    ToolResult,
    run,
)
from toolcast.loop import FORMAT, ConversationConflictError, ConversationError, MemoryStore, Usage
from toolcast.loop._conversation import saved_value
from toolcast.policy import Decision
from toolcast.testing import ScriptedModel, call


@pytest.fixture(autouse=True)
def _fresh() -> None:
    reset()


async def test_to_json_from_json_keeps_everything() -> None:
    tools = shop().select(include_selectors=True)
    model = ScriptedModel(
        [
            call("calendar", id="c"),
            [
                call("book_room", id="b", room="A"),
                call("place_order", id="o", product="x", quantity=1),
            ],
        ],
        usage=Usage(3, 1),
    )
    result = await run(model, "Go", tools=tools, policy=Policy(allow=["*"]), system="S")
    conversation = result.conversation
    text = conversation.to_json()
    loaded = Conversation.from_json(text)
    assert loaded.to_json() == text
    assert json.loads(text)["format"] == FORMAT == "toolcast.conversation/1"
    assert loaded.id == conversation.id
    assert loaded.system == "S"
    assert loaded.messages == conversation.messages
    assert loaded.shown == conversation.shown
    assert "book_room" in (loaded.shown or [])
    assert loaded.opened == ["calendar"]
    assert loaded.usage == Usage(6, 2)
    assert loaded.rounds == 2
    assert loaded.status == "pending"
    assert [p.id for p in loaded.pending] == ["o"]
    assert [r.id for r in loaded.history] == ["c"]
    booked = loaded.batch[0].outcome
    assert booked is not None
    assert booked.text == "booked A"
    assert loaded.history[0].outcome is not None
    listed = saved_value(loaded.history[0].outcome)
    assert listed == conversation.history[0].outcome.structured  # type: ignore[union-attr]
    assert listed[0]["name"] == "book_room"


def test_outcomes_of_every_kind_round_trip() -> None:
    conversation = Conversation()
    from toolcast.loop import CallRecord
    from toolcast.policy import Decision

    outcomes = [
        ToolOutcome(
            call_id="a",
            tool_name="t",
            content=(TextPart("hi"), JsonPart('{"k":1}'), ImagePart(b"\x89PNG", "image/png")),
            text="hi",
        ),
        ToolOutcome.failure("timeout", "too slow", tool_name="t", call_id="b"),
    ]
    for index, outcome in enumerate(outcomes):
        record = CallRecord(outcome.call_id or "", "t", b'{"x": 1}', 1, {"sig": b"\x00\x01"})
        record.decision = Decision.allow()
        record.decided_by = "policy"
        record.outcome = outcome
        record.started = bool(index)
        conversation.batch.append(record)
    loaded = Conversation.from_json(conversation.to_json())
    first, second = (r.outcome for r in loaded.batch)
    assert first is not None
    assert second is not None
    assert first.content == outcomes[0].content
    assert saved_value(first) == {"k": 1}  # parsed only when asked for
    assert second.error == outcomes[1].error
    assert second.is_error
    assert loaded.batch[0].provider_data == {"sig": b"\x00\x01"}
    assert loaded.batch[0].arguments == '{"x": 1}'
    assert [r.started for r in loaded.batch] == [False, True]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("not json", "not JSON"),
        ("[]", r"format 'toolcast.conversation/1' \(found 'list'\)"),
        ('{"format": "toolcast.conversation/9"}', "found 'toolcast.conversation/9'"),
        ('{"format": "toolcast.conversation/1"}', "incomplete or damaged: KeyError"),
    ],
)
def test_damaged_or_foreign_json_is_refused_by_name(data: str, message: str) -> None:
    with pytest.raises(ConversationError, match=message):
        Conversation.from_json(data)


async def test_complete_accepts_every_kind_of_result() -> None:
    model = ScriptedModel([[call("refund", id=str(i), amount=i) for i in range(4)], "ok"])
    first = await run(model, "Go", tools=shop().select(), max_rounds=0)
    conversation = first.conversation
    conversation.complete("0", "text")
    conversation.complete("1", {"json": [1]})
    conversation.complete("2", ToolResult([TextPart("failed")], is_error=True))
    conversation.complete(
        "3", ToolOutcome.failure("timeout", "late", tool_name="refund", call_id="x")
    )
    texts = [r.outcome.text for r in conversation.batch if r.outcome]
    assert texts == ["text", '{"json":[1]}', "failed", "late"]
    assert [r.outcome.call_id for r in conversation.batch if r.outcome] == ["0", "1", "2", "3"]
    with pytest.raises(ConversationError, match="already answered"):
        conversation.complete("0", "again")


async def test_the_memory_store_checks_versions() -> None:
    store = MemoryStore()
    conversation = Conversation(id="x")
    await store.save(conversation)
    assert conversation.version == 1
    one = await store.load("x")
    two = await store.load("x")
    assert one is not None
    assert two is not None
    await store.save(one)
    with pytest.raises(ConversationConflictError, match="version 1, the store's is at version 2"):
        await store.save(two)
    stale = Conversation(id="x")
    with pytest.raises(ConversationConflictError):
        await store.save(stale)
    await store.delete("x")
    assert await store.load("x") is None
    assert len(store) == 0


async def test_a_prompt_while_calls_are_unanswered_is_refused() -> None:
    model = ScriptedModel([call("refund", id="r", amount=1)])
    first = await run(model, "Go", tools=shop().select())
    first.conversation.approve("r")
    with pytest.raises(ConversationError, match="unanswered"):
        await run(model, "more", conversation=first.conversation, tools=shop().select())


async def test_cancellation_propagates_after_the_journal_is_written() -> None:
    store = MemoryStore()
    conversation = Conversation(id="k")
    model = ScriptedModel(
        [[call("refund", id="r", amount=1), call("slow_read", id="s", key="a", delay=5)]]
    )
    task = asyncio.ensure_future(
        run(
            model,
            "Go",
            tools=shop().select(),
            policy=Policy(default="allow"),
            store=store,
            conversation=conversation,
        )
    )
    while not (conversation.batch and conversation.batch[1].started):
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    saved = await store.load("k")
    assert saved is not None
    assert saved.status == "cancelled"
    assert saved.batch[0].outcome is not None
    assert saved.batch[0].outcome.text == "refunded 1"
    assert saved.batch[1].started
    assert saved.batch[1].outcome is None


async def test_an_ends_loop_result_survives_a_reload_before_it_was_sent() -> None:
    store = MemoryStore()

    class Stop(BaseException):
        pass

    class StopsBeforeSending(MemoryStore):
        async def save(self, conversation: Conversation) -> None:
            if not conversation.batch and conversation.history:
                raise Stop  # the results were about to be sent
            await store.save(conversation)

    model = ScriptedModel([call("final_answer", id="f", answer="42", confidence=0.5)])
    with pytest.raises(Stop):
        await run(
            model,
            "Q",
            tools=shop().select(),
            policy=Policy(default="allow"),
            store=StopsBeforeSending(),
            conversation=Conversation(id="e"),
        )
    saved = await store.load("e")
    assert saved is not None
    assert saved.batch[0].outcome is not None
    result = await run(
        model, conversation=saved, tools=shop().select(), policy=Policy(default="allow")
    )
    assert result.status == "ended"
    assert result.output == {"answer": "42", "confidence": 0.5}
    assert RUNS == {"final_answer": 1}


async def test_a_second_worker_on_a_stale_copy_stops_before_running_anything() -> None:
    store = MemoryStore()
    model = ScriptedModel([call("refund", id="r", amount=1)])
    first = await run(model, "Go", tools=shop().select(), store=store)  # pending: no rule
    one = await store.load(first.conversation.id)
    two = await store.load(first.conversation.id)
    assert one is not None
    assert two is not None
    one.approve("r")
    two.approve("r")
    done = ScriptedModel(["Refunded."])
    await run(done, conversation=one, tools=shop().select(), store=store)
    with pytest.raises(ConversationConflictError):
        await run(
            ScriptedModel(["Refunded."]), conversation=two, tools=shop().select(), store=store
        )
    assert RUNS == {"refund": 1}


async def test_the_host_can_complete_an_interrupted_call() -> None:
    model = ScriptedModel([call("refund", id="r", amount=1), "ok"])
    first = await run(model, "Go", tools=shop().select(), max_rounds=0)
    conversation = Conversation.from_json(first.conversation.to_json())
    record = conversation.batch[0]
    record.decision, record.decided_by, record.started = Decision.allow(), "policy", True
    conversation.complete("r", "refund 1 was made (checked in the ledger)")
    result = await run(model, conversation=conversation, tools=shop().select(), policy=Policy())
    assert result.messages[2]["content"] == "refund 1 was made (checked in the ledger)"
    assert RUNS == {}
