"""toolcast as the tool layer inside agent frameworks (issue 23): per tool call, x native tools.

For each framework, one process runs the same agent twice, interleaved: with the
framework's own tools on a function, and with `toolcast.integrations` tools on the
same function (policy `allow=["*"]`), both driven by the framework's own test
model: pydantic-ai `FunctionModel`, the Agents SDK's `agents.testing.ScriptedModel`
protocol (a fake `Model` here, so a run needs no script refill), LangGraph with
`FakeMessagesListChatModel` and `ToolNode`. One unit is a whole run of `CALLS`
rounds of one call and a final text; the figure is µs per tool call and the
ratio to the native run (goal ≤ 1.0x: the framework does less checking natively).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from typing import Any

from benchmarks import Figure, Job, Subject, interleave
from benchmarks.peers import NotInstalled, _require

__all__ = ("figures", "jobs", "render", "work")

CALLS = 5
"""Tool calls per run (one per round), then one final text turn."""
TARGET = 1.0
FRAMEWORKS = ("pydantic_ai", "openai_agents", "langgraph")
LABELS = {
    "pydantic_ai": "pydantic-ai (`FunctionModel`)",
    "openai_agents": "OpenAI Agents SDK (fake `Model`)",
    "langgraph": "LangGraph (`FakeMessagesListChatModel` + `ToolNode`)",
}
ARGUMENTS = '{"a": 1, "b": 2}'


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _toolset() -> Any:
    from toolcast import Catalog

    # toolcast's default for a sync tool (a worker thread), as the frameworks do theirs
    return Catalog([add]).select()


def _policy() -> Any:
    from toolcast import Policy

    return Policy(allow=["*"])


def _pydantic_ai() -> tuple[Subject, ...]:
    _require("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.toolsets import FunctionToolset

    from toolcast.integrations import pydantic_ai as tc_pai

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        round_ = sum(1 for m in messages if isinstance(m, ModelResponse))
        if round_ >= CALLS:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("add", ARGUMENTS, tool_call_id=f"c{round_}")])

    native = Agent(FunctionModel(respond), tools=[add])
    ours = Agent(FunctionModel(respond), toolsets=[tc_pai.toolset(_toolset(), policy=_policy())])
    # pydantic-ai's own tools in the place toolcast's take: a second toolset beside
    # the agent's (always present) function toolset, which every step gathers.
    same_place = Agent(FunctionModel(respond), toolsets=[FunctionToolset([add])])

    def subject(name: str, agent: Any) -> Subject:
        async def call(_: Any) -> int:
            await agent.run("go")
            return CALLS

        return Subject(name, call)

    return (
        subject("native `tools=[add]`", native),
        subject("toolcast `toolset()`", ours),
        subject("native `toolsets=[FunctionToolset([add])]`", same_place),
    )


def _openai_agents() -> tuple[Subject, Subject]:
    _require("agents")
    from agents import Agent, ModelResponse, RunConfig, Runner, Usage, function_tool
    from agents.models.interface import Model
    from agents.testing import assistant_message, function_call

    from toolcast.integrations import openai_agents as tc_oai

    class Fake(Model):
        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            items = args[1] if len(args) > 1 else kwargs["input"]
            done = sum(
                1 for m in items if isinstance(m, dict) and m.get("type") == "function_call_output"
            )
            output = (
                [assistant_message("done")]
                if done >= CALLS
                else [function_call("add", ARGUMENTS, call_id=f"c{done}")]
            )
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    config = RunConfig(tracing_disabled=True)
    native = Agent(name="native", model=Fake(), tools=[function_tool(add)])
    ours = Agent(
        name="toolcast", model=Fake(), tools=tc_oai.function_tools(_toolset(), policy=_policy())
    )

    def subject(name: str, agent: Any) -> Subject:
        async def call(_: Any) -> int:
            await Runner.run(agent, "go", max_turns=CALLS + 2, run_config=config, context={})
            return CALLS

        return Subject(name, call)

    return subject("native `function_tool(add)`", native), subject(
        "toolcast `function_tools()`", ours
    )


def _langgraph() -> tuple[Subject, Subject]:
    _require("langgraph")
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool as lc_tool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    from toolcast.integrations import langchain as tc_lc

    calls = [
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": f"c{n}"}])
        for n in range(CALLS)
    ]

    def graph(tools: list[Any]) -> Any:
        # The fake model cycles through its responses: each run takes CALLS + 1 of them.
        model = FakeMessagesListChatModel(responses=[*calls, AIMessage("done")])

        def agent(state: MessagesState) -> dict[str, Any]:
            return {"messages": [model.invoke(state["messages"])]}

        built = StateGraph(MessagesState)
        built.add_node("agent", agent)
        built.add_node("tools", ToolNode(tools))
        built.add_edge(START, "agent")
        built.add_conditional_edges("agent", tools_condition)
        built.add_edge("tools", "agent")
        return built.compile()

    native = graph([lc_tool(add)])
    ours = graph(tc_lc.tools(_toolset(), policy=_policy()))
    threads = itertools.count()

    def subject(name: str, app: Any) -> Subject:
        async def call(_: Any) -> int:
            config = {"configurable": {"thread_id": f"run-{next(threads)}"}}
            await app.ainvoke({"messages": [HumanMessage("go")]}, config)
            return CALLS

        return Subject(name, call)

    return subject("native `@tool` in `ToolNode`", native), subject(
        "toolcast `tools()` in `ToolNode`", ours
    )


def work(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: one framework, native tools (baseline) and toolcast's, interleaved."""
    make = {"pydantic_ai": _pydantic_ai, "openai_agents": _openai_agents, "langgraph": _langgraph}
    try:
        subjects = make[params["framework"]]()
    except NotInstalled:
        return {"status": "not installed"}

    async def main() -> dict[str, Any]:
        measured = await interleave(
            list(subjects),
            None,
            rounds=params["rounds"],
            batch_seconds=params["batch_seconds"],
            # A third subject is the framework's own tools in the place toolcast's take.
            reference=2 if len(subjects) > 2 else None,
        )
        return {"status": "ok", "rows": [m.as_dict() for m in measured]}

    return asyncio.run(main())


