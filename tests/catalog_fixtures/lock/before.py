"""Place tools as they were locked."""

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


@dataclass
class Place:
    """A place."""

    place_id: str
    name: str
    rating: float


@tool(version="1", categories=["search"])
def find_places(
    query: str, limit: int = 10, unit: Unit = Unit.KM, near: str | None = None
) -> list[Place]:
    """Find places."""
    return []


@tool(version="1")
def get_place(place_id: str) -> Place:
    """Get a place."""
    return Place(place_id, "x", 1.0)


@tool(version="1", aliases=["fetch_reviews"])
def list_reviews(place_id: str, min_stars: Annotated[int, Ge(1), Le(5)] = 1) -> list[str]:
    """List reviews."""
    return []


@tool
def forget_place(place_id: str) -> None:
    """Forget a place."""


@toolbox("booking", "Book tables.")
class Booking:
    @tool(version="1")
    @staticmethod
    def book_table(place_id: str, seats: Annotated[int, Ge(1)]) -> str:
        """Book a table."""
        return "ok"
