"""A policy rule that names nothing in its tool set is refused when the two meet (issue 24)."""

from __future__ import annotations

import pytest

from toolcast import Catalog, FixedResolver, Policy, run, tool, toolbox
from toolcast.testing import ScriptedModel, call


@tool(categories=["search"], aliases=["lookup"])
def find_product(query: str) -> list[str]:
    """Find products by name."""
    return [query]


@tool
def place_order(sku: int) -> str:
    """Order a product."""
    return f"ordered {sku}"


@toolbox()
class Admin:
    """Administration."""

    @tool
    def reset(self) -> str:
        """Reset everything."""
        return "reset"


TOOLS = Catalog([find_product, place_order]).select()


def test_known_names_aliases_categories_and_globs_pass() -> None:
    Policy(
        allow=["find_product", "lookup", "category:search", "category:sea*"],
        deny=["delete_*"],  # a guard for tools that may come later: not checked
        defer=["place_order"],
    ).check(TOOLS)


def test_a_misspelt_tool_is_refused_with_the_close_matches() -> None:
    with pytest.raises(ValueError, match="names no known") as caught:
        Policy(allow=["place_ordr"]).check(TOOLS)
    assert str(caught.value) == (
        "Policy rule 'place_ordr' names no known tool, alias or toolbox. "
        "Did you mean 'place_order'?"
    )


def test_an_unknown_category_is_refused_and_every_problem_is_listed() -> None:
    with pytest.raises(ValueError, match="names no known") as caught:
        Policy(allow=["category:serch"], deny=["drop_all"]).check(TOOLS)
    message = str(caught.value)
    assert "Policy rule 'category:serch' names no known category. Did you mean 'search'?" in message
    assert "Policy rule 'drop_all' names no known tool, alias or toolbox." in message


def test_toolbox_names_and_members_are_known() -> None:
    catalog = Catalog([find_product])
    catalog.add(Admin, resolver=FixedResolver(Admin()))
    tools = catalog.select(include_selectors=True)
    Policy(allow=["admin", "reset"]).check(tools)
    with pytest.raises(ValueError, match="Did you mean 'reset'"):
        Policy(deny=["rest"]).check(tools)


async def test_run_refuses_the_policy_before_asking_the_model() -> None:
    model = ScriptedModel([[call("find_product", id="f1", query="mug")], "done"])
    with pytest.raises(ValueError, match="'find_prodcut' names no known"):
        await run(model, "mugs", tools=TOOLS, policy=Policy(allow=["find_prodcut"]))
    assert model.requests == []  # nothing was sent
