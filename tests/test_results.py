"""Results: a tool's return value -> the content parts, text and structured value sent back.

The rules of SCHEMA.md "Results": None -> no content; str -> one text part;
content parts, lists of parts and a `ToolResult` pass through; every other value
is one compact JSON part that matches the output schema; `envelope=True` wraps
structured values as `{"schema": ..., "result": ...}`.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import json
import uuid
from dataclasses import dataclass
from typing import Any, NamedTuple

import jsonschema
import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from toolcast import ImagePart, JsonPart, TextPart, Tool, ToolResult, tool
from toolcast._frozen import thaw

DIALECT = "https://json-schema.org/draft/2020-12/schema"


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1


@dataclass
class Point:
    x: float
    y: float


class Address(TypedDict):
    city: str
    zip: str


class Person(BaseModel):
    name: str
    born: dt.date


def returning(value: Any, annotation: Any) -> Tool:
    """A tool named `f` that returns `value`, annotated `-> annotation`."""

    def f() -> Any:
        return value

    f.__annotations__["return"] = annotation
    return Tool.from_function(f)


def run(value: Any, annotation: Any = Any, **options: Any) -> Any:
    def f() -> Any:
        return value

    f.__annotations__["return"] = annotation
    return Tool.from_function(f, **options).invoke_sync("{}")


# -- None and text ------------------------------------------------------------------


def test_none_gives_no_content() -> None:
    outcome = run(None, None)
    assert not outcome.is_error
    assert outcome.content == ()
    assert outcome.text == ""
    assert outcome.value is None
    assert outcome.structured is None


def test_a_none_returning_tool_has_no_output_schema() -> None:
    assert returning(None, None).spec.output_schema is None


def test_a_string_gives_one_text_part() -> None:
    outcome = run("It is sunny.", str)
    assert outcome.content == (TextPart("It is sunny."),)
    assert outcome.text == "It is sunny."
    assert outcome.value == "It is sunny."
    assert outcome.structured is None


def test_a_string_is_sent_as_is_not_as_json() -> None:
    assert run('say "hi"\n', str).text == 'say "hi"\n'


def test_an_empty_string_is_still_one_text_part() -> None:
    assert run("", str).content == (TextPart(""),)


def test_a_string_returning_tool_has_no_output_schema() -> None:
    assert returning("x", str).spec.output_schema is None


# -- content parts and ToolResult ---------------------------------------------------


@pytest.mark.parametrize(
    "part", [TextPart("hi"), JsonPart('{"a":1}'), ImagePart(b"\x89PNG", "image/png")]
)
def test_a_single_content_part_is_passed_through(part: Any) -> None:
    outcome = run(part, type(part))
    assert outcome.content == (part,)
    assert outcome.value is part


@pytest.mark.parametrize("container", [list, tuple])
def test_a_list_of_parts_is_passed_through_in_order(container: Any) -> None:
    parts = container([TextPart("a"), JsonPart('{"b":1}'), ImagePart(b"1234", "image/jpeg")])
    outcome = run(parts, list[Any])
    assert outcome.content == tuple(parts)
    assert outcome.text == 'a\n{"b":1}\n[image: image/jpeg, 4 bytes]'
    assert not outcome.is_error


def test_a_tool_result_is_passed_through() -> None:
    result = ToolResult([TextPart("3 matches")], structured={"count": 3})
    outcome = run(result, ToolResult)
    assert not outcome.is_error
    assert outcome.content == (TextPart("3 matches"),)
    assert outcome.text == "3 matches"
    assert outcome.structured == {"count": 3}
    assert outcome.value is result


def test_a_tool_result_marked_as_error_is_an_error_outcome() -> None:
    result = ToolResult([TextPart("No such city; try a nearby one.")], is_error=True)
    outcome = run(result, ToolResult)
    assert outcome.is_error
    assert outcome.text == "No such city; try a nearby one."
    assert outcome.error is not None
    assert outcome.error.kind == "tool_error"
    assert outcome.error.message == "No such city; try a nearby one."
    assert outcome.structured is None


def test_a_tool_result_is_not_wrapped_in_an_envelope() -> None:
    result = ToolResult([TextPart("ok")])
    assert run(result, ToolResult, envelope=True).content == (TextPart("ok"),)


def test_image_parts_carry_base64() -> None:
    assert ImagePart(b"\xff\xfe").base64 == "//4="


# -- structured values: one compact JSON part -------------------------------------


STRUCTURED = [
    pytest.param(42, int, "42", 42, id="int"),
    pytest.param(2.5, float, "2.5", 2.5, id="float"),
    pytest.param(True, bool, "true", True, id="bool"),
    pytest.param(dt.date(2024, 5, 1), dt.date, '"2024-05-01"', "2024-05-01", id="date"),
    pytest.param(
        dt.datetime(2024, 5, 1, 9, 30, tzinfo=dt.timezone.utc),
        dt.datetime,
        '"2024-05-01T09:30:00Z"',
        "2024-05-01T09:30:00Z",
        id="datetime",
    ),
    pytest.param(dt.time(9, 30), dt.time, '"09:30:00"', "09:30:00", id="time"),
    pytest.param(dt.timedelta(minutes=90), dt.timedelta, '"PT1H30M"', "PT1H30M", id="timedelta"),
    pytest.param(
        uuid.UUID(int=1),
        uuid.UUID,
        '"00000000-0000-0000-0000-000000000001"',
        "00000000-0000-0000-0000-000000000001",
        id="uuid",
    ),
    pytest.param(Color.RED, Color, '"red"', "red", id="enum"),
    pytest.param(Level.LOW, Level, "1", 1, id="int-enum"),
    pytest.param(Point(1.0, 2.5), Point, '{"x":1.0,"y":2.5}', {"x": 1.0, "y": 2.5}, id="dataclass"),
    pytest.param(
        Address(city="Oslo", zip="0150"),
        Address,
        '{"city":"Oslo","zip":"0150"}',
        {"city": "Oslo", "zip": "0150"},
        id="typeddict",
    ),
    pytest.param(
        Person(name="Ada", born=dt.date(1815, 12, 10)),
        Person,
        '{"name":"Ada","born":"1815-12-10"}',
        {"name": "Ada", "born": "1815-12-10"},
        id="model",
    ),
    pytest.param([1, 2, 3], list[int], "[1,2,3]", [1, 2, 3], id="list"),
    pytest.param([], list[int], "[]", [], id="empty-list"),
    pytest.param(
        {"a": [1, None], "b": {"c": "d"}},
        dict[str, Any],
        '{"a":[1,null],"b":{"c":"d"}}',
        {"a": [1, None], "b": {"c": "d"}},
        id="dict",
    ),
    pytest.param([Point(0, 1)], list[Point], '[{"x":0,"y":1}]', [{"x": 0, "y": 1}], id="nested"),
    pytest.param(
        {"name": "café ☕"}, dict[str, str], '{"name":"café ☕"}', {"name": "café ☕"}, id="utf8"
    ),
]


@pytest.mark.parametrize(("value", "annotation", "text", "structured"), STRUCTURED)
def test_a_structured_value_gives_one_compact_json_part(
    value: Any, annotation: Any, text: str, structured: Any
) -> None:
    outcome = run(value, annotation)
    assert not outcome.is_error
    assert outcome.content == (JsonPart(text),)
    assert outcome.text == text
    assert outcome.value == value
    assert outcome.structured == structured


@pytest.mark.parametrize(("value", "annotation", "text", "structured"), STRUCTURED)
def test_a_structured_value_matches_its_output_schema(
    value: Any, annotation: Any, text: str, structured: Any
) -> None:
    tool_ = returning(value, annotation)
    schema = tool_.spec.output_schema
    assert schema is not None
    jsonschema.Draft202012Validator(thaw(schema)).validate(json.loads(tool_.invoke_sync("{}").text))


def test_a_decimal_result_is_a_json_number_as_its_output_schema_says() -> None:
    tool_ = returning(decimal.Decimal("1.10"), decimal.Decimal)
    # The schema also allows a numeric string (what a Decimal parameter accepts);
    # a result is always written as a number.
    assert tool_.spec.output_schema is not None
    assert {"type": "number"} in tool_.spec.output_schema["anyOf"]
    assert tool_.invoke_sync("{}").text == "1.10"


def test_a_bytes_result_uses_the_standard_base64_alphabet() -> None:
    # The same tool's input side accepts only the standard alphabet (RFC 4648 section 4).
    assert returning(b"\xff\xfe", bytes).invoke_sync("{}").text == '"//4="'


def test_a_namedtuple_result_is_an_object_as_its_output_schema_says() -> None:
    class Span(NamedTuple):
        start: int
        end: int

    tool_ = returning(Span(1, 2), Span)
    assert tool_.spec.output_schema["type"] == "object"
    assert tool_.invoke_sync("{}").text == '{"start":1,"end":2}'


def test_exact_decimals_keep_every_digit_inside_containers() -> None:
    value = {"price": decimal.Decimal("123456789012345678901234567890.000000000001")}
    outcome = run(value, dict[str, decimal.Decimal])
    assert outcome.text == '{"price":123456789012345678901234567890.000000000001}'


def test_the_structured_value_is_a_fresh_json_value_each_time() -> None:
    outcome = run({"a": [1]}, dict[str, Any])
    first = outcome.structured
    first["a"].append(2)
    assert outcome.structured == {"a": [1]}


def test_nan_and_infinity_in_a_result_become_null_so_the_json_stays_valid() -> None:
    outcome = run({"a": float("nan"), "b": float("inf"), "c": 1.5}, dict[str, float])
    assert outcome.text == '{"a":null,"b":null,"c":1.5}'
    assert json.loads(outcome.text) == {"a": None, "b": None, "c": 1.5}


def test_json_part_of_serialises_like_results() -> None:
    assert JsonPart.of(Point(1, 2)).text == '{"x":1,"y":2}'
    assert JsonPart.of([float("nan")]).text == "[null]"
    assert JsonPart('{"a": [1]}').value == {"a": [1]}


def test_a_structured_result_has_an_output_schema() -> None:
    assert returning(Point(0, 0), Point).spec.output_schema == {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x", "y"],
        "additionalProperties": False,
    }


# -- unserialisable values ------------------------------------------------------------


def test_an_unserialisable_return_value_is_an_error_result() -> None:
    class Opaque:
        pass

    def leak() -> Any:
        return {"handle": Opaque()}

    outcome = Tool.from_function(leak).invoke_sync("{}")
    assert outcome.is_error
    assert outcome.text == "Tool 'leak' failed: its result could not be converted to JSON."
    assert outcome.error is not None
    assert outcome.error.kind == "exception"
    assert outcome.exception is not None  # the serialiser's own message, for the host's log
    assert "Opaque" in str(outcome.exception)


async def test_an_unserialisable_result_of_an_async_tool_is_an_error_result() -> None:
    async def leak() -> Any:
        return object()

    outcome = await Tool.from_function(leak).invoke("{}")
    assert outcome.text == "Tool 'leak' failed: its result could not be converted to JSON."


# -- the envelope ---------------------------------------------------------------------


def test_the_envelope_carries_the_output_schema_and_the_result() -> None:
    @tool(envelope=True)
    def pair(n: int) -> list[int]:
        return [n, n]

    tool_ = Tool.from_function(pair)
    outcome = tool_.invoke_sync('{"n": 2}')
    assert outcome.text == (
        '{"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema",'
        '"type":"array","items":{"type":"integer"}},"result":[2,2]}'
    )
    assert outcome.content == (JsonPart(outcome.text),)
    assert outcome.value == [2, 2]
    assert outcome.structured == [2, 2]  # the bare value, as the output schema describes it


def test_the_envelope_schema_is_the_output_schema_with_the_dialect_first() -> None:
    tool_ = Tool.from_function(lambda: Point(1, 2), name="where", envelope=True)
    # A lambda has no return annotation: the envelope says so with an empty schema.
    assert json.loads(tool_.invoke_sync("{}").text) == {
        "schema": {"$schema": DIALECT},
        "result": {"x": 1, "y": 2},
    }

    def where() -> Point:
        return Point(1, 2)

    tool_ = Tool.from_function(where, envelope=True)
    envelope = json.loads(tool_.invoke_sync("{}").text)
    assert list(envelope) == ["schema", "result"]
    assert next(iter(envelope["schema"])) == "$schema"
    assert envelope["schema"] == {"$schema": DIALECT, **thaw(tool_.spec.output_schema)}
    assert envelope["result"] == {"x": 1, "y": 2}


def test_the_envelope_schema_validates_its_result() -> None:
    def people() -> list[Person]:
        return [Person(name="Ada", born=dt.date(1815, 12, 10))]

    envelope = json.loads(Tool.from_function(people, envelope=True).invoke_sync("{}").text)
    jsonschema.Draft202012Validator(envelope["schema"]).validate(envelope["result"])


def test_the_envelope_is_off_by_default() -> None:
    def where() -> Point:
        return Point(1, 2)

    tool_ = Tool.from_function(where)
    assert not tool_.spec.envelope
    assert tool_.invoke_sync("{}").text == '{"x":1,"y":2}'


@pytest.mark.parametrize(
    ("value", "annotation", "content"),
    [
        ("plain text", str, (TextPart("plain text"),)),
        (None, None, ()),
        (TextPart("part"), TextPart, (TextPart("part"),)),
    ],
)
def test_the_envelope_wraps_structured_values_only(
    value: Any, annotation: Any, content: tuple[Any, ...]
) -> None:
    """Text, parts and None have no output schema to show: they are sent as usual."""
    assert run(value, annotation, envelope=True).content == content


def test_an_enveloped_error_is_a_plain_message() -> None:
    @tool(envelope=True)
    def fail() -> list[int]:
        raise ValueError("nope")

    assert Tool.from_function(fail).invoke_sync("{}").text == "Tool 'fail' failed: ValueError: nope"


# -- small API edges (issue 9 item 4) -------------------------------------------------


def test_tool_result_with_a_string_is_one_text_part() -> None:
    assert ToolResult(content="text").content == (TextPart("text"),)  # type: ignore[arg-type]
    assert ToolResult(TextPart("a")).content == (TextPart("a"),)  # type: ignore[arg-type]

    @tool
    def note() -> ToolResult:
        """A note."""
        return ToolResult("written")  # type: ignore[arg-type]

    outcome = Tool.from_function(note).invoke_sync({})
    assert outcome.text == "written"
    assert outcome.content == (TextPart("written"),)


def test_tool_result_refuses_parts_that_are_not_parts_at_construction() -> None:
    with pytest.raises(TypeError, match="wrap text as TextPart"):
        ToolResult(["a", TextPart("b")])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="not int"):
        ToolResult(7)  # type: ignore[arg-type]


def test_tool_outcome_repr_shows_no_private_marker() -> None:
    def count() -> dict[str, int]:
        """Count."""
        return {"n": 1}

    outcome = Tool.from_function(count).invoke_sync({})
    assert "Marker" not in repr(outcome)
    assert "structured_value" not in repr(outcome)
    assert outcome.structured == {"n": 1}
