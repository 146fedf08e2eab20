"""The tools every integration test drives: search, aliased ids, an approved order, a toolbox."""

from __future__ import annotations

import uuid
from typing import Annotated
from uuid import UUID

from pydantic import BaseModel

from toolcast import Alias, Catalog, FixedResolver, Policy, tool, toolbox


class Link(BaseModel):
    id: Annotated[UUID, Alias("link")]
    title: str


LINKS = [Link(id=uuid.uuid4(), title="home"), Link(id=uuid.uuid4(), title="docs")]
ORDERS: list[tuple[int, int]] = []
"""Every order that really ran, (sku, quantity): an approval test checks nothing else ran."""


@tool(categories=["search"])
def find_product(query: str, limit: int = 1) -> list[str]:
    """Find products by name."""
    return [f"{query} (sku {n + 1})" for n in range(limit)]


def list_links() -> list[Link]:
    """All links."""
    return LINKS


def get_link(link_id: Annotated[UUID, Alias("link")]) -> str:
    """One link's title, by id."""
    found = [link.title for link in LINKS if link.id == link_id]
    return f"{found[0]} {link_id}" if found else "none"


@tool(requires_approval=True)
def place_order(sku: int, quantity: int) -> str:
    """Order a product."""
    ORDERS.append((sku, quantity))
    return f"ordered {quantity} x sku {sku}"


def delete_account(user: str) -> str:
    """Delete a user's account."""
    raise AssertionError("a denied tool must never run")


@toolbox("calendar", "See the team's meeting rooms.")
class Calendar:
    @tool
    def free_rooms(self, day: str) -> list[str]:
        """List the rooms free on a day (YYYY-MM-DD)."""
        return [f"Ada on {day}"]


CATALOG = Catalog(
    [find_product, list_links, get_link, place_order, delete_account, Calendar],
    resolver=FixedResolver(Calendar()),
)
POLICY = Policy(allow=["*"], deny=["delete_*"])


def toolset():  # type: ignore[no-untyped-def]
    """What the model may use: everything, the calendar behind its selector."""
    return CATALOG.select(include_selectors=True)
