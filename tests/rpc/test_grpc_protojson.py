"""The schema <=> protojson property over a corpus of real protos.

For every request message of the corpus (tests/rpc/corpus/README.md):
(a) random valid messages, as the model would send them, are accepted by the
tool's validator; (b) whatever the validator accepts among JSON generated from
the schema and mutated towards protojson's edges, `json_format.ParseDict`
accepts too (after the executor's own conversion). The counts are printed.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import protojson_corpus as corpus
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Library
from toolcast import Tool
from toolcast.errors import ToolError
from toolcast.grpc._convert import RequestConverter
from toolcast.grpc._scalars import NON_OBJECT_ROOTS
from toolcast.grpc._schema import default_any_types, message_schema

EXAMPLES = 40
CRASHED: list[str] = []


@dataclass
class Entry:
    name: str
    schema: dict[str, Any]
    tool: Tool
    cls: Any
    generated: Any  # a strategy of JSON values for the schema
    any_types: list[Any]  # the message classes an Any in it may pack


def convert(entry: Entry, validated: Any) -> Any:
    """The executor's own conversion: validated arguments -> the request message."""
    return RequestConverter(entry.name, entry.cls)(validated)


@pytest.fixture(scope="module")
def entries(library: Library) -> list[Entry]:
    from google.protobuf import descriptor_pool, message_factory
    from hypothesis_jsonschema import from_schema

    index = corpus.corpus_index([*corpus.load_modules(), library.pb2])
    pool = descriptor_pool.Default()
    found = []
    for position, name in enumerate(corpus.request_types(index)):
        try:
            schema = message_schema(index, name, "input", problems=[])
            tool = Tool.from_schema(f"m{position}", name, schema, lambda arguments: None)
        except Exception as exc:
            CRASHED.append(f"{name}: {type(exc).__name__}")
            continue
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
        strategy = None if corpus.has_recursion(schema) else from_schema(schema)
        packable = [
            message_factory.GetMessageClass(pool.FindMessageTypeByName(n))
            for n in default_any_types(index, name)
        ]
        found.append(Entry(name, schema, tool, cls, strategy, packable))
    return found


def for_each(entries: list[Entry], body: Any) -> None:
    """Run `body(entry, data)` for EXAMPLES examples of every entry."""
    for entry in entries:

        @settings(
            max_examples=EXAMPLES,
            database=None,
            derandomize=True,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(st.data())
        def run(data: Any) -> None:
            body(entry, data)  # noqa: B023 - run() is called within this iteration

        run()


def test_valid_messages_are_accepted(
    entries: list[Entry], capsys: pytest.CaptureFixture[str]
) -> None:
    counts: Counter[str] = Counter()
    failures: list[str] = []

    def body(entry: Entry, data: Any) -> None:
        builder = corpus.MessageBuilder(lambda descriptor: entry.any_types)
        value = corpus.message_json(data.draw, entry.cls, builder)
        if entry.name in NON_OBJECT_ROOTS:
            value = {"value": value}  # how such a request travels (docs/grpc.md)
        counts["messages"] += 1
        try:
            entry.tool.validate(json.dumps(value))
        except ValueError as exc:
            counts["refused"] += 1
            failures.append(f"{entry.name}: {exc} <- {json.dumps(value)[:200]}")

    for_each(entries, body)
    with capsys.disabled():
        print(
            f"\n(a) valid messages: {counts['messages']}, "
            f"refused by the schema: {counts['refused']}"
        )
        for line in failures[:40]:
            print("   ", line[:400])
    assert counts["refused"] == 0


def test_what_the_schema_accepts_protojson_accepts(
    entries: list[Entry], capsys: pytest.CaptureFixture[str]
) -> None:
    counts: Counter[str] = Counter()
    failures: list[str] = []
    kinds: Counter[str] = Counter()

    def body(entry: Entry, data: Any) -> None:
        if entry.generated is None or data.draw(st.booleans()):
            value = corpus.generate(data.draw, entry.schema, entry.schema)
        else:
            value = data.draw(entry.generated)
        if data.draw(st.booleans()):
            value = corpus.mutate(data.draw, value)
        text = json.dumps(value)
        counts["generated"] += 1
        try:
            validated = entry.tool.validate(text)
        except ValueError:
            return
        counts["accepted"] += 1
        try:
            convert(entry, validated)
        except ToolError as exc:
            exc = exc.__cause__ or exc
            counts["refused"] += 1
            kinds[type(exc).__name__ + ": " + str(exc)[:70]] += 1
            failures.append(f"{entry.name}: {text[:300]} -> {type(exc).__name__}: {exc}")
        except Exception as exc:
            counts["refused"] += 1
            kinds[type(exc).__name__ + ": " + str(exc)[:70]] += 1
            failures.append(f"{entry.name}: {text[:300]} -> {type(exc).__name__}: {exc}")

    for_each(entries, body)
    with capsys.disabled():
        print(
            f"\n(b) generated: {counts['generated']}, "
            f"accepted by the schema: {counts['accepted']}, "
            f"then refused by protojson: {counts['refused']}"
        )
        for kind, n in kinds.most_common(40):
            print(f"   {n:5d} {kind}")
        for line in failures[:15]:
            print("   ", line[:400])
    assert counts["refused"] == 0


def test_every_request_has_a_schema(entries: list[Entry]) -> None:
    assert CRASHED == []
    assert len(entries) > 40
