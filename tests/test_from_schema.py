"""`Tool.from_schema`: a hand-written JSON Schema and a handler.

The handler receives the validated argument object as plain JSON values. Every
keyword of JSON Schema 2020-12 is honoured (the whole official suite runs in
tests/test_json_schema_suite.py); a malformed schema is refused when the tool is
defined. Decisions are checked against the `jsonschema` reference below.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolcast import Tool, ToolContext, ToolDefinitionError

SEARCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "description": "What to look for."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        "since": {"type": "string", "format": "date-time"},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "sort": {"enum": ["relevance", "date"]},
        "near": {"type": ["object", "null"], "properties": {"lat": {"type": "number"}}},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def echo(args: dict[str, Any]) -> dict[str, Any]:
    return args


def define(schema: dict[str, Any], handler: Any = echo, **metadata: Any) -> Tool:
    return Tool.from_schema("search", "Search the index.", schema, handler, **metadata)


def refused(schema: Any) -> ToolDefinitionError:
    with pytest.raises(ToolDefinitionError) as caught:
        define(schema)
    return caught.value


def wrap(prop: dict[str, Any], *, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"x": prop},
        "required": ["x"],
        "additionalProperties": False,
    }
    if defs is not None:
        schema["$defs"] = defs
    return schema


# -- the handler and the spec -------------------------------------------------------------


def test_handler_receives_the_validated_object_as_plain_json() -> None:
    received: list[Any] = []
    t = define(SEARCH, received.append)
    outcome = t.invoke_sync(
        '{"query": "tea", "limit": 5.0, "since": "2024-05-01T09:00:00Z", "tags": ["a"],'
        ' "near": {"lat": 1}}'
    )
    assert not outcome.is_error
    assert received == [
        {
            "query": "tea",
            "limit": 5,
            "since": "2024-05-01T09:00:00Z",
            "tags": ["a"],
            "near": {"lat": 1},
        }
    ]
    assert type(received[0]["limit"]) is int


def test_defaults_are_advertised_not_filled_in() -> None:
    assert define(SEARCH).validate({"query": "tea"}) == {"query": "tea"}


def test_spec_carries_the_schema_as_given() -> None:
    spec = define(SEARCH, output_schema={"type": "array"}, status="Searching").spec
    assert spec.input_schema == SEARCH
    assert list(spec.input_schema["properties"]) == list(SEARCH["properties"])
    assert spec.output_schema == {"type": "array"}
    assert (spec.name, spec.description, spec.status) == (
        "search",
        "Search the index.",
        "Searching",
    )


def test_handler_taking_two_parameters_gets_the_context() -> None:
    def handler(args: dict[str, Any], ctx: ToolContext) -> str:
        return f"{ctx.tool_name}:{ctx.call_id}:{args['query']}"

    outcome = define(SEARCH, handler).invoke_sync('{"query": "tea"}', call_id="c1")
    assert outcome.text == "search:c1:tea"


def test_async_handler_is_awaited() -> None:
    async def handler(args: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return args["query"].upper()

    assert asyncio.run(define(SEARCH, handler).invoke('{"query": "tea"}')).text == "TEA"


def test_invalid_arguments_become_an_error_result() -> None:
    outcome = define(SEARCH).invoke_sync('{"query": "", "limit": 0, "extra": 1}')
    assert outcome.is_error
    assert outcome.text == (
        "Invalid arguments for 'search' (3 problems):\n"
        "- Argument 'query' must have at least 1 character (got \"\").\n"
        "- Argument 'limit' must be greater than or equal to 1 (got 0).\n"
        "- Argument 'extra' is not accepted by 'search' (known: query, limit, since, tags, "
        "sort, near)."
    )


# -- $defs and $ref -------------------------------------------------------------------------

TREE = wrap(
    {"$ref": "#/$defs/Node"},
    defs={
        "Node": {
            "type": "object",
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["label"],
            "additionalProperties": False,
        }
    },
)


def test_recursive_references_validate_every_level() -> None:
    t = define(TREE)
    tree = {"label": "a", "children": [{"label": "b", "children": [{"label": "c"}]}]}
    assert t.validate({"x": tree}) == {"x": tree}
    with pytest.raises(ValueError, match=r"Argument 'x.children\[0\].children\[0\].label'"):
        t.validate({"x": {"label": "a", "children": [{"label": "b", "children": [{}]}]}})


def test_reference_with_sibling_keywords_applies_both() -> None:
    t = define(
        wrap({"$ref": "#/$defs/Short", "type": "string", "maxLength": 3}, defs={"Short": {}})
    )
    assert t.validate({"x": "abc"}) == {"x": "abc"}
    with pytest.raises(ValueError, match="at most 3 characters"):
        t.validate({"x": "abcd"})


def test_undefined_reference_is_refused() -> None:
    error = refused(wrap({"$ref": "#/$defs/Missing"}))
    assert error.codes == ("unsupported-ref",)
    assert error.problems[0].path == "/properties/x/$ref"
    assert "'#/$defs/Missing' cannot be resolved inside the schema" in str(error)


def test_remote_reference_is_refused() -> None:
    error = refused(wrap({"$ref": "https://example.com/schema.json"}))
    assert error.codes == ("unsupported-ref",)
    assert error.problems[0].path == "/properties/x/$ref"
    assert "toolcast does not fetch schemas" in error.problems[0].message


# -- formats --------------------------------------------------------------------------------

FORMATS: list[tuple[str, str, str]] = [
    ("date-time", "2024-05-01T09:30:00+02:00", "2024-05-01T09:30:00"),
    ("date", "2024-05-01", "2024-02-30"),
    ("time", "09:30:00Z", "09:30:00"),
    ("duration", "P1Y2M10DT2H30M", "P1DT"),
    ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
    ("email", "ann@example.com", "ann.example.com"),
    ("uri", "https://example.com/a?b=c#d", "/relative/path"),
]


@pytest.mark.parametrize(("fmt", "good", "bad"), FORMATS, ids=[f[0] for f in FORMATS])
def test_formats_are_asserted_and_values_stay_strings(fmt: str, good: str, bad: str) -> None:
    schema = wrap({"type": "string", "format": fmt})
    t = define(schema)
    reference = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    assert t.validate({"x": good}) == {"x": good}
    assert reference.is_valid({"x": good})
    with pytest.raises(ValueError, match="Argument 'x' must be"):
        t.validate({"x": bad})
    assert not reference.is_valid({"x": bad})


def test_formats_that_cannot_be_checked_are_refused() -> None:
    error = refused(wrap({"type": "string", "format": "made-up"}))
    assert error.codes == ("unsupported-format",)
    assert error.problems[0].path == "/properties/x/format"


# Before issue 10 these keywords were refused at definition; every one is now honoured.
KEYWORDS: list[tuple[dict[str, Any], Any, Any]] = [
    ({"oneOf": [{"type": "string"}, {"maxLength": 2}]}, "abc", "ab"),
    ({"allOf": [{"type": "string"}, {"maxLength": 2}]}, "ab", "abc"),
    ({"not": {"type": "string"}}, 1, "a"),
    ({"if": {"type": "string"}, "then": {"minLength": 1}}, 0, ""),
    ({"type": "object", "patternProperties": {"^a": {"type": "integer"}}}, {"ab": 1}, {"ab": "1"}),
    ({"type": "object", "propertyNames": {"maxLength": 3}}, {"abc": 1}, {"abcd": 1}),
    ({"type": "object", "dependentRequired": {"a": ["b"]}}, {"a": 1, "b": 2}, {"a": 1}),
    ({"type": "array", "contains": {"type": "integer"}}, ["a", 1], ["a"]),
    ({"type": "object", "minProperties": 1}, {"a": 1}, {}),
    ({"type": "array", "prefixItems": [{}], "unevaluatedItems": False}, [1], [1, 2]),
    ({"minLength": 1}, 5, ""),
    ({"type": "array", "prefixItems": [{"type": "integer"}] * 2}, [1], [1, "a"]),
]


@pytest.mark.parametrize(
    ("keyword", "good", "bad"),
    KEYWORDS,
    ids=lambda k: "+".join(sorted(set(k) - {"type"})) if isinstance(k, dict) else "",
)
def test_former_unsupported_keywords_are_honoured(
    keyword: dict[str, Any], good: Any, bad: Any
) -> None:
    t = define(wrap(keyword))
    reference = Draft202012Validator(wrap(keyword))
    assert t.validate({"x": good}) == {"x": good}
    assert reference.is_valid({"x": good})
    with pytest.raises(ValueError, match="Argument 'x"):
        t.validate({"x": bad})
    assert not reference.is_valid({"x": bad})


def test_the_false_schema_accepts_nothing() -> None:
    t = define({"type": "object", "properties": {"x": False}})
    assert t.validate({}) == {}
    with pytest.raises(ValueError, match="Argument 'x' is not accepted by 'search'"):
        t.validate({"x": 1})


def test_root_must_be_an_object() -> None:
    assert refused({"type": "array"}).codes == ("root-not-object",)


def test_unknown_type_is_refused() -> None:
    error = refused(wrap({"type": "frob"}))
    assert error.codes == ("invalid-schema",)
    assert error.problems[0].path == "/properties/x/type"


def test_required_names_not_in_properties_are_enforced() -> None:
    t = define({"type": "object", "required": ["q"], "additionalProperties": False})
    with pytest.raises(ValueError, match="Argument 'q' is required"):
        t.validate({})


def test_invalid_pattern_is_refused() -> None:
    assert refused(wrap({"type": "string", "pattern": "(?<=a"})).codes == ("invalid-pattern",)


def test_every_problem_is_reported_at_once() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "minLength": -1},
            "b": {"oneOf": []},
            "c": {"type": "frob"},
        },
    }
    error = refused(schema)
    assert error.codes == ("invalid-schema",) * 3
    assert [p.path for p in error.problems] == [
        "/properties/a/minLength",
        "/properties/b/oneOf",
        "/properties/c/type",
    ]
    assert str(error).startswith("search cannot become a tool (3 problems):\n")


# -- agreement with the reference validator --------------------------------------------------

RICH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pair": {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "items": False,
            "minItems": 2,
        },
        "head": {
            "type": "array",
            "prefixItems": [{"type": "integer"}],
            "items": {"type": "string"},
            "minItems": 1,
        },
        "level": {"type": "integer", "enum": [1, 2, 3], "minimum": 2},
        "kind": {"type": "string", "enum": ["a", 1]},
        "one": {"const": "x"},
        "either": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 2}]},
        "code": {"type": "string", "pattern": "^(?!tmp)[a-z]+$"},
        "scores": {"type": "object", "additionalProperties": {"type": "number"}},
        "open": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "set": {"type": "array", "uniqueItems": True},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
        "maybe": {"type": ["integer", "null"]},
    },
    "additionalProperties": False,
}

INSTANCES: list[Any] = [
    {},
    {"pair": [1, "a"]},
    {"pair": [1, "a", "b"]},
    {"pair": [1]},
    {"head": [1, "a", "b"]},
    {"head": [1, 2]},
    {"level": 2},
    {"level": 2.0},
    {"level": 1},
    {"level": 4},
    {"kind": "a"},
    {"kind": 1},
    {"one": "x"},
    {"one": "y"},
    {"either": 5},
    {"either": "ab"},
    {"either": "abc"},
    {"either": None},
    {"code": "data"},
    {"code": "tmpdata"},
    {"scores": {"a": 1, "b": 2.5}},
    {"scores": {"a": "1"}},
    {"open": {"n": 1, "other": [1]}},
    {"open": {"n": "1"}},
    {"set": [1, "1", True, None, {"a": 1}]},
    {"set": [1, 1.0]},
    {"set": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]},
    {"set": [True, 1]},
    {"ratio": 1.5},
    {"ratio": 0},
    {"ratio": 1.25},
    {"maybe": None},
    {"maybe": 1.5},
    {"unknown": 1},
]


@pytest.mark.parametrize("instance", INSTANCES, ids=[json.dumps(i) for i in INSTANCES])
def test_accepted_exactly_when_the_reference_accepts(instance: Any) -> None:
    expected = Draft202012Validator(RICH).is_valid(instance)
    try:
        define(RICH).validate(json.dumps(instance))
    except ValueError:
        accepted = False
    else:
        accepted = True
    assert accepted == expected


def test_rich_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(RICH)
    Draft202012Validator.check_schema(TREE)
