"""The shared schema walker: pure steps, readable notes, strict transform, guards.

Pins: inputs (even read-only FrozenDicts) are never mutated and outputs share
nothing with them; data keywords (`default`, `enum`, `const`) and property names
are never mistaken for keywords; constraints become readable sentences; `$ref`
inlining tells reuse from recursion; the strict transform reports why a schema
cannot be strict instead of turning a dict into an empty object.
"""

from __future__ import annotations

import copy
import json

import pytest

from toolcast._frozen import freeze
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers import _schema as sch
from toolcast.providers._projection import ConversionNote
from toolcast.providers._refs import inline_refs, isolate_refs
from toolcast.providers._strict import make_strict

WIDE = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "minLength": 3, "format": "uri"},
        "n": {"type": "integer", "maximum": 50, "default": 10},
        "tags": {"type": "object", "additionalProperties": {"type": "integer"}},
        "title": {"type": "string", "title": "Title", "default": {"type": "x"}},
        "node": {"$ref": "#/$defs/Leaf", "description": "A leaf"},
        "pair": {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2,
            "maxItems": 2,
        },
    },
    "required": ["q"],
    "additionalProperties": False,
    "$defs": {
        "Leaf": {
            "type": "object",
            "properties": {"v": {"type": "integer"}},
            "required": ["v"],
            "additionalProperties": False,
        }
    },
}

ALL_STEPS = [
    lambda s, n: sch.rewrite(s, lambda node, _p: node),
    lambda s, n: sch.move_to_description(s, ("minLength", "maximum", "title"), n),
    lambda s, n: sch.drop_keywords(s, ("format",), n),
    lambda s, n: sch.strip_extensions(s, n),
    lambda s, n: inline_refs(s),
    lambda s, n: isolate_refs(s),
    lambda s, n: sch.const_to_enum(s, n),
    lambda s, n: sch.one_of_to_any_of(s, n),
    lambda s, n: sch.to_nullable_keyword(s, n),
    lambda s, n: sch.widen_tuples(s, n),
    lambda s, n: sch.ensure_properties(s),
    lambda s, n: make_strict(s).schema or {},
]


def _container_ids(node: object) -> set[int]:
    found: set[int] = set()
    if isinstance(node, (dict, list)):
        found.add(id(node))
        for value in node.values() if isinstance(node, dict) else node:
            found |= _container_ids(value)
    return found


@pytest.mark.parametrize("step", ALL_STEPS)
def test_steps_accept_frozen_input_and_return_fresh_plain_dicts(step):
    frozen = freeze(copy.deepcopy(WIDE))
    before = copy.deepcopy(WIDE)
    result = step(frozen, [])
    assert frozen == before
    assert type(result) is dict
    assert not _container_ids(result) & _container_ids(frozen)


def test_walk_yields_every_subschema_with_its_pointer():
    paths = [path for path, _ in sch.walk(WIDE)]
    assert paths == [
        "",
        "/properties/q",
        "/properties/n",
        "/properties/tags",
        "/properties/tags/additionalProperties",
        "/properties/title",
        "/properties/node",
        "/properties/pair",
        "/properties/pair/prefixItems/0",
        "/properties/pair/prefixItems/1",
        "/$defs/Leaf",
        "/$defs/Leaf/properties/v",
    ]


def test_walk_never_enters_data_keywords():
    schema = {"type": "string", "default": {"type": "object"}, "enum": [{"type": "x"}]}
    assert [path for path, _ in sch.walk(schema)] == [""]


def test_pointer_escapes_slash_and_tilde():
    assert sch.pointer("", "properties", "a/b~c") == "/properties/a~1b~0c"


@pytest.mark.parametrize(
    ("keyword", "value", "sentence"),
    [
        ("maximum", 50, "Must be at most 50."),
        ("minimum", 0.5, "Must be at least 0.5."),
        ("exclusiveMinimum", 0, "Must be greater than 0."),
        ("exclusiveMaximum", 1, "Must be less than 1."),
        ("multipleOf", 5, "Must be a multiple of 5."),
        ("minLength", 3, "At least 3 characters."),
        ("minLength", 1, "At least 1 character."),
        ("maxLength", 8, "At most 8 characters."),
        ("format", "date-time", "Format: date-time."),
        ("pattern", "^[A-Z]+$", 'Must match the regular expression "^[A-Z]+$".'),
        ("minItems", 1, "At least 1 item."),
        ("maxItems", 3, "At most 3 items."),
        ("uniqueItems", True, "Items must be unique."),
        ("uniqueItems", False, ""),
        ("const", "x", 'Must be "x".'),
        ("enum", ["a", 1], 'One of: "a", 1.'),
        ("default", 10, "Default: 10."),
        ("contentEncoding", "base64", "Encoded as base64."),
        ("additionalProperties", {"type": "integer"}, "Other keys map to integer."),
        ("x-unknown", {"a": 1}, 'x-unknown: {"a": 1}.'),
    ],
)
def test_describe_says_constraints_in_words(keyword, value, sentence):
    assert sch.describe(keyword, value) == sentence


