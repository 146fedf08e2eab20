"""Real tool definitions nobody here wrote: the Berkeley Function Calling Leaderboard (issue 21).

tests/data/bfcl/corpus.json.gz (Apache-2.0; source and conversion in its README and in
tests/bfcl_corpus.py) holds 3,420 deduplicated function definitions and 3,198
ground-truth calls. Here, in the default suite:

- every definition is defined with `Tool.from_schema`, or refused with a real reason
  (counted by problem code);
- every projection, for every target with an SDK type, is read by that SDK's type;
- the agreement property (tests/test_seams_agreement.py) holds on every defined tool
  and target, for a few values per tool built from its schema;
- the same, and a hypothesis property, on the 37 tools of four MCP servers published
  on npm (tests/data/mcp_servers_tools.json, MIT: their `tools/list`, captured once);
- every ground-truth call, spelled as each strict target's model must send it, is
  read by the target's `parse_calls` and accepted, and the handler receives the
  canonical arguments.

No known exceptions: the OpenAPI numeric formats (`float`, `double`, `int32`,
`int64`: issue 21's defect 2, 506 of these definitions before it was fixed) are
defined like every other schema. Counts are printed at the end of the run.
"""

from __future__ import annotations

import collections
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic.types as anthropic_types
import botocore.session
import jsonschema_rs
import mcp.types as mcp_types
import pytest
from botocore.validate import ParamValidator
from google.genai import types as genai_types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from mistralai.client.models import Tool as MistralTool
from openai.types.chat import ChatCompletionToolUnionParam
from openai.types.realtime import RealtimeFunctionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

from bfcl_calls import arguments
from bfcl_corpus import corpus, to_json_schema
from seams import ALL_REQUIRED, TARGETS, one_call, parameters, recording
from test_seams_agreement import Case, _check, _schema_of, narrowings
from toolcast import Tool
from toolcast.errors import ToolDefinitionError

COUNTS: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
# Problem codes a refusal may carry (docs/errors.md); any other fails the test.
REAL_REASONS = {
    "invalid-name",
    "invalid-schema",
    "invalid-pattern",
    "unsupported-ref",
    "unsupported-dialect",
    "root-not-object",
}


def _define(name: str, description: str, schema: dict[str, Any], seen: list[Any]) -> Any:
    """The tool, or the problems (each with a message) `from_schema` refuses it for."""
    try:
        return Tool.from_schema(name, description, schema, recording(seen))
    except ToolDefinitionError as exc:
        problems = exc.problems
    assert problems
    assert all(problem.message for problem in problems)
    return problems


@functools.cache
def defined() -> tuple[dict[int, Case], collections.Counter[str]]:
    """The corpus' tools by definition index, and the refusals by reason."""
    tools: dict[int, Case] = {}
    refused: collections.Counter[str] = collections.Counter()
    for index, entry in enumerate(corpus()["functions"]):
        name, description, schema = to_json_schema(entry["function"])
        seen: list[Any] = []
        tool = _define(name, description, schema, seen)
        if not isinstance(tool, Tool):
            codes = {problem.code for problem in tool}
            assert codes <= REAL_REASONS, (name, tool)
            refused["+".join(sorted(codes))] += 1
            continue
        tools[index] = Case(tool, seen, schema)
    return tools, refused


def test_corpus_is_large_and_every_definition_is_defined_or_refused_for_a_reason() -> None:
    data = corpus()
    assert data["license"] == "Apache-2.0"
    assert len(data["functions"]) >= 1000
    tools, refused = defined()
    counts = COUNTS["definitions"]
    counts["functions"] = len(data["functions"])
    counts["defined"] = len(tools)
    counts.update(refused)
    assert len(tools) + sum(refused.values()) == len(data["functions"])
    assert counts["defined"] >= 1000


# -- the SDKs read every projection ----------------------------------------------------

_CONVERSE = (
    botocore.session.get_session()
    .get_service_model("bedrock-runtime")
    .operation_model("Converse")
    .input_shape
)


def _typed_dicts(adapter: TypeAdapter[Any], definitions: list[Any]) -> None:
    read = adapter.dump_python(
        adapter.validate_python(definitions), mode="json", exclude_unset=True
    )
    assert read == definitions


