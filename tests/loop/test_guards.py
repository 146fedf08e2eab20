"""Loop guards (issue 17): cut-off arguments, repeated calls, a per-tool retry budget."""

from __future__ import annotations

import pytest

from loop.tools import RUNS, reset, shop
from toolcast import Policy, ToolCall, run
from toolcast.loop import ModelRequest, ModelTurn
from toolcast.testing import ScriptedModel, call

ALLOW = Policy(default="allow")


@pytest.fixture(autouse=True)
def _fresh() -> None:
    reset()


def cut_turn(request: ModelRequest) -> ModelTurn:
    # A reply that hit max_tokens in the middle of its arguments.
    raw = '{"query": "blue m'
    message = {"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "raw": raw}]}
    return ModelTurn(
        message, (ToolCall(id="t1", name="find_product", arguments=raw),), finish_reason="length"
    )


async def test_arguments_cut_off_by_the_token_limit_are_answered_as_cut_off() -> None:
    model = ScriptedModel([cut_turn, "Sorry."])
    result = await run(model, "Find mugs", tools=shop().select(), policy=ALLOW)
    assert result.status == "done"
    [record] = result.calls
    assert record.outcome is not None
    assert record.outcome.error is not None
    assert record.outcome.error.kind == "invalid_arguments"
    assert record.outcome.text == (
        "Your arguments for 'find_product' were cut off (the reply reached its token "
        "limit); send a shorter call."
    )
    assert RUNS["find_product"] == 0


async def test_whole_arguments_in_a_turn_that_hit_the_limit_still_run() -> None:
    def whole(request: ModelRequest) -> ModelTurn:
        raw = '{"query": "mug"}'
        return ModelTurn(
            {"role": "assistant", "content": ""},
            (ToolCall(id="t1", name="find_product", arguments=raw),),
            finish_reason="max_tokens",
        )

    result = await run(ScriptedModel([whole, "Done."]), "Go", tools=shop().select(), policy=ALLOW)
    assert RUNS["find_product"] == 1
    assert not result.calls[0].outcome.is_error  # type: ignore[union-attr]


async def test_the_same_call_three_rounds_in_a_row_stops_the_run_without_running_it() -> None:
    same = [call("refund", id=f"r{i}", amount=5) for i in range(3)]
    model = ScriptedModel([[same[0]], [same[1]], [same[2]], "never asked"])
    result = await run(model, "Refund", tools=shop().select(), policy=ALLOW, repeat_limit=3)
    assert result.status == "repeated"
    assert result.rounds == 3
    assert RUNS["refund"] == 2  # the third repetition was answered, not run
    last = result.calls[-1].outcome
    assert last is not None
    assert last.error is not None
    assert last.error.kind == "not_run"
    assert "called with the same arguments 3 times in a row" in last.text
    # The transcript stays answerable: every call has its result message.
    assert result.messages[-1]["tool_call_id"] == "r2"


async def test_changed_arguments_are_not_a_repetition() -> None:
    turns = [[call("refund", id=f"r{i}", amount=i)] for i in range(4)]
    result = await run(
        ScriptedModel([*turns, "Done."]), "Go", tools=shop().select(), policy=ALLOW, repeat_limit=2
    )
    assert result.status == "done"
    assert RUNS["refund"] == 4


async def test_a_tool_out_of_retries_is_answered_not_run() -> None:
    bad = [call("refund", id=f"b{i}", amount="lots") for i in range(3)]
    model = ScriptedModel([[bad[0]], [bad[1]], [bad[2]], "I give up."])
    result = await run(model, "Refund", tools=shop().select(), policy=ALLOW, retry_budget=2)
    assert result.status == "done"
    kinds = [r.outcome.error.kind for r in result.calls]  # type: ignore[union-attr]
    assert kinds == ["invalid_arguments", "invalid_arguments", "not_run"]
    assert result.calls[-1].outcome.text == (  # type: ignore[union-attr]
        "Tool 'refund' was not run: it has failed 2 times in this conversation. "
        "Stop calling it; answer without it or ask the user."
    )


@pytest.mark.parametrize("name", ["repeat_limit", "retry_budget"])
async def test_a_guard_below_one_is_a_host_mistake(name: str) -> None:
    with pytest.raises(ValueError, match=f"{name} must be at least 1"):
        await run(ScriptedModel(["x"]), "Go", tools=shop().select(), **{name: 0})