def test_move_to_description_appends_sentences_and_notes_each():
    notes: list[ConversionNote] = []
    schema = {"type": "integer", "description": "How many", "minimum": 1, "maximum": 50}
    assert sch.move_to_description(schema, ("minimum", "maximum"), notes) == {
        "type": "integer",
        "description": "How many. Must be at least 1. Must be at most 50.",
    }
    assert [(n.path, n.keyword, n.action) for n in notes] == [
        ("", "minimum", "moved_to_description"),
        ("", "maximum", "moved_to_description"),
    ]


def test_move_to_description_places_new_description_in_canonical_order():
    moved = sch.move_to_description({"type": "string", "maxLength": 4}, ("maxLength",), [])
    assert list(moved) == ["type", "description"]


def test_move_to_description_accepts_a_predicate():
    notes: list[ConversionNote] = []
    schema = {"type": "string", "format": "uri"}
    keep = {"type": "string", "format": "date"}
    pred = lambda k, v, _n: k == "format" and v != "date"  # noqa: E731
    assert sch.move_to_description(schema, pred, notes) == {
        "type": "string",
        "description": "Format: uri.",
    }
    assert sch.move_to_description(keep, pred, notes) == keep


def test_drop_keywords_leaves_property_names_alone():
    notes: list[ConversionNote] = []
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string", "title": "T"}},
    }
    assert sch.drop_keywords(schema, ("title",), notes) == {
        "type": "object",
        "properties": {"title": {"type": "string"}},
    }
    assert [(n.path, n.action) for n in notes] == [("/properties/title", "dropped")]


def test_strip_extensions_removes_vendor_keys_only():
    notes: list[ConversionNote] = []
    schema = {
        "type": "object",
        "properties": {"x-id": {"type": "string", "x-mcp-header": "Id"}},
        "x-fastmcp": True,
    }
    assert sch.strip_extensions(schema, notes) == {
        "type": "object",
        "properties": {"x-id": {"type": "string"}},
    }
    assert {n.keyword for n in notes} == {"x-mcp-header", "x-fastmcp"}


def test_inline_refs_copies_a_reused_definition_without_calling_it_recursive():
    """pydantic-ai #1667: a model used twice is not recursion."""
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/P"}, "b": {"$ref": "#/$defs/P"}},
        "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number"}}}},
    }
    inlined = inline_refs(schema)
    point = {"type": "object", "properties": {"x": {"type": "number"}}}
    assert inlined == {"type": "object", "properties": {"a": point, "b": point}}
    assert inlined["properties"]["a"] is not inlined["properties"]["b"]


def test_inline_refs_lets_sibling_annotations_refine_the_target():
    inlined = inline_refs(WIDE)
    assert inlined["properties"]["node"] == {
        "type": "object",
        "description": "A leaf",
        "properties": {"v": {"type": "integer"}},
        "required": ["v"],
        "additionalProperties": False,
    }
    assert "$defs" not in inlined


def test_inline_refs_refuses_recursion_with_the_chain_and_a_fix():
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    with pytest.raises(UnsupportedSchemaError) as info:
        inline_refs(schema, target="Gemini parameters")
    assert str(info.value) == (
        "The schema is recursive (#/$defs/Node -> #/$defs/Node, reached at "
        "/properties/tree/properties/kids/items). Gemini parameters cannot take "
        "recursive schemas: make this parameter non-recursive (e.g. cap the depth "
        "with a separate type), or use a target that supports $ref."
    )


def test_inline_refs_refuses_remote_references():
    with pytest.raises(UnsupportedSchemaError, match="never fetched"):
        inline_refs({"type": "object", "properties": {"a": {"$ref": "https://x/y"}}})


def test_inline_refs_refuses_conflicting_sibling_assertions():
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/S", "type": "integer"}},
        "$defs": {"S": {"type": "string"}},
    }
    with pytest.raises(UnsupportedSchemaError, match="sibling 'type'"):
        inline_refs(schema)


