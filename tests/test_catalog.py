"""Catalog: discovery, instance tools, names, categories, views, selection, scale."""

from __future__ import annotations

import contextvars
import importlib
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from catalog_fixtures import documents, helpers, pkg, places
from toolcast._catalog._catalog import Catalog, ToolSet, UnknownToolError
from toolcast._catalog._discovery import FactoryResolver, FixedResolver, owner_class
from toolcast._define._decorator import tool
from toolcast._spec import ToolCall
from toolcast._tool import Tool
from toolcast.errors import CatalogError, ToolDefinitionError


def names(tools: Any) -> list[str]:
    return [t.name for t in tools]


def document_catalog(**kwargs: Any) -> Catalog:
    instances = FixedResolver(
        documents.DocumentTools(documents.DocumentStore("arch")), documents.Notes("ann")
    )
    return Catalog.from_modules(places, documents, resolver=instances, **kwargs)


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    Catalog.clear_cache()


# -- discovery ---------------------------------------------------------------------


def test_from_modules_takes_only_tools_the_module_defines() -> None:
    catalog = Catalog.from_modules(places)

    assert names(catalog.all(include_deprecated=True)) == [
        "find_places",
        "get_place",
        "place_summary",
        "whoami",
    ]
    # Imported from helpers, opted out with register=False, or not a tool at all.
    for outside in ("shared_helper_tool", "admin_reset", "not_a_tool"):
        assert outside not in catalog


def test_from_modules_adds_an_imported_tool_once_its_own_module_is_scanned() -> None:
    catalog = Catalog.from_modules(places, helpers)

    assert names(catalog.all())[-1] == "shared_helper_tool"
    assert len(catalog) == 5


def test_from_modules_accepts_dotted_module_names() -> None:
    by_name = Catalog.from_modules("catalog_fixtures.places")

    assert names(by_name.all()) == names(Catalog.from_modules(places).all())


def test_from_modules_refuses_what_is_not_a_module() -> None:
    with pytest.raises(CatalogError, match="Expected a module"):
        Catalog.from_modules(places.find_places)  # type: ignore[arg-type]


def test_from_modules_scans_submodules_only_when_recursive() -> None:
    assert names(Catalog.from_modules(pkg).all()) == ["pkg_root"]

    recursive = Catalog.from_modules(pkg, recursive=True)

    assert names(recursive.all()) == ["pkg_root", "alpha_tool", "deep_tool"]


def test_recursive_discovery_raises_a_submodules_import_error() -> None:
    # pkgutil.walk_packages would skip it silently, dropping its tools.
    with pytest.raises(ImportError, match="catalog_fixtures_no_such_dependency"):
        Catalog.from_modules("catalog_fixtures.broken_pkg", recursive=True)


def test_from_modules_returns_the_cached_catalog_for_the_same_modules() -> None:
    first = Catalog.from_modules(places, helpers)

    assert Catalog.from_modules(places, helpers) is first
    assert Catalog.from_modules("catalog_fixtures.places", helpers) is first
    assert Catalog.from_modules(places) is not first
    assert Catalog.from_modules(places, helpers, cache=False) is not first


def test_from_modules_caches_per_resolver() -> None:
    one, two = FactoryResolver(lambda cls: cls()), FactoryResolver(lambda cls: cls())

    first = Catalog.from_modules(documents, resolver=one)

    assert Catalog.from_modules(documents, resolver=one) is first
    assert Catalog.from_modules(documents, resolver=two) is not first


def test_from_modules_rebuilds_after_a_module_is_reloaded() -> None:
    alpha = importlib.import_module("catalog_fixtures.pkg.alpha")
    before = Catalog.from_modules(alpha)
    old_function = before.resolve("alpha_tool").function

    importlib.reload(alpha)
    after = Catalog.from_modules(alpha)

    assert after is not before
    assert after.resolve("alpha_tool").function is alpha.alpha_tool
    assert after.resolve("alpha_tool").function is not old_function