def _models(model: Any, definitions: list[Any], **dump: Any) -> None:
    for definition in definitions:
        read = model.model_validate(definition).model_dump(by_alias=True, exclude_none=True, **dump)
        assert read == definition, definition.get("name")


def _bedrock(definitions: list[Any]) -> None:
    request = {
        "modelId": "anthropic.claude-sonnet-4-5",
        "messages": [{"role": "user", "content": [{"text": "Go."}]}],
        "toolConfig": {"tools": definitions},
    }
    report = ParamValidator().validate(request, _CONVERSE)
    assert not report.has_errors(), report.generate_report()[:2000]


def _ollama(definitions: list[Any]) -> None:
    types = pytest.importorskip("ollama._types")
    _models(types.Tool, definitions)


SDK_CHECKS: dict[str, Any] = {
    "openai_chat": functools.partial(_typed_dicts, TypeAdapter(list[ChatCompletionToolUnionParam])),
    "openai_responses": functools.partial(_typed_dicts, TypeAdapter(list[FunctionToolParam])),
    "openai_realtime": functools.partial(
        _typed_dicts, TypeAdapter(list[RealtimeFunctionToolParam])
    ),
    "anthropic": functools.partial(_typed_dicts, TypeAdapter(list[anthropic_types.ToolParam])),
    "gemini": functools.partial(_models, genai_types.FunctionDeclaration, mode="json"),
    "bedrock": _bedrock,
    "mistral": functools.partial(_models, MistralTool),
    "ollama": _ollama,
    "mcp": functools.partial(_models, mcp_types.Tool, mode="json"),
}


@pytest.mark.parametrize("target", list(TARGETS))
def test_every_corpus_projection_is_read_by_the_sdk_type(target: str) -> None:
    tools, _ = defined()
    definitions = [dict(TARGETS[target].project(case.tool).definition) for case in tools.values()]
    definitions += [dict(TARGETS[target].project(case.tool).definition) for case in mcp_cases()]
    check = SDK_CHECKS.get(target)
    if check is None:  # hermes: text in a prompt, no SDK type
        COUNTS["sdk types"][f"{target} (no SDK type)"] = len(definitions)
        return
    check(definitions)
    COUNTS["sdk types"][target] = len(definitions)


# -- the agreement property on every tool ----------------------------------------------


