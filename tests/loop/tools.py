"""Shared tools for the loop tests: each counts its runs and remembers its arguments."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from toolcast import Catalog, ToolError, tool, toolbox

RUNS: Counter[str] = Counter()
SEEN: list[tuple[str, dict[str, Any]]] = []
ACTIVE = {"readers": 0, "writers": 0, "peak_readers": 0, "overlaps": 0}


def reset() -> None:
    RUNS.clear()
    SEEN.clear()
    ACTIVE.update(readers=0, writers=0, peak_readers=0, overlaps=0)


def _ran(name: str, **arguments: Any) -> None:
    RUNS[name] += 1
    SEEN.append((name, arguments))


@tool(categories=["search"], blocking=False)
def find_product(query: str) -> list[str]:
    """Find products by name."""
    _ran("find_product", query=query)
    return [f"{query} #1", f"{query} #2"]


@tool(requires_approval=True, blocking=False)
def place_order(product: str, quantity: int) -> str:
    """Order a product."""
    _ran("place_order", product=product, quantity=quantity)
    return f"ordered {quantity} x {product}"


@tool(blocking=False)
def delete_order(order_id: str) -> str:
    """Delete an order."""
    _ran("delete_order", order_id=order_id)
    return "deleted"


@tool(blocking=False)
def refund(amount: int) -> str:
    """Refund an amount."""
    _ran("refund", amount=amount)
    return f"refunded {amount}"


@tool(ends_loop=True, blocking=False)
def final_answer(answer: str, confidence: float) -> dict[str, Any]:
    """Give the final answer."""
    _ran("final_answer", answer=answer)
    return {"answer": answer, "confidence": confidence}


@tool(blocking=False)
def broken(x: int) -> int:
    """Always fails."""
    _ran("broken", x=x)
    raise ToolError("broken on purpose")


@tool(parallel_safe=False)
async def write_log(line: str) -> str:
    """Append a line (one writer at a time)."""
    _ran("write_log", line=line)
    if ACTIVE["readers"] or ACTIVE["writers"]:
        ACTIVE["overlaps"] += 1
    ACTIVE["writers"] += 1
    await asyncio.sleep(0.01)
    ACTIVE["writers"] -= 1
    return "written"


@tool
async def slow_read(key: str, delay: float = 0.05) -> str:
    """Read something slowly."""
    _ran("slow_read", key=key)
    if ACTIVE["writers"]:
        ACTIVE["overlaps"] += 1
    ACTIVE["readers"] += 1
    ACTIVE["peak_readers"] = max(ACTIVE["peak_readers"], ACTIVE["readers"])
    try:
        await asyncio.sleep(delay)
    finally:
        ACTIVE["readers"] -= 1
    return f"value of {key}"


@toolbox("calendar", "See and book meeting rooms.")
class Calendar:
    @tool(blocking=False)
    def book_room(self, room: str) -> str:
        """Book a room."""
        _ran("book_room", room=room)
        return f"booked {room}"

    @tool(blocking=False)
    def list_rooms(self) -> list[str]:
        """List rooms."""
        _ran("list_rooms")
        return ["A", "B"]


SHOP = [find_product, place_order, delete_order, refund, final_answer, broken, write_log, slow_read]


def shop() -> Catalog:
    return Catalog([*SHOP, Calendar], resolver=lambda tool, call: Calendar())