def test_add_detaches_a_catalog_from_the_module_cache() -> None:
    cached = Catalog.from_modules(places)

    cached.add(places.admin_reset)

    fresh = Catalog.from_modules(places)
    assert fresh is not cached
    assert "admin_reset" in cached
    assert "admin_reset" not in fresh


def test_add_takes_a_register_false_tool_by_hand() -> None:
    catalog = Catalog.from_modules(places, cache=False)

    catalog.add(places.admin_reset)

    assert catalog.resolve("admin_reset").invoke_sync({}).text == "reset"


def test_add_takes_a_bound_method_with_its_own_instance() -> None:
    catalog = Catalog()

    catalog.add(documents.Notes("ann").add_note)

    outcome = catalog.resolve("add_note").invoke_sync({"text": "hi"})
    assert outcome.text == "ann noted hi"


def test_add_takes_a_closure_with_its_state() -> None:
    greeting = "hello"

    @tool(register=False)
    def greet(name: str) -> str:
        """Greet someone."""
        return f"{greeting} {name}"

    catalog = Catalog([greet])

    assert catalog.resolve("greet").invoke_sync({"name": "bo"}).text == "hello bo"


def test_add_takes_a_ready_tool() -> None:
    ready = Tool.from_function(places.get_place, name="place")

    catalog = Catalog([ready])

    assert catalog.resolve("place") is ready


def test_add_takes_a_module_like_scanning_does() -> None:
    catalog = Catalog()

    catalog.add(places)

    assert names(catalog.all()) == names(Catalog.from_modules(places).all())


def test_add_refuses_a_class_without_tool_methods() -> None:
    with pytest.raises(CatalogError, match=r"DocumentStore has no @tool methods"):
        Catalog().add(documents.DocumentStore)


def test_add_refuses_what_cannot_become_a_tool() -> None:
    with pytest.raises(CatalogError, match="Cannot add a int"):
        Catalog().add(42)


# -- instance tools ----------------------------------------------------------------


def test_method_tools_without_a_resolver_are_refused_at_build() -> None:
    with pytest.raises(CatalogError, match=r"DocumentTools has method tools .*resolver="):
        Catalog.from_modules(documents)


def test_fixed_resolver_runs_each_class_on_its_instance() -> None:
    catalog = document_catalog()

    search = catalog.resolve("search_documents").invoke_sync({"text": "tax"})
    note = catalog.resolve("add_note").invoke_sync({"text": "call back"})

    assert search.value == ["arch:tax"]
    assert note.text == "ann noted call back"


def test_fixed_resolver_without_an_instance_of_a_class_fails_at_build() -> None:
    with pytest.raises(CatalogError, match=r"no instance of .*DocumentTools"):
        Catalog.from_modules(documents, resolver=FixedResolver(documents.Notes()))


def test_fixed_resolver_accepts_an_instance_of_a_subclass() -> None:
    class Special(documents.DocumentTools):
        pass

    resolver = FixedResolver(Special(documents.DocumentStore("sp")), documents.Notes())
    catalog = Catalog.from_modules(documents, resolver=resolver, cache=False)

    assert catalog.resolve("read_document").invoke_sync({"doc_id": "7"}).text == "sp 7"


def test_factory_resolver_makes_a_fresh_instance_per_call_by_default() -> None:
    made: list[type] = []

    def factory(cls: type) -> object:
        made.append(cls)
        return cls()

    catalog = Catalog.from_modules(documents, resolver=FactoryResolver(factory))
    read = catalog.resolve("read_document")
    read.invoke_sync({"doc_id": "1"})
    read.invoke_sync({"doc_id": "2"})

    assert made == [documents.DocumentTools, documents.DocumentTools]


def test_factory_resolver_can_keep_one_instance_per_class() -> None:
    made: list[object] = []

    def factory(cls: type) -> object:
        made.append(cls())
        return made[-1]

    resolver = FactoryResolver(factory, per_call=False)
    catalog = Catalog.from_modules(documents, resolver=resolver)
    for doc_id in ("1", "2"):
        catalog.resolve("read_document").invoke_sync({"doc_id": doc_id})
    catalog.resolve("add_note").invoke_sync({"text": "x"})

    assert [type(m) for m in made] == [documents.DocumentTools, documents.Notes]


