"""toolcast benchmarks: `python -m benchmarks.run` (or `--quick`).

Every figure is measured in its own subprocess (see `benchmarks.run`); this module
holds the small, stdlib-only timing harness those subprocesses share, so that
importing it costs nothing a cold measurement would notice.

The harness times *interleaved rounds*: in each round every subject (the first is
the raw baseline) runs one batch, in alternating order, and each subject's time
is divided by the baseline's time *of the same round*. Reported figures are
medians over rounds, so slow drift of the machine cancels out of the ratios.
"""

from __future__ import annotations

import gc
import inspect
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ("Job", "Measured", "Subject", "interleave", "median", "spread")


@dataclass(frozen=True)
class Job:
    """One subprocess: `worker` (`module:function`) called with `params`."""

    key: str
    """Unique name of the result (`dispatch/async/toolcast`)."""
    worker: str
    """`benchmarks.bench_x:function`; the function takes `params`, returns a dict."""
    params: dict[str, Any]
    """JSON-ready arguments for the worker."""
    timeout: float = 300.0
    """Seconds before the subprocess is killed and the figure reported as failed."""


@dataclass(frozen=True)
class Subject:
    """One thing to time: `call(payload)` (sync or async) does one unit of work."""

    name: str
    """Row label in the report."""
    call: Callable[[Any], Any] | Callable[[Any], Awaitable[Any]]
    """Does one unit of work; may be a coroutine function."""
    note: str = ""
    """A footnote for the report (what exactly this path does)."""


@dataclass(frozen=True)
class Measured:
    """Medians of one subject over all rounds."""

    name: str
    us: float
    """Median time of one unit, in microseconds."""
    ratio: float
    """Median over rounds of (this subject's time / the baseline's time that round)."""
    ratio_lo: float
    """Lower quartile of the per-round ratios."""
    ratio_hi: float
    """Upper quartile of the per-round ratios."""
    units: int
    """Units per batch."""
    note: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


def median(values: Sequence[float]) -> float:
    """The median (NaN for no values)."""
    return statistics.median(values) if values else float("nan")


def spread(values: Sequence[float]) -> tuple[float, float]:
    """Lower and upper quartiles (the value itself for fewer than 2 values)."""
    if len(values) < 2:
        value = values[0] if values else float("nan")
        return value, value
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


async def _batch(call: Callable[[Any], Any], payload: Any, units: int, is_async: bool) -> int:
    perf = time.perf_counter_ns
    if is_async:
        start = perf()
        for _ in range(units):
            await call(payload)
        return perf() - start
    start = perf()
    for _ in range(units):
        call(payload)
    return perf() - start


async def _calibrate(
    call: Callable[[Any], Any], payload: Any, is_async: bool, batch_seconds: float
) -> int:
    """Units per batch so that one batch takes about `batch_seconds`."""
    units, spent = 1, 0
    while True:
        spent = await _batch(call, payload, units, is_async)
        if spent >= batch_seconds * 0.25e9 or units >= 1 << 20:
            break
        units *= 2
    per_unit = spent / units
    return max(1, round(batch_seconds * 1e9 / per_unit))


async def interleave(
    subjects: Sequence[Subject],
    payload: Any,
    *,
    rounds: int,
    batch_seconds: float,
    warmup_seconds: float = 0.05,
) -> list[Measured]:
    """Time `subjects` in interleaved rounds; `subjects[0]` is the baseline.

    Must run inside an event loop (async subjects are awaited in it; sync subjects
    are called directly from the same coroutine).
    """
    kinds = [inspect.iscoroutinefunction(s.call) for s in subjects]
    for subject, is_async in zip(subjects, kinds):
        deadline = time.perf_counter() + warmup_seconds
        while time.perf_counter() < deadline:
            await _batch(subject.call, payload, 8, is_async)
    units = [
        await _calibrate(s.call, payload, k, batch_seconds)
        for s, k in zip(subjects, kinds)
    ]
    per_unit: list[list[float]] = [[] for _ in subjects]
    ratios: list[list[float]] = [[] for _ in subjects]
    order = list(range(len(subjects)))
    for round_ in range(rounds):
        this_round = [0.0] * len(subjects)
        for index in order if round_ % 2 == 0 else reversed(order):
            gc.collect()
            spent = await _batch(subjects[index].call, payload, units[index], kinds[index])
            this_round[index] = spent / units[index]
        for index, value in enumerate(this_round):
            per_unit[index].append(value / 1e3)
            ratios[index].append(value / this_round[0])
    measured = []
    for index, subject in enumerate(subjects):
        lo, hi = spread(ratios[index])
        measured.append(
            Measured(
                subject.name,
                median(per_unit[index]),
                median(ratios[index]),
                lo,
                hi,
                units[index],
                subject.note,
            )
        )
    return measured
