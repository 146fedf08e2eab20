"""Growth checks without wall-clock limits: the cost at one size against the cost at 4x.

A test that says "must take < 0.2 s" fails on a loaded machine and passes a slow
algorithm on a fast one. Here the same work is timed at two sizes on the same machine,
moments apart, and only the ratio is checked: linear work grows 4x when the input
grows 4x, quadratic work 16x. `LINEAR` leaves room for noise (2x) and still refuses
anything quadratic. Absolute times belong in `benchmarks/`.

Times are this process's CPU time: the suite shares its machine (parallel jobs, a
Temporal server, other suites), and wall time would count their bursts as ours.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

FACTOR = 4
"""How much larger the second input is than the first."""
LINEAR = 8.0
"""The largest ratio accepted for a 4x input: linear is 4, quadratic 16."""
_FLOOR = 0.02
"""Seconds one timing round lasts at least: tiny work is repeated to rise above noise."""


def seconds(work: Callable[[], object], *, rounds: int = 3) -> float:
    """The least time one run of `work` takes over `rounds` rounds.

    Work faster than `_FLOOR` is repeated within a round (and divided back), so the
    timer's resolution and one scheduler hiccup do not decide the ratio.
    """
    clock = time.process_time
    gc.collect()  # the garbage of earlier work is not this work's cost
    started = clock()
    work()
    once = clock() - started
    repeat = max(1, int(_FLOOR / once) + 1) if once < _FLOOR else 1
    best = once if repeat == 1 else float("inf")
    if once > 0.1:  # long enough to time well: one more run (the suite shares its CPU)
        rounds = 1
    for _ in range(rounds):
        gc.collect()
        started = clock()
        for _ in range(repeat):
            work()
        best = min(best, (clock() - started) / repeat)
    return best


def growth(small: Callable[[], object], large: Callable[[], object]) -> float:
    """How many times longer `large` (an input `FACTOR` times larger) takes than `small`."""
    return seconds(large) / max(seconds(small), 1e-9)


def assert_linear(small: Callable[[], object], large: Callable[[], object]) -> None:
    """`large` (input `FACTOR`x larger than `small`'s) costs at most `LINEAR`x as much.

    Timed twice before failing: one ratio can be spoiled by a neighbour's burst of work.
    """
    ratio = growth(small, large)
    if ratio > LINEAR:
        ratio = min(ratio, growth(small, large))
    assert ratio <= LINEAR, f"{FACTOR}x the input cost {ratio:.1f}x the time (linear: {FACTOR}x)"
