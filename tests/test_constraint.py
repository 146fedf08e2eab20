"""`toolcast.constraint`: the JSON Schema and GBNF grammar of "a valid call to these tools".

Every corpus tool is checked: the schema is valid 2020-12, accepts calls with
arguments drawn from the tool's own schema (recursive `$defs` included) and
rejects wrong names, missing arguments and extra keys; the grammar defines every
rule it uses. The real llama.cpp grammar parser and sampler are exercised in
tests/model/test_grammar.py (the `model` suite).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

import toolcast
from corpus import corpus_tools
from toolcast import Tool, ToolSpec, constraint

CORPUS = corpus_tools()
# hypothesis-jsonschema resolves no recursive $ref and predates `prefixItems`; those
# tools are checked with explicit calls below.
DRAWABLE = [
    t
    for t in CORPUS
    if not {"$ref", "prefixItems"}
    & set(re.findall(r'"(\$ref|prefixItems)"', json.dumps(dict(t.spec.input_schema))))
]
RULE = re.compile(r"^([a-z0-9-]+) ::= (.*)$")


def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def rules(grammar: str) -> dict[str, str]:
    found = {}
    for line in grammar.splitlines():
        match = RULE.match(line)
        assert match, f"not a rule: {line!r}"
        found[match.group(1)] = match.group(2)
    return found


def test_it_is_exported() -> None:
    assert toolcast.constraint is constraint
    assert "constraint" in toolcast.__all__


@pytest.mark.parametrize("tool", DRAWABLE, ids=[t.spec.name for t in DRAWABLE])
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_corpus_tool_gets_a_schema_that_takes_its_valid_calls(
    tool: Tool, data: st.DataObject
) -> None:
    c = constraint([tool])
    check = validator(c.json_schema)
    arguments = data.draw(from_schema(copy.deepcopy(tool.spec.input_schema)))
    assume(validator(dict(tool.spec.input_schema)).is_valid(arguments))
    assert check.is_valid({"name": tool.spec.name, "arguments": arguments})
    assert not check.is_valid({"name": tool.spec.name + "x", "arguments": arguments})
    assert not check.is_valid({"name": tool.spec.name, "arguments": arguments, "extra": 1})
    if tool.spec.input_schema.get("required"):
        assert not check.is_valid({"name": tool.spec.name, "arguments": {}})


@pytest.mark.parametrize("tool", CORPUS, ids=[t.spec.name for t in CORPUS])
def test_every_corpus_tool_gets_a_grammar_whose_rules_are_all_defined(tool: Tool) -> None:
    found = rules(constraint([tool]).grammar)
    assert next(iter(found)) == "root"
    used = {
        word
        for body in found.values()
        for word in re.findall(r"(?<![\"\\\[\w-])([a-z][a-z0-9-]*)(?![\w\"])", _no_literals(body))
    }
    assert used <= set(found), used - set(found)


def _no_literals(body: str) -> str:
    body = re.sub(r'"(?:[^"\\]|\\.)*"', '""', body)
    return re.sub(r"\[(?:[^\]\\]|\\.)*\]", "[]", body)


def test_all_tools_at_once_share_one_schema_with_hoisted_defs() -> None:
    c = constraint(CORPUS, text=True)
    check = validator(c.json_schema)
    assert len(c.json_schema["anyOf"]) == len(CORPUS) + 1
    assert "recursive_model__Node" in c.json_schema["$defs"]
    tree = {"label": "a", "children": [{"label": "b", "children": []}]}
    assert check.is_valid({"name": "recursive_model", "arguments": {"tree": tree}})
    assert not check.is_valid({"name": "recursive_model", "arguments": {"tree": {"x": 1}}})
    assert check.is_valid({"reply": "Hello."})
    assert check.is_valid({"name": "tuple_fixed", "arguments": {"pair": [1, "a"]}})
    assert not check.is_valid({"name": "tuple_fixed", "arguments": {"pair": ["a", 1]}})
    assert c.names == tuple(t.spec.name for t in CORPUS)


def test_what_the_grammar_cannot_say_is_reported() -> None:
    notes = {(n.tool, n.path, n.keyword) for n in constraint(CORPUS).notes}
    assert ("int_bounds", "/properties/step", "multipleOf") in notes
    assert ("set_param", "/properties/ids", "uniqueItems") in notes
    assert ("uuid_param", "/properties/item_id", "format") in notes
    # Patterns, small integer ranges and positive numbers are generated, not noted.
    assert not {
        n for n in notes if n[0] in ("string_pattern", "duration_param") and n[2] == "pattern"
    }
    assert not {n for n in notes if n[0] == "int_bounds" and n[1] == "/properties/n"}
    lookahead = ToolSpec(
        name="odd",
        input_schema={
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^(?=A)[A-Z]+$"}},
            "required": ["code"],
            "additionalProperties": False,
        },
    )
    (note,) = constraint([lookahead]).notes
    assert (note.tool, note.path, note.keyword) == ("odd", "/properties/code", "pattern")
    enums = constraint([t for t in CORPUS if t.spec.name == "enum_param"])
    assert enums.notes == ()
    assert '"\\"red\\""' in enums.grammar


def test_many_is_a_list_of_calls() -> None:
    (weather,) = [t for t in CORPUS if t.spec.name == "one_string"]
    c = constraint([weather], many=True)
    check = validator(c.json_schema)
    call = {"name": "one_string", "arguments": {"text": "x"}}
    assert check.is_valid([call, call])
    assert not check.is_valid([])
    assert rules(c.grammar)["root"].startswith('"[" ws call')


def test_parse_reads_calls_replies_and_cut_off_output() -> None:
    c = constraint(CORPUS[:3], text=True)
    calls, text = c.parse('{"name": "one_string", "arguments": {"text": "hi"}}')
    assert [(x.name, json.loads(x.arguments)) for x in calls] == [("one_string", {"text": "hi"})]
    assert text == ""
    assert c.parse('{"reply": "Hello."}') == ([], "Hello.")
    # Cut off at the token limit: still a call, whose arguments fail as invalid JSON.
    (cut,), _ = c.parse('{"name": "one_string", "arguments": {"text": "hel')
    assert (cut.name, cut.arguments) == ("one_string", '{"text": "hel')
    assert c.parse("plain words") == ([], "plain words")
    many = constraint(CORPUS[:3], many=True).parse(
        '[{"name": "no_params", "arguments": {}}, {"name": "one_string", "arguments": {}}]'
    )
    assert [x.name for x in many[0]] == ["no_params", "one_string"]
    assert len({x.id for x in many[0]}) == 2


def test_no_tools_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one tool"):
        constraint([])
