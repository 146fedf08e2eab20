"""Tool choice "auto" under constraint: a text answer beside the calls, and tool order.

Under "auto" the grammar and the JSON Schema offer `{"reply": TEXT}` beside the
calls, and `Constraint.parse` reads it (or plain text) as the answer; "required"
and a named tool offer calls only. The constrained prompt lists the tools most
relevant to the user's words first, so the order a host gave them in does not
decide which tool a model biased towards the first one listed calls (measured
with `benchmarks/accuracy.py --reverse`; figures in docs/local-models.md).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import jsonschema
import openai
import pytest

import toolcast
from toolcast import Tool, constraint
from toolcast.loop import ModelRequest
from toolcast.providers import openai_chat
from toolcast.providers._servers import by_relevance, tool_prompt


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def weather(city: str) -> str:
    """Current weather for a city."""
    return city


def convert_currency(amount: float, source: str, target: str) -> float:
    """Convert an amount of money from one currency to another."""
    return amount


TOOLS = [Tool.from_function(f) for f in (add, weather, convert_currency)]
SPECS = [t.spec for t in TOOLS]
RULE = re.compile(r"^([a-z0-9-]+) ::= (.*)$")


def rules(grammar: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in map(RULE.match, grammar.splitlines()) if m}


@pytest.mark.parametrize("budget", [None, 256])
def test_auto_offers_a_reply_beside_every_call(budget: int | None) -> None:
    c = constraint(TOOLS, text=True, max_tokens=budget)

    found = rules(c.grammar)
    assert found["root"] == "call"
    assert found["call"].split(" | ") == [
        "call-add",
        "call-weather",
        "call-convert-currency",
        "reply",
    ]
    assert found["reply"].startswith('"{" ws "\\"reply\\"" ws ":" ws ')
    check = jsonschema.Draft202012Validator(c.json_schema)
    assert check.is_valid({"reply": "No tool does that."})
    assert not check.is_valid({"reply": "x", "name": "add"})


@pytest.mark.parametrize("many", [False, True])
def test_required_offers_calls_only(many: bool) -> None:
    c = constraint(TOOLS, many=many, max_tokens=256)

    assert "reply" not in c.grammar
    assert not jsonschema.Draft202012Validator(c.json_schema).is_valid(
        [{"reply": "x"}] if many else {"reply": "x"}
    )


@pytest.mark.parametrize(
    ("output", "text"),
    [
        ('{"reply": "No tool can do that."}', "No tool can do that."),
        ('{"reply": ""}', ""),
        ("I cannot do that with these tools.", "I cannot do that with these tools."),
    ],
)
def test_a_text_answer_parses_as_text_without_calls(output: str, text: str) -> None:
    assert constraint(TOOLS, text=True).parse(output) == ([], text)


def test_a_call_still_parses_as_a_call() -> None:
    (call,), text = constraint(TOOLS, text=True).parse(
        '{"name": "add", "arguments": {"a": 1, "b": 2}}'
    )
    assert (call.name, json.loads(str(call.arguments)), text) == ("add", {"a": 1, "b": 2}, "")


def test_tools_are_listed_most_relevant_first_whatever_the_given_order() -> None:
    query = "How much is 100 US dollars in euros? Convert the currency for me."
    orders = {
        tuple(s.name for s in by_relevance(list(p), query)) for p in itertools.permutations(SPECS)
    }
    (order,) = orders
    assert order[0] == "convert_currency"
    assert by_relevance(SPECS, "Weather in Oslo today?")[0].name == "weather"
    # Nothing in common: by name, still independent of the given order.
    assert [s.name for s in by_relevance(SPECS[::-1], "xyzzy")] == sorted(s.name for s in SPECS)


def test_the_prompt_lists_tools_in_relevance_order_and_offers_the_reply() -> None:
    text = tool_prompt(None, SPECS, constrained=True, reply=True, query="weather in Oslo")
    listed = [line.split(":")[0] for line in text.splitlines() if line.startswith("- ")]
    assert listed == ["- weather", "- add", "- convert_currency"]
    assert '{"reply": TEXT}' in text
    assert '"reply"' not in tool_prompt(None, SPECS, constrained=True, reply=False)
    # Without a query (the host's own use of the helper) the given order is kept.
    plain = tool_prompt(None, SPECS[::-1], constrained=True, reply=False)
    assert [ln.split(":")[0] for ln in plain.splitlines() if ln.startswith("- ")] == [
        "- convert_currency",
        "- weather",
        "- add",
    ]


def _forms(text: str) -> list[str]:
    """The answer forms the prompt describes, in the order it describes them."""
    found = [(text.find('{"reply"'), "reply"), (text.find('{"name"'), "call")]
    return [form for at, form in sorted(found) if at >= 0]


@pytest.mark.parametrize(
    ("query", "forms"),
    [
        # A tool shares a word stem with the request: the call form is described first.
        ("What is the weather in Oslo?", ["call", "reply"]),
        ("Convert 100 dollars, the currency", ["call", "reply"]),
        # None does: the reply form comes first (a small model takes the first form).
        ("Who wrote Hamlet?", ["reply", "call"]),
        ("", ["reply", "call"]),
    ],
)
def test_the_reply_form_comes_first_only_when_no_tool_fits_the_words(
    query: str, forms: list[str]
) -> None:
    for order in itertools.permutations(SPECS):
        text = tool_prompt(None, list(order), constrained=True, reply=True, query=query)
        assert _forms(text) == forms, (query, [s.name for s in order])


def test_without_a_query_or_a_reply_the_call_form_comes_first() -> None:
    assert _forms(tool_prompt(None, SPECS, constrained=True, reply=True)) == ["call", "reply"]
    assert _forms(tool_prompt(None, SPECS, constrained=True, reply=False, query="x")) == ["call"]


class _Completions:
    def __init__(self, content: str) -> None:
        self.content = content
        self.sent: list[dict[str, Any]] = []

    async def create(self, **kwargs: Any) -> dict[str, Any]:
        self.sent.append(kwargs)
        message = {"role": "assistant", "content": self.content}
        return {"choices": [{"message": message, "finish_reason": "stop"}]}


class _Client:
    def __init__(self, content: str) -> None:
        self.completions = _Completions(content)
        self.chat = self


@pytest.mark.parametrize("choice", ["auto", "required", "weather"])
async def test_the_adapter_offers_the_reply_for_auto_only(choice: str) -> None:
    client = _Client('{"reply": "It is sunny, I think."}')
    model = openai_chat.Model(client, "gemma", profile="llama-cpp-python", constrain=True)
    messages = model.user_message("Weather in Oslo?")
    request = ModelRequest(messages=messages, tools=SPECS, tool_choice=choice)

    turn = await model.complete(request)

    (sent,) = client.completions.sent
    grammar = sent["extra_body"]["grammar"]
    system = sent["messages"][0]["content"]
    listed = [line.split(":")[0] for line in system.splitlines() if line.startswith("- ")]
    assert listed[0] == "- weather"  # the tool the question names comes first
    if choice == "auto":
        assert grammar == constraint(SPECS, text=True, max_tokens=1024).grammar
        assert '{"reply": TEXT}' in system
        assert (turn.calls, turn.text) == ((), "It is sunny, I think.")
        assert turn.message == {"role": "assistant", "content": "It is sunny, I think."}
    else:
        assert "reply" not in grammar
        assert '"reply"' not in system
    if choice == "weather":
        assert listed == ["- weather"]
        assert "call-add" not in grammar


def test_a_json_schema_profile_gets_the_reply_branch_too() -> None:
    model = openai_chat.Model(
        openai.AsyncOpenAI(api_key="t"),
        "qwen",
        profile=openai_chat.PROFILES["openai"].but(name="vllm", strict=False),
        constrain=True,
    )
    request = ModelRequest(messages=model.user_message("hi"), tools=SPECS)
    sent = model.request(request, model.constraint_for(request))
    assert '{"reply": TEXT}' in sent["messages"][0]["content"]
    assert sent["response_format"]["json_schema"]["schema"] == (
        toolcast.constraint(SPECS, text=True).json_schema
    )
