"""The tools `toolcast serve` serves in these tests (loaded as a TARGET file)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Annotated
from uuid import NAMESPACE_URL, UUID, uuid5

from annotated_types import Ge, Le

from toolcast import ToolContext, ToolError, tool, toolbox
from toolcast.aliases import Alias


@tool(categories=["search"])
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(categories=["search"])
def find_item(query: str, limit: Annotated[int, Ge(1), Le(5)] = 2) -> list[str]:
    """Find items whose name contains the query."""
    return [f"{query}-{n}" for n in range(limit)]


@tool(categories=["orders"], requires_approval=True)
def refund(order: str, amount: int) -> str:
    """Refund an order (needs the user's approval)."""
    return f"refunded {amount} on {order}"


@tool(categories=["orders"])
def fail(reason: str) -> str:
    """Always refuses."""
    raise ToolError(f"Cannot do that: {reason}.")


@tool(categories=["slow"])
async def count(steps: int, context: ToolContext) -> int:
    """Count to `steps`, reporting progress, one step every 20 ms."""
    for n in range(1, steps + 1):
        context.report_progress(n, steps, f"step {n}")
        await asyncio.sleep(0.02)
    return steps


@tool(categories=["slow"])
def wait(seconds: float, context: ToolContext) -> str:
    """Block (in a thread) until cancelled or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if context.cancelled:
            return "cancelled"
        time.sleep(0.01)
    return "done"


@toolbox("orders_admin", "Administer orders. Opens the order admin tools.")
class OrdersAdmin:
    """Order administration."""

    @tool(categories=["orders"])
    def close_order(self, order: str) -> str:
        """Close an order."""
        return f"closed {order}"

    @tool(categories=["orders"])
    def reopen_order(self, order: str) -> str:
        """Reopen an order."""
        return f"reopened {order}"


@dataclass
class Link:
    """A link: its id (the model sees a short alias) and name."""

    id: Annotated[UUID, Alias("link")]
    name: str


@tool(categories=["links"])
def make_link(name: str) -> Link:
    """Make a link for `name`."""
    return Link(uuid5(NAMESPACE_URL, name), name)


@tool(categories=["links"])
def open_link(link: Annotated[UUID, Alias("link")]) -> str:
    """Open a link by the alias `make_link` gave."""
    return str(link)