def _sample(schema: Any, full: bool, depth: int = 0) -> Any:
    """A small value of a BFCL-shaped schema: required keys only, or every key (`full`)."""
    if not isinstance(schema, dict) or depth > 6:
        return "x"
    if schema.get("enum"):
        return schema["enum"][-1 if full else 0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        keys = list(props) if full else list(schema.get("required") or ())
        return {k: _sample(props.get(k), full, depth + 1) for k in keys if k in props}
    if kind == "array":
        items = schema.get("items")
        count = max(int(schema.get("minItems", 1 if full else 0)), 0)
        return [_sample(items, full, depth + 1) for _ in range(min(count, 3))]
    if kind == "string" and schema.get("format") in _FORMATTED:
        return _FORMATTED[schema["format"]]
    return {"integer": 2, "number": 0.5, "boolean": True, "null": None}.get(kind, "x")


_FORMATTED = {
    "date": "2024-01-31",
    "date-time": "2024-01-31T12:00:00Z",
    "time": "12:00:00Z",
    "email": "ann@example.com",
    "uri": "https://example.com/a",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "ipv4": "192.0.2.1",
    "hostname": "example.com",
}


def _values(case: Case) -> Iterator[Any]:
    validator = jsonschema_rs.validator_for(case.schema, validate_formats=True)
    for full in (False, True):
        value = _sample(case.schema, full)
        if validator.is_valid(value):
            yield value
        else:
            COUNTS["agreement values"]["schema too tight for the sampler (skipped)"] += 1


@pytest.mark.parametrize("target", list(TARGETS))
def test_agreement_on_every_corpus_tool(target: str) -> None:
    tools, _ = defined()
    checked = 0
    for position, case in enumerate(tools.values()):
        # Forward on both values; the reverse direction on the first value: an
        # unknown key for every tool, a wrong type too for every fourth (the budget).
        for number, value in enumerate(_values(case)):
            reverse = 0 if number else (2 if position % 4 == 0 else 1)
            _check(target, case, value, mutations=reverse)
            checked += 1
    COUNTS["agreement values"][target] = checked
    assert checked >= 2 * 1000


# -- the tool lists of published MCP servers ------------------------------------------

MCP_DATA = Path(__file__).parent / "data" / "mcp_servers_tools.json"


@functools.cache
def mcp_cases() -> tuple[Case, ...]:
    """The captured `tools/list` of npm MCP servers, as `tools_from_session` defines them."""
    made = []
    for server in json.loads(MCP_DATA.read_text("utf-8"))["servers"]:
        for remote in server["tools"]:
            schema = {"type": "object", **remote["inputSchema"]}
            seen: list[Any] = []
            tool = _define(remote["name"], remote.get("description", ""), schema, seen)
            assert isinstance(tool, Tool), (server["package"], remote["name"], tool)
            made.append(Case(tool, seen, schema))
    return tuple(made)


@pytest.mark.parametrize("target", list(TARGETS))
def test_agreement_on_published_mcp_servers_tools(target: str) -> None:
    cases = mcp_cases()
    assert len(cases) >= 30
    checked = 0
    for case in cases:
        for value in _values(case):
            _check(target, case, value)
            checked += 1
    COUNTS["MCP servers' tools"]["tools"] = len(cases)
    COUNTS["MCP servers' tools"][f"agreement values, {target}"] = checked
    assert checked >= len(cases)


@pytest.mark.parametrize("target", list(TARGETS))
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_agreement_property_on_published_mcp_servers_tools(
    target: str, data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(mcp_cases()) - 1), label="tool")
    case = mcp_cases()[index]
    value = data.draw(_strategy(index), label="value")
    _check(target, case, value)


@functools.cache
def _strategy(index: int) -> st.SearchStrategy[Any]:
    return from_schema(mcp_cases()[index].schema)


# -- the ground-truth calls ------------------------------------------------------------


@pytest.mark.parametrize("target", ALL_REQUIRED)
def test_ground_truth_calls_are_accepted_in_each_strict_spelling(target: str) -> None:
    tools, _ = defined()
    counts = COUNTS[f"ground truth, {target}"]
    refusals: list[str] = []
    for index, answer in corpus()["calls"]:
        case = tools.get(index)
        if case is None:
            counts["tool refused at definition"] += 2
            continue
        projection = TARGETS[target].project(case.tool)
        projected = _schema_of(projection, parameters(projection))
        for omit in (False, True):
            expected = arguments(answer, case.schema, omit=omit)
            if expected is None:
                counts["answer outside the schema"] += 1
                continue
            filled = (
                _schema_of(case, case.schema).with_nulls(expected)
                if projection.strict
                else expected
            )
            sent = projected.spell(filled)
            if not projected.accepts(sent):
                assert narrowings(projection), (case.tool.name, sent)
                counts["forbidden by a reported narrowing"] += 1
                continue
            case.seen.clear()
            outcome = case.tool.invoke_sync(one_call(target, case.tool.name, sent))
            if outcome.is_error:
                refusals.append(f"{case.tool.name}: {outcome.text}")
                counts["refused"] += 1
                continue
            assert case.seen[-1] == filled, (case.tool.name, sent, case.seen[-1], filled)
            counts["accepted"] += 1
    assert refusals == []
    assert counts["accepted"] >= 3000


@pytest.fixture(scope="module", autouse=True)
def _print_counts(request: pytest.FixtureRequest) -> None:
    class Summary:
        def pytest_terminal_summary(self, terminalreporter: Any) -> None:
            for what, counts in sorted(COUNTS.items()):
                terminalreporter.write_line(f"BFCL corpus, {what}: {dict(counts)}")

    plugin = Summary()
    if not request.config.pluginmanager.is_registered(plugin):
        request.config.pluginmanager.register(plugin, "toolcast-real-corpus")
