"""What each target's projection tells the model to send is what toolcast accepts (issue 21).

For every one of the ten targets: hypothesis generates values the canonical schema
accepts (hypothesis-jsonschema), each is spelled as a model decoding under that
target's projection must send it (`seams.Schema.spell`: under strict, every declared
key present and null for the optional ones left out), wrapped in the target's own
response shape, read back by the target's `parse_calls` and invoked: the call must
succeed and the handler must receive what it receives for the canonical value.
A value the projection forbids must be refused by toolcast, or the projection must
list a `narrowed` note (the documented narrowings, docs/providers/index.md).

Also here: the tests named after defects 1 and 5 of issue 21.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from typing_extensions import NotRequired, TypedDict

from seams import ALL_REQUIRED, TARGETS, Schema, one_call, parameters, recording
from toolcast import Tool
from toolcast._frozen import thaw
from toolcast.providers._projection import Projection

# -- the tools -------------------------------------------------------------------------

_ADDRESS = {
    "type": "object",
    "properties": {
        "street": {"type": "string", "maxLength": 12},
        "zip": {"type": "string", "pattern": "^[0-9]{4}$"},
        "floor": {"type": "integer", "minimum": 0, "maximum": 99},
    },
    "required": ["street"],
    "additionalProperties": False,
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "weather": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "maxLength": 20},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "note": {"type": ["string", "null"], "maxLength": 10},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
    "nested": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 10},
            "filters": {
                "type": "object",
                "properties": {
                    "tag": {"type": "string", "maxLength": 8},
                    "min_score": {"type": "number", "minimum": 0, "maximum": 1},
                    "flags": {"type": "array", "items": {"type": "boolean"}, "maxItems": 3},
                },
                "additionalProperties": False,
            },
            "rows": {
                "type": "array",
                "maxItems": 3,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "label": {"type": "string", "maxLength": 6},
                        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                    },
                    "required": ["id"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    "refs": {
        "type": "object",
        "$defs": {
            "Address": _ADDRESS,
            "MaybeCode": {"type": ["string", "null"], "maxLength": 5},
        },
        "properties": {
            "home": {"$ref": "#/$defs/Address"},
            "others": {"type": "array", "items": {"$ref": "#/$defs/Address"}, "maxItems": 2},
            "code": {"$ref": "#/$defs/MaybeCode"},
        },
        "additionalProperties": False,
    },
    "union": {
        "type": "object",
        "properties": {
            "target": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"const": "user"},
                            "name": {"type": "string", "maxLength": 8},
                            "age": {"type": "integer", "minimum": 0, "maximum": 150},
                        },
                        "required": ["kind", "name"],
                        "additionalProperties": False,
                    },
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"const": "group"},
                            "size": {"type": "integer", "minimum": 1, "maximum": 9},
                        },
                        "required": ["kind"],
                        "additionalProperties": False,
                    },
                ]
            },
            "mode": {"oneOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "integer"}]},
        },
        "required": ["target"],
        "additionalProperties": False,
    },
    "open_object": {
        # No additionalProperties: the tool accepts other keys; strict closes the
        # object, which is the narrowing of defect 5.
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": 8},
            "meta": {
                "type": "object",
                "properties": {"lang": {"type": "string", "enum": ["en", "fr"]}},
            },
        },
        "required": ["title"],
    },
    "tuple": {
        "type": "object",
        "properties": {
            "point": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string", "maxLength": 4}],
                "items": False,
                "minItems": 2,
            },
            "scale": {"type": "number", "exclusiveMinimum": 0, "maximum": 10},
        },
        "required": ["point"],
        "additionalProperties": False,
    },
}


@dataclasses.dataclass
class Line:
    """One order line.

    Args:
        sku: The article.
        qty: How many.
        gift: Wrap it.
    """

    sku: str
    qty: int = 1
    gift: bool | None = None


class Shipping(TypedDict):
    """Where to ship."""

    city: str
    express: NotRequired[bool]


def order(
    lines: list[Line],
    shipping: Shipping | None = None,
    priority: Literal["low", "high"] = "low",
    coupon: str | None = None,
    note: str = "",
) -> str:
    """Place an order.

    Args:
        lines: What to order.
        shipping: Where to ship.
        priority: How soon.
        coupon: A coupon code.
        note: A note for the packer.
    """
    return "ok"


@dataclasses.dataclass
class Tree:
    """A labelled tree.

    Args:
        label: The label.
        children: Sub-trees.
        weight: A weight.
    """

    label: str
    children: list[Tree] | None = None
    weight: int = 0


def plant(tree: Tree, depth: int = 3) -> str:
    """Plant a tree.

    Args:
        tree: The tree.
        depth: How deep to dig.
    """
    return "ok"


@dataclasses.dataclass
class Case:
    """One tool under test: how it is called and what its handler was handed."""

    tool: Tool
    seen: list[Any]
    schema: dict[str, Any]


def _typed(fn: Any) -> Case:
    seen: list[Any] = []

    def handler(**kwargs: Any) -> str:
        seen.append(kwargs)
        return "ok"

    functools.update_wrapper(handler, fn)
    tool = Tool.from_function(handler)
    return Case(tool, seen, thaw(tool.spec.input_schema))


def _hand_written(name: str, schema: dict[str, Any]) -> Case:
    seen: list[Any] = []
    tool = Tool.from_schema(name, f"The {name} tool.", schema, recording(seen))
    return Case(tool, seen, schema)


@functools.cache
def cases() -> tuple[Case, ...]:
    made = [_hand_written(name, schema) for name, schema in SCHEMAS.items()]
    return (*made, _typed(order), _typed(plant))


_TREE = st.recursive(
    st.fixed_dictionaries({"label": st.text(max_size=4)}, optional={"weight": st.integers(0, 9)}),
    lambda kids: st.fixed_dictionaries(
        {"label": st.text(max_size=4)}, optional={"children": st.lists(kids, max_size=2)}
    ),
    max_leaves=4,
)


@functools.cache
def values(index: int) -> st.SearchStrategy[Any]:
    case = cases()[index]
    if case.tool.name == "plant":  # recursive: hypothesis-jsonschema cannot follow it
        return st.fixed_dictionaries({"tree": _TREE}, optional={"depth": st.integers(0, 9)})
    return from_schema(case.schema)


# -- what the handler is handed --------------------------------------------------------

COUNTS: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)


def canonical(case: Case, value: Any) -> Any:
    """What the handler receives for `value` sent as it is, without strict's nulls."""
    case.seen.clear()
    outcome = case.tool.invoke_sync(value)
    assert not outcome.is_error, (case.tool.name, value, outcome.text)
    return case.seen[-1]


