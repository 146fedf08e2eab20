"""`toolcast.testing.ScriptedModel`: scripted turns, recorded requests, a clear end of script."""

from __future__ import annotations

import pytest

from loop.tools import reset, shop
from toolcast import Policy, ToolOutcome, run
from toolcast.loop import Model, ModelRequest, ModelTurn
from toolcast.testing import ScriptedModel, ScriptExhaustedError, call


@pytest.fixture(autouse=True)
def _fresh() -> None:
    reset()


def test_it_implements_the_model_protocol() -> None:
    model: Model = ScriptedModel([])
    assert model.user_message("hi") == [{"role": "user", "content": "hi"}]
    outcome = ToolOutcome.failure("timeout", "late", tool_name="t", call_id="c")
    assert model.result_messages([outcome]) == [
        {"role": "tool", "tool_call_id": "c", "content": "late"}
    ]


async def test_turns_are_replayed_and_requests_recorded() -> None:
    async def third(request: ModelRequest) -> str:
        return f"{len(request.messages)} messages"

    model = ScriptedModel(
        [call("refund", id="r", amount=1), [call("refund", id="s", amount=2)], third]
    )
    result = await run(model, "Go", tools=shop().select(), policy=Policy(default="allow"))
    assert result.text == "5 messages"
    assert len(model.requests) == 3
    assert model.requests[1].messages[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "r",
                "type": "function",
                "function": {"name": "refund", "arguments": '{"amount": 1}'},
            }
        ],
    }


async def test_running_out_of_script_is_a_clear_failure() -> None:
    with pytest.raises(ScriptExhaustedError, match="no turn for request 2: the script has 1 turn"):
        await run(
            ScriptedModel([call("refund", amount=1)]),
            "Go",
            tools=shop().select(),
            policy=Policy(default="allow"),
        )


async def test_a_whole_model_turn_passes_through() -> None:
    turn = ModelTurn({"role": "assistant", "content": "x"}, text="x", finish_reason="length")
    model = ScriptedModel([turn])
    assert await model.complete(ModelRequest(messages=[], tools=[])) is turn


def test_call_ids_are_unique() -> None:
    assert call("a").id != call("a").id
    assert call("a", id="fixed").id == "fixed"
