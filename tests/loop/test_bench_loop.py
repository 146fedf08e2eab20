"""The loop benchmark's subjects work: each path runs the same 10 rounds to the end."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_loop  # noqa: E402


@pytest.mark.parametrize("kind", bench_loop.KINDS)
def test_the_loop_and_the_bare_sequence_do_the_same_work(kind: str) -> None:
    bare, loop = bench_loop._subjects(kind)
    sent = asyncio.run(bare.call(None))
    messages = asyncio.run(loop.call(None))
    assert sent == 3 * bench_loop.ROUNDS
    assert messages == 1 + bench_loop.ROUNDS * (1 + 3) + 1  # prompt, turns and results, answer


@pytest.mark.parametrize(
    ("module", "build"), [("pydantic_ai", "_pydantic_ai"), ("agents", "_openai_agents")]
)
def test_each_peer_runs_the_same_rounds(module: str, build: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    subject = getattr(bench_loop, build)()
    assert asyncio.run(subject.call(None)) == 3 * bench_loop.ROUNDS  # tool results


@pytest.mark.parametrize("kind", bench_loop.KINDS)
def test_the_sdk_paths_make_the_same_requests_and_end_the_same(kind: str) -> None:
    pytest.importorskip("openai")

    async def both() -> tuple[int, int, list[bytes]]:
        server = await bench_loop.ChatServer().start()
        (hand, loop), client = await bench_loop._sdk_subjects(kind, server)
        try:
            return await hand.call(None), await loop.call(None), server.answers
        finally:
            await client.close()
            await server.stop()

    by_hand, through_model, answers = asyncio.run(both())
    assert by_hand == through_model == 1 + bench_loop.ROUNDS * (1 + 3) + 1
    assert len(answers) == bench_loop.ROUNDS + 1


def test_figures_are_one_run_s_ratios() -> None:
    rows = [
        {"name": "by hand", "ratio": 1.0, "ratio_lo": 1.0, "ratio_hi": 1.0, "us": 100.0},
        {"name": "toolcast", "ratio": 1.1, "ratio_lo": 1.0, "ratio_hi": 1.2, "us": 110.0},
    ]
    results = {
        f"loop/{part}/{kind}": {"status": "ok", "rows": rows}
        for part in ("sdk", "overhead")
        for kind in bench_loop.KINDS
    }
    figures = bench_loop.figures(results, quick=True)
    assert [f.value for f in figures] == [1.1] * 4
    assert [f.target for f in figures] == [bench_loop.SDK_TARGET] * 2 + [bench_loop.TARGET] * 2
    assert "misses" not in bench_loop.render(results, quick=True)


def test_the_stand_in_client_worker_measures_both_loops() -> None:
    pytest.importorskip("openai")
    result = bench_loop.work_adapter({"kind": "async", "rounds": 1, "batch_seconds": 0.001})
    assert result["status"] == "ok"
    assert len(result["rows"]) == 2
