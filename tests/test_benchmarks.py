"""The benchmark code works: the quick run finishes and every peer adapter does the call.

Nothing here asserts anything about speed; `python -m benchmarks.run` measures.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # `benchmarks` is a top-level package of the repo

from benchmarks import bench_dispatch, corpus  # noqa: E402
from benchmarks.peers import PEERS, NotInstalled  # noqa: E402
from benchmarks.run import main as run_main  # noqa: E402


def test_quick_run_writes_every_section(tmp_path: Path) -> None:
    """The documented command, in its quick form, runs every job without a failure."""
    output, raw = tmp_path / "benchmarks.md", tmp_path / "results.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.run",
            "--quick",
            "--output",
            str(output),
            "--json",
            str(raw),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    runs = json.loads(raw.read_text())["runs"]
    assert len(runs) == 1  # --quick runs once
    results = runs[0]
    failed = {
        k: v["status"] for k, v in results.items() if v.get("status", "ok").startswith("failed")
    }
    assert not failed
    # Dispatch: one process per kind holds toolcast and the floor, each row also
    # given against toolcast's time in the same rounds.
    together = results["dispatch/async"]
    assert {"toolcast", "pydantic"} <= set(together["keys"])
    toolcast_row = together["rows"][together["keys"].index("toolcast")]
    assert toolcast_row["vs"] == 1.0
    sizes = [size["bytes"] for size in results["scaling/sizes"]["sizes"]]
    assert sizes == sorted(sizes)
    assert sizes[0] <= 100
    assert sizes[-1] > 5_000
    text = output.read_text()
    again = tmp_path / "again.md"
    assert run_main(["--render", str(raw), "--output", str(again)]) == 0
    assert again.read_text() == text
    for heading in (
        "## Summary",
        "## Per-call dispatch",
        "## Definition",
        "## Projection",
        "## Scaling",
        "## Catalog at scale",
        "## Memory",
        "## Machine and versions",
    ):
        assert heading in text


def test_corpus_has_200_distinct_tools_both_sides_accept() -> None:
    from pydantic import TypeAdapter

    from toolcast import Tool

    names = {Tool.from_function(fn).spec.name for fn in corpus.FUNCTIONS}
    assert len(names) == 200
    for fn in corpus.functions(20):
        TypeAdapter(fn)


@pytest.mark.parametrize("kind", bench_dispatch.KINDS)
@pytest.mark.parametrize("peer", PEERS, ids=lambda p: p.key)
def test_peer_adapter_returns_the_tool_result(peer, kind) -> None:
    """Each installed peer's path turns the raw arguments into the expected result text."""
    if importlib.util.find_spec(peer.module) is None:
        pytest.skip(f"{peer.distribution} is not installed")
    try:
        subject = peer.build(kind, bench_dispatch.FUNCTIONS)
    except NotInstalled:
        pytest.skip(f"{peer.distribution} is not installed")

    async def once() -> str:
        out = subject.call(bench_dispatch.ARGUMENTS)
        return await out if asyncio.iscoroutine(out) else out

    assert bench_dispatch._same_result(asyncio.run(once()))


def test_missing_peer_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "agents" else real(name, *a)
    )
    result = bench_dispatch.work(
        {"kind": "async", "library": "openai_agents", "rounds": 1, "batch_seconds": 0.001}
    )
    assert result == {"status": "not installed"}


def test_summary_row_is_the_median_of_the_runs_and_met_only_when_every_run_is() -> None:
    from benchmarks import Figure
    from benchmarks.run import _summary_row

    runs = [Figure("f", value, 1.0) for value in (0.9, 1.1, 0.95)]
    assert _summary_row(runs, 3) == "| f | 0.95x (0.90x-1.10x) | ≤ 1x | **no** (2 of 3 runs) |"
    met = [Figure("f", value, 1.0, unit=" ms", digits=1) for value in (0.2, 0.4, 0.3)]
    assert _summary_row(met, 3) == "| f | 0.3 ms (0.2 ms-0.4 ms) | ≤ 1 ms | yes (3 of 3 runs) |"
    # A run that did not measure the figure is not a run that met it.
    assert _summary_row(runs[:1], 3).endswith("| **no** (1 of 3 runs) |")


def test_runs_and_compare(tmp_path: Path) -> None:
    """`--runs 2` keeps both runs' raw results; `--compare` prints the change per row."""
    raw, page = tmp_path / "results.json", tmp_path / "page.md"
    command = [sys.executable, "-m", "benchmarks.run", "--quick", "--only", "catalog"]
    done = subprocess.run(
        [*command, "--runs", "2", "--json", str(raw), "--output", str(page)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(json.loads(raw.read_text())["runs"]) == 2
    text = page.read_text()
    assert "median of the runs (min-max)" in text
    assert "of 2 runs) |" in text
    compared = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--render", str(raw), "--compare", str(raw)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert compared.returncode == 0, compared.stderr[-2000:]
    row = next(line for line in compared.stdout.splitlines() if line.startswith("catalog"))
    assert row.split()[-1] == "+0%"


def _row(name: str, ratio: float, vs: float) -> dict[str, object]:
    return {
        "name": name,
        "us": 1.0,
        "ratio": ratio,
        "ratio_lo": ratio,
        "ratio_hi": ratio,
        "units": 1,
        "note": "",
        "vs": vs,
        "vs_lo": vs,
        "vs_hi": vs,
    }


def test_dispatch_figures_give_every_summary_row_as_a_number() -> None:
    """One run's results become Figures: ratios to the baseline, pydantic-ai and the floor."""
    run = {
        "status": "ok",
        "keys": ["baseline", "toolcast", "pydantic", "pydantic_ai"],
        "rows": [
            _row("raw baseline", 1.0, 1.0),
            _row("toolcast", 1.05, 1.0),
            _row("pydantic TypeAdapter(fn)", 0.5, 0.5),
            _row("pydantic-ai", 1.4, 1.25),
        ],
    }
    figures = bench_dispatch.figures({"dispatch/async": run}, False)
    by_label = {f.label: f for f in figures}
    assert by_label["dispatch, async tool (x raw baseline, CPU time)"].value == 1.05
    peer = by_label[
        "dispatch, async tool: toolcast's time x pydantic-ai's (one process, interleaved)"
    ]
    assert (peer.value, peer.target) == (0.8, 0.8)
    floor = by_label["dispatch, async tool: toolcast x pydantic alone (the floor)"]
    assert (floor.value, floor.target) == (2.0, 1.6)
