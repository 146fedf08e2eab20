"""`x-python-type`: the original Python type on every fragment, opt-in (issue 16, item 6)."""

from __future__ import annotations

import datetime
import importlib
import json
from dataclasses import dataclass
from typing import Any

import pytest

from corpus import CORPUS
from providers.portability import COLUMNS
from toolcast import Tool, tool
from toolcast.errors import UnsupportedSchemaError

KEY = "x-python-type"


@dataclass
class Link:
    """A link."""

    url: str
    seen: datetime.datetime | None = None


def links(found: list[Link], limit: int = 3) -> dict[str, Link]:
    """Index links."""
    return {}


def _keys(value: Any) -> list[Any]:
    """Every `x-python-type` value in a JSON document, in document order."""
    found: list[Any] = []
    if isinstance(value, dict):
        for key, sub in value.items():
            if key == KEY:
                found.append(sub)
            else:
                found.extend(_keys(sub))
    elif isinstance(value, list):
        for sub in value:
            found.extend(_keys(sub))
    return found


def test_off_by_default() -> None:
    made = Tool.from_function(links)
    assert _keys(made.spec.input_schema) == []
    assert _keys(made.spec.output_schema) == []


def test_every_fragment_names_its_python_type() -> None:
    spec = Tool.from_function(links, python_types=True).spec
    properties = spec.input_schema["properties"]
    item = f"{__name__}.Link"
    assert properties["found"][KEY] == f"list[{item}]"
    assert properties["found"]["items"][KEY] == item
    seen = properties["found"]["items"]["properties"]["seen"]
    assert seen[KEY] == "datetime.datetime | None"
    assert seen["anyOf"][0][KEY] == "datetime.datetime"
    assert properties["limit"] == {"type": "integer", "default": 3, KEY: "int"}
    assert KEY not in spec.input_schema  # the argument object is no Python type
    assert spec.output_schema is not None
    assert spec.output_schema[KEY] == f"dict[str, {item}]"


def test_the_decorator_option_and_the_shared_class_cache_do_not_leak() -> None:
    @tool(python_types=True)
    def first(link: Link) -> str:
        """One."""
        return link.url

    def second(link: Link) -> str:
        """Two."""
        return link.url

    typed = Tool.from_function(first).spec.input_schema
    plain = Tool.from_function(second).spec.input_schema
    assert typed["properties"]["link"]["properties"]["url"][KEY] == "str"
    assert _keys(plain) == []


def test_validation_is_unchanged() -> None:
    made = Tool.from_function(links, python_types=True)
    ok = made.invoke_sync({"found": [{"url": "https://a"}]})
    assert not ok.is_error, ok.text
    bad = made.invoke_sync({"found": [{"url": 3}]})
    assert bad.is_error
    assert "found[0].url" in bad.text


@pytest.mark.parametrize("column", COLUMNS, ids=lambda c: c.label)
def test_every_provider_projection_strips_it(column: Any) -> None:
    module = importlib.import_module(f"toolcast.providers.{column.module}")
    projected = 0
    for fn in (*CORPUS, links):
        typed = Tool.from_function(fn, python_types=True)
        assert _keys(typed.spec.input_schema) or not typed.spec.input_schema.get("properties")
        try:
            definition = module.project(typed, **column.options).definition
        except UnsupportedSchemaError:
            continue
        projected += 1
        sent = json.loads(json.dumps(definition, default=str))
        assert KEY not in json.dumps(sent), (column.label, typed.name)
    assert projected > 0


@pytest.mark.parametrize("column", COLUMNS, ids=lambda c: c.label)
def test_every_provider_tool_list_strips_it(column: Any) -> None:
    module = importlib.import_module(f"toolcast.providers.{column.module}")
    sent = 0
    for fn in (*CORPUS, links):
        try:
            listed = module.format_tools(
                [Tool.from_function(fn, python_types=True)], **column.options
            )
        except UnsupportedSchemaError:
            continue
        sent += 1
        assert KEY not in json.dumps(listed, default=str), (column.label, fn.__name__)
    assert sent > 0


def test_the_lock_keeps_it_and_turning_it_on_is_no_contract_change() -> None:
    from toolcast import Catalog
    from toolcast._lock._document import compare_locks, lock_document

    def count(n: int, names: list[str]) -> dict[str, int]:
        """Count."""
        return {}

    before = lock_document(Catalog([count]))
    typed = Tool.from_function(count, python_types=True)
    after = lock_document(Catalog([typed]))
    entry = after["tools"]["count"]
    assert entry["input_schema"]["properties"]["names"][KEY] == "list[str]"
    assert compare_locks(before, after).changes == ()