def test_isolate_refs_moves_a_ref_away_from_its_description():
    """OpenAI strict: "$ref cannot have keywords {'description'}" (PA #1488)."""
    assert isolate_refs({"$ref": "#/$defs/A", "description": "d"}) == {
        "description": "d",
        "anyOf": [{"$ref": "#/$defs/A"}],
    }
    assert isolate_refs({"$ref": "#/$defs/A"}) == {"$ref": "#/$defs/A"}


def test_const_to_enum_infers_the_type():
    notes: list[ConversionNote] = []
    assert sch.const_to_enum({"const": "on"}, notes) == {
        "type": "string",
        "enum": ["on"],
    }
    assert notes[0].action == "rewritten"


def test_one_of_to_any_of_notes_lost_exclusivity():
    notes: list[ConversionNote] = []
    result = sch.one_of_to_any_of({"oneOf": [{"type": "string"}, {"type": "integer"}]}, notes)
    assert result == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert "exactly-one" in notes[0].detail


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"type": ["string", "null"]}, {"type": "string", "nullable": True}),
        (
            {"type": ["integer", "string", "null"]},
            {"nullable": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        ),
        (
            {"description": "d", "anyOf": [{"type": "integer"}, {"type": "null"}]},
            {"type": "integer", "nullable": True, "description": "d"},
        ),
        (
            {"type": ["string", "null"], "enum": ["a", None]},
            {"type": "string", "nullable": True, "enum": ["a"]},
        ),
        ({"type": "null"}, {"type": "null"}),
    ],
)
def test_to_nullable_keyword_rewrites_null_the_openapi_way(before, after):
    assert sch.to_nullable_keyword(before, []) == after


def test_widen_tuples_keeps_length_and_order_in_words():
    notes: list[ConversionNote] = []
    pair = WIDE["properties"]["pair"]
    assert sch.widen_tuples(pair, notes) == {
        "type": "array",
        "description": "Items in order: integer, string.",
        "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "minItems": 2,
        "maxItems": 2,
    }


def test_ensure_properties_adds_an_empty_map_to_bare_objects():
    assert sch.ensure_properties({"type": "object"}) == {
        "type": "object",
        "properties": {},
    }
    assert sch.ensure_properties({"type": "string"}) == {"type": "string"}


def test_order_keys_follows_the_canonical_order_then_others_then_extensions():
    node = {"x-a": 1, "default": 1, "foo": 2, "type": "integer", "description": "d"}
    assert list(sch.order_keys(node)) == [
        "type",
        "description",
        "default",
        "foo",
        "x-a",
    ]


def test_summarize_names_types_briefly():
    assert sch.summarize({"type": "array", "items": {"type": "integer"}}) == "array of integer"
    assert sch.summarize({"type": ["string", "null"], "format": "date"}) == (
        "string (date) or null"
    )
    assert sch.summarize({}) == "any value"


