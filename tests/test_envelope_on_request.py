"""Result envelopes asked for by the result type, like the original's `[ToolResult]` (issue 16)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple, TypedDict

import pytest
from pydantic import BaseModel, Field

from toolcast import Tool, envelope, tool

DIALECT = "https://json-schema.org/draft/2020-12/schema"


@envelope
@dataclass
class Forecast:
    """A day's forecast."""

    temp: Annotated[float, Field(description="Degrees Celsius.")]
    sky: str


@dataclass
class Plain:
    """Documented, with described fields, but not marked: plain JSON."""

    n: Annotated[int, Field(description="A count.")]


class Report(BaseModel):
    days: list[Forecast]


class Holder(BaseModel):
    inner: Annotated[Plain, envelope]


class Row(TypedDict):
    value: Annotated[int, envelope]


class Pair(NamedTuple):
    left: Forecast
    right: Forecast


def _tool(value: Any, annotation: Any, **options: Any) -> Tool:
    def produce() -> Any:
        return value

    produce.__annotations__["return"] = annotation
    return Tool.from_function(produce, **options)


def test_a_marked_result_type_gets_the_envelope_with_its_full_schema() -> None:
    made = _tool(Forecast(21.5, "clear"), Forecast)
    assert made.spec.envelope is True
    outcome = made.invoke_sync({})
    sent = json.loads(outcome.text)
    assert sent == {
        "schema": {"$schema": DIALECT, **made.spec.output_schema},  # type: ignore[dict-item]
        "result": {"temp": 21.5, "sky": "clear"},
    }
    assert sent["schema"]["properties"]["temp"]["description"] == "Degrees Celsius."
    assert outcome.structured == {"temp": 21.5, "sky": "clear"}  # the bare value


@pytest.mark.parametrize(
    ("value", "annotation"),
    [
        (Report(days=[Forecast(1.0, "rain")]), Report),  # a pydantic field's item type
        ([Forecast(1.0, "rain")], list[Forecast]),  # a list of it
        ({"oslo": Forecast(1.0, "rain")}, dict[str, Forecast]),  # dict values
        (None, Forecast | None),  # a union member (None itself is sent as null)
        (Holder(inner=Plain(1)), Holder),  # Annotated on a pydantic field
        ({"value": 1}, Row),  # Annotated on a TypedDict key
        (Pair(Forecast(1.0, "a"), Forecast(2.0, "b")), Pair),  # NamedTuple fields
        ([1, 2], Annotated[list[int], envelope]),  # the return annotation itself
    ],
    ids=[
        "model",
        "list",
        "dict",
        "optional",
        "annotated-model-field",
        "typeddict",
        "namedtuple",
        "return",
    ],
)
def test_a_marker_reachable_from_the_return_type_turns_the_envelope_on(
    value: Any, annotation: Any
) -> None:
    made = _tool(value, annotation)
    assert made.spec.envelope is True
    text = made.invoke_sync({}).text
    if value is not None:
        assert set(json.loads(text)) == {"schema", "result"}


@pytest.mark.parametrize(
    "annotation", [Plain, list[int], dict[str, Plain], int, Plain | None], ids=repr
)
def test_without_a_marker_results_are_plain_json_even_when_described(annotation: Any) -> None:
    # Descriptions alone do not switch the envelope on: types shared by inputs and
    # results carry them everywhere, and the envelope would double every result.
    made = _tool(None, annotation)
    assert made.spec.envelope is False


def test_plain_json_for_an_unmarked_type() -> None:
    assert _tool(Plain(3), Plain).invoke_sync({}).text == '{"n":3}'


def test_the_tool_option_wins_over_the_type() -> None:
    assert _tool(Forecast(1.0, "a"), Forecast, envelope=False).spec.envelope is False

    @tool(envelope=False)
    def today() -> Forecast:
        """Today."""
        return Forecast(1.0, "a")

    made = Tool.from_function(today)
    assert made.invoke_sync({}).text == '{"temp":1.0,"sky":"a"}'
    assert _tool(Plain(1), Plain, envelope=True).spec.envelope is True


def test_text_results_have_no_envelope_to_ask_for() -> None:
    assert _tool("hi", Annotated[str, envelope]).invoke_sync({}).text == "hi"


def test_envelope_marks_classes_only() -> None:
    with pytest.raises(TypeError, match="marks a class"):
        envelope(3)


@dataclass
class Node:
    """A tree."""

    children: list[Node]


def test_a_recursive_result_type_is_walked_once() -> None:
    assert _tool(Node([]), Node).spec.envelope is False