def through(target: str, case: Case, sent: Any) -> tuple[bool, Any, str]:
    """(accepted, handed, message): `sent` read by the target's parse_calls, then invoked."""
    case.seen.clear()
    outcome = case.tool.invoke_sync(one_call(target, case.tool.name, sent))
    return not outcome.is_error, case.seen[-1] if case.seen else None, outcome.text


def _all_required(schema: dict[str, Any]) -> bool:
    return set(schema.get("required", ())) == set(schema.get("properties", {}))


def narrowings(projection: Projection) -> list[str]:
    return [n.detail for n in projection.notes if n.action == "narrowed"]


def _mutations(value: Any) -> Iterator[Any]:
    """Values near `value` that the canonical schema may refuse: extra keys, wrong types."""
    yield {**value, "zz_unknown": 1}
    for key, item in value.items():
        if isinstance(item, dict):
            yield {**value, key: {**item, "zz_unknown": True}}
        yield {**value, key: [item] if not isinstance(item, list) else {"x": item}}
        if isinstance(item, list) and item and isinstance(item[0], dict):
            yield {**value, key: [{**item[0], "zz_unknown": 0}, *item[1:]]}


_SCHEMAS: dict[int, tuple[Any, Schema]] = {}


def _schema_of(owner: Any, schema: Any) -> Schema:
    """One `Schema` per projection or case (the owner is kept, so its id stays its own)."""
    found = _SCHEMAS.get(id(owner))
    if found is None or found[0] is not owner:
        found = _SCHEMAS[id(owner)] = (owner, Schema(schema))
    return found[1]


def _check(target: str, case: Case, value: Any, *, mutations: int = 99) -> None:
    """The agreement property for one value; `mutations` bounds the reverse direction."""
    module = TARGETS[target]
    projection = module.project(case.tool)
    projected = _schema_of(projection, parameters(projection))
    counts = COUNTS[target]
    if target in ALL_REQUIRED and projection.definition and _all_required(projected.root):
        # Under strict every key is sent: an optional key that accepts null, left out,
        # can only be sent as null, a value (docs/providers/index.md, "Null under
        # strict"). The projection reports that narrowing; the value then compared is
        # the one with those nulls.
        filled = _schema_of(case, case.schema).with_nulls(value)
        if filled != value:
            assert narrowings(projection), (target, case.tool.name, value, projection.notes)
            counts["absence not expressible (reported narrowing)"] += 1
            value = filled
    expected = canonical(case, value)
    sent = projected.spell(value)
    if projected.accepts(sent):
        ok, handed, message = through(target, case, sent)
        assert ok, (target, case.tool.name, sent, message)
        assert handed == expected, (target, case.tool.name, sent, handed, expected)
        counts["accepted as canonical"] += 1
    else:
        # The projection forbids a value the tool accepts: a narrowing it must report.
        assert narrowings(projection), (target, case.tool.name, sent, projection.notes)
        counts["forbidden by a reported narrowing"] += 1
    for mutated in itertools.islice(_mutations(value), mutations):
        spelled = projected.spell(mutated)
        if projected.accepts(spelled):
            continue
        ok, _, _ = through(target, case, spelled)
        if ok:
            assert narrowings(projection), (target, case.tool.name, spelled, projection.notes)
            counts["reverse: accepted, reported narrowing"] += 1
        else:
            counts["reverse: refused"] += 1


