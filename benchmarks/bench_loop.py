"""The run loop: cost per round on the user's path, the loop's own overhead, peers, save/load.

- `sdk` (the user's path): `toolcast.run` through `openai_chat.Model` over the
  official `openai.AsyncOpenAI` client, to a loopback Chat Completions server in
  the same process (`ChatServer`), 3 calls per round, as a ratio to a
  hand-written loop making the same SDK calls (same client, same server, same
  answers) and doing the parse → invoke → format itself. Issue 26's aim: ≤ 1.2x.
  CPU time: the server shares the process and its one thread with both subjects.
- `adapter`: the same two loops over a stand-in client returning the SDK's own
  `ChatCompletion` objects (no HTTP, no request building): the adapter's and the
  loop's own cost, shown for information.
- `loop` (the loop's own overhead): `toolcast.run` with `ScriptedModel`, which
  neither formats a request nor parses a response, against the bare sequence
  a hand-written loop does per round without a client: `openai_chat.parse_calls`
  (a Chat Completions response with 3 calls) → `ToolSet.invoke` x 3 →
  `openai_chat.format_results`, in the same interleaved rounds. Issue 11's
  goal: ≤ 1.3x.
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

from benchmarks import Figure, Job, Subject, interleave
from benchmarks.peers import NotInstalled, _require

__all__ = (
    "ChatServer",
    "figures",
    "jobs",
    "render",
    "work_conversation",
    "work_loop",
    "work_adapter",
    "work_peer",
    "work_sdk",
)

ROUNDS = 10
"""Tool rounds per run (then one final text turn)."""
TARGET = 1.3
"""Issue 11's goal for the loop's own overhead (ScriptedModel against the bare sequence)."""
SDK_TARGET = 1.2
"""Issue 26's aim for the user's path (openai_chat.Model against the hand-written loop)."""


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


# -- the user's path: openai_chat.Model over the official client -------------------


def _completion(round_: int) -> dict[str, Any]:
    """Round `round_`'s canned Chat Completion: 3 calls, or the final text after ROUNDS."""
    message: dict[str, Any] = {"role": "assistant", "content": "done"}
    if round_ < ROUNDS:
        message = _response(round_)["choices"][0]["message"]
    return {
        "id": f"chatcmpl-{round_}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "bench",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if round_ < ROUNDS else "stop",
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
    }


class ChatServer:
    """A loopback Chat Completions server in the benchmark's own event loop.

    It answers from the request alone, so any number of runs can share it: a
    request carrying 3r tool results is round r, answered with round r's
    completion (prebuilt bytes). The server reads the request and writes
    precomputed bytes, nothing else, so the part of both subjects' time that is
    the server's is small, and the same for both.
    """

    def __init__(self) -> None:
        self.answers = [self._http(_completion(r)) for r in range(ROUNDS + 1)]
        self.server: asyncio.Server | None = None
        self.url = ""
        self._open: dict[asyncio.StreamWriter, asyncio.Task[Any] | None] = {}

    @staticmethod
    def _http(body: Mapping[str, Any]) -> bytes:
        raw = json.dumps(body).encode()
        head = (
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            f"content-length: {len(raw)}\r\n\r\n"
        )
        return head.encode() + raw

    async def start(self) -> ChatServer:
        """Listen on 127.0.0.1, on a port the system picks."""
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/v1"
        return self

    async def stop(self) -> None:
        """Close the listener."""
        assert self.server is not None
        self.server.close()
        for writer in self._open:
            writer.close()
        # Each handler sees the end of its stream and returns, so none is left to be
        # cancelled (and complain) when the event loop closes.
        await asyncio.gather(*(t for t in self._open.values() if t is not None))

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._open[writer] = asyncio.current_task()
        try:
            while True:  # keep-alive: one connection carries every request of a client
                head = await reader.readuntil(b"\r\n\r\n")
                start = head.lower().index(b"content-length:") + 15
                length = int(head[start : head.index(b"\r\n", start)])
                body = await reader.readexactly(length)
                round_ = min(body.count(b'"tool_call_id"') // len(CALLS), ROUNDS)
                writer.write(self.answers[round_])
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
        finally:
            self._open.pop(writer, None)


async def _sdk_subjects(
    kind: str, server: ChatServer, *, client: Any = None
) -> tuple[list[Subject], Any]:
    """The hand-written loop and `toolcast.run`, on one client, one server, same answers."""
    import openai

    from toolcast import Policy, ToolCall, run
    from toolcast.providers import openai_chat

    tools = _toolset(kind)
    if client is None:
        client = openai.AsyncOpenAI(base_url=server.url, api_key="bench", max_retries=0)
    create, invoke, fmt = client.chat.completions.create, tools.invoke, openai_chat.format_results
    definitions = openai_chat.format_tools(tools)

    async def hand_written(_: Any) -> int:
        # What a host writes without the loop: the SDK's typed objects read by
        # attribute, each call invoked, the answers formatted, the history kept.
        messages: list[Any] = [{"role": "user", "content": "go"}]
        while True:
            completion = await create(
                model="bench", messages=messages, tools=definitions, tool_choice="auto"
            )
            message = completion.choices[0].message
            if not message.tool_calls:
                return len(messages) + 1
            made = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]
            messages.append(
                {
                    "role": "assistant",
                    "content": message.content,
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                        for i, n, a in made
                    ],
                }
            )
            calls = [ToolCall(i, n, a) for i, n, a in made]
            outcomes = [await invoke(c) for c in calls]
            messages += fmt(outcomes, calls=calls)

    model = openai_chat.Model(client, "bench")
    policy = Policy(default="allow")

    async def loop(_: Any) -> int:
        result = await run(model, "go", tools=tools, policy=policy, max_rounds=ROUNDS + 1)
        assert result.status == "done", result.status
        return len(result.messages)

    subjects = [
        Subject(
            f"hand-written: `chat.completions.create` → parse → invoke x3 → "
            f"`format_results`, {ROUNDS} rounds + 1 answer",
            hand_written,
        ),
        Subject(f"`toolcast.run` with `openai_chat.Model`, {ROUNDS} rounds + 1 answer", loop),
    ]
    return subjects, client


