"""Tool conversations with a real model (Gemma 3 270M), through `toolcast.run`, on two servers.

Each conversation runs on llama-cpp-python's server and on upstream llama.cpp's
`llama-server` (`--jinja`), each with its profile, twice: with the server's own
tool calling, and constrained (`constrain=True`: the server generates under
`toolcast.constraint(tools)`'s grammar). What is asserted is
toolcast's side, whatever the model says: every output is handled (calls parsed,
or answered with an error result naming what is wrong; never an exception),
valid calls run, invalid ones get named errors, and toolcast's verdict agrees
with an independent JSON Schema validator. The figures (per server and mode) are
printed at the end.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import jsonschema
import pytest

from model.conftest import FIGURES
from model.tools import CONVERSATIONS, TOOLS
from toolcast import Catalog, Policy, ToolOutcome, run
from toolcast.loop import ModelRequest, ModelTurn, RunResult
from toolcast.providers import openai_chat

pytestmark = pytest.mark.model

openai = pytest.importorskip("openai")

MODES = {"native": {}, "constrained": {"constrain": True}}
SERVERS = {"llama-cpp-python": "llama_server", "llama-server": "upstream"}
"""Profile name -> the fixture that starts that server."""
SYSTEM = "You are a helpful assistant. Use the tools to answer."
NAMED = {"invalid_arguments", "unknown_tool", "tool_error"}
SPECS = {spec.name: spec for spec in (t.spec for t in Catalog(TOOLS).select().tools())}


class Timed:
    """A `Model` that times its inner model's requests and keeps its turns."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds: list[float] = []
        self.turns: list[ModelTurn] = []

    def user_message(self, text: str) -> list[dict[str, Any]]:
        return self.inner.user_message(text)  # type: ignore[no-any-return]

    def result_messages(self, outcomes: Sequence[ToolOutcome]) -> list[dict[str, Any]]:
        return self.inner.result_messages(outcomes)  # type: ignore[no-any-return]

    async def complete(self, request: ModelRequest) -> ModelTurn:
        start = time.perf_counter()
        try:
            turn: ModelTurn = await self.inner.complete(request)
        finally:
            self.seconds.append(time.perf_counter() - start)
        self.turns.append(turn)
        return turn


def schema_says_valid(name: str, arguments: Any) -> bool:
    spec = SPECS.get(name)
    if spec is None:
        return False
    try:
        value = json.loads(arguments) if isinstance(arguments, (str, bytes)) else arguments
    except ValueError:
        return False
    return bool(jsonschema.Draft202012Validator(dict(spec.input_schema)).is_valid(value))


def tally(mode: str, result: RunResult, model: Timed) -> None:
    """Add one conversation to the figures."""
    figures = FIGURES.setdefault(
        mode,
        dict.fromkeys(
            [
                "conversations",
                "requests",
                "calls_parsed",
                "calls_validated",
                "calls_ran",
                "errors_sent_back",
                "recoveries",
                "unparsed_outputs",
                "text_answers",
                "cut_off_by_server",
                "cut_off_by_budget",
            ],
            0,
        )
        | {"model_seconds": 0.0},
    )
    figures["conversations"] += 1
    figures["requests"] += len(model.seconds)
    figures["model_seconds"] = round(figures["model_seconds"] + sum(model.seconds), 1)
    figures["text_answers"] += sum(1 for t in model.turns if not t.calls)
    # A turn that ended at the token budget: its call (if any) may be cut off, whether
    # the server answered with the partial call or the parse marked it unreadable.
    figures["cut_off_by_budget"] += sum(1 for t in model.turns if t.finish_reason == "length")
    figures["seconds_per_request"] = round(figures["model_seconds"] / figures["requests"], 2)
    failed_before = False
    for record in result.calls:
        if record.id.startswith("call_cut_off"):  # no call reached toolcast: not parsed
            figures["cut_off_by_server"] += 1
            failed_before = True
            continue
        outcome = record.outcome
        assert outcome is not None
        kind = outcome.error.kind if outcome.error else None
        figures["calls_parsed"] += 1
        figures["calls_validated"] += kind not in ("invalid_arguments", "unknown_tool")
        figures["calls_ran"] += not outcome.is_error or kind == "tool_error"
        figures["errors_sent_back"] += outcome.is_error
        figures["unparsed_outputs"] += "not valid JSON" in outcome.text
        if kind is not None:
            kinds = figures.setdefault("error_kinds", {})
            kinds[kind] = kinds.get(kind, 0) + 1
        if outcome.is_error:
            failed_before = True
        elif failed_before:
            figures["recoveries"] += 1
            failed_before = False


@pytest.fixture(scope="module")
def tools() -> Any:
    return Catalog(TOOLS).select()


def base_url(request: pytest.FixtureRequest, server: str) -> str:
    """The server's URL; its fixture starts it on first use (or skips)."""
    started = request.getfixturevalue(SERVERS[server])
    return started if isinstance(started, str) else str(started.url)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize(("expected", "prompt"), CONVERSATIONS, ids=[c[0] for c in CONVERSATIONS])
@pytest.mark.parametrize("server", list(SERVERS))
async def test_a_conversation_is_handled_whatever_the_model_says(
    request: pytest.FixtureRequest, tools: Any, server: str, mode: str, expected: str, prompt: str
) -> None:
    client = openai.AsyncOpenAI(base_url=base_url(request, server), api_key="local", max_retries=0)
    adapter = openai_chat.Model(
        client, "gemma-3-270m", profile=server, temperature=0, **MODES[mode]
    )
    model = Timed(adapter)

    # llama-server answers HTTP 500 when `max_tokens` cuts a native call off mid-JSON;
    # the adapter answers that as a cut-off call and the run goes on (any other
    # server error fails the test).
    result = await run(
        model, prompt, tools=tools, policy=Policy(default="allow"), max_rounds=3, system=SYSTEM
    )
    assert result.status in ("done", "max_rounds")
    assert result.rounds == len(model.turns)
    for record in result.calls:
        outcome = record.outcome
        assert outcome is not None, f"call {record.id} was left unanswered"
        if not outcome.is_error:
            continue
        assert outcome.error is not None
        assert outcome.error.kind in NAMED, outcome.text
        assert outcome.text.strip()
        if outcome.error.kind == "invalid_arguments":
            assert record.name in outcome.text or any(
                p in outcome.text for p in SPECS[record.name].input_schema["properties"]
            )
        # Toolcast's verdict agrees with an independent validator.
        if schema_says_valid(record.name, record.arguments):
            assert outcome.error.kind != "invalid_arguments", outcome.text
    for record in result.calls:
        if schema_says_valid(record.name, record.arguments):
            assert record.outcome is not None
            assert record.outcome.error is None or record.outcome.error.kind == "tool_error"
    # The history went through the server as JSON and can be saved as such.
    json.dumps(list(result.messages))
    tally(f"{server} {mode}", result, model)


@pytest.mark.parametrize("server", list(SERVERS))
def test_constrained_calls_always_parse_and_mostly_validate(server: str) -> None:
    figures = FIGURES.get(f"{server} constrained")
    if not figures:
        pytest.skip("runs after the constrained conversations")
    assert figures["unparsed_outputs"] == 0
    assert figures["cut_off_by_budget"] == figures["cut_off_by_server"] == 0  # bounded grammar
    assert figures["calls_parsed"] > 0
    assert figures["calls_validated"] / figures["calls_parsed"] >= 0.95
