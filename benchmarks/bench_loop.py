"""The run loop: overhead per round, peers side by side, conversation save/load.

- `loop`: `toolcast.run` with `ScriptedModel`, 3 calls per round (trivial async
  tools), as a ratio to the bare sequence a hand-written loop does per round:
  `openai_chat.parse_calls` (a Chat Completions response with 3 calls) →
  `ToolSet.invoke` x 3 → `openai_chat.format_results`, measured in the same
  interleaved rounds. Issue 11's goal: ≤ 1.3x.
- `peers`: the same loop (3 calls per round, then a final text) in pydantic-ai
  (`FunctionModel`) and openai-agents (a fake `Model`), per round, next to
  toolcast's, in one process each.
- `conversation`: `Conversation.to_json()` and `from_json()` for a 200-message
  history (100 rounds of a call and its result), µs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from benchmarks import Job, Subject, interleave
from benchmarks.peers import NotInstalled, _require

__all__ = ("headline", "jobs", "render", "work_conversation", "work_loop", "work_peer")

ROUNDS = 10
"""Tool rounds per run (then one final text turn)."""
TARGET = 1.3


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def mul(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


async def neg(a: int) -> int:
    """Negate an integer."""
    return -a


def add_sync(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def mul_sync(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def neg_sync(a: int) -> int:
    """Negate an integer."""
    return -a


KINDS = ("sync", "async")
"""`sync`: plain functions marked `blocking=False` (they run on the event loop);
`async`: `async def` tools (parallel-safe calls of a batch become tasks)."""

CALLS = [("add", '{"a": 1, "b": 2}'), ("mul", '{"a": 3, "b": 4}'), ("neg", '{"a": 5}')]


def _toolset(kind: str = "async") -> Any:
    from toolcast import Catalog, Tool

    if kind == "async":
        return Catalog([add, mul, neg]).select()
    tools = [
        Tool.from_function(fn, name=fn.__name__.removesuffix("_sync"), blocking=False)
        for fn in (add_sync, mul_sync, neg_sync)
    ]
    return Catalog(tools).select()


def _response(round_: int) -> dict[str, Any]:
    return {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{round_}_{i}",
                            "type": "function",
                            "function": {"name": name, "arguments": arguments},
                        }
                        for i, (name, arguments) in enumerate(CALLS)
                    ],
                }
            }
        ]
    }


def _subjects(kind: str) -> list[Subject]:
    from toolcast import Policy, ToolCall, run
    from toolcast.providers import openai_chat
    from toolcast.testing import ScriptedModel

    tools = _toolset(kind)
    responses = [_response(r) for r in range(ROUNDS)]
    parse, fmt, invoke = openai_chat.parse_calls, openai_chat.format_results, tools.invoke

    async def bare(_: Any) -> int:
        sent = 0
        for response in responses:
            calls = parse(response)
            outcomes = [await invoke(c) for c in calls]
            sent += len(fmt(outcomes, calls=calls))
        return sent

    turns = [
        [ToolCall(f"call_{r}_{i}", n, a) for i, (n, a) in enumerate(CALLS)] for r in range(ROUNDS)
    ]
    policy = Policy(default="allow")

    async def loop(_: Any) -> int:
        model = ScriptedModel([*turns, "done"])
        result = await run(model, "go", tools=tools, policy=policy, max_rounds=ROUNDS + 1)
        assert result.status == "done", result.status
        return len(result.messages)

    return [
        Subject(f"bare parse_calls → invoke x3 → format_results, {ROUNDS} rounds", bare),
        Subject(f"toolcast.run with ScriptedModel, {ROUNDS} rounds + 1 answer", loop),
    ]


def work_loop(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: the loop against the bare sequence, interleaved."""

    async def main() -> dict[str, Any]:
        measured = await interleave(
            _subjects(params["kind"]),
            None,
            rounds=params["rounds"],
            batch_seconds=params["batch_seconds"],
        )
        return {"status": "ok", "rows": [m.as_dict() for m in measured]}

    return asyncio.run(main())


