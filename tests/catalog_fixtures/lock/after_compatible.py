"""The same tools after compatible edits only."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated

from annotated_types import Ge, Le

from toolcast._catalog._toolbox import toolbox
from toolcast._define._decorator import tool


class Unit(enum.Enum):
    KM = "km"
    MI = "mi"
    M = "m"  # new value


@dataclass
class Place:
    """A place."""

    place_id: str
    name: str
    rating: float
    phone: str | None = None  # new result field


@tool(version="1", categories=["search", "maps"])
def find_places(
    query: str,
    limit: int = 10,
    unit: Unit = Unit.KM,
    near: str | None = None,
    open_now: bool = False,  # new optional parameter
) -> list[Place]:
    """Find places, best first."""  # new description
    return []


@tool(version="1", aliases=["get_place"])  # renamed, old name kept as an alias
def place_details(place_id: str) -> Place:
    """Get a place."""
    return Place(place_id, "x", 1.0)


@tool(version="1", aliases=["fetch_reviews", "reviews"])
def list_reviews(
    place_id: str, min_stars: Annotated[int, Ge(0), Le(5)] = 1
) -> list[str]:  # bound loosened
    """List reviews."""
    return []


@tool(deprecated="Places are kept forever now.")
def forget_place(place_id: str) -> None:
    """Forget a place."""


@tool
def nearby_events(place_id: str) -> list[str]:
    """A new tool."""
    return []


@toolbox("booking", "Book tables.")
class Booking:
    @tool(version="1")
    @staticmethod
    def book_table(place_id: str, seats: Annotated[int, Ge(1)]) -> str:
        """Book a table."""
        return "ok"