class _StandIn:
    """A stand-in for `client.chat.completions`: the SDK's own `ChatCompletion`s, no HTTP."""

    def __init__(self) -> None:
        from openai.types.chat import ChatCompletion

        self.chat = self
        self.completions = self
        self.answers = [ChatCompletion.model_validate(_completion(r)) for r in range(ROUNDS + 1)]

    async def create(self, *, messages: list[Mapping[str, Any]], **_: Any) -> Any:
        results = sum(1 for m in messages if m.get("role") == "tool")
        return self.answers[min(results // len(CALLS), ROUNDS)]


def work_adapter(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: both loops of `work_sdk` over a stand-in client, to show the adapter's own cost."""

    async def main() -> dict[str, Any]:
        # The subjects read only `client.chat.completions.create`; the server is never called.
        subjects, _ = await _sdk_subjects(params["kind"], ChatServer(), client=_StandIn())
        measured = await interleave(
            subjects, None, rounds=params["rounds"], batch_seconds=params["batch_seconds"]
        )
        return {"status": "ok", "rows": [m.as_dict() for m in measured]}

    return asyncio.run(main())


def work_sdk(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: the loop through `openai_chat.Model` against the same SDK calls by hand."""

    async def main() -> dict[str, Any]:
        server = await ChatServer().start()
        subjects, client = await _sdk_subjects(params["kind"], server)
        try:
            measured = await interleave(
                subjects,
                None,
                rounds=params["rounds"],
                batch_seconds=params["batch_seconds"],
                warmup_seconds=0.2,
            )
        finally:
            await client.close()
            await server.stop()
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
    """The loop ratios, the two peers (not in quick runs: seconds each), and save/load."""
    rounds, batch = (3, 0.01) if quick else (15, 0.1)
    params = {"rounds": rounds, "batch_seconds": batch}
    # A run through the SDK takes milliseconds: longer batches, so each holds several.
    sdk = {"rounds": rounds, "batch_seconds": 0.02 if quick else 0.4}
    return [
        *(
            Job(
                f"loop/overhead/{kind}", "benchmarks.bench_loop:work_loop", {**params, "kind": kind}
            )
            for kind in KINDS
        ),
        *(
            Job(f"loop/sdk/{kind}", "benchmarks.bench_loop:work_sdk", {**sdk, "kind": kind})
            for kind in KINDS
        ),
        *(
            Job(
                f"loop/adapter/{kind}",
                "benchmarks.bench_loop:work_adapter",
                {**params, "kind": kind},
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


def figures(results: Mapping[str, Any], quick: bool) -> list[Figure]:
    """Per round: the user's path against the same SDK calls; the loop's own overhead."""
    del quick
    out = []
    for kind in KINDS:
        rows = _rows(results, f"loop/sdk/{kind}")
        if rows:
            out.append(
                Figure(
                    label=f"loop through `openai_chat.Model`, per round with 3 {kind} calls "
                    "(x the same SDK calls, hand-written parse → invoke → format)",
                    value=float(rows[1]["ratio"]),
                    target=SDK_TARGET,
                )
            )
    for kind in KINDS:
        rows = _rows(results, f"loop/overhead/{kind}")
        if rows:
            out.append(
                Figure(
                    label=f"the loop's own overhead (`ScriptedModel`), per round with 3 {kind} "
                    "calls (x bare parse → invoke → format, no client)",
                    value=float(rows[1]["ratio"]),
                    target=TARGET,
                )
            )
    return out


def _table(results: Mapping[str, Any], prefix: str) -> list[str]:
    lines = [
        "| tools | path | µs per run | µs per round | x baseline |",
        "|---|---|---:|---:|---:|",
    ]
    for kind in KINDS:
        rows = _rows(results, f"{prefix}/{kind}")
        if not rows:
            status = results.get(f"{prefix}/{kind}", {}).get("status", "not run")
            lines.append(f"| {kind} | not measured: {status} | | | |")
            continue
        for row in rows:
            lines.append(
                f"| {kind} | {row['name']} | {row['us']:.0f} | {row['us'] / ROUNDS:.1f} | "
                f"{row['ratio']:.2f}x ({row['ratio_lo']:.2f}-{row['ratio_hi']:.2f}) |"
            )
    return lines


def _sdk_verdict(results: Mapping[str, Any]) -> list[str]:
    """One sentence per kind: the aim met, or missed by how much (from this run's figures)."""
    out = []
    for kind in KINDS:
        rows = _rows(results, f"loop/sdk/{kind}")
        if not rows:
            continue
        ratio, extra = rows[1]["ratio"], (rows[1]["us"] - rows[0]["us"]) / ROUNDS
        verdict = "meets" if ratio <= SDK_TARGET else f"**misses by {ratio - SDK_TARGET:.2f}x**"
        out.append(
            f"With {kind} tools, {ratio:.2f}x {verdict} the aim of ≤ {SDK_TARGET:g}x "
            f"(toolcast's loop adds {extra:.0f} µs to a round of "
            f"{rows[0]['us'] / ROUNDS:.0f} µs)."
        )
    return out


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown: the user's path, the loop's own overhead, peers, save/load."""
    del quick
    lines = [
        "## The run loop",
        "",
        f"One run = {ROUNDS} rounds of 3 tool calls (trivial tools) and a final text "
        "answer. *x baseline* is the median per-run ratio (quartiles in brackets).",
        "",
        "**On the user's path**: `toolcast.run` through `openai_chat.Model` over the "
        "official `openai.AsyncOpenAI` client, against a hand-written loop making the "
        "same SDK calls (the same client, `model`, `messages`, `tools` and "
        "`tool_choice`), reading the SDK's typed objects by attribute, invoking with "
        "`ToolSet.invoke` and answering with `format_results`. Both talk to one "
        "loopback Chat Completions server (127.0.0.1, a port the system picks) that "
        "runs in the benchmark's own event loop and answers each request with "
        "prebuilt bytes (3 calls, then the final text after the last round). Times "
        "are CPU time: client and server share one thread of one process, so CPU "
        "time holds every step of each round trip on both sides, while wall time "
        "would also count the other processes of a shared machine; the server's "
        "part is the same small cost in both subjects.",
        "",
        *_table(results, "loop/sdk"),
        "",
        *_sdk_verdict(results),
        "",
        "Most of each of those rounds is the SDK's own work (building the request from "
        "`messages` and `tools`, HTTP, reading the response), the same on both sides. "
        "The same two loops over a stand-in client whose `create` returns the SDK's own "
        "`ChatCompletion` objects, prebuilt (no HTTP, no request building), show what "
        "the adapter and the loop cost next to a hand-written loop reading the typed "
        "objects by attribute: the adapter turns each response into plain data (kept "
        "as the history, saved with the conversation) and checks its shape, and the "
        "loop evaluates the policy and journals each call.",
        "",
        *_table(results, "loop/adapter"),
        "",
        "**The loop's own overhead**: `toolcast.run` with `ScriptedModel`, which "
        "neither formats a request nor parses a response, against the bare sequence "
        "`parse_calls` → `ToolSet.invoke` x3 → `format_results` on prebuilt "
        "responses, no client.",
        "",
        *_table(results, "loop/overhead"),
    ]
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
