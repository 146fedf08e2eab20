"""`module:attribute` targets for the lock CLI: a catalog, a tool set, factories."""

from __future__ import annotations

from catalog_fixtures import collide_a, collide_b
from catalog_fixtures.lock import before
from toolcast._catalog._catalog import Catalog, ToolSet

catalog = Catalog.from_modules(before)
search_only: ToolSet = catalog.select(categories=["search"])
not_a_catalog = 3


def make_catalog() -> Catalog:
    """A factory target: called with no arguments."""
    return Catalog.from_modules(before)


def colliding() -> Catalog:
    """A factory whose catalog cannot be built (two tools named `search`)."""
    return Catalog.from_modules(collide_a, collide_b)
