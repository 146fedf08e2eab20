"""What defining a tool keeps and what it skips, with behaviour unchanged.

Pins: a built tool holds no pydantic-core schema (its first call walks again and
compiles, the large-argument validator too); string annotations with quoted
`Literal` values or `Field(description='...')` take the fast path and give the same
schema, and a quoted forward reference still resolves; read-only schemas are not
copied again, small fragments and a shared class's schema are one object across
tools, and sharing never merges values that JSON writes differently; a class marked
`@envelope` after another tool read its fields is still seen.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import types
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from toolcast import Tool, envelope
from toolcast._define._function import _plain_hints
from toolcast._frozen import FrozenDict, FrozenList, freeze


@dataclasses.dataclass
class Point:
    """A point."""

    x: int
    y: int


@dataclasses.dataclass
class Inner:
    value: int


@dataclasses.dataclass
class Outer:
    inner: Inner


def _core_schemas(root: object) -> list[dict[str, Any]]:
    """pydantic-core schema dicts reachable from `root` through plain containers and
    toolcast's own objects (functions, classes and modules are not followed)."""
    found: list[dict[str, Any]] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(
            obj, (types.FunctionType, types.ModuleType, type, types.MethodType)
        ):
            continue
        seen.add(id(obj))
        if isinstance(obj, dict) and obj.get("type") in ("typed-dict", "function-after"):
            found.append(obj)
        if isinstance(obj, (dict, list, tuple)) or type(obj).__module__.startswith("toolcast"):
            stack.extend(gc.get_referents(obj))
    return found


def locate(values: list[int], near: Point | None = None) -> int:
    """Count values."""
    return len(values)


def test_built_tool_holds_no_core_schema_and_its_first_call_still_validates() -> None:
    tool = Tool.from_function(locate)
    assert _core_schemas(tool) == []
    assert tool.validate('{"values": [1, 2], "near": {"x": 1, "y": 2}}') == {
        "values": [1, 2],
        "near": Point(1, 2),
    }
    with pytest.raises(ValueError, match=r"values\[1\]"):
        tool.validate('{"values": [1, "x"]}')


def test_large_arguments_get_the_fail_fast_report_after_the_rewalk() -> None:
    tool = Tool.from_function(locate)
    tool.validate('{"values": []}')  # compiles the ordinary validator first
    big = json.dumps({"values": [*range(6000), "x"]})
    with pytest.raises(ValueError, match=r"values\[6000\].*checked up to its first bad item"):
        tool.validate(big)


def quoted(
    order: Literal["asc", "desc"],
    query: Annotated[str, Field(description="What to look for.")],
    points: list[Point],
) -> None:
    """Search."""


def forward(points: list["Point"]) -> None:  # noqa: UP037 - a quoted name on purpose
    """Search."""


def test_quoted_literals_and_field_descriptions_take_the_fast_path() -> None:
    hints = _plain_hints(quoted)
    assert hints is not None
    assert hints["order"] == Literal["asc", "desc"]
    assert Tool.from_function(quoted).spec.input_schema["properties"] == {
        "order": {"type": "string", "enum": ["asc", "desc"]},
        "query": {"type": "string", "description": "What to look for."},
        "points": {
            "type": "array",
            "items": {
                "type": "object",
                "description": "A point.",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                "required": ["x", "y"],
                "additionalProperties": False,
            },
        },
    }


def test_a_quoted_forward_reference_falls_back_and_resolves() -> None:
    assert _plain_hints(forward) is None
    items = Tool.from_function(forward).spec.input_schema["properties"]["points"]["items"]
    assert items["properties"] == {"x": {"type": "integer"}, "y": {"type": "integer"}}


def test_freezing_a_read_only_schema_again_returns_it() -> None:
    frozen = freeze({"type": "object", "properties": {"a": {"type": "integer"}}, "x": [1]})
    assert freeze(frozen) is frozen


def test_a_read_only_dict_holding_a_mutable_list_is_frozen_all_the_way() -> None:
    made = freeze(FrozenDict({"enum": [1, 2]}))
    assert isinstance(made["enum"], FrozenList)
    with pytest.raises(TypeError):
        made["enum"].append(3)


def test_small_fragments_are_shared_and_still_read_only() -> None:
    first, second = freeze({"type": "string"}), freeze({"type": "string"})
    assert first is second
    with pytest.raises(TypeError):
        first["type"] = "integer"
    described = {"type": "string", "description": "One tool's own words."}
    assert freeze(described) is not freeze(described)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"minimum": 0.0}, {"minimum": -0.0}),
        ({"const": 1}, {"const": True}),
        ({"const": 1}, {"const": 1.0}),
        ({"items": {"type": "string"}}, {"items": {"type": "integer"}}),
    ],
)
def test_sharing_never_merges_fragments_json_writes_differently(
    one: dict[str, Any], other: dict[str, Any]
) -> None:
    assert json.dumps(freeze(one)) == json.dumps(one)
    assert json.dumps(freeze(other)) == json.dumps(other)


def near_a(point: Point) -> None:
    """A."""


def near_b(point: Point, label: str) -> None:
    """B."""


def test_a_class_used_by_two_tools_is_one_read_only_schema() -> None:
    a = Tool.from_function(near_a).spec.input_schema["properties"]["point"]
    b = Tool.from_function(near_b).spec.input_schema["properties"]["point"]
    assert a == b
    assert a["properties"] is b["properties"]


def first_outer() -> Outer:
    return Outer(Inner(1))


def second_outer() -> Outer:
    return Outer(Inner(2))


def test_an_envelope_mark_added_later_is_seen_through_remembered_fields() -> None:
    assert Tool.from_function(first_outer).spec.envelope is False
    envelope(Inner)
    try:
        assert Tool.from_function(second_outer).spec.envelope is True
    finally:
        del Inner.__toolcast_envelope__  # type: ignore[attr-defined]


def test_a_compiled_validator_keeps_no_copy_of_its_schema_and_a_tool_is_never_copied() -> None:
    import copy

    def order(sku: str, qty: int) -> str:
        return sku * qty

    tool = Tool.from_function(order)
    assert tool.invoke_sync('{"sku": "a", "qty": 2}').text == "aa"
    # The schema dict pydantic-core was compiled from is emptied (it would only serve
    # to pickle the validator); validation goes on from the compiled form.
    parser = tool._get_parser(False)
    assert parser._validator.__reduce__()[1][0] == {}
    assert parser._validator.validate_json('{"sku": "b", "qty": 1}') == {"sku": "b", "qty": 1}
    assert tool.invoke_sync('{"sku": "a", "qty": "2"}').is_error
    assert copy.deepcopy(tool) is tool
    assert copy.deepcopy({"tools": [tool]})["tools"][0] is tool
