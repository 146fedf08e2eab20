"""Results agree with the output schema: what a tool sends validates against what it advertises."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
from typing import Any, NamedTuple

import pytest
from jsonschema import Draft202012Validator

from corpus import Color, Folder, LineItem, Person, Point, Priority, Span
from toolcast import Tool
from toolcast._frozen import thaw


class Pair(NamedTuple):
    left: int
    right: str


CASES: list[tuple[Any, Any]] = [
    (Point(1.5, -2.0), Point),
    ([LineItem("a", 2), LineItem("b", 1, "gift")], list[LineItem]),
    (Person(name="Ada", age=36), Person),
    (Folder("root", [Folder("child")]), Folder),
    (Span(1, 5), Span),
    (Pair(1, "x"), Pair),
    (decimal.Decimal("12.3400000000000000001"), decimal.Decimal),
    ({"a": decimal.Decimal("1.10")}, dict[str, decimal.Decimal]),
    (b"\xff\xfe\x00", bytes),
    (dt.datetime(2024, 5, 1, 9, 30, tzinfo=dt.timezone.utc), dt.datetime),
    (dt.date(2024, 5, 1), dt.date),
    (uuid.UUID("123e4567-e89b-12d3-a456-426614174000"), uuid.UUID),
    (Color.GREEN, Color),
    (Priority.HIGH, Priority),
    ({1, 2, 3}, set[int]),
    ((1, "a"), tuple[int, str]),
    ({"x": [1, 2]}, dict[str, list[int]]),
    (3, int),
    (2.5, float),
    (True, bool),
]


def _tool_returning(value: Any, annotation: Any) -> Tool:
    def produce() -> Any:
        return value

    produce.__annotations__["return"] = annotation
    return Tool.from_function(produce)


@pytest.mark.parametrize(("value", "annotation"), CASES, ids=[repr(a) for _, a in CASES])
def test_result_json_validates_against_the_output_schema(value: Any, annotation: Any) -> None:
    tool = _tool_returning(value, annotation)
    assert tool.spec.output_schema is not None
    outcome = tool.invoke_sync("{}")
    assert not outcome.is_error, outcome.text
    validator = Draft202012Validator(
        thaw(tool.spec.output_schema), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    errors = [e.message for e in validator.iter_errors(json.loads(outcome.text))]
    assert errors == []
