"""toolcast tools inside the OpenAI Agents SDK, driven by the SDK's own `ScriptedModel`."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, Runner
from agents.exceptions import ModelBehaviorError
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext

from toolcast.integrations import openai_agents as tc_oai

from .tools import LINKS, ORDERS, POLICY, toolset


def outputs(model: ScriptedModel, index: int) -> dict[str, str]:
    """The tool results (call id -> text) the model read in request `index`."""
    items = model.calls[index].input
    found = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    return {i["call_id"]: i["output"] for i in found}


def shown(model: ScriptedModel, index: int) -> list[str]:
    return [t.name for t in model.calls[index].tools]


def bot(model: ScriptedModel, **options: Any) -> Agent[Any]:
    return Agent(
        name="shop", model=model, tools=tc_oai.function_tools(toolset(), policy=POLICY, **options)
    )


def step(name: str, arguments: str, id: str) -> list[Any]:
    return [function_call(name, arguments, call_id=id)]


async def test_a_valid_call_runs_with_the_strict_projection() -> None:
    model = ScriptedModel(
        [step("find_product", '{"query": "mug", "limit": null}', "c1"), [assistant_message("ok")]]
    )
    result = await Runner.run(bot(model), "find a mug", context={})
    assert result.final_output == "ok"
    assert outputs(model, 1) == {"c1": '["mug (sku 1)"]'}  # null meant the default, 1
    tool = next(t for t in model.calls[0].tools if t.name == "find_product")
    assert tool.params_json_schema["required"] == ["query", "limit"]  # toolcast's strict projection
    assert tool.strict_json_schema is True


async def test_a_refused_call_reaches_the_model_and_it_corrects_itself() -> None:
    model = ScriptedModel(
        [
            step("find_product", '{"query": "mug", "query": "cup", "limit": null}', "c1"),
            step("find_product", '{"query": 5, "limit": null}', "c2"),
            step("find_product", '{"query": "mug", "limit": null}', "c3"),
            [assistant_message("ok")],
        ]
    )
    result = await Runner.run(bot(model), "find a mug", context={})
    assert result.final_output == "ok"
    assert 'repeat the key "query"' in outputs(model, 1)["c1"]
    assert "Argument 'query' must be a string (got 5)" in outputs(model, 2)["c2"]
    assert outputs(model, 3)["c3"] == '["mug (sku 1)"]'


async def test_the_error_function_is_the_hosts_to_choose() -> None:
    model = ScriptedModel(
        [step("find_product", '{"query": 5, "limit": null}', "c1"), [assistant_message("ok")]]
    )
    seen: list[Exception] = []

    def mine(ctx: Any, error: Exception) -> str:
        seen.append(error)
        return f"ERROR: {error}"

    await Runner.run(bot(model, failure_error_function=mine), "x", context={})
    assert isinstance(seen[0], tc_oai.ToolcastRefusal)
    assert seen[0].outcome.error is not None
    assert seen[0].outcome.error.kind == "invalid_arguments"
    assert outputs(model, 1)["c1"].startswith("ERROR: Argument 'query' must be a string")


async def test_a_denied_call_is_answered_and_nothing_runs() -> None:
    model = ScriptedModel(
        [step("delete_account", '{"user": "ann"}', "c1"), [assistant_message("ok")]]
    )
    result = await Runner.run(bot(model), "delete ann", context={})
    assert result.final_output == "ok"
    assert outputs(model, 1) == {
        "c1": "Tool 'delete_account' was denied: the policy does not allow it"
    }


async def test_an_approval_interrupts_the_run_and_resuming_runs_the_call_once() -> None:
    ORDERS.clear()
    model = ScriptedModel(
        [step("place_order", '{"sku": 1, "quantity": 2}', "o1"), [assistant_message("ordered")]]
    )
    agent = bot(model)
    paused = await Runner.run(agent, "order two", context={})
    assert [item.raw_item.call_id for item in paused.interruptions] == ["o1"]
    assert ORDERS == []
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    done = await Runner.run(agent, state)
    assert done.final_output == "ordered"
    assert ORDERS == [(1, 2)]
    assert outputs(model, 1) == {"o1": "ordered 2 x sku 1"}


async def test_a_rejected_call_never_runs() -> None:
    ORDERS.clear()
    model = ScriptedModel(
        [step("place_order", '{"sku": 1, "quantity": 9}', "o2"), [assistant_message("sorry")]]
    )
    agent = bot(model)
    paused = await Runner.run(agent, "order nine", context={})
    state = paused.to_state()
    state.reject(paused.interruptions[0])
    done = await Runner.run(agent, state)
    assert done.final_output == "sorry"
    assert ORDERS == []


async def test_an_approval_is_tied_to_the_exact_arguments() -> None:
    ORDERS.clear()
    model = ScriptedModel(
        [step("place_order", '{"sku": 1, "quantity": 2}', "o3"), [assistant_message("ok")]]
    )
    tools = tc_oai.function_tools(toolset(), policy=POLICY)
    agent = Agent(name="shop", model=model, tools=tools)
    paused = await Runner.run(agent, "order two", context={})
    state = paused.to_state()
    state.approve(paused.interruptions[0])
    # The SDK's own check: a resumed call whose arguments changed ends the run.
    paused.interruptions[0].raw_item.arguments = '{"sku": 1, "quantity": 200}'
    with pytest.raises(ModelBehaviorError):
        await Runner.run(agent, state)
    # toolcast's check, under it: the approved call id with other arguments is refused.
    order = next(t for t in tools if t.name == "place_order")
    changed = '{"sku": 1, "quantity": 200}'
    run = state._context  # the run's context, holding the SDK's approval of o3
    ctx = ToolContext(
        run.context, run.usage, "place_order", "o3", changed, _approvals=run._approvals
    )
    assert ctx.is_tool_approved("place_order", "o3") is True
    answer = await order.on_invoke_tool(ctx, changed)
    assert (
        answer == "Tool 'place_order' was not run: its arguments changed after they were approved."
    )
    assert ORDERS == []


async def test_aliases_both_ways_in_one_run() -> None:
    model = ScriptedModel(
        [
            step("list_links", "{}", "l1"),
            step("get_link", '{"link_id": "link-2"}', "g1"),
            step("get_link", '{"link_id": "link-9"}', "g2"),
            [assistant_message("ok")],
        ]
    )
    await Runner.run(bot(model), "links", context={})
    listed = json.loads(outputs(model, 1)["l1"])
    assert [item["id"] for item in listed] == ["link-1", "link-2"]
    assert outputs(model, 2)["g1"] == f"docs {LINKS[1].id}"
    assert "'link-9' is not a link id in this conversation" in outputs(model, 3)["g2"]


async def test_two_runs_have_two_alias_sessions() -> None:
    first = ScriptedModel([step("list_links", "{}", "l1"), [assistant_message("ok")]])
    second = ScriptedModel(
        [step("get_link", '{"link_id": "link-1"}', "g1"), [assistant_message("ok")]]
    )
    tools = tc_oai.function_tools(toolset(), policy=POLICY)
    await Runner.run(Agent(name="a", model=first, tools=tools), "x", context={})
    await Runner.run(Agent(name="a", model=second, tools=tools), "x", context={})
    assert "'link-1' is not a link id in this conversation" in outputs(second, 1)["g1"]


async def test_a_toolbox_opened_mid_run_is_in_the_next_turns_tools() -> None:
    model = ScriptedModel(
        [
            step("free_rooms", '{"day": "2026-01-05"}', "f0"),
            step("calendar", "{}", "s1"),
            step("free_rooms", '{"day": "2026-01-05"}', "f1"),
            [assistant_message("ok")],
        ]
    )
    # A disabled tool is "not found"; the SDK ends the run on that unless told to answer it.
    config = RunConfig(tool_not_found_behavior="return_error_to_model")
    await Runner.run(bot(model), "rooms", context={}, run_config=config)
    assert "free_rooms" in outputs(model, 1)["f0"]
    assert "free_rooms" not in shown(model, 0)
    assert "calendar" in shown(model, 0)
    assert "free_rooms" not in shown(model, 1)  # a call is not an opening
    assert "free_rooms" in shown(model, 2)
    assert outputs(model, 3)["f1"] == '["Ada on 2026-01-05"]'
