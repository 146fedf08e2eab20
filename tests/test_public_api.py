"""The public surface: `__all__` sorted and complete, and `ToolSpec` truly immutable.

Users import only from `toolcast` (and its public namespaces `toolcast.errors`,
`toolcast.typing`); everything in a `_private` module is an implementation detail.
"""

from __future__ import annotations
import __future__

import copy
import dataclasses
import importlib
import json
import pickle
import types
from typing import Any

import pytest

import toolcast
from toolcast import Tool, ToolSpec, tool

PUBLIC_NAMESPACES = ["toolcast", "toolcast.errors", "toolcast.typing"]

ISSUE_2_NAMES = [
    "tool",
    "Tool",
    "ToolSpec",
    "ToolOutcome",
    "ToolContext",
    "ToolError",
    "ToolDefinitionError",
]


def public_attributes(module: types.ModuleType) -> set[str]:
    """Names a user would take for API: not private, not modules, not `__future__` flags."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and not isinstance(value, __future__._Feature)
    }


# -- __all__ ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", PUBLIC_NAMESPACES)
def test_all_is_sorted(name: str) -> None:
    exported = list(importlib.import_module(name).__all__)
    assert exported == sorted(exported)


@pytest.mark.parametrize("name", PUBLIC_NAMESPACES)
def test_all_has_no_duplicates(name: str) -> None:
    exported = list(importlib.import_module(name).__all__)
    assert len(exported) == len(set(exported))


@pytest.mark.parametrize("name", PUBLIC_NAMESPACES)
def test_every_name_in_all_is_importable(name: str) -> None:
    module = importlib.import_module(name)
    for exported in module.__all__:
        assert hasattr(module, exported), f"{name}.{exported} is in __all__ but missing"
    namespace: dict[str, Any] = {}
    exec(f"from {name} import *", namespace)
    assert set(module.__all__) <= set(namespace)


def test_the_top_level_all_is_complete() -> None:
    assert public_attributes(toolcast) == set(toolcast.__all__)


@pytest.mark.parametrize("name", PUBLIC_NAMESPACES)
def test_all_exports_no_private_names_or_modules(name: str) -> None:
    module = importlib.import_module(name)
    for exported in module.__all__:
        assert not exported.startswith("_")
        assert not isinstance(getattr(module, exported), types.ModuleType)


@pytest.mark.parametrize("name", ISSUE_2_NAMES)
def test_the_names_issue_2_fixes_are_exported(name: str) -> None:
    assert name in toolcast.__all__
    assert getattr(toolcast, name) is not None


def test_the_exception_tree_is_rooted_at_toolcast_error() -> None:
    errors = importlib.import_module("toolcast.errors")
    for exported in errors.__all__:
        value = getattr(errors, exported)
        if isinstance(value, type) and issubclass(value, BaseException):
            assert issubclass(value, toolcast.ToolcastError)
    assert issubclass(toolcast.ToolDefinitionError, TypeError)


def test_public_names_report_the_public_module() -> None:
    leaks = {
        name: getattr(toolcast, name).__module__
        for name in toolcast.__all__
        if getattr(toolcast, name).__module__.startswith("toolcast._")
    }
    assert leaks == {}


def test_dir_shows_only_the_api() -> None:
    assert {name for name in dir(toolcast) if not name.startswith("__")} == set(toolcast.__all__)


# -- ToolSpec is frozen -------------------------------------------------------------


@tool(aliases=["find"], categories=["search"], extra={"owner": {"team": "a"}})
def search(query: str, tags: list[str] | None = None) -> list[str]:
    """Search the index."""
    return [query]


@pytest.fixture
def spec() -> ToolSpec:
    return Tool.from_function(search).spec


def test_toolspec_attributes_cannot_be_reassigned(spec: ToolSpec) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.input_schema = {}  # type: ignore[misc]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda s: s.input_schema.__setitem__("type", "array"),
        lambda s: s.input_schema.pop("required"),
        lambda s: s.input_schema.update({"x": 1}),
        lambda s: s.input_schema.setdefault("x", 1),
        lambda s: s.input_schema.clear(),
        lambda s: s.input_schema.__delitem__("type"),
        lambda s: s.input_schema["properties"]["query"].__setitem__("type", "integer"),
        lambda s: s.input_schema["required"].append("tags"),
        lambda s: s.input_schema["required"].__setitem__(0, "tags"),
        lambda s: s.input_schema["properties"]["tags"]["type"].remove("null"),
        lambda s: s.output_schema.__setitem__("type", "object"),
        lambda s: s.output_schema["items"].__setitem__("type", "integer"),
        lambda s: s.extra.__setitem__("owner", "b"),
        lambda s: s.extra["owner"].__setitem__("team", "b"),
    ],
)
def test_toolspec_schemas_are_read_only(spec: ToolSpec, mutate: Any) -> None:
    before = copy.deepcopy(spec.input_schema), copy.deepcopy(spec.output_schema)
    with pytest.raises(TypeError, match="read-only"):
        mutate(spec)
    assert (spec.input_schema, spec.output_schema) == before


def test_in_place_operators_on_schema_parts_are_refused(spec: ToolSpec) -> None:
    required = spec.input_schema["required"]
    with pytest.raises(TypeError):
        required += ["tags"]
    schema = spec.input_schema
    with pytest.raises(TypeError):
        schema |= {"x": 1}
    assert spec.input_schema["required"] == ["query"]


def test_deepcopy_of_a_schema_is_plain_and_mutable(spec: ToolSpec) -> None:
    schema = copy.deepcopy(spec.input_schema)
    assert type(schema) is dict
    assert type(schema["properties"]) is dict
    assert type(schema["required"]) is list
    schema["properties"]["query"]["type"] = "integer"
    schema["required"].append("tags")
    assert spec.input_schema["properties"]["query"] == {"type": "string"}
    assert spec.input_schema["required"] == ["query"]


def test_a_shallow_copy_of_a_schema_is_a_plain_dict(spec: ToolSpec) -> None:
    schema = copy.copy(spec.input_schema)
    assert type(schema) is dict
    schema["type"] = "array"
    assert spec.input_schema["type"] == "object"


def test_read_only_schemas_still_behave_as_json(spec: ToolSpec) -> None:
    assert isinstance(spec.input_schema, dict)
    assert json.loads(json.dumps(spec.input_schema)) == spec.input_schema
    assert spec.input_schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    restored = pickle.loads(pickle.dumps(spec.input_schema))
    assert type(restored) is dict
    assert restored == spec.input_schema


def test_a_toolspec_is_hashable_and_copies_compare_equal(spec: ToolSpec) -> None:
    assert {spec: 1}[spec] == 1
    assert Tool.from_function(search).spec.input_schema == spec.input_schema


def test_defect_7_two_equal_toolspecs_hash_equally(spec: ToolSpec) -> None:
    # Two specs built independently, not one spec twice.
    again = Tool.from_function(search).spec
    assert again is not spec
    assert again.input_schema is not spec.input_schema
    assert again == spec
    assert hash(again) == hash(spec)
    assert {spec: 1}[again] == 1
    schema = {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}}
    reordered = {
        "properties": {"n": {"type": "integer"}, "q": {"type": "string"}},
        "type": "object",
    }
    first = Tool.from_schema("find", "Find.", schema, len).spec
    second = Tool.from_schema("find", "Find.", reordered, len).spec
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second, spec, again}) == 2
    assert hash(dataclasses.replace(first, description="Other.")) != hash(first)


def test_from_schema_does_not_keep_the_callers_schema_object() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    spec = Tool.from_schema("find", "Find.", schema, lambda args: args).spec
    schema["properties"]["q"]["type"] = "integer"
    assert spec.input_schema["properties"]["q"] == {"type": "string"}
    with pytest.raises(TypeError):
        spec.input_schema["properties"]["q"]["type"] = "integer"


def test_changing_a_spec_extra_cannot_leak_into_other_tools() -> None:
    first = Tool.from_function(search).spec
    second = Tool.from_function(search).spec
    with pytest.raises(TypeError):
        first.extra["owner"] = "b"  # type: ignore[index]
    assert second.extra == {"owner": {"team": "a"}}


def test_dataclasses_replace_gives_a_new_frozen_spec(spec: ToolSpec) -> None:
    renamed = dataclasses.replace(spec, name="find_docs")
    assert renamed.name == "find_docs"
    assert spec.name == "search"
    assert renamed.input_schema is spec.input_schema


# -- toolcast.temporal (the `temporal` extra) -------------------------------------------


def test_the_temporal_surface_is_pinned() -> None:
    pytest.importorskip("temporalio")
    import toolcast.temporal as tt

    assert tt.__all__ == (
        "RunFailedError",
        "RunHandle",
        "ToolcastPlugin",
        "ToolcastRun",
        "WORKFLOW",
        "get_run",
        "start_run",
    )
    assert issubclass(tt.RunFailedError, toolcast.ToolcastError)
    assert {n for n in dir(tt) if not n.startswith("_")} >= set(tt.__all__)


def test_idempotent_is_a_tool_option_and_a_spec_field() -> None:
    @tool(idempotent=True)
    def again(x: int) -> int:
        """Safe to repeat."""
        return x

    assert Tool.from_function(again).spec.idempotent is True
    assert Tool.from_function(search).spec.idempotent is False


def test_an_idempotent_tool_is_served_to_mcp_with_idempotent_hint() -> None:
    from toolcast.providers import mcp

    @tool(idempotent=True)
    def again(x: int) -> int:
        """Safe to repeat."""
        return x

    assert mcp.format_tools([Tool.from_function(again)])[0]["annotations"] == {
        "idempotentHint": True
    }
    assert "annotations" not in mcp.format_tools([Tool.from_function(search)])[0] or (
        "idempotentHint" not in mcp.format_tools([Tool.from_function(search)])[0]["annotations"]
    )


def test_long_running_is_a_tool_option_a_spec_field_and_in_the_lock() -> None:
    from toolcast import Catalog
    from toolcast._lock._document import compare_locks, lock_document

    @tool(long_running=True)
    def report(quarter: str) -> str:
        """Takes minutes."""
        return quarter

    @tool
    def report_now(quarter: str) -> str:  # the same contract, not long-running
        """Takes minutes."""
        return quarter

    slow = Tool.from_function(report)
    fast = Tool.from_function(report_now, name="report")
    assert slow.spec.long_running is True
    assert fast.spec.long_running is False
    schema_tool = Tool.from_schema("s", "", {"type": "object"}, lambda **_: None, long_running=True)
    assert schema_tool.spec.long_running is True
    changes = compare_locks(lock_document(Catalog([fast])), lock_document(Catalog([slow]))).changes
    assert [(c.kind, c.breaking) for c in changes] == [("metadata-changed", False)]
    assert "long_running false -> true" in changes[0].message
