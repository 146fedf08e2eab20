"""Where a tool's call runs: awaited under its timeout, or in a worker thread.

Our timeout and a TimeoutError the tool raises itself must not be confused: the
first is answered "timed out", the second is the tool's own failure. The tool's
is carried past our handling as `RaisedTimeout`.
"""

from __future__ import annotations

import contextvars
import functools
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from toolcast._clock import SYSTEM_CLOCK, Clock, wait_for

__all__ = ("TIMEOUTS", "RaisedTimeout", "in_thread", "within")


class RaisedTimeout(Exception):
    """Carries a TimeoutError raised *by the tool* past our own timeout handling."""

    def __init__(self, original: BaseException) -> None:
        self.original = original


# asyncio loads on first use (it is a large share of `import toolcast`).
# Python 3.10: asyncio.TimeoutError is not yet the builtin TimeoutError.
if sys.version_info >= (3, 11):
    TIMEOUTS: tuple[type[BaseException], ...] = (TimeoutError,)
else:  # pragma: no cover
    import asyncio

    TIMEOUTS = (TimeoutError, asyncio.TimeoutError)


async def _own_timeouts(awaitable: Awaitable[Any]) -> Any:
    try:
        return await awaitable
    except TIMEOUTS as exc:
        raise RaisedTimeout(exc) from exc


async def within(awaitable: Awaitable[Any], seconds: float, clock: Clock | None) -> Any:
    """`awaitable`'s result, or TimeoutError after `seconds` on `clock` (None: the system's)."""
    own = _own_timeouts(awaitable)
    return await wait_for(own, seconds, SYSTEM_CLOCK if clock is None else clock)


async def in_thread(
    call: Callable[..., Any], args: tuple[Any, ...], seconds: float | None, clock: Clock | None
) -> Any:
    """`call(*args)` in the default executor, in a copy of this context, under `seconds`.

    A thread cannot be stopped: on timeout the caller answers the model and sets the
    context's cancel_event so cooperative code can stop early.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    run = functools.partial(contextvars.copy_context().run, call, *args)
    future = loop.run_in_executor(None, run)
    if seconds is None:
        return await future
    return await within(future, seconds, clock)
