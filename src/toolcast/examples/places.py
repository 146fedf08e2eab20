"""Places: search a small built-in gazetteer and look places up by id.

`find_places` bounds `max_results` to 1..50, so a model that asks for 3,000 gets
an error result naming the limit; `place_details` raises `ToolError` for an id it
does not know, so the model is told to search first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from annotated_types import Ge, Le

from toolcast import ToolError, tool

__all__ = ("Place", "find_places", "place_details")


@dataclass(frozen=True)
class Place:
    """A place a model can refer to by its id.

    Attributes:
        id: Stable identifier, for place_details.
        name: The place's name.
        country: ISO 3166-1 alpha-2 country code.
        population: Number of residents.
    """

    id: str
    name: str
    country: str
    population: int


_PLACES = (
    Place("spr-il", "Springfield, Illinois", "US", 114_394),
    Place("spr-ma", "Springfield, Massachusetts", "US", 155_929),
    Place("spr-mo", "Springfield, Missouri", "US", 169_176),
    Place("spr-au", "Springfield, Queensland", "AU", 18_900),
    Place("par-fr", "Paris", "FR", 2_102_650),
    Place("par-tx", "Paris, Texas", "US", 24_476),
)


@tool(status="Searching for places", categories=["places"])
async def find_places(
    query: str,
    country: str | None = None,
    max_results: Annotated[int, Ge(1), Le(50)] = 10,
) -> list[Place]:
    """Find places whose name contains a text query, largest first.

    Args:
        query: Text to search for, e.g. "Springfield".
        country: Only places in this ISO country code, e.g. "US".
        max_results: Maximum number of places to return.
    """
    needle = query.casefold()
    found = [
        place
        for place in _PLACES
        if needle in place.name.casefold() and country in (None, place.country)
    ]
    found.sort(key=lambda place: place.population, reverse=True)
    return found[:max_results]


@tool(status="Looking up a place", categories=["places"])
def place_details(place_id: str) -> Place:
    """Get one place by the id find_places returned.

    Args:
        place_id: The place's id, e.g. "spr-il".
    """
    for place in _PLACES:
        if place.id == place_id:
            return place
    msg = f"No place has the id {place_id!r}. Call find_places to get a valid id."
    raise ToolError(msg)
