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
