"""toolcast tools inside pydantic-ai, driven by pydantic-ai's own FunctionModel and TestModel."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolApproved

from toolcast.integrations import pydantic_ai as tc_pai

from .tools import LINKS, ORDERS, POLICY, toolset

Turn = Callable[[list[ModelMessage]], ModelResponse]


class Script:
    """A FunctionModel script: one reply per request; records what each request carried."""

    def __init__(self, *replies: list[ToolCallPart] | str) -> None:
        self.replies = list(replies)
        self.seen: list[list[Any]] = []  # the parts of each request
        self.tools: list[list[str]] = []  # the tool names each request offered

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages[-1].parts))
        self.tools.append([t.name for t in info.function_tools])
        reply = self.replies.pop(0)
        return ModelResponse(parts=[TextPart(reply)] if isinstance(reply, str) else reply)

    def returned(self, index: int) -> list[str]:
        """The tool results (as the model read them) in request `index`."""
        return [str(p.content) for p in self.seen[index] if hasattr(p, "tool_call_id")]


def agent(script: Script, **options: Any) -> Agent[None, Any]:
    return Agent(
        FunctionModel(script),
        toolsets=[tc_pai.toolset(toolset(), policy=POLICY, **options)],
        output_type=[str, DeferredToolRequests],
    )


def call(name: str, arguments: str, id: str) -> list[ToolCallPart]:
    return [ToolCallPart(name, arguments, tool_call_id=id)]


async def test_a_valid_call_runs_and_the_model_reads_toolcasts_result() -> None:
    script = Script(call("find_product", '{"query": "mug", "limit": 2}', "c1"), "ok")
    result = await agent(script).run("find a mug")
    assert result.output == "ok"
    assert script.returned(1) == ['["mug (sku 1)","mug (sku 2)"]']


async def test_the_canonical_schema_is_what_the_model_sees() -> None:
    seen: list[Any] = []

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(t for t in info.function_tools if t.name == "find_product")
        return ModelResponse(parts=[TextPart("ok")])

    await Agent(FunctionModel(fn), toolsets=[tc_pai.toolset(toolset(), policy=POLICY)]).run("x")
    assert seen[0].parameters_json_schema == toolset().get("find_product").spec.input_schema
    assert seen[0].strict is False


async def test_a_refused_call_is_a_retry_the_model_corrects() -> None:
    script = Script(
        call("find_product", '{"query": "mug", "query": "cup"}', "c1"),  # duplicate key
        call("find_product", '{"query": 5}', "c2"),
        call("find_product", '{"query": "mug"}', "c3"),
        "ok",
    )
    result = await agent(script, max_retries=2).run("find a mug")
    assert result.output == "ok"
    assert 'repeat the key "query"' in script.returned(1)[0]  # toolcast's own check
    assert "Argument 'query' must be a string (got 5)" in script.returned(2)[0]
    assert script.returned(3) == ['["mug (sku 1)"]']


async def test_a_member_of_an_unopened_toolbox_is_unknown_to_toolcast_too() -> None:
    # get_tools shows the selector only; a call reaching call_tool anyway gets toolcast's answer
    bot = tc_pai.toolset(toolset(), policy=POLICY)
    gate = bot.gate  # type: ignore[attr-defined]
    from toolcast import ToolCall

    verdict = await gate.decide(gate.thread("conv"), ToolCall("c1", "free_rooms", "{}"))
    assert verdict.outcome is not None
    assert verdict.outcome.text.startswith("Unknown tool 'free_rooms'. Available tools:")


async def test_a_denied_call_is_a_failure_the_model_reads_and_nothing_runs() -> None:
    script = Script(call("delete_account", '{"user": "ann"}', "c1"), "ok")
    result = await agent(script).run("delete ann")
    assert result.output == "ok"
    assert script.returned(1) == ["Tool 'delete_account' was denied: the policy does not allow it"]


async def test_an_approval_round_trip_runs_exactly_the_approved_call() -> None:
    ORDERS.clear()
    script = Script(call("place_order", '{"sku": 1, "quantity": 2}', "o1"), "ordered")
    bot = agent(script)
    paused = await bot.run("order two")
    requests = paused.output
    assert isinstance(requests, DeferredToolRequests)
    assert [p.tool_call_id for p in requests.approvals] == ["o1"]
    assert len(requests.metadata["o1"]["fingerprint"]) == 64
    assert ORDERS == []
    done = await bot.run(
        message_history=paused.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"o1": True}),
    )
    assert done.output == "ordered"
    assert ORDERS == [(1, 2)]


async def test_approved_arguments_that_changed_are_refused() -> None:
    ORDERS.clear()
    script = Script(call("place_order", '{"sku": 1, "quantity": 2}', "o2"), "ok")
    bot = agent(script)
    paused = await bot.run("order two")
    changed = ToolApproved(override_args={"sku": 1, "quantity": 200})
    await bot.run(
        message_history=paused.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"o2": changed}),
    )
    assert ORDERS == []
    assert script.returned(1) == [
        "Tool 'place_order' was not run: its arguments changed after they were approved."
    ]


async def test_aliases_both_ways_in_one_conversation() -> None:
    script = Script(
        call("list_links", "{}", "l1"),
        call("get_link", '{"link_id": "link-2"}', "g1"),
        call("get_link", '{"link_id": "link-9"}', "g2"),
        "ok",
    )
    await agent(script, max_retries=2).run("links")
    listed = json.loads(script.returned(1)[0])
    assert [item["id"] for item in listed] == ["link-1", "link-2"]
    assert str(LINKS[1].id) not in script.returned(1)[0]
    assert script.returned(2) == [f"docs {LINKS[1].id}"]  # the tool got the UUID
    assert "'link-9' is not a link id in this conversation" in script.returned(3)[0]


async def test_a_toolbox_opened_mid_run_adds_its_members() -> None:
    script = Script(
        call("free_rooms", '{"day": "2026-01-05"}', "f0"),  # before it is opened
        call("calendar", "{}", "s1"),
        call("free_rooms", '{"day": "2026-01-05"}', "f1"),
        "ok",
    )
    await agent(script, max_retries=2).run("rooms")
    assert "free_rooms" not in script.tools[0]
    # pydantic-ai refuses a name it was not given before toolcast is asked, in its own words
    assert "Unknown tool name: 'free_rooms'" in script.returned(1)[0]
    assert "free_rooms" in script.tools[3]
    assert script.returned(3) == ['["Ada on 2026-01-05"]']


async def test_pydantic_ais_test_model_calls_every_shown_tool_through_toolcast() -> None:
    from toolcast import Catalog, Policy

    from .tools import find_product

    bot = Agent(
        TestModel(),
        toolsets=[tc_pai.toolset(Catalog([find_product]).select(), policy=Policy(allow=["*"]))],
    )
    result = await bot.run("go")
    assert '"a (sku 1)"' in result.output or "sku 1" in result.output


async def test_a_defer_rule_is_a_deferred_call_the_host_answers() -> None:
    from toolcast import Policy

    script = Script(call("find_product", '{"query": "mug"}', "d1"), "queued")
    bot = Agent(
        FunctionModel(script),
        toolsets=[tc_pai.toolset(toolset(), policy=Policy(defer=["find_product"]))],
        output_type=[str, DeferredToolRequests],
    )
    paused = await bot.run("find")
    assert isinstance(paused.output, DeferredToolRequests)
    assert [p.tool_call_id for p in paused.output.calls] == ["d1"]
    done = await bot.run(
        message_history=paused.all_messages(),
        deferred_tool_results=DeferredToolResults(calls={"d1": "3 mugs"}),
    )
    assert done.output == "queued"
    assert script.returned(1) == ["3 mugs"]


async def test_a_failing_tool_is_a_tool_failure_not_a_retry() -> None:
    from toolcast import Catalog, Policy, ToolError, tool

    @tool
    def fragile(n: int) -> int:
        """Fail."""
        raise ToolError(f"no item {n}")

    script = Script(call("fragile", '{"n": 1}', "x1"), call("fragile", '{"n": 2}', "x2"), "ok")
    bot = Agent(
        FunctionModel(script),
        toolsets=[tc_pai.toolset(Catalog([fragile]).select(), policy=Policy(allow=["*"]))],
    )
    result = await bot.run("x")  # max_retries=1: two retries would end the run; failures do not
    assert result.output == "ok"
    assert script.returned(1) == ["no item 1"]
    assert script.returned(2) == ["no item 2"]


async def test_one_alias_session_per_conversation_across_runs() -> None:
    tools = tc_pai.toolset(toolset(), policy=POLICY)
    first = Script(call("list_links", "{}", "l1"), "ok")
    run = await Agent(FunctionModel(first), toolsets=[tools]).run("x")
    second = Script(call("get_link", '{"link_id": "link-2"}', "g1"), "ok")
    bot = Agent(FunctionModel(second), toolsets=[tools])
    await bot.run("again", message_history=run.all_messages())  # same conversation_id
    assert second.returned(1) == [f"docs {LINKS[1].id}"]
    other = Script(call("get_link", '{"link_id": "link-2"}', "g2"), "ok")
    await Agent(FunctionModel(other), toolsets=[tools]).run("new")  # a new conversation
    assert "'link-2' is not a link id in this conversation" in other.returned(1)[0]


async def test_an_approval_resumed_by_another_process_needs_the_fingerprint_back() -> None:
    ORDERS.clear()
    script = Script(call("place_order", '{"sku": 4, "quantity": 1}', "o7"), "ok", "ok")
    paused = await agent(script).run("order")
    requests = paused.output
    assert isinstance(requests, DeferredToolRequests)
    # a fresh toolset stands for another process: it never saw the pause
    without = await agent(script).run(
        message_history=paused.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"o7": True}),
    )
    assert without.output == "ok"
    assert ORDERS == []
    assert "no approval request of this conversation matches call 'o7'" in script.returned(1)[0]
    carried = await agent(script).run(
        message_history=paused.all_messages(),
        deferred_tool_results=DeferredToolResults(
            approvals={"o7": True}, metadata=requests.metadata
        ),
    )
    assert carried.output == "ok"
    assert ORDERS == [(4, 1)]