def test_custom_resolver_gets_the_tool_and_the_call() -> None:
    seen: list[tuple[str, str, type | None]] = []

    def resolver(tool: Tool, call: ToolCall) -> object:
        owner = owner_class(tool)
        seen.append((tool.name, call.id, owner))
        assert owner is not None
        return owner()

    catalog = Catalog.from_modules(documents, resolver=resolver)
    catalog.resolve("read_document").invoke_sync({"doc_id": "1"}, call_id="c1")

    assert seen == [("read_document", "c1", documents.DocumentTools)]


def test_a_resolver_that_raises_gives_that_call_an_error_result() -> None:
    def broken(tool: Tool, call: ToolCall) -> object:
        raise LookupError("no session")

    catalog = Catalog.from_modules(documents, resolver=broken)

    outcome = catalog.resolve("read_document").invoke_sync({"doc_id": "1"})

    assert outcome.is_error
    assert "no session" in outcome.text


async def test_a_resolver_sees_the_callers_context_variables() -> None:
    scope: contextvars.ContextVar[str] = contextvars.ContextVar("scope")

    def from_scope(tool: Tool, call: ToolCall) -> object:
        return documents.DocumentTools(documents.DocumentStore(scope.get()))

    chosen = Catalog.from_modules(documents, resolver=from_scope).select()
    token = scope.set("request-7")
    try:
        # A sync method tool runs in a worker thread under an async host.
        outcome = await chosen.invoke(ToolCall("c1", "read_document", {"doc_id": "1"}))
    finally:
        scope.reset(token)

    assert outcome.text == "request-7 1"


def test_owner_class_is_none_for_a_plain_function() -> None:
    assert owner_class(Catalog.from_modules(places).resolve("get_place")) is None


def test_static_and_class_method_members_need_no_instance() -> None:
    def refuse(tool: Tool, call: ToolCall) -> object:
        raise AssertionError(tool.name)

    catalog = Catalog.from_modules(documents, resolver=refuse)

    assert catalog.resolve("document_help").invoke_sync({}).text.startswith("Documents")
    assert catalog.resolve("document_count").invoke_sync({}).value == 42


# -- names -------------------------------------------------------------------------


def test_two_tools_with_one_name_are_refused_naming_both_definitions() -> None:
    a = importlib.import_module("catalog_fixtures.collide_a")
    b = importlib.import_module("catalog_fixtures.collide_b")

    with pytest.raises(CatalogError) as caught:
        Catalog.from_modules(a, b)

    message = str(caught.value)
    assert "catalog_fixtures.collide_a.search" in message
    assert "catalog_fixtures.collide_b.search" in message


def test_an_alias_taking_a_tool_name_is_refused() -> None:
    a = importlib.import_module("catalog_fixtures.collide_a")
    alias = importlib.import_module("catalog_fixtures.collide_alias")

    with pytest.raises(CatalogError, match=r"alias 'search' of tool 'lookup'"):
        Catalog.from_modules(a, alias)


def test_names_differing_only_in_case_are_refused() -> None:
    a = importlib.import_module("catalog_fixtures.collide_a")
    case = importlib.import_module("catalog_fixtures.collide_case")

    with pytest.raises(CatalogError, match=r"only in case"):
        Catalog.from_modules(a, case)


def test_a_toolbox_named_like_a_tool_is_refused() -> None:
    a = importlib.import_module("catalog_fixtures.collide_a")
    box = importlib.import_module("catalog_fixtures.collide_toolbox")

    with pytest.raises(CatalogError, match=r"toolbox 'search' \(.*SearchBox\)"):
        Catalog.from_modules(a, box)


def test_adding_the_same_tool_twice_is_refused() -> None:
    catalog = Catalog.from_modules(places, cache=False)

    with pytest.raises(CatalogError, match="already in the catalog"):
        catalog.add(places.get_place)


