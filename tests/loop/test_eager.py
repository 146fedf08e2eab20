"""`run_concurrently`: eager starts that behave like tasks (waits, errors, cancel, context)."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from toolcast.loop._eager import run_concurrently

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="outer")


async def test_coroutines_that_wait_run_concurrently_and_the_others_inline() -> None:
    order: list[str] = []

    async def quick(name: str) -> None:
        order.append(name)

    async def slow(name: str) -> None:
        order.append(f"{name} start")
        await asyncio.sleep(0.05)
        await asyncio.sleep(0)  # a bare yield too
        order.append(f"{name} end")

    loop = asyncio.get_running_loop()
    started = loop.time()
    await run_concurrently([slow("a"), quick("b"), slow("c"), quick("d")])
    assert loop.time() - started < 0.09
    assert order[:4] == ["a start", "b", "c start", "d"]
    assert sorted(order[4:]) == ["a end", "c end"]


async def test_the_first_error_is_raised_after_every_coroutine_finished() -> None:
    finished: list[str] = []

    async def fails_late() -> None:
        await asyncio.sleep(0.01)
        raise ValueError("late")

    async def fails_now() -> None:
        raise KeyError("now")

    async def works() -> None:
        await asyncio.sleep(0.02)
        finished.append("works")

    with pytest.raises(KeyError):
        await run_concurrently([fails_late(), fails_now(), works()])
    assert finished == ["works"]


async def test_a_failed_future_reaches_the_coroutine() -> None:
    seen: list[str] = []

    async def waits(future: asyncio.Future[int]) -> None:
        try:
            await future
        except RuntimeError as exc:
            seen.append(str(exc))

    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()
    loop.call_later(0.01, future.set_exception, RuntimeError("boom"))
    await run_concurrently([waits(future), waits_for_nothing()])
    assert seen == ["boom"]


async def waits_for_nothing() -> None:
    await asyncio.sleep(0)


async def test_cancellation_reaches_every_waiting_coroutine() -> None:
    cancelled: list[str] = []

    async def sleeper(name: str) -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(name)
            raise

    task = asyncio.ensure_future(run_concurrently([sleeper("a"), sleeper("b")]))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(cancelled) == ["a", "b"]


async def test_each_coroutine_has_its_own_context() -> None:
    seen: list[str] = []

    async def sets(value: str) -> None:
        VAR.set(value)
        await asyncio.sleep(0)
        seen.append(VAR.get())

    await run_concurrently([sets("x"), sets("y")])
    assert sorted(seen) == ["x", "y"]
    assert VAR.get() == "outer"
