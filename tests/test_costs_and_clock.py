"""Cost lines on the context and timeouts on an injected clock (issue 16, item 4)."""

from __future__ import annotations

import asyncio
import math
import threading

import pytest

from toolcast import Catalog, Cost, Policy, Tool, ToolContext, ToolError, run, tool
from toolcast.testing import FakeClock, ScriptedModel, call


@tool(timeout=5)
async def slow(ctx: ToolContext) -> str:
    """Waits ten minutes on the call's clock."""
    ctx.add_cost(0.25, label="warm-up")
    await ctx.clock.sleep(600)
    return "finally"


async def test_a_ten_minute_tool_times_out_on_a_fake_clock_in_milliseconds() -> None:
    clock = FakeClock()
    task = asyncio.create_task(
        Tool.from_function(slow).invoke({}, context=ToolContext(clock=clock))
    )
    await clock.sleepers(2)  # the tool's ten minutes and the call's five seconds
    for _ in range(20):  # no real timer ends it: it waits for the fake clock alone
        await asyncio.sleep(0)
    assert not task.done()
    clock.advance(5)
    # Answered within a few turns of the event loop once the clock moves: counted, not
    # timed (a real five-second timer could not fire in them).
    turns = 0
    while not task.done() and turns < 100:
        await asyncio.sleep(0)
        turns += 1
    assert task.done(), f"not answered {turns} loop turns after the clock reached the timeout"
    outcome = task.result()
    assert outcome.is_error
    assert outcome.error is not None
    assert outcome.error.kind == "timeout"
    assert outcome.text == "Tool 'slow' timed out after 5 s."
    assert outcome.costs == (Cost(0.25, "usd", "warm-up"),)  # kept on the timeout path
    assert clock.pending == 0  # the tool's sleep was cancelled with it


async def test_time_short_of_the_timeout_does_not_fire_it() -> None:
    clock = FakeClock()

    @tool(timeout=5)
    async def nap(ctx: ToolContext) -> str:
        """Naps two seconds."""
        await ctx.clock.sleep(2)
        return f"woke at {ctx.clock.monotonic():g}"

    task = asyncio.create_task(Tool.from_function(nap).invoke({}, context=ToolContext(clock=clock)))
    await clock.sleepers(2)
    clock.advance(4.9)
    outcome = await task
    assert outcome.text == "woke at 4.9"
    assert clock.pending == 0  # the timeout timer is cancelled once the tool answered


async def test_a_sync_tool_in_a_thread_times_out_on_the_fake_clock_and_is_told_to_stop() -> None:
    clock = FakeClock()
    stopped = threading.Event()

    @tool(timeout=30)
    def crunch(ctx: ToolContext) -> str:
        """Polls its cancel signal."""
        ctx.add_cost(3, unit="credits")
        if ctx.cancel_event.wait(10):
            stopped.set()
        return "done"

    task = asyncio.create_task(
        Tool.from_function(crunch).invoke({}, context=ToolContext(clock=clock))
    )
    await clock.sleepers(1)
    clock.advance(30)
    outcome = await task
    assert outcome.text == "Tool 'crunch' timed out after 30 s."
    assert outcome.costs == (Cost(3, "credits"),)
    assert await asyncio.to_thread(stopped.wait, 5)


@pytest.mark.parametrize("kind", ["tool_error", "exception"])
async def test_costs_are_kept_when_the_tool_fails(kind: str) -> None:
    @tool
    async def charge(ctx: ToolContext) -> str:
        """Charges, then fails."""
        ctx.add_cost(0.5, label="api")
        ctx.add_cost(0.1, label="api")
        if kind == "tool_error":
            raise ToolError("The service said no.")
        raise RuntimeError("boom")

    outcome = await Tool.from_function(charge).invoke({})
    assert outcome.error is not None
    assert outcome.error.kind == kind
    assert [c.amount for c in outcome.costs] == [0.5, 0.1]


def test_costs_are_on_sync_outcomes_too() -> None:
    @tool
    def lookup(q: str, ctx: ToolContext) -> str:
        """Looks up."""
        ctx.add_cost(0.002, label="search")
        return q.upper()

    made = Tool.from_function(lookup)
    outcome = made.invoke_sync({"q": "mug"})
    assert (outcome.text, outcome.costs) == ("MUG", (Cost(0.002, "usd", "search"),))
    # Nothing ran for bad arguments, so nothing was spent.
    assert made.invoke_sync({"q": 3}).costs == ()


async def test_each_call_gets_its_own_lines_and_the_hosts_context_is_untouched() -> None:
    @tool
    async def tick(ctx: ToolContext) -> str:
        """Costs one credit."""
        ctx.add_cost(1, "credits")
        return "ok"

    host = ToolContext(state={"user": "ada"})
    made = Tool.from_function(tick)
    first = await made.invoke({}, context=host)
    second = await made.invoke({}, context=host)
    assert first.costs == second.costs == (Cost(1, "credits"),)
    assert host.costs == []


def test_a_cost_that_is_not_a_finite_number_is_a_host_mistake() -> None:
    ctx = ToolContext()
    with pytest.raises(ValueError, match="finite"):
        ctx.add_cost(math.nan)
    with pytest.raises(TypeError, match="must be a number"):
        ctx.add_cost("0.1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unit"):
        ctx.add_cost(1, unit="")
    assert ctx.costs == []


async def test_caller_cancellation_on_a_fake_clock_propagates() -> None:
    clock = FakeClock()
    task = asyncio.create_task(
        Tool.from_function(slow).invoke({}, context=ToolContext(clock=clock))
    )
    await clock.sleepers(2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert clock.pending == 0


async def test_the_run_loop_sums_the_costs_of_its_calls() -> None:
    @tool
    async def geocode(city: str, ctx: ToolContext) -> str:
        """Geocodes."""
        ctx.add_cost(0.004, label="geocoder")
        return f"{city}: 59.9, 10.7"

    @tool
    async def weather(city: str, ctx: ToolContext) -> str:
        """Weather."""
        ctx.add_cost(0.01, label="weather")
        ctx.add_cost(2, "credits")
        return "rain"

    model = ScriptedModel(
        [
            [call("geocode", city="Oslo"), call("weather", city="Oslo")],
            "Rain in Oslo.",
        ]
    )
    tools = Catalog([geocode, weather]).select()
    result = await run(model, "Weather?", tools=tools, policy=Policy(allow=["*"]))
    assert result.status == "done"
    assert [c.label for c in result.costs] == ["geocoder", "weather", None]
    assert result.total_costs == {"usd": pytest.approx(0.014), "credits": 2}