def test_a_failed_add_leaves_the_catalog_unchanged() -> None:
    catalog = Catalog.from_modules(importlib.import_module("catalog_fixtures.collide_a"))
    before = names(catalog.all())

    with pytest.raises(CatalogError):
        catalog.add(importlib.import_module("catalog_fixtures.collide_toolbox"))

    assert names(catalog.all()) == before
    assert catalog.toolboxes() == ()
    assert "search_web" not in catalog


def test_an_alias_that_is_not_a_valid_tool_name_is_refused() -> None:
    @tool(aliases=["find places"])
    def find(query: str) -> str:
        return query

    # Refused when the tool is defined, before any catalog sees it.
    with pytest.raises(ToolDefinitionError, match=r"alias 'find places' must match") as info:
        Catalog([find])
    assert info.value.codes == ("invalid-alias",)


def test_a_tool_may_alias_its_own_name_in_another_case() -> None:
    @tool(aliases=["Find"])
    def find(query: str) -> str:
        return query

    catalog = Catalog([find])

    assert catalog.resolve("Find") is catalog.resolve("find")


def test_resolve_finds_a_tool_by_name_or_alias() -> None:
    catalog = Catalog.from_modules(places)

    assert catalog.resolve("search_places") is catalog.resolve("find_places")
    assert catalog.get("nope") is None
    with pytest.raises(UnknownToolError, match=r"^Unknown tool 'nope'\. Available tools: "):
        catalog.resolve("nope")


# -- categories --------------------------------------------------------------------


def test_categories_are_trimmed_deduplicated_and_blank_free() -> None:
    spec = Catalog.from_modules(places).resolve("find_places").spec

    assert spec.categories == ("search", "places")


def test_by_category_indexes_toolbox_members_too() -> None:
    catalog = document_catalog()

    assert names(catalog.by_category("search")) == ["find_places", "search_documents"]
    assert catalog.categories() == ("admin", "documents", "notes", "places", "search")


def test_by_category_is_case_sensitive() -> None:
    assert Catalog.from_modules(places).by_category("Search") == ()


def test_by_category_leaves_deprecated_tools_out_unless_asked() -> None:
    catalog = Catalog.from_modules(places)

    assert names(catalog.by_category("places")) == ["find_places", "get_place"]
    assert "place_summary" in names(catalog.by_category("places", include_deprecated=True))


# -- views, versions, deprecation ---------------------------------------------------


def test_primary_view_shows_selectors_and_always_available_members() -> None:
    catalog = document_catalog()

    assert names(catalog.primary()) == [
        "find_places",
        "get_place",
        "whoami",
        "documents",
        "document_help",
        "add_note",
        "archive_admin",
    ]


def test_all_view_lists_members_but_not_selectors() -> None:
    catalog = document_catalog()

    listed = names(catalog.all())

    assert "search_documents" in listed
    assert "documents" not in listed
    assert "open_document" not in listed  # deprecated
    assert "purge_documents" not in listed  # register=False


def test_a_deprecated_tool_resolves_but_stays_out_of_views() -> None:
    catalog = Catalog.from_modules(places)

    assert catalog.resolve("place_summary").name == "place_summary"
    assert "place_summary" not in names(catalog.primary())
    assert "place_summary" in names(catalog.all(include_deprecated=True))


def test_info_of_a_deprecated_tool_carries_reason_and_replacement() -> None:
    info = Catalog.from_modules(places).info("place_summary")

    assert info["deprecated"] == "Use get_place, which returns more detail."
    assert info["replaced_by"] == "get_place"


def test_info_carries_the_version() -> None:
    assert Catalog.from_modules(places).info("find_places")["version"] == "2"


def test_calling_a_deprecated_tool_notes_its_replacement() -> None:
    legacy = Catalog.from_modules(places).select(include_deprecated=True)

    outcome = legacy.invoke_sync(ToolCall("c1", "place_summary", '{"place_id": "9"}'))

    assert not outcome.is_error
    assert outcome.text.startswith("summary of 9")
    assert "deprecated" in outcome.text
    assert "get_place" in outcome.text


# -- selection ---------------------------------------------------------------------