@pytest.mark.parametrize("target", list(TARGETS))
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_agreement_projection_and_invoker_per_target(target: str, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(cases()) - 1), label="tool")
    value = data.draw(values(index), label="value")
    _check(target, cases()[index], value)


# The smallest calls of each tool, checked on every target whatever hypothesis draws.
MINIMAL: dict[str, dict[str, Any]] = {
    "weather": {"city": "Oslo"},
    "nested": {"query": "q", "filters": {}, "rows": [{"id": 1}]},
    "refs": {"home": {"street": "s"}, "others": [{"street": "t", "floor": 2}]},
    "union": {"target": {"kind": "group"}},
    "open_object": {"title": "t", "meta": {}},
    "tuple": {"point": [1, "a"]},
    "order": {"lines": [{"sku": "a"}], "shipping": {"city": "Oslo"}},
    "plant": {"tree": {"label": "r", "children": [{"label": "c"}]}},
}


@pytest.mark.parametrize("target", list(TARGETS))
def test_agreement_smallest_calls_of_every_tool(target: str) -> None:
    assert sorted(MINIMAL) == sorted(case.tool.name for case in cases())
    for case in cases():
        _check(target, case, MINIMAL[case.tool.name])


def test_strict_targets_are_the_four_that_require_every_property() -> None:
    tool = cases()[0].tool
    shaped = {
        target
        for target, module in TARGETS.items()
        if set(parameters(module.project(tool)).get("required", ()))
        == set(SCHEMAS["weather"]["properties"])
    }
    assert shaped == set(ALL_REQUIRED)


@pytest.fixture(scope="module", autouse=True)
def _print_counts(request: pytest.FixtureRequest) -> None:
    class Summary:
        def pytest_terminal_summary(self, terminalreporter: Any) -> None:
            for target, counts in sorted(COUNTS.items()):
                terminalreporter.write_line(f"seams agreement, {target}: {dict(counts)}")

    plugin = Summary()
    if not request.config.pluginmanager.is_registered(plugin):
        request.config.pluginmanager.register(plugin, "toolcast-seams-agreement")


# -- the defects of issue 21 in this scope ---------------------------------------------


def _case(name: str) -> Case:
    return next(case for case in cases() if case.tool.name == name)


@pytest.mark.parametrize("target", ALL_REQUIRED)
def test_defect1_strict_null_means_not_given_for_from_schema_tools(target: str) -> None:
    weather = _case("weather")
    sent = {"city": "Oslo", "unit": None, "days": None, "note": None}
    ok, handed, message = through(target, weather, sent)
    assert ok, message
    # unit and days: not given; note accepts null, so its null is a value.
    assert handed == {"city": "Oslo", "note": None}
    # At every depth: nested objects, array items, behind $ref, a union's branch.
    nested = {
        "query": "q",
        "filters": {"tag": None, "min_score": None, "flags": None},
        "rows": [{"id": 1, "label": None, "maybe": None}, {"id": 2, "label": "x", "maybe": 3}],
    }
    ok, handed, message = through(target, _case("nested"), nested)
    assert ok, message
    assert handed == {
        "query": "q",
        "filters": {},
        "rows": [{"id": 1, "maybe": None}, {"id": 2, "label": "x", "maybe": 3}],
    }
    refs = {
        "home": {"street": "s", "zip": None, "floor": None},
        "others": [{"street": "t", "zip": None, "floor": 2}],
        "code": None,
    }
    ok, handed, message = through(target, _case("refs"), refs)
    assert ok, message
    assert handed == {
        "home": {"street": "s"},
        "others": [{"street": "t", "floor": 2}],
        "code": None,
    }
    union = {"target": {"kind": "user", "name": "ann", "age": None}, "mode": None}
    ok, handed, message = through(target, _case("union"), union)
    assert ok, message
    assert handed == {"target": {"kind": "user", "name": "ann"}}
    # A null for a required property is still refused, naming it.
    ok, _, message = through(target, weather, {"city": None})
    assert not ok
    assert "'city'" in message


