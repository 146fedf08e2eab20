"""The peer of `benchmarks/temporal_workload.py`: `temporalio.contrib.openai_agents`.

    benchmarks/.venvs/temporal-openai-agents/bin/python \
        benchmarks/temporal_openai_agents.py --address 127.0.0.1:7233 [--runs 20]

Runs in its own venv (`python -m benchmarks.peer_venvs`): `temporalio-openai-agents`
1.1.0 requires `openai-agents` 0.22.x, toolcast pins 0.24.0. It connects to the dev
server at `--address` (`benchmarks/bench_temporal.py` passes the one it started for
toolcast), starts an in-process worker with `OpenAIAgentsPlugin` and a scripted
model (an Agents SDK `Model` served by the plugin's model activity) that asks for
the workload's 3 calls a round — `add(a=1, b=2)`, `mul(a=3, b=4)`, `neg(a=5)` — for
3 rounds, then text. The tools are Temporal activities made tools with
`workflow.activity_as_tool`, so a round is the same 4 activities as toolcast's:
one model turn, then 3 tool calls (the Agents SDK runs them at once). Prints JSON:
the median wall ms per round over `--runs` runs, and the versions.

With `--serve` it runs one conversation per `run` line on stdin and answers each
with a JSON line (its wall ms per round), after a first line with the versions and
the warm-up run's history counts: `benchmarks/temporal_workload.py` interleaves
these runs with toolcast's, so load drift on the machine hits both alike.

Imports only what the peer venv has (no toolcast, no tests).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from datetime import timedelta
from importlib.metadata import version
from typing import Any

from agents import Agent, Model, ModelProvider, ModelResponse, RunConfig, Runner, Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.contrib.openai_agents import ModelActivityParameters, OpenAIAgentsPlugin
from temporalio.contrib.openai_agents.workflow import activity_as_tool
from temporalio.worker import Worker

ROUNDS = 3
CALLS = (("add", {"a": 1, "b": 2}), ("mul", {"a": 3, "b": 4}), ("neg", {"a": 5}))
TIMEOUT = timedelta(minutes=1)


@activity.defn
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@activity.defn
async def mul(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


@activity.defn
async def neg(a: int) -> int:
    """Negate an integer."""
    return -a


class Scripted(Model):
    """Three function calls a round for ROUNDS rounds, then text (from the input items)."""

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        items = args[1] if len(args) > 1 else kwargs["input"]
        calls = sum(1 for m in items if isinstance(m, dict) and m.get("type") == "function_call")
        done = calls // len(CALLS)
        output: list[Any]
        if done >= ROUNDS:
            text = ResponseOutputText(text="done", annotations=[], type="output_text")
            output = [
                ResponseOutputMessage(
                    id="m", content=[text], role="assistant", status="completed", type="message"
                )
            ]
        else:
            output = [
                ResponseFunctionToolCall(
                    arguments=json.dumps(arguments),
                    call_id=f"{name[0]}{done}",
                    name=name,
                    type="function_call",
                    id=f"{name[0]}{done}",
                    status="completed",
                )
                for name, arguments in CALLS
            ]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class Provider(ModelProvider):
    def get_model(self, model_name: str | None) -> Model:
        return Scripted()


@workflow.defn(name="bench.openai_agents", sandboxed=False)  # as toolcast's workflow
class Peer:
    @workflow.run
    async def run(self, prompt: str) -> str:
        agent: Agent[None] = Agent(
            name="bench",
            tools=[activity_as_tool(f, start_to_close_timeout=TIMEOUT) for f in (add, mul, neg)],
        )
        result = await Runner.run(
            agent, prompt, max_turns=ROUNDS + 2, run_config=RunConfig(tracing_disabled=True)
        )
        return str(result.final_output)


async def per_round(address: str, runs: int) -> float:
    plugin = OpenAIAgentsPlugin(
        model_params=ModelActivityParameters(start_to_close_timeout=TIMEOUT),
        model_provider=Provider(),
    )
    client = await Client.connect(address, plugins=[plugin])
    task_queue = f"bench-oai-{uuid.uuid4().hex[:6]}"

    async def one() -> None:
        out = await client.execute_workflow(
            Peer.run, "go", id=f"o-{uuid.uuid4().hex}", task_queue=task_queue
        )
        assert out == "done", out

    async with Worker(client, task_queue=task_queue, workflows=[Peer], activities=[add, mul, neg]):
        await one()  # warm up
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            await one()
            times.append((time.perf_counter() - start) / ROUNDS)
    return statistics.median(times) * 1e3


def history_counts(history: Any) -> dict[str, int]:
    """Events, workflow tasks and activities in a finished run's history."""
    names = [type_name(e.event_type) for e in history.events]
    return {
        "events": len(names),
        "workflow_tasks": names.count("WORKFLOW_TASK_COMPLETED"),
        "activities": names.count("ACTIVITY_TASK_SCHEDULED"),
        "local_activities": names.count("MARKER_RECORDED"),
    }


def type_name(event_type: int) -> str:
    from temporalio.api.enums.v1 import EventType

    return EventType.Name(event_type).removeprefix("EVENT_TYPE_")  # type: ignore[arg-type]


async def serve(address: str) -> None:
    """One run per `run` line on stdin, its wall ms per round as a JSON line on stdout."""
    plugin = OpenAIAgentsPlugin(
        model_params=ModelActivityParameters(start_to_close_timeout=TIMEOUT),
        model_provider=Provider(),
    )
    client = await Client.connect(address, plugins=[plugin])
    task_queue = f"bench-oai-{uuid.uuid4().hex[:6]}"
    versions = {p: version(p) for p in ("temporalio", "temporalio-openai-agents", "openai-agents")}
    async with Worker(client, task_queue=task_queue, workflows=[Peer], activities=[add, mul, neg]):
        handle = await client.start_workflow(
            Peer.run, "go", id=f"o-{uuid.uuid4().hex}", task_queue=task_queue
        )
        assert await handle.result() == "done"  # warm up
        counts = history_counts(await handle.fetch_history())
        print(json.dumps({"versions": versions, "history": counts}), flush=True)
        loop = asyncio.get_running_loop()
        while (await loop.run_in_executor(None, sys.stdin.readline)).strip() == "run":
            start = time.perf_counter()
            out = await client.execute_workflow(
                Peer.run, "go", id=f"o-{uuid.uuid4().hex}", task_queue=task_queue
            )
            ms = (time.perf_counter() - start) / ROUNDS * 1e3
            assert out == "done", out
            print(json.dumps({"ms": ms}), flush=True)


def main(argv: list[str]) -> int:
    address = argv[argv.index("--address") + 1]
    if "--serve" in argv:
        asyncio.run(serve(address))
        return 0
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 20
    ms = asyncio.run(per_round(address, runs))
    versions = {p: version(p) for p in ("temporalio", "temporalio-openai-agents", "openai-agents")}
    print(json.dumps({"peer_ms": ms, "runs": runs, "versions": versions}), flush=True)
    return 0


if __name__ == "__main__":
    # os._exit: the Temporal core runtime's threads can abort interpreter shutdown
    # ("PyGILState_Release ... finalizing") after the figure is printed.
    os._exit(main(sys.argv[1:]))
