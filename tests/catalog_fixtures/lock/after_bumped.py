"""The same breaking edits as after_breaking, each with its version bumped
(forget_place is kept, deprecated, since a removal cannot be excused)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated

from annotated_types import Ge, Le

from toolcast._catalog._toolbox import toolbox
from toolcast._define._decorator import tool


class Unit(enum.Enum):
    KM = "km"  # "mi" removed


@dataclass
class Place:
    """A place."""

    place_id: str
    name: str  # `rating` removed from results


@tool(version="2", categories=["search"])
def find_places(  # `limit` removed, `country` added as required, `near` no longer null
    query: str, country: str, unit: Unit = Unit.KM, near: str = ""
) -> list[Place]:
    """Find places."""
    return []


@tool(version="2")
def place_details(place_id: str) -> Place:  # renamed from get_place, no alias
    """Get a place."""
    return Place(place_id, "x")


@tool(version="1.1")  # alias fetch_reviews dropped
def list_reviews(place_id: str, min_stars: Annotated[int, Ge(2), Le(5)] = 2) -> list[str]:
    """List reviews."""
    return []


@tool(deprecated="Places are kept forever now.")
def forget_place(place_id: str) -> None:
    """Forget a place."""


@toolbox("booking", "Book tables.")
class Booking:
    @tool(version="1")
    @staticmethod
    def book_table(place_id: str, seats: Annotated[int, Ge(1)]) -> str:
        """Book a table."""
        return "ok"
