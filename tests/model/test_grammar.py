"""The constraint's GBNF against llama.cpp's real grammar parser and sampler.

Every corpus tool's grammar parses; valid calls (arguments drawn from the tool's
own schema, keys in the grammar's order) are accepted token by token; wrong
names, missing required arguments and values of the wrong type are refused.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from corpus import corpus_tools
from model.grammar import GrammarEngine
from model.tools import TOOLS
from toolcast import Tool, constraint

pytestmark = pytest.mark.model

CORPUS = corpus_tools()
DRAWABLE = [
    t
    for t in CORPUS
    if not re.search(r'"(\$ref|prefixItems)"', json.dumps(dict(t.spec.input_schema)))
]


@pytest.fixture(scope="module")
def engine(gguf: Path) -> GrammarEngine:
    pytest.importorskip("llama_cpp")
    return GrammarEngine(gguf)


def in_grammar_order(value: Any, schema: Any) -> Any:
    """`value` with object keys in the order the grammar generates them."""
    if not isinstance(schema, Mapping):
        return value
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, ()):
            if jsonschema.Draft202012Validator(branch).is_valid(value):
                return in_grammar_order(value, branch)
    if isinstance(value, dict) and "properties" in schema:
        props, required = schema["properties"], set(schema.get("required", ()))
        order = [k for k in props if k in required] + [k for k in props if k not in required]
        return {k: in_grammar_order(value[k], props[k]) for k in order if k in value}
    if isinstance(value, dict) and isinstance(schema.get("additionalProperties"), Mapping):
        return {k: in_grammar_order(v, schema["additionalProperties"]) for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [in_grammar_order(v, schema["items"]) for v in value]
    return value


def call_text(name: str, arguments: Any) -> str:
    return json.dumps(
        {"name": name, "arguments": arguments}, separators=(",", ":"), ensure_ascii=False
    )


def test_the_grammar_of_every_corpus_tool_and_of_all_at_once_parses(
    engine: GrammarEngine,
) -> None:
    assert not engine.parses("root ::= undefined-rule")
    for tool in CORPUS:
        assert engine.parses(constraint([tool]).grammar), tool.spec.name
    assert engine.parses(constraint(CORPUS, text=True).grammar)
    assert engine.parses(constraint(CORPUS, many=True).grammar)


@pytest.mark.parametrize("tool", DRAWABLE, ids=[t.spec.name for t in DRAWABLE])
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_valid_calls_are_accepted_by_the_real_sampler(
    engine: GrammarEngine, tool: Tool, data: st.DataObject
) -> None:
    schema = copy.deepcopy(tool.spec.input_schema)
    arguments = data.draw(from_schema(schema))
    assume(jsonschema.Draft202012Validator(schema).is_valid(arguments))
    assume(all(abs(n) < 10**18 for n in _numbers(arguments)))
    if '"pattern"' in json.dumps(schema):
        # ECMA-262's \d is [0-9]; Python's (hypothesis, jsonschema) takes any Unicode digit.
        assume(json.dumps(arguments, ensure_ascii=False).isascii())
    text = call_text(tool.spec.name, in_grammar_order(arguments, schema))
    assert engine.accepts(constraint([tool]).grammar, text), text


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return []


def test_recursive_and_tuple_calls_are_accepted(engine: GrammarEngine) -> None:
    grammar = constraint(CORPUS).grammar
    tree = {"label": "a", "children": [{"label": "b", "children": []}]}
    assert engine.accepts(grammar, call_text("recursive_model", {"tree": tree}))
    assert engine.accepts(grammar, call_text("tuple_fixed", {"pair": [1, "a"]}))
    assert not engine.accepts(grammar, call_text("tuple_fixed", {"pair": ["a", 1]}))


def test_what_is_not_a_valid_call_is_refused(engine: GrammarEngine) -> None:
    c = constraint([Tool.from_function(f) for f in TOOLS], text=True)
    ok = '{"name": "weather", "arguments": {"city": "Paris", "unit": "fahrenheit"}}'
    assert engine.accepts(c.grammar, ok)
    assert engine.accepts(c.grammar, '{"reply": "Hello."}')
    refused = [
        '{"name": "wether", "arguments": {"city": "Paris"}}',
        '{"name": "weather", "arguments": {"unit": "celsius"}}',
        '{"name": "weather", "arguments": {"city": "Paris", "unit": "kelvin"}}',
        '{"name": "add", "arguments": {"a": "1", "b": 2}}',
        '{"name": "add", "arguments": {"a": 1.5, "b": 2}}',
        '{"name": "add", "arguments": {"a": 1, "b": 2, "c": 3}}',
        "Sure! I will call the tool.",
    ]
    for text in refused:
        assert not engine.accepts(c.grammar, text), text


@pytest.mark.parametrize("budget", [256, 1024])
def test_every_bounded_grammar_parses_in_llama_cpp(engine: GrammarEngine, budget: int) -> None:
    for tool in CORPUS:
        assert engine.parses(constraint([tool], max_tokens=budget).grammar), tool.spec.name
    assert engine.parses(constraint(CORPUS, text=True, max_tokens=budget).grammar)
    assert engine.parses(constraint(CORPUS, many=True, max_tokens=budget).grammar)


def test_a_bounded_grammar_ends_strings_and_arrays_at_their_caps(engine: GrammarEngine) -> None:
    def tag(label: str, names: list[str]) -> str:
        return label

    c = constraint([Tool.from_function(tag)], max_tokens=256)
    (text_cap,) = {int(n.detail.split("at most ")[1].split()[0]) for n in c.notes if
                   n.keyword == "maxLength"}  # fmt: skip
    (items_cap,) = {int(n.detail.split("at most ")[1].split()[0]) for n in c.notes if
                    n.keyword == "maxItems"}  # fmt: skip
    word = "é" * text_cap  # at the cap, in two-byte characters

    assert engine.accepts(c.grammar, call_text("tag", {"label": word, "names": [word] * items_cap}))
    assert not engine.accepts(c.grammar, call_text("tag", {"label": word + "x", "names": []}))
    too_many = {"label": "a", "names": ["b"] * (items_cap + 1)}
    assert not engine.accepts(c.grammar, call_text("tag", too_many))
