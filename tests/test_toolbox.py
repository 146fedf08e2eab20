"""Toolboxes: the decorator, selectors, progressive disclosure, next turn's tools."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from catalog_fixtures import documents
from toolcast._catalog._catalog import Catalog
from toolcast._catalog._discovery import FixedResolver
from toolcast._catalog._toolbox import ToolboxOptions, toolbox, toolbox_options
from toolcast._define._decorator import tool
from toolcast.errors import CatalogError

INFO_KEYS = [
    "name",
    "description",
    "input_schema",
    "required",
    "always_available",
    "version",
    "categories",
    "aliases",
    "deprecated",
    "replaced_by",
]


def names(tools: Any) -> list[str]:
    return [t.name for t in tools]


@pytest.fixture
def catalog() -> Catalog:
    resolver = FixedResolver(documents.DocumentTools(), documents.Notes())
    return Catalog.from_modules(documents, resolver=resolver, cache=False)


def listing(catalog_or_set: Any, selector: str) -> list[dict[str, Any]]:
    outcome = catalog_or_set.resolve(selector).invoke_sync("{}")
    assert not outcome.is_error, outcome.text
    return list(outcome.value)


# -- the decorator -----------------------------------------------------------------


def test_toolbox_returns_the_class_unchanged_with_its_options() -> None:
    class Plain:
        pass

    marked = toolbox("plain", "Plain tools.")(Plain)

    assert marked is Plain
    assert toolbox_options(Plain) == ToolboxOptions("plain", "Plain tools.")


def test_bare_toolbox_takes_snake_case_name_and_docstring(catalog: Catalog) -> None:
    box = catalog.toolbox("archive_admin")

    assert box.description == "Archive administration."
    assert box.member_names == ("archive_stats",)


def test_toolbox_options_are_not_inherited_by_a_subclass() -> None:
    class Child(documents.DocumentTools):
        pass

    assert toolbox_options(Child) is None


def test_a_toolbox_without_tool_methods_is_refused() -> None:
    @toolbox("empty", "Nothing here.")
    class Empty:
        def helper(self) -> None:
            pass

    with pytest.raises(CatalogError, match=r"Toolbox 'empty' \(.*Empty\) has no @tool"):
        Catalog([Empty])


def test_a_toolbox_name_that_is_not_a_tool_name_is_refused() -> None:
    @toolbox("my documents", "Spaces are not allowed.")
    class Spaced:
        @tool
        @staticmethod
        def read() -> str:
            return ""

    with pytest.raises(CatalogError, match=r"Toolbox name 'my documents'"):
        Catalog([Spaced])


def test_adding_a_toolbox_class_by_hand_still_skips_register_false(
    catalog: Catalog,
) -> None:
    by_hand = Catalog(resolver=FixedResolver(documents.DocumentTools()))

    by_hand.add(documents.DocumentTools)

    assert by_hand.toolbox("documents").member_names == (catalog.toolbox("documents").member_names)
    assert "purge_documents" not in by_hand


# -- the selector ------------------------------------------------------------------


def test_the_selector_is_a_zero_argument_tool(catalog: Catalog) -> None:
    selector = catalog.resolve("documents")

    assert selector is catalog.toolbox("documents").selector
    assert selector.spec.input_schema == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    assert selector.spec.description == "Read and search the document archive."
    assert selector.spec.status == "Opening documents"
    assert catalog.is_selector("documents")
    assert not catalog.is_selector("read_document")


def test_the_selector_lists_each_member_with_its_metadata(catalog: Catalog) -> None:
    listed = listing(catalog, "documents")

    assert [item["name"] for item in listed] == [
        "search_documents",
        "read_document",
        "document_help",
        "document_count",
    ]
    search = listed[0]
    assert list(search) == INFO_KEYS
    assert search["description"] == "Search documents by text."
    assert search["input_schema"] == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    assert search["categories"] == ["documents", "search"]
    assert listed[2]["always_available"] is True


def test_the_selector_result_matches_its_output_schema(catalog: Catalog) -> None:
    selector = catalog.resolve("documents")
    outcome = selector.invoke_sync({})

    # What the model reads is the text; it must fit the advertised schema.
    assert selector.spec.output_schema is not None
    jsonschema.validate(json.loads(outcome.text), selector.spec.output_schema)


def test_the_catalog_selector_leaves_deprecated_members_out(catalog: Catalog) -> None:
    listed = listing(catalog, "documents")

    assert "open_document" not in [item["name"] for item in listed]
    assert "open_document" in catalog.toolbox("documents").member_names


def test_members_are_hidden_from_the_primary_view_unless_always_available(
    catalog: Catalog,
) -> None:
    primary = names(catalog.primary())

    assert "documents" in primary
    assert "document_help" in primary
    assert "search_documents" not in primary
    assert "search_documents" in names(catalog.all())


def test_toolbox_of_names_the_members_toolbox(catalog: Catalog) -> None:
    box = catalog.toolbox_of("read_document")

    assert box is not None
    assert box.name == "documents"
    assert catalog.toolbox_of("add_note") is None


def test_an_unknown_toolbox_is_refused_listing_the_known_ones(catalog: Catalog) -> None:
    with pytest.raises(CatalogError, match=r"Toolboxes: documents, archive_admin\."):
        catalog.toolbox("docs")


# -- next turn's tools -------------------------------------------------------------


def test_next_tools_adds_the_opened_members_after_the_current_ones(
    catalog: Catalog,
) -> None:
    current = catalog.primary()

    following = catalog.next_tools(current, "documents")

    assert names(following) == [
        *names(current),
        "search_documents",
        "read_document",
        "document_count",
    ]


def test_next_tools_ignores_names_that_are_not_selectors(catalog: Catalog) -> None:
    current = catalog.primary()

    following = catalog.next_tools(current, ["add_note", "no_such", "archive_admin"])

    assert names(following) == [*names(current), "archive_stats"]


def test_next_tools_accepts_names_and_keeps_one_of_each(catalog: Catalog) -> None:
    following = catalog.next_tools(["documents", "read_document"], ["documents", "documents"])

    assert names(following) == [
        "documents",
        "read_document",
        "search_documents",
        "document_help",
        "document_count",
    ]


# -- toolboxes in tool sets --------------------------------------------------------


def test_a_set_selector_lists_only_the_members_in_the_set(catalog: Catalog) -> None:
    chosen = catalog.select(categories=["search"], include_selectors=True)

    assert names(chosen.tools()) == ["documents"]
    assert [item["name"] for item in listing(chosen, "documents")] == ["search_documents"]
    assert chosen.resolve("documents") is not catalog.resolve("documents")


def test_a_set_with_every_current_member_reuses_the_catalog_selector(
    catalog: Catalog,
) -> None:
    chosen = catalog.select(names=["documents"], include_selectors=True)

    assert chosen.resolve("documents") is catalog.resolve("documents")


def test_sets_with_the_same_members_share_a_selector(catalog: Catalog) -> None:
    one = catalog.select(categories=["search"], include_selectors=True)
    two = catalog.select(names=["search_documents"], include_selectors=True)

    assert one.resolve("documents") is two.resolve("documents")


def test_a_set_selector_lists_deprecated_members_the_set_includes(
    catalog: Catalog,
) -> None:
    legacy = catalog.select(names=["documents"], include_selectors=True, include_deprecated=True)

    opened = {item["name"]: item for item in listing(legacy, "documents")}

    assert opened["open_document"]["deprecated"] == "Use read_document."
    assert opened["open_document"]["replaced_by"] == "read_document"


def test_a_set_without_selectors_lists_members_directly(catalog: Catalog) -> None:
    chosen = catalog.select(names=["documents"])

    assert "documents" not in chosen
    assert names(chosen.tools()) == [
        "search_documents",
        "read_document",
        "document_help",
        "document_count",
    ]
    assert chosen.next_tools(chosen.tools(), "documents") == chosen.tools()


def test_a_set_with_selectors_shows_always_available_members(catalog: Catalog) -> None:
    chosen = catalog.select(names=["documents"], include_selectors=True)

    assert names(chosen.tools()) == ["documents", "document_help"]
    assert chosen.is_selector("documents")
    assert not chosen.is_selector("document_help")


def test_set_next_tools_adds_only_the_sets_members(catalog: Catalog) -> None:
    chosen = catalog.select(categories=["search", "notes"], include_selectors=True)

    following = chosen.next_tools(chosen.tools(), ["documents"])

    assert names(following) == ["documents", "add_note", "search_documents"]


def test_set_toolboxes_are_limited_to_the_sets_members(catalog: Catalog) -> None:
    chosen = catalog.select(categories=["search"])

    (box,) = chosen.toolboxes()

    assert box.member_names == ("search_documents",)
    assert chosen.toolbox_of("search_documents") is box
    assert chosen.toolbox_of("no_such") is None