def test_select_without_criteria_takes_every_current_tool() -> None:
    catalog = document_catalog()

    assert names(catalog.select().all()) == names(catalog.all())


def test_select_is_the_union_of_categories_and_names_plus_required_tools() -> None:
    catalog = document_catalog()

    chosen = catalog.select(categories=["notes"], names=["get_place"])

    assert names(chosen.all()) == ["get_place", "whoami", "add_note"]


def test_select_with_empty_criteria_keeps_only_required_tools() -> None:
    assert names(document_catalog().select(categories=[]).all()) == ["whoami"]


def test_select_by_toolbox_name_takes_its_current_members() -> None:
    chosen = document_catalog().select(names=["documents"])

    assert names(chosen.all()) == [
        "whoami",
        "search_documents",
        "read_document",
        "document_help",
        "document_count",
    ]


def test_select_keeps_a_deprecated_tool_named_explicitly() -> None:
    chosen = Catalog.from_modules(places).select(names=["place_summary"])

    assert "place_summary" in chosen


def test_select_can_include_deprecated_tools() -> None:
    catalog = Catalog.from_modules(places)

    assert "place_summary" not in catalog.select(categories=["places"])
    assert "place_summary" in catalog.select(categories=["places"], include_deprecated=True)


@pytest.mark.parametrize(
    ("criteria", "message"),
    [
        ({"categories": ["serach"]}, r"Unknown category 'serach'\. Categories: "),
        ({"names": ["find_place"]}, r"unknown tool or toolbox 'find_place'"),
        ({"categories": "search"}, r"categories must be a list of strings"),
    ],
)
def test_select_refuses_unknown_or_malformed_criteria(
    criteria: dict[str, Any], message: str
) -> None:
    with pytest.raises(CatalogError, match=message):
        Catalog.from_modules(places).select(**criteria)


def test_select_keeps_catalog_order_whatever_the_criteria_order() -> None:
    catalog = Catalog.from_modules(places)

    chosen = catalog.select(names=["whoami", "get_place", "search_places"])

    assert names(chosen.all()) == ["find_places", "get_place", "whoami"]


def test_a_tool_set_answers_a_call_by_alias_under_the_called_name() -> None:
    chosen: ToolSet = Catalog.from_modules(places).select(categories=["search"])

    outcome = chosen.invoke_sync(ToolCall("c1", "search_places", '{"query": "x", "limit": 1}'))

    assert outcome.value == ["x #0"]
    assert outcome.tool_name == "search_places"
    assert outcome.call_id == "c1"


async def test_a_tool_set_invokes_asynchronously() -> None:
    chosen = Catalog.from_modules(places).select()

    outcome = await chosen.invoke(ToolCall("c2", "get_place", {"place_id": "4"}))

    assert outcome.text == "place 4"


def test_specs_are_the_specs_of_the_visible_tools() -> None:
    chosen = document_catalog().select(include_selectors=True)

    assert [s.name for s in chosen.specs()] == list(chosen.names())


# -- scale -------------------------------------------------------------------------


def test_benchmark_runs_in_quick_mode() -> None:
    path = Path(__file__).parent.parent / "benchmarks" / "bench_catalog.py"
    spec = importlib.util.spec_from_file_location("bench_catalog", path)
    assert spec is not None
    assert spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    figures = bench.run(quick=True)

    assert figures["full"]["tools"] == 300
    assert figures["full"]["toolboxes"] == 6
    # Building a catalog never compiles a validator (they compile on first call).
    assert figures["full"]["validators_compiled"] == 0


def test_catalog_repr_counts_in_words() -> None:
    def one() -> None:
        """One."""

    def two() -> None:
        """Two."""

    assert repr(Catalog([one])) == "Catalog(1 tool, 0 toolboxes)"
    assert repr(Catalog([one, two])) == "Catalog(2 tools, 0 toolboxes)"
    boxed = Catalog()
    boxed.add(documents.DocumentTools, resolver=FixedResolver(documents.DocumentTools()))
    assert repr(boxed).endswith(" tools, 1 toolbox)")