def jobs(quick: bool) -> list[Job]:
    """One process per framework."""
    rounds, batch = (3, 0.02) if quick else (15, 0.2)
    return [
        Job(
            f"frameworks/{name}",
            "benchmarks.bench_frameworks:work",
            {"framework": name, "rounds": rounds, "batch_seconds": batch},
            timeout=300,
        )
        for name in FRAMEWORKS
    ]


def _rows(results: Mapping[str, Any], name: str) -> list[dict[str, Any]] | None:
    result = results.get(f"frameworks/{name}", {})
    return result.get("rows") if result.get("status") == "ok" else None


def figures(results: Mapping[str, Any], quick: bool) -> list[Figure]:
    """Per framework: toolcast's tools x the framework's own, per tool call."""
    del quick
    out = []
    for name in FRAMEWORKS:
        rows = _rows(results, name)
        if rows:
            label = f"{LABELS[name]}: toolcast tools, per call (x native tools)"
            out.append(Figure(label, rows[1]["ratio"], TARGET))
            if len(rows) > 2:
                label = (
                    f"{LABELS[name]}: toolcast `toolset()`, per call "
                    "(x native `FunctionToolset` in the same `toolsets=` place)"
                )
                out.append(Figure(label, rows[1]["vs"], TARGET))
    return out


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown: per framework, µs per tool call and the ratio to native tools."""
    del quick
    lines = [
        "## Inside agent frameworks",
        "",
        f"One run = {CALLS} rounds of one call of `add(a, b)` and a final text, in the "
        "framework's own loop with its own test model; µs per tool call (the run's time "
        f"/ {CALLS}: the framework's loop included). *x native* is the median per-round "
        "ratio to the same framework with its native tool (quartiles in brackets).",
        "",
        "| framework | tools | µs per call | x native | x native in the same place |",
        "|---|---|---:|---:|---:|",
    ]
    for name in FRAMEWORKS:
        rows = _rows(results, name)
        if not rows:
            status = results.get(f"frameworks/{name}", {}).get("status", "not run")
            lines.append(f"| {LABELS[name]} | not measured: {status} | | | |")
            continue
        for row in rows:
            same = (
                f"{row['vs']:.2f}x ({row['vs_lo']:.2f}-{row['vs_hi']:.2f})"
                if len(rows) > 2
                else "(the same)"
            )
            lines.append(
                f"| {LABELS[name]} | {row['name']} | {row['us'] / CALLS:.1f} | "
                f"{row['ratio']:.2f}x ({row['ratio_lo']:.2f}-{row['ratio_hi']:.2f}) | {same} |"
            )
    lines += [
        "",
        "toolcast's side parses the model's text once (jiter, duplicate keys and limits "
        "checked), validates exactly the schema shown, evaluates the policy and keeps an "
        "alias session per run; the native side is the framework's own validation.",
        "",
        "pydantic-ai takes outside tools as a toolset (`toolsets=`), which an agent "
        "holds beside its own function toolset; every step then gathers two toolsets "
        "(an anyio task group each time) where `tools=[add]` has one. The third "
        "pydantic-ai row puts pydantic-ai's own `FunctionToolset` in that place, so *x "
        "native in the same place* compares the tool layers alone: that cost is the "
        "framework's, paid by any toolset, and toolcast cannot avoid it while its "
        "toolset can change the tool list during a run (opened toolboxes).",
        "",
    ]
    return "\n".join(lines)
