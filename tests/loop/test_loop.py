"""The run loop: rounds, statuses, manual mode, parallel safety, toolboxes, tool choice."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from loop.tools import ACTIVE, RUNS, SEEN, reset, shop
from toolcast import Conversation, Policy, ToolCall, run
from toolcast.loop import ModelRequest, ModelTurn, Usage
from toolcast.testing import ScriptedModel, call

ALLOW = Policy(default="allow")


@pytest.fixture(autouse=True)
def _fresh() -> None:
    reset()


async def test_a_run_without_calls_is_done_with_the_text() -> None:
    model = ScriptedModel(["Hello."])
    result = await run(model, "Hi", tools=shop().select(), policy=ALLOW)
    assert result.status == "done"
    assert result.text == "Hello."
    assert result.rounds == 1
    assert result.calls == ()
    assert result.messages == (
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
    )


async def test_each_round_appends_the_turn_once_and_every_result_by_call_id() -> None:
    model = ScriptedModel(
        [
            [call("find_product", id="a", query="mug"), call("refund", id="b", amount=3)],
            "Found mugs and refunded.",
        ]
    )
    result = await run(model, "Go", tools=shop().select(), policy=ALLOW)
    assert result.status == "done"
    roles = [m["role"] for m in result.messages]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"]
    assert [m.get("tool_call_id") for m in result.messages[2:4]] == ["a", "b"]
    assert json.loads(result.messages[2]["content"]) == ["mug #1", "mug #2"]
    assert result.messages[3]["content"] == "refunded 3"
    # The second request carries the first turn exactly once, then the results.
    second = model.requests[1].messages
    assert [m["role"] for m in second] == ["user", "assistant", "tool", "tool"]
    assert RUNS == {"find_product": 1, "refund": 1}
    assert [c.id for c in result.calls] == ["a", "b"]
    assert all(c.decision is not None and c.decision.allowed for c in result.calls)


async def test_usage_is_summed_across_rounds() -> None:
    model = ScriptedModel(
        [call("refund", amount=1), call("refund", amount=2), "ok"], usage=Usage(10, 3)
    )
    result = await run(model, "Go", tools=shop().select(), policy=ALLOW)
    assert result.usage == Usage(30, 9)
    assert result.conversation.usage == Usage(30, 9)


def test_negative_max_rounds_is_refused() -> None:
    with pytest.raises(ValueError, match="max_rounds cannot be negative"):
        asyncio.run(run(ScriptedModel([]), "x", tools=shop().select(), max_rounds=-1))


async def test_tools_must_be_a_tool_set() -> None:
    with pytest.raises(TypeError, match=r"tools=catalog.select\(...\), a ToolSet; got Catalog"):
        await run(ScriptedModel([]), "x", tools=shop())  # type: ignore[arg-type]


async def test_manual_mode_returns_the_calls_unevaluated_and_unrun() -> None:
    evaluated: list[str] = []

    def evaluator(spec: Any, call: ToolCall, args: Any) -> bool:
        evaluated.append(call.name)
        return True

    model = ScriptedModel([[call("refund", id="r", amount=5), call("delete_order", order_id="1")]])
    result = await run(
        model, "Go", tools=shop().select(), policy=Policy(evaluator=evaluator), max_rounds=0
    )
    assert result.status == "pending"
    assert [p.id for p in result.pending] == ["r", result.pending[1].id]
    assert all("max_rounds=0" in (p.reason or "") for p in result.pending)
    assert evaluated == []
    assert RUNS == {}
    assert len(model.requests) == 1


async def test_manual_mode_host_completes_the_calls_and_continues() -> None:
    model = ScriptedModel([[call("refund", id="r", amount=5)], "Refunded."])
    first = await run(model, "Go", tools=shop().select(), max_rounds=0)
    first.conversation.complete("r", "refunded 5 by the host")
    second = await run(model, conversation=first.conversation, tools=shop().select(), max_rounds=0)
    assert second.status == "done"
    assert second.messages[2] == {
        "role": "tool",
        "tool_call_id": "r",
        "content": "refunded 5 by the host",
    }
    assert RUNS == {}


async def test_max_rounds_stops_after_the_last_batch_without_another_request() -> None:
    model = ScriptedModel([call("refund", amount=i) for i in range(5)])
    result = await run(model, "Go", tools=shop().select(), policy=ALLOW, max_rounds=2)
    assert result.status == "max_rounds"
    assert len(model.requests) == 2
    assert RUNS["refund"] == 2  # the last batch ran
    assert result.messages[-1]["role"] == "tool"  # and its results are in the history


async def test_an_ends_loop_tool_ends_the_run_with_its_typed_value() -> None:
    model = ScriptedModel([call("final_answer", answer="42", confidence=0.9)])
    result = await run(model, "Q", tools=shop().select(), policy=ALLOW)
    assert result.status == "ended"
    assert result.output == {"answer": "42", "confidence": 0.9}
    assert len(model.requests) == 1
    assert result.messages[-1]["role"] == "tool"


async def test_a_failed_ends_loop_call_does_not_end_the_run() -> None:
    model = ScriptedModel([call("final_answer", answer="42"), "gave up"])
    result = await run(model, "Q", tools=shop().select(), policy=ALLOW)
    assert result.status == "done"
    assert result.calls[0].outcome is not None
    assert result.calls[0].outcome.error is not None
    assert result.calls[0].outcome.error.kind == "invalid_arguments"


async def test_unknown_and_invalid_calls_are_answered_not_raised() -> None:
    model = ScriptedModel(
        [
            [
                call("nope", id="u"),
                call("refund", id="v", amount="lots"),
                call("broken", id="w", x=1),
            ],
            "ok",
        ]
    )
    result = await run(model, "Go", tools=shop().select(), policy=ALLOW)
    kinds = [c.outcome.error.kind for c in result.calls if c.outcome and c.outcome.error]
    assert kinds == ["unknown_tool", "invalid_arguments", "tool_error"]
    assert result.messages[2]["content"].startswith("Unknown tool 'nope'. Available tools:")
    assert result.status == "done"


async def test_parallel_safe_calls_run_concurrently_others_one_at_a_time() -> None:
    calls = [call("slow_read", id=f"s{i}", key=str(i), delay=0.05) for i in range(4)]
    calls.insert(2, call("write_log", id="w", line="x"))
    model = ScriptedModel([calls, "done"])
    result = await run(model, "Go", tools=shop().select(), policy=ALLOW)
    # Two concurrent groups of 2 around the one writer, counted by the tools themselves
    # (`peak_readers` below), not timed.
    assert [c.id for c in result.calls] == ["s0", "s1", "w", "s2", "s3"]
    assert [m["tool_call_id"] for m in result.messages[2:7]] == ["s0", "s1", "w", "s2", "s3"]
    # Call order is kept around the non-parallel-safe call.
    names = [name for name, _ in SEEN]
    assert names.index("write_log") == 2
    assert ACTIVE["overlaps"] == 0  # the writer never ran alongside another call
    assert ACTIVE["peak_readers"] == 2


async def test_concurrency_is_bounded() -> None:
    calls = [call("slow_read", key=str(i), delay=0.05) for i in range(4)]
    model = ScriptedModel([calls, "done"])
    await run(model, "Go", tools=shop().select(), policy=ALLOW, max_concurrency=1)
    assert RUNS["slow_read"] == 4
    assert ACTIVE["peak_readers"] == 1  # one at a time, counted, not timed


async def test_a_set_with_a_non_parallel_safe_tool_asks_for_no_parallel_calls() -> None:
    model = ScriptedModel(["a", "b"])
    await run(model, "x", tools=shop().select(), policy=ALLOW)
    assert model.requests[0].parallel_calls is False
    await run(model, "x", tools=shop().select(names=["refund", "find_product"]), policy=ALLOW)
    assert model.requests[1].parallel_calls is True


async def test_opening_a_toolbox_adds_its_members_to_the_next_request_once() -> None:
    tools = shop().select(include_selectors=True)
    model = ScriptedModel(
        [call("calendar"), call("calendar"), call("book_room", room="A"), "Booked."]
    )
    result = await run(model, "Book", tools=tools, policy=ALLOW)
    assert result.status == "done"
    names = [[s.name for s in r.tools] for r in model.requests]
    assert "book_room" not in names[0]
    assert names[1] == [*names[0], "book_room", "list_rooms"]
    assert names[2] == names[1]  # opened twice: no duplicates
    assert RUNS == {"book_room": 1}
    assert result.conversation.opened == ["calendar"]


async def test_a_member_called_before_its_toolbox_was_opened_is_unknown() -> None:
    tools = shop().select(include_selectors=True)
    model = ScriptedModel([call("book_room", id="b", room="A"), "Sorry."])
    result = await run(model, "Book", tools=tools, policy=ALLOW)
    assert RUNS == {}
    outcome = result.calls[0].outcome
    assert outcome is not None
    assert outcome.error is not None
    assert outcome.error.kind == "unknown_tool"
    assert outcome.text == tools.unknown_tool("book_room").text


async def test_tool_choice_is_passed_for_the_first_request_then_auto() -> None:
    model = ScriptedModel([call("refund", amount=1), "ok"])
    await run(model, "x", tools=shop().select(), policy=ALLOW, tool_choice="refund")
    assert [r.tool_choice for r in model.requests] == ["refund", "auto"]
    model = ScriptedModel([call("refund", amount=1), "ok"])
    await run(
        model,
        "x",
        tools=shop().select(),
        policy=ALLOW,
        tool_choice="required",
        keep_tool_choice=True,
    )
    assert [r.tool_choice for r in model.requests] == ["required", "required"]
    for choice in ("none", "auto"):
        model = ScriptedModel(["ok"])
        await run(model, "x", tools=shop().select(), policy=ALLOW, tool_choice=choice)
        assert model.requests[0].tool_choice == choice


async def test_a_named_tool_choice_must_be_shown() -> None:
    with pytest.raises(ValueError, match="not a tool the model is shown"):
        await run(ScriptedModel(["x"]), "x", tools=shop().select(), tool_choice="launch")


async def test_system_prompt_and_options_reach_the_model() -> None:
    model = ScriptedModel(["ok"])
    result = await run(
        model, "x", tools=shop().select(), system="Be brief.", options={"temperature": 0}
    )
    assert model.requests[0].system == "Be brief."
    assert model.requests[0].options == {"temperature": 0}
    assert result.conversation.system == "Be brief."


async def test_a_conversation_continues_with_a_new_prompt() -> None:
    model = ScriptedModel(["one", "two"])
    first = await run(model, "a", tools=shop().select())
    second = await run(model, "b", conversation=first.conversation, tools=shop().select())
    assert [m["content"] for m in second.messages] == ["a", "one", "b", "two"]
    assert second.conversation is first.conversation
    assert second.rounds == 1
    assert second.conversation.rounds == 2


async def test_run_needs_a_prompt_or_history() -> None:
    with pytest.raises(ValueError, match="needs a prompt"):
        await run(ScriptedModel([]), tools=shop().select(), conversation=Conversation())


async def test_a_computed_turn_sees_the_request() -> None:
    def answer(request: ModelRequest) -> ModelTurn:
        return ModelTurn({"role": "assistant", "content": "n"}, text=f"{len(request.tools)} tools")

    result = await run(ScriptedModel([answer]), "x", tools=shop().select())
    assert result.text == "10 tools"