def test_defect1_without_the_strict_mark_null_is_checked_as_the_schema_says() -> None:
    weather = _case("weather")
    outcome = weather.tool.invoke_sync({"city": "Oslo", "unit": None})
    assert outcome.is_error
    assert "'unit'" in outcome.text
    # Targets without strict's all-required form do not mark their calls.
    for target in set(TARGETS) - set(ALL_REQUIRED):
        ok, _, message = through(target, weather, {"city": "Oslo", "unit": None})
        assert not ok, target
        assert "'unit'" in message


@pytest.mark.parametrize("target", ALL_REQUIRED)
def test_defect1_typed_tools_follow_the_same_rule(target: str) -> None:
    case = _case("order")
    sent = {
        "lines": [{"sku": "a", "qty": None, "gift": None}],
        "shipping": {"city": "Oslo", "express": None},
        "priority": None,
        "coupon": None,
        "note": None,
    }
    ok, handed, message = through(target, case, sent)
    assert ok, message
    # Left out, so Python's defaults apply (priority "low", note ""); coupon's null
    # is a value (`str | None`), and a field's default fills a dataclass (qty 1).
    assert handed == {
        "lines": [Line("a", 1, None)],
        "shipping": {"city": "Oslo"},
        "coupon": None,
    }


def test_defect1_projection_and_invoker_share_one_test_of_null() -> None:
    # A $ref to a nullable definition accepts null: strict keeps null's meaning and
    # says so (a narrowing), and the invoker keeps the null as a value.
    projection = TARGETS["openai_chat"].project(_case("refs").tool)
    (code,) = [n for n in projection.notes if n.path == "/properties/code"]
    assert code.action == "narrowed"
    assert "keeps its meaning" in code.detail
    (zip_note,) = [n for n in projection.notes if n.path == "/$defs/Address/properties/zip"]
    assert zip_note.action == "rewritten"
    assert "null means leaving it out" in zip_note.detail


@pytest.mark.parametrize("target", ["openai_chat", "openai_responses", "mistral", "anthropic"])
def test_defect5_closing_an_open_object_is_reported_as_narrowed(target: str) -> None:
    case = _case("open_object")
    projection = TARGETS[target].project(case.tool)
    assert projection.strict
    closing = [n for n in projection.notes if n.keyword == "additionalProperties"]
    assert {n.path for n in closing} == {"", "/properties/meta"}
    assert {n.action for n in closing} == {"narrowed"}
    assert all("only the declared keys" in n.detail for n in closing)
    # It is a narrowing: the tool takes a key the projection forbids the model to send.
    extra = {"title": "t", "extra": 1}
    assert case.tool.invoke_sync(extra).is_error is False
    assert not Schema(parameters(projection)).accepts(Schema(parameters(projection)).spell(extra))
    # A closed object stays unreported: closing it changes nothing.
    weather = TARGETS[target].project(_case("weather").tool)
    assert not [n for n in weather.notes if n.keyword == "additionalProperties"]


def _nested_unions(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {
        "type": "object",
        "properties": {"leaf": {"type": "integer"}},
    }
    for level in range(depth):
        node = {
            "anyOf": [
                node,
                {"type": "object", "properties": {f"k{level}": {"type": "string"}}},
            ]
        }
    return {"type": "object", "properties": {"x": node, "n": {"type": "integer"}}}


def test_defect1_null_walk_cost_grows_linearly_with_nested_unions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolcast._define import _nulls

    looks = collections.Counter[int]()
    fits = _nulls._fits

    def counted(value: Any, node: Any) -> bool:
        looks[depth] += 1
        return fits(value, node)

    monkeypatch.setattr(_nulls, "_fits", counted)
    for depth in (8, 16):
        schema = _nested_unions(depth)
        tool = Tool.from_schema("deep", "Deep.", schema, lambda args: args)
        outcome = tool.invoke_sync({"x": {"leaf": None}, "n": None}, null_means_default=True)
        assert not outcome.is_error, outcome.text
        assert outcome.text == '{"x":{}}'
    # Twice the nesting, about twice the looks: not (branches + 1) ** depth.
    assert looks[16] <= 3 * looks[8], looks


def test_defect1_null_walk_stops_on_a_reference_cycle() -> None:
    schema = {
        "type": "object",
        "properties": {"next": {"$ref": "#"}, "n": {"type": "integer"}},
        "$defs": {"loop": {"$ref": "#/$defs/loop"}},
    }
    tool = Tool.from_schema("chain", "Chain.", schema, lambda args: args)
    outcome = tool.invoke_sync(
        {"n": None, "next": {"n": None, "next": {"n": 1}}}, null_means_default=True
    )
    assert not outcome.is_error, outcome.text
    assert outcome.text == '{"next":{"next":{"n":1}}}'
