"""Constrained calls always end, and the prompt shows every parameter (issue 25).

- The schema a constrained prompt shows keeps every property, whatever its name:
  property names that are JSON Schema keywords (`title`, `additionalProperties`,
  `$schema`, ...) are names, not keywords, and are never stripped.
- Under `max_tokens` the grammar bounds every string, array, map and any-JSON
  value, and its longest output (in UTF-8 bytes, so in tokens: a token is at least
  one byte) fits the budget. The longest length is measured on the grammar text
  and checked here against outputs built to be as long as the grammar allows.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus import corpus_tools
from toolcast import Tool, constraint
from toolcast._constraint._length import longest
from toolcast.providers._servers import tool_prompt

KEYWORDS = [
    "title", "additionalProperties", "$schema", "type", "properties", "required", "items",
    "description", "default", "enum", "const", "anyOf", "$ref", "$defs", "format", "pattern",
    "minimum", "maxLength", "examples", "deprecated", "$comment", "not", "if", "then", "else",
]  # fmt: skip


def prompt_schema(tool: Tool) -> dict[str, Any]:
    text = tool_prompt(None, [tool.spec], constrained=True, reply=False)
    shown: dict[str, Any] = json.loads(text.split(" Arguments: ", 1)[1])
    return shown


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    names=st.lists(
        st.sampled_from(KEYWORDS) | st.text("abcxyz_", min_size=1, max_size=6),
        min_size=1,
        max_size=6,
        unique=True,
    ),
    nested=st.sampled_from(KEYWORDS),
)
def test_a_property_named_like_a_keyword_is_shown_in_the_constrained_prompt(
    names: list[str], nested: str
) -> None:
    inner = {"type": "object", "properties": {nested: {"type": "string", "title": "T"}}}
    properties: dict[str, Any] = {name: {"type": "string", "title": "x"} for name in names}
    properties[names[0]] = inner
    schema = {
        "type": "object",
        "title": "Args",
        "properties": properties,
        "required": names[:1],
        "additionalProperties": False,
    }
    tool = Tool.from_schema("probe", "A probe.", schema, lambda **_: None)

    shown = prompt_schema(tool)

    assert list(shown["properties"]) == names
    assert list(shown["properties"][names[0]]["properties"]) == [nested]
    assert shown["required"] == names[:1]
    # Annotations at keyword positions are still left out.
    assert "title" not in shown
    assert "title" not in shown["properties"][names[-1]] or len(names) == 1


def test_create_todo_shows_its_title_parameter() -> None:
    def create_todo(title: str, due: str | None = None, tags: list[str] | None = None) -> str:
        """Create a to-do item."""
        return title

    shown = prompt_schema(Tool.from_function(create_todo))

    assert list(shown["properties"]) == ["title", "due", "tags"]
    assert shown["required"] == ["title"]


def test_a_map_keeps_its_value_schema_in_the_prompt() -> None:
    def tally(counts: dict[str, int]) -> int:
        return sum(counts.values())

    shown = prompt_schema(Tool.from_function(tally))

    assert shown["properties"]["counts"]["additionalProperties"] == {"type": "integer"}
    assert "additionalProperties" not in shown  # the closed root's `false` is left out


# --- bounded grammars

CORPUS = corpus_tools()
RECURSIVE = {t.spec.name for t in CORPUS if '"$ref"' in json.dumps(dict(t.spec.input_schema))}


@pytest.mark.parametrize("budget", [256, 1024])
@pytest.mark.parametrize("tool", CORPUS, ids=[t.spec.name for t in CORPUS])
def test_every_corpus_grammar_fits_its_token_budget(tool: Tool, budget: int) -> None:
    found = constraint([tool], text=True, max_tokens=budget)

    if found.longest is None:
        # Only a recursive schema has no longest call, and the host is told.
        assert tool.spec.name in RECURSIVE
        assert any(n.keyword == "max_tokens" for n in found.notes)
        return
    assert longest(found.grammar) == found.longest
    over = [n for n in found.notes if n.keyword == "max_tokens"]
    assert found.longest <= budget or over, found.longest


def test_an_unbounded_grammar_says_so() -> None:
    def tag(names: list[str]) -> int:
        return len(names)

    assert longest(constraint([Tool.from_function(tag)]).grammar) is None
    assert constraint([Tool.from_function(tag)]).longest is None


def test_the_caps_are_the_largest_that_fit() -> None:
    def create_todo(title: str, due: str | None = None, tags: list[str] | None = None) -> str:
        return title

    tools = [Tool.from_function(create_todo)]
    small = constraint(tools, max_tokens=256)
    large = constraint(tools, max_tokens=2048)

    caps = [int(n.detail.split("at most ")[1].split()[0]) for n in large.notes]
    assert small.longest is not None
    assert large.longest is not None
    assert small.longest <= 256 < large.longest <= 2048
    assert min(caps) >= 1
    assert len(large.notes) == len(small.notes) == 4  # title, due, tags' items, tags
    assert all("fits its token budget" in n.detail for n in large.notes)


def test_a_schema_bound_below_the_cap_is_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 2, "maxLength": 3},
            "ids": {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
        },
        "required": ["code", "ids"],
        "additionalProperties": False,
    }
    tool = Tool.from_schema("pick", "Pick.", schema, lambda **_: None)

    found = constraint([tool], max_tokens=1024)

    assert "text-char{2,3}" in found.grammar
    assert "{0,1}" in found.grammar  # one item, then at most one more
    assert found.notes == ()


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    text=st.integers(1, 60),
    items=st.integers(1, 8),
    ascii_only=st.booleans(),
)
def test_the_measured_longest_is_reached_by_a_real_output(
    text: int, items: int, ascii_only: bool
) -> None:
    """The measure is exact: the longest output the caps allow has exactly that many bytes."""
    from toolcast._constraint._gbnf import Caps, GrammarBuilder

    schema = {"type": "array", "items": {"type": "string"}}
    builder = GrammarBuilder(Caps(text=text, items=items))
    body = builder.expression(schema, schema, "t", "", lambda *_: None)
    grammar = builder.text(body)
    char = "a" if ascii_only else "\U0001f600"  # a four-byte character
    # The longest output: every item as long as allowed, a space wherever `ws` allows.
    output = "[ " + " , ".join(['"' + char * text + '"'] * items) + " ]"

    measured = longest(grammar)

    assert measured is not None
    if ascii_only:
        assert len(output.encode()) < measured
    else:
        assert len(output.encode()) == measured
