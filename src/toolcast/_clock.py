"""Clocks for timeouts: the event loop's by default, or one a test injects.

`ToolContext.clock` is the clock a call's timeout is measured on and the one a
tool should sleep on (`await ctx.clock.sleep(s)`); `toolcast.testing.FakeClock`
moves only when told, so a test of a slow tool needs no real waiting.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import asyncio

# asyncio is imported where it is used: `import toolcast` stays light for sync hosts.

__all__ = ("SYSTEM_CLOCK", "Clock", "FakeClock", "SystemClock", "wait_for")


@runtime_checkable
class Clock(Protocol):
    """What toolcast needs of a clock: the time, and a way to wait."""

    def monotonic(self) -> float:
        """Seconds since an arbitrary start; never goes back."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return once `seconds` have passed on this clock."""
        ...


class SystemClock:
    """Real time: `time.monotonic` and `asyncio.sleep`."""

    __slots__ = ()

    def monotonic(self) -> float:
        """`time.monotonic()`."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """`asyncio.sleep(seconds)`."""
        import asyncio

        await asyncio.sleep(seconds)

    def __repr__(self) -> str:
        return "SystemClock()"


SYSTEM_CLOCK = SystemClock()


class FakeClock:
    """A clock that moves only on `advance`; sleepers wake when their time comes.

    Example:
        >>> clock = FakeClock()
        >>> task = asyncio.create_task(tool.invoke({}, context=ToolContext(clock=clock)))
        >>> await clock.sleepers(2)   # the tool's sleep and the call's timeout
        >>> clock.advance(30)         # past the timeout: the call fails now
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._order = itertools.count()
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []

    def monotonic(self) -> float:
        """The fake time."""
        return self._now

    async def sleep(self, seconds: float) -> None:
        """Wait until `advance` moves the clock `seconds` on (0 or less: yield once)."""
        import asyncio

        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (self._now + seconds, next(self._order), future))
        await future

    def advance(self, seconds: float) -> None:
        """Move the clock on and wake every sleeper whose time has come, earliest first."""
        if seconds < 0:
            raise ValueError("A clock does not go back.")
        self._now += seconds
        while self._waiting and self._waiting[0][0] <= self._now:
            _, _, future = heapq.heappop(self._waiting)
            if not future.done():
                future.set_result(None)

    @property
    def pending(self) -> int:
        """How many sleepers are waiting (cancelled ones are not counted)."""
        return sum(1 for _, _, future in self._waiting if not future.done())

    async def sleepers(self, count: int = 1, *, max_turns: int = 10_000) -> None:
        """Let the event loop run until `count` sleepers wait on this clock.

        Raises:
            TimeoutError: they did not appear within `max_turns` loop turns.
        """
        import asyncio

        for _ in range(max_turns):
            if self.pending >= count:
                return
            await asyncio.sleep(0)
        msg = f"{self.pending} of {count} sleepers are waiting on the FakeClock."
        raise TimeoutError(msg)

    def __repr__(self) -> str:
        return f"FakeClock(now={self._now:g}, pending={self.pending})"


async def wait_for(awaitable: Awaitable[Any], seconds: float, clock: Clock) -> Any:
    """`asyncio.wait_for` measured on `clock`: the result, or TimeoutError.

    The system clock takes asyncio's own path; any other clock races the work
    against `clock.sleep(seconds)` and cancels the loser.
    """
    import asyncio

    if isinstance(clock, SystemClock):
        return await asyncio.wait_for(awaitable, seconds)
    work = asyncio.ensure_future(awaitable)
    timer = asyncio.ensure_future(clock.sleep(seconds))
    try:
        await asyncio.wait((work, timer), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        work.cancel()
        timer.cancel()
        raise
    if work.done():
        timer.cancel()
        return work.result()
    work.cancel()
    # Wait for it to stop (whatever it raises while stopping, the timeout is the
    # answer); `asyncio.wait` raises only if this task itself is cancelled.
    await asyncio.wait((work,))
    if not work.cancelled():
        work.exception()  # retrieved, so asyncio does not log it as never seen
    raise TimeoutError