class TestMakeStrict:
    def test_optional_becomes_required_and_nullable_with_default_in_words(self):
        schema = {
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "n": {"type": "integer", "default": 10},
            },
            "required": ["q"],
            "additionalProperties": False,
        }
        result = make_strict(schema)
        assert result.ok
        assert result.schema == {
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "n": {
                    "type": ["integer", "null"],
                    "description": "Defaults to 10 when null.",
                },
            },
            "required": ["q", "n"],
            "additionalProperties": False,
        }
        assert [(n.keyword, n.action) for n in result.notes] == [
            ("required", "rewritten"),
            ("default", "moved_to_description"),
        ]

    def test_already_nullable_optional_keeps_null_meaning(self):
        schema = {
            "type": "object",
            "properties": {"at": {"type": ["string", "null"], "default": "noon"}},
            "additionalProperties": False,
        }
        result = make_strict(schema)
        assert result.schema is not None
        assert result.schema["properties"]["at"] == {
            "type": ["string", "null"],
            "description": 'Default: "noon".',
        }
        assert "keeps its meaning" in result.notes[0].detail

    def test_optional_enum_gains_null_in_enum_and_type(self):
        schema = {
            "type": "object",
            "properties": {"p": {"type": "integer", "enum": [1, 2]}},
            "additionalProperties": False,
        }
        result = make_strict(schema)
        assert result.schema is not None
        assert result.schema["properties"]["p"]["enum"] == [1, 2, None]
        assert result.schema["properties"]["p"]["type"] == ["integer", "null"]

    def test_optional_ref_becomes_nullable_union(self):
        schema = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "additionalProperties": False,
            "$defs": {"A": {"type": "string"}},
        }
        result = make_strict(schema)
        assert result.schema is not None
        assert result.schema["properties"]["a"] == {
            "description": "Optional: send null to leave it out.",
            "anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}],
        }

    def test_dict_parameter_blocks_strict_instead_of_becoming_empty(self):
        """openai-python #2004: Dict[str, X] must not silently become `{}`."""
        schema = {
            "type": "object",
            "properties": {
                "counts": {
                    "type": "object",
                    "additionalProperties": {"type": "integer"},
                }
            },
            "required": ["counts"],
            "additionalProperties": False,
        }
        result = make_strict(schema)
        assert not result.ok
        assert result.schema is None
        assert [(b.path, b.keyword, b.action) for b in result.blockers] == [
            ("/properties/counts", "additionalProperties", "strict_disabled")
        ]
        assert result.blockers[0].detail == (
            "The object at /properties/counts allows free keys (values: integer); "
            "strict mode needs every key declared and would turn it into an empty "
            "object."
        )

    @pytest.mark.parametrize(
        ("prop", "keyword"),
        [
            ({}, "type"),
            ({"description": "anything"}, "type"),
            ({"type": "array"}, "items"),
            ({"type": "object"}, "additionalProperties"),
            ({"type": "object", "additionalProperties": True}, "additionalProperties"),
            ({"type": "object", "patternProperties": {"^a": {}}}, "patternProperties"),
            ({"allOf": [{"type": "string"}]}, "allOf"),
        ],
    )
    def test_unstrictable_shapes_are_reported(self, prop, keyword):
        schema = {
            "type": "object",
            "properties": {"p": prop},
            "required": ["p"],
            "additionalProperties": False,
        }
        result = make_strict(schema, forbidden=("allOf",))
        assert keyword in {b.keyword for b in result.blockers}

    def test_root_without_properties_closes_as_no_argument_object(self):
        """MCP no-argument tools often send just `{"type": "object"}`."""
        result = make_strict({"type": "object"})
        assert result.schema == {
            "type": "object",
            "properties": {},
            "required": [],
            "additionalProperties": False,
        }

    def test_root_union_is_reported(self):
        result = make_strict({"anyOf": [{"type": "object"}, {"type": "string"}]})
        assert {b.keyword for b in result.blockers} >= {"anyOf", "type"}

    def test_defaults_outside_properties_move_to_words(self):
        schema = {
            "type": "object",
            "properties": {"xs": {"type": "array", "items": {"type": "integer", "default": 0}}},
            "required": ["xs"],
            "additionalProperties": False,
        }
        result = make_strict(schema)
        assert result.schema is not None
        assert result.schema["properties"]["xs"]["items"] == {
            "type": "integer",
            "description": "Default: 0.",
        }


def test_depth_guard_fails_with_a_named_error():
    deep: dict = {"type": "string"}
    for _ in range(sch.MAX_DEPTH + 5):
        deep = {"type": "array", "items": deep}
    with pytest.raises(UnsupportedSchemaError, match="deeper than"):
        sch.rewrite(deep, lambda node, _p: node)


def test_node_budget_stops_exponential_ref_expansion():
    defs = {f"L{i}": {"anyOf": [{"$ref": f"#/$defs/L{i + 1}"}] * 4} for i in range(12)}
    defs["L12"] = {"type": "string"}
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/L0"}},
        "$defs": defs,
    }
    with pytest.raises(UnsupportedSchemaError, match="more than"):
        inline_refs(schema)


@pytest.mark.parametrize(
    "target",
    [
        "openai_chat",
        "openai_responses",
        "openai_realtime",
        "mistral",
        "ollama",
        "anthropic",
        "gemini",
        "bedrock",
        "mcp",
    ],
)
def test_editing_a_returned_definition_never_changes_the_next_projection(target: str) -> None:
    import importlib

    from corpus import corpus_tools

    module = importlib.import_module(f"toolcast.providers.{target}")
    tools = corpus_tools()[:5]
    first = module.format_tools(tools)
    before = json.dumps(first, sort_keys=True, default=str)

    def scribble(node: object) -> None:
        if isinstance(node, dict):
            for value in list(node.values()):
                scribble(value)
            node["x-scribbled"] = True
        elif isinstance(node, list):
            for value in node:
                scribble(value)

    scribble(first)
    assert json.dumps(module.format_tools(tools), sort_keys=True, default=str) == before