# -- peers -----------------------------------------------------------------------------


def _pydantic_ai() -> Subject:
    _require("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        round_ = sum(1 for m in messages if isinstance(m, ModelResponse))
        if round_ >= ROUNDS:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(
            parts=[
                ToolCallPart(name, arguments, tool_call_id=f"call_{round_}_{i}")
                for i, (name, arguments) in enumerate(CALLS)
            ]
        )

    agent = Agent(FunctionModel(respond), tools=[add, mul, neg])

    async def call(_: Any) -> int:
        result = await agent.run("go")
        messages = result.all_messages()
        return sum(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)

    return Subject("pydantic-ai `Agent.run` with `FunctionModel`", call)


def _openai_agents() -> Subject:
    _require("agents")
    from agents import Agent, ModelResponse, RunConfig, Runner, Usage, function_tool
    from agents.items import ToolCallOutputItem
    from agents.models.interface import Model
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class Fake(Model):  # type: ignore[misc]
        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            items = args[1] if len(args) > 1 else kwargs["input"]
            round_ = sum(
                1 for m in items if isinstance(m, dict) and m.get("type") == "function_call_output"
            ) // len(CALLS)
            if round_ >= ROUNDS:
                text = ResponseOutputText(type="output_text", text="done", annotations=[])
                output: list[Any] = [
                    ResponseOutputMessage(
                        id="m", type="message", role="assistant", status="completed", content=[text]
                    )
                ]
            else:
                output = [
                    ResponseFunctionToolCall(
                        type="function_call",
                        call_id=f"call_{round_}_{i}",
                        name=name,
                        arguments=arguments,
                    )
                    for i, (name, arguments) in enumerate(CALLS)
                ]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    agent = Agent(name="bench", model=Fake(), tools=[function_tool(f) for f in (add, mul, neg)])
    config = RunConfig(tracing_disabled=True)

    async def call(_: Any) -> int:
        result = await Runner.run(agent, "go", max_turns=ROUNDS + 2, run_config=config)
        return sum(isinstance(item, ToolCallOutputItem) for item in result.new_items)

    return Subject("openai-agents `Runner.run` with a fake `Model`", call)


def work_peer(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: one peer's loop next to toolcast's, interleaved (toolcast first)."""
    try:
        peer = {"pydantic_ai": _pydantic_ai, "openai_agents": _openai_agents}[params["peer"]]()
    except NotInstalled:
        return {"status": "not installed"}
    bare, ours = _subjects("async")
    del bare

    async def main() -> dict[str, Any]:
        measured = await interleave(
            [ours, peer], None, rounds=params["rounds"], batch_seconds=params["batch_seconds"]
        )
        return {"status": "ok", "rows": [m.as_dict() for m in measured]}

    return asyncio.run(main())


# -- conversation save/load ------------------------------------------------------------


def work_conversation(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: `to_json` / `from_json` of a 200-message conversation."""
    from toolcast import Conversation, Policy, ToolCall, run
    from toolcast.testing import ScriptedModel

    tools = _toolset()
    turns = [[ToolCall(f"c{r}", "add", '{"a": 1, "b": 2}')] for r in range(99)]
    result = asyncio.run(
        run(
            ScriptedModel([*turns, "done"]),
            "go",
            tools=tools,
            policy=Policy(default="allow"),
            max_rounds=100,
        )
    )
    conversation = result.conversation
    text = conversation.to_json()
    loads = json.loads

    subjects = [
        Subject("json.loads of the same text (for scale)", lambda _: loads(text)),
        Subject("Conversation.to_json()", lambda _: conversation.to_json()),
        Subject("Conversation.from_json(text)", lambda _: Conversation.from_json(text)),
    ]

    async def main() -> dict[str, Any]:
        measured = await interleave(
            subjects, None, rounds=params["rounds"], batch_seconds=params["batch_seconds"]
        )
        return {
            "status": "ok",
            "messages": len(conversation.messages),
            "bytes": len(text.encode()),
            "rows": [m.as_dict() for m in measured],
        }

    return asyncio.run(main())


def jobs(quick: bool) -> list[Job]:
    """The loop ratio, the two peers (not in quick runs: seconds each), and save/load."""
    rounds, batch = (3, 0.01) if quick else (15, 0.1)
    params = {"rounds": rounds, "batch_seconds": batch}
    return [
        *(
            Job(
                f"loop/overhead/{kind}", "benchmarks.bench_loop:work_loop", {**params, "kind": kind}
            )
            for kind in KINDS
        ),
        *(
            Job(
                f"loop/peer/{peer}",
                "benchmarks.bench_loop:work_peer",
                {**params, "peer": peer},
                timeout=300,
            )
            for peer in (() if quick else ("pydantic_ai", "openai_agents"))
        ),
        Job("loop/conversation", "benchmarks.bench_loop:work_conversation", params, timeout=300),
    ]


def _rows(results: Mapping[str, Any], key: str) -> list[dict[str, Any]] | None:
    result = results.get(key, {})
    return result.get("rows") if result.get("status") == "ok" else None


def headline(results: Mapping[str, Any], quick: bool) -> list[str]:
    """The loop overhead against issue 11's goal."""
    del quick
    out = []
    for kind in KINDS:
        rows = _rows(results, f"loop/overhead/{kind}")
        if not rows:
            continue
        ratio = rows[1]["ratio"]
        met = "yes" if ratio <= TARGET else "**no**"
        label = f"loop, per round with 3 {kind} calls (x bare parse → invoke → format)"
        out.append(f"| {label} | {ratio:.2f}x | ≤ {TARGET:g}x | {met} |")
    return out


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown: overhead, peers, save/load."""
    del quick
    lines = [
        "## The run loop",
        "",
        f"One run = {ROUNDS} rounds of 3 tool calls (trivial tools) and a final text "
        "answer. *x baseline* is the median per-run ratio (quartiles in brackets).",
        "",
    ]
    lines += [
        "| tools | path | µs per run | µs per round | x baseline |",
        "|---|---|---:|---:|---:|",
    ]
    for kind in KINDS:
        rows = _rows(results, f"loop/overhead/{kind}")
        if not rows:
            status = results.get(f"loop/overhead/{kind}", {}).get("status", "not run")
            lines.append(f"| {kind} | not measured: {status} | | | |")
            continue
        for row in rows:
            lines.append(
                f"| {kind} | {row['name']} | {row['us']:.0f} | {row['us'] / ROUNDS:.1f} | "
                f"{row['ratio']:.2f}x ({row['ratio_lo']:.2f}-{row['ratio_hi']:.2f}) |"
            )
    lines += [
        "",
        "`sync` tools are plain functions marked `blocking=False`; `async` tools are "
        "`async def`. toolcast's loop evaluates the policy, journals each call and keeps "
        "the history; parallel-safe async calls are started eagerly and become tasks "
        "only if they wait.",
        "",
    ]
    lines += [
        "Peers, each in its own process next to toolcast's loop (ratio to toolcast):",
        "",
        "| library | µs per run | µs per round | x toolcast |",
        "|---|---:|---:|---:|",
    ]
    for peer in ("pydantic_ai", "openai_agents"):
        rows = _rows(results, f"loop/peer/{peer}")
        if not rows:
            status = results.get(f"loop/peer/{peer}", {}).get("status", "not run")
            lines.append(f"| {peer}: {status} | | | |")
            continue
        for row in rows:
            per_round = row["us"] / ROUNDS
            lines.append(
                f"| {row['name']} | {row['us']:.0f} | {per_round:.1f} | {row['ratio']:.2f}x |"
            )
    conversation = results.get("loop/conversation", {})
    if conversation.get("status") == "ok":
        lines += [
            "",
            f"Conversation save/load, {conversation['messages']} messages "
            f"({conversation['bytes'] / 1024:.0f} KiB of JSON):",
            "",
            "| operation | µs |",
            "|---|---:|",
            *(f"| {r['name']} | {r['us']:.0f} |" for r in conversation["rows"]),
        ]
    return "\n".join(lines)
