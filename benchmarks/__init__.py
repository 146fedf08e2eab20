"""toolcast benchmarks: `python -m benchmarks.run` (or `--quick`).

Every figure is measured in its own subprocess (see `benchmarks.run`); this module
holds the small, stdlib-only timing harness those subprocesses share, so that
importing it costs nothing a cold measurement would notice.

Times are CPU time of the measuring process by default (`time.process_time_ns`):
on a shared machine other processes steal wall time unevenly, but not CPU time.
Figures where waiting *is* the cost (a thread hop) use wall time.

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

__all__ = (
    "CLOCKS",
    "Figure",
    "Job",
    "Measured",
    "Subject",
    "interleave",
    "median",
    "spread",
)


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
class Figure:
    """One summary row as one run measured it (lower is better).

    A section's `figures(results, quick)` returns these for one run's results;
    `benchmarks.run` measures three runs in one invocation and shows, per label,
    the median with the min-max range, "met" only when every run meets the target.
    """

    label: str
    """Row label; the same label in every run (rows are matched by it)."""
    value: float
    """toolcast's figure in this run."""
    target: float | None = None
    """Met when `value <= target`; None: shown for information."""
    unit: str = "x"
    """Printed after the number: `x`, ` ms`, ` MiB`, ` µs`."""
    digits: int = 2
    """Decimals printed."""
    target_text: str = ""
    """How the target reads, when `≤ {target}{unit}` is not it."""
    detail: str = ""
    """Printed in brackets after the value (from the first run), e.g. a second ratio."""


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
    """Median units per batch."""
    note: str
    vs: float = float("nan")
    """Median over rounds of (this subject's time / the reference subject's that round)."""
    vs_lo: float = float("nan")
    """Lower quartile of those ratios."""
    vs_hi: float = float("nan")
    """Upper quartile of those ratios."""

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


CLOCKS: dict[str, Callable[[], int]] = {
    "cpu": time.process_time_ns,
    "wall": time.perf_counter_ns,
}
"""`cpu`: CPU time of this process (all its threads), blind to other processes on a
shared machine; `wall`: elapsed time, for figures where waiting is the cost."""


async def _batch(
    call: Callable[[Any], Any],
    payload: Any,
    seconds: float,
    step: int,
    is_async: bool,
    clock: Callable[[], int],
) -> tuple[int, int]:
    """Run `call` in groups of `step` until `seconds` have passed (at least one group).

    Returns (nanoseconds, units). Time-boxed batches keep every subject's batch
    the same length, however fast it is, and adapt when the machine slows down.
    """
    perf = clock
    budget = int(seconds * 1e9)
    units = 0
    start = perf()
    while True:
        if is_async:
            for _ in range(step):
                await call(payload)
        else:
            for _ in range(step):
                call(payload)
        units += step
        spent = perf() - start
        if spent >= budget:
            return spent, units


async def interleave(
    subjects: Sequence[Subject],
    payload: Any,
    *,
    rounds: int,
    batch_seconds: float,
    warmup_seconds: float = 0.05,
    clock: str = "cpu",
    reference: int | None = None,
) -> list[Measured]:
    """Time `subjects` in interleaved rounds; `subjects[0]` is the baseline.

    With `reference`, each subject is also given as a ratio to `subjects[reference]`
    in the same rounds (`Measured.vs`): two libraries compared directly.

    Must run inside an event loop (async subjects are awaited in it; sync subjects
    are called directly from the same coroutine). A unit slower than
    `batch_seconds` runs once per round.
    """
    kinds = [inspect.iscoroutinefunction(s.call) for s in subjects]
    read = CLOCKS[clock]
    steps = []
    for subject, is_async in zip(subjects, kinds, strict=True):
        spent, units = await _batch(subject.call, payload, warmup_seconds, 1, is_async, read)
        # Read the clock every few calls for fast units, so it costs ~nothing.
        steps.append(8 if spent / units < 20_000 else 1)
    per_unit: list[list[float]] = [[] for _ in subjects]
    ratios: list[list[float]] = [[] for _ in subjects]
    versus: list[list[float]] = [[] for _ in subjects]
    units_seen: list[list[int]] = [[] for _ in subjects]
    order = list(range(len(subjects)))
    for round_ in range(rounds):
        this_round = [0.0] * len(subjects)
        for index in order if round_ % 2 == 0 else reversed(order):
            gc.collect()
            spent, units = await _batch(
                subjects[index].call, payload, batch_seconds, steps[index], kinds[index], read
            )
            this_round[index] = spent / units
            units_seen[index].append(units)
        for index, value in enumerate(this_round):
            per_unit[index].append(value / 1e3)
            ratios[index].append(value / this_round[0])
            if reference is not None:
                versus[index].append(value / this_round[reference])
    measured = []
    for index, subject in enumerate(subjects):
        lo, hi = spread(ratios[index])
        vs_lo, vs_hi = spread(versus[index])
        measured.append(
            Measured(
                subject.name,
                median(per_unit[index]),
                median(ratios[index]),
                lo,
                hi,
                round(median(units_seen[index])),
                subject.note,
                median(versus[index]),
                vs_lo,
                vs_hi,
            )
        )
    return measured
