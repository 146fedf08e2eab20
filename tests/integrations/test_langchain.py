"""toolcast tools in LangChain and LangGraph: fake chat models, ToolNode, interrupt()."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command

from toolcast.integrations import langchain as tc_lc
from toolcast.loop._conversation import fingerprint

from .tools import LINKS, ORDERS, POLICY, toolset


def ai(name: str, arguments: dict[str, Any], id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": arguments, "id": id}])


class Graph:
    """model -> ToolNode -> model, checkpointed; the model binds the tools its thread is shown."""

    def __init__(self, *replies: AIMessage) -> None:
        self.tools = tc_lc.tools(toolset(), policy=POLICY)
        self.model = FakeMessagesListChatModel(responses=list(replies))
        self.bound: list[list[str]] = []  # the tool names each model turn was given

        def agent(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
            self.bound.append([t.name for t in self.tools if t.visible(config)])
            return {"messages": [self.model.invoke(state["messages"])]}

        graph = StateGraph(MessagesState)
        graph.add_node("agent", agent)
        graph.add_node("tools", ToolNode(self.tools))
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", tools_condition)
        graph.add_edge("tools", "agent")
        self.app = graph.compile(checkpointer=InMemorySaver())

    async def run(self, value: Any, thread: str = "t1") -> dict[str, Any]:
        return await self.app.ainvoke(value, {"configurable": {"thread_id": thread}})


def results(state: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {
        m.tool_call_id: (m.status, m.content)
        for m in state["messages"]
        if isinstance(m, ToolMessage)
    }


async def test_a_valid_call_runs_in_a_tool_node() -> None:
    graph = Graph(ai("find_product", {"query": "mug", "limit": 2}, "c1"), AIMessage("ok"))
    state = await graph.run({"messages": [HumanMessage("find a mug")]})
    assert state["messages"][-1].content == "ok"
    assert results(state) == {"c1": ("success", '["mug (sku 1)","mug (sku 2)"]')}


def test_the_canonical_schema_is_the_args_schema() -> None:
    tool = next(t for t in tc_lc.tools(toolset(), policy=POLICY) if t.name == "find_product")
    assert tool.args_schema == toolset().get("find_product").spec.input_schema


async def test_a_refused_call_is_an_error_message_the_model_corrects() -> None:
    graph = Graph(
        ai("find_product", {"query": 5}, "c1"),
        ai("find_product", {"query": "mug", "colour": "blue"}, "c2"),
        ai("find_product", {"query": "mug"}, "c3"),
        AIMessage("ok"),
    )
    state = await graph.run({"messages": [HumanMessage("find a mug")]})
    found = results(state)
    assert found["c1"] == ("error", "Argument 'query' must be a string (got 5).")
    assert found["c2"][0] == "error"
    assert "colour" in found["c2"][1]
    assert found["c3"] == ("success", '["mug (sku 1)"]')


async def test_an_argument_named_like_langchains_plumbing_is_just_an_argument() -> None:
    tool = next(t for t in tc_lc.tools(toolset(), policy=POLICY) if t.name == "find_product")
    message = await tool.ainvoke(
        {
            "name": "find_product",
            "args": {"query": "mug", "config": 1},
            "id": "c1",
            "type": "tool_call",
        }
    )
    assert message.status == "error"
    assert "config" in message.content


async def test_a_denied_call_is_answered_and_nothing_runs() -> None:
    graph = Graph(ai("delete_account", {"user": "ann"}, "c1"), AIMessage("ok"))
    state = await graph.run({"messages": [HumanMessage("delete ann")]})
    assert results(state) == {
        "c1": ("error", "Tool 'delete_account' was denied: the policy does not allow it")
    }


async def test_an_approval_is_an_interrupt_and_resuming_runs_the_call_once() -> None:
    ORDERS.clear()
    graph = Graph(ai("place_order", {"sku": 1, "quantity": 2}, "o1"), AIMessage("ordered"))
    paused = await graph.run({"messages": [HumanMessage("order two")]})
    request = paused["__interrupt__"][0].value
    assert (request["tool"], request["call_id"], request["arguments"]) == (
        "place_order",
        "o1",
        {"sku": 1, "quantity": 2},
    )
    assert ORDERS == []
    done = await graph.run(
        Command(resume={"approved": True, "fingerprint": request["fingerprint"]})
    )
    assert done["messages"][-1].content == "ordered"
    assert results(done) == {"o1": ("success", "ordered 2 x sku 1")}
    assert ORDERS == [(1, 2)]


async def test_an_approval_of_other_arguments_is_refused() -> None:
    ORDERS.clear()
    graph = Graph(ai("place_order", {"sku": 1, "quantity": 2}, "o2"), AIMessage("ok"))
    paused = await graph.run({"messages": [HumanMessage("order two")]})
    request = paused["__interrupt__"][0].value
    # the approver saw another call (its fingerprint): this one is not approved
    other = fingerprint("place_order", {"sku": 1, "quantity": 200})
    done = await graph.run(Command(resume={"approved": True, "fingerprint": other}))
    assert other != request["fingerprint"]
    assert results(done) == {
        "o2": (
            "error",
            "Tool 'place_order' was not run: its arguments changed after they were approved.",
        )
    }
    assert ORDERS == []


async def test_a_refusal_from_the_human_is_a_denial() -> None:
    ORDERS.clear()
    graph = Graph(ai("place_order", {"sku": 1, "quantity": 9}, "o3"), AIMessage("sorry"))
    await graph.run({"messages": [HumanMessage("order nine")]})
    done = await graph.run(Command(resume={"approved": False, "reason": "too many"}))
    assert results(done) == {"o3": ("error", "Tool 'place_order' was denied: too many")}
    assert ORDERS == []


async def test_aliases_both_ways_in_one_thread_and_not_across_threads() -> None:
    graph = Graph(
        ai("list_links", {}, "l1"),
        ai("get_link", {"link_id": "link-2"}, "g1"),
        AIMessage("ok"),
        ai("get_link", {"link_id": "link-1"}, "g2"),
        AIMessage("ok"),
    )
    state = await graph.run({"messages": [HumanMessage("links")]})
    found = results(state)
    assert [item["id"] for item in json.loads(found["l1"][1])] == ["link-1", "link-2"]
    assert found["g1"] == ("success", f"docs {LINKS[1].id}")
    other = await graph.run({"messages": [HumanMessage("links")]}, thread="t2")
    status, text = results(other)["g2"]
    assert status == "error"
    assert "'link-1' is not a link id in this conversation" in text


async def test_a_toolbox_opened_mid_run_is_shown_in_that_thread() -> None:
    graph = Graph(
        ai("free_rooms", {"day": "2026-01-05"}, "f0"),
        ai("calendar", {}, "s1"),
        ai("free_rooms", {"day": "2026-01-05"}, "f1"),
        AIMessage("ok"),
    )
    state = await graph.run({"messages": [HumanMessage("rooms")]})
    found = results(state)
    assert found["f0"][0] == "error"
    assert found["f0"][1].startswith("Unknown tool 'free_rooms'.")
    assert "free_rooms" not in graph.bound[0]
    assert "calendar" in graph.bound[0]
    assert "free_rooms" in graph.bound[2]
    assert found["f1"] == ("success", '["Ada on 2026-01-05"]')


async def test_outside_a_graph_a_waiting_call_is_answered_not_run() -> None:
    ORDERS.clear()
    tool = next(t for t in tc_lc.tools(toolset(), policy=POLICY) if t.name == "place_order")
    call = {"name": "place_order", "args": {"sku": 1, "quantity": 2}, "id": "o9"}
    message = await tool.ainvoke({**call, "type": "tool_call"})
    assert message.status == "error"
    assert message.content.startswith("Tool 'place_order' was not run: it waits for approval")
    assert ORDERS == []


def test_plain_langchain_sync_invoke_runs_through_toolcast() -> None:
    tool = next(t for t in tc_lc.tools(toolset(), policy=POLICY) if t.name == "find_product")
    good = tool.invoke(
        {"name": "find_product", "args": {"query": "x"}, "id": "c1", "type": "tool_call"}
    )
    bad = tool.invoke(
        {"name": "find_product", "args": {"query": 1}, "id": "c2", "type": "tool_call"}
    )
    assert (good.status, good.content) == ("success", '["x (sku 1)"]')
    assert (bad.status, bad.content) == ("error", "Argument 'query' must be a string (got 1).")
