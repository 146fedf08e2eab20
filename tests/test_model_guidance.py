"""Model-only guidance and hiding for Python tools: `Param(description=, note=, hidden=)`.

Issue 16, item 1: the protobuf system's `usage_notes` (appended after a blank line)
and `skip`, for parameters and for fields of dataclasses, TypedDicts, NamedTuples and
pydantic models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple, TypedDict

import pytest
from pydantic import BaseModel, Field

from toolcast import Param, Tool, ToolDefinitionError, tool


@dataclass
class Stop:
    """A stop on the route."""

    city: Annotated[str, Param(note="Use the English name.")]
    code: Annotated[
        str, Field(description="IATA code."), Param(description="Three letters, upper case.")
    ] = "OSL"
    internal: Annotated[int, Param(hidden=True)] = 7


class Leg(BaseModel):
    minutes: Annotated[int, Param(note="Whole minutes.")] = Field(description="Duration.")
    trace: Annotated[str, Param(hidden=True)] = "off"


class Filter(TypedDict):
    tag: Annotated[str, Param(description="One tag.", note="Lower case.")]


class Window(NamedTuple):
    start: Annotated[int, Param(note="Hour of the day, 0-23.")]
    end: int = 24


def route(
    stops: list[Stop],
    leg: Leg,
    only: Filter,
    window: Window,
    q: Annotated[str, Param(description="Free text.", note="Keep it short.")] = "",
    debug: Annotated[bool, Param(hidden=True)] = False,
) -> str:
    """Plan a route.

    Args:
        q: What to look for (the developer's words; the model gets Param's).
    """
    return f"{stops} {leg} {only} {window} {q!r} {debug}"


def schema() -> Any:
    return Tool.from_function(route).spec.input_schema


def test_a_note_is_appended_to_the_description_after_a_blank_line() -> None:
    props = schema()["properties"]
    assert props["q"]["description"] == "Free text.\n\nKeep it short."
    assert props["leg"]["properties"]["minutes"]["description"] == "Duration.\n\nWhole minutes."


def test_a_note_alone_is_the_description() -> None:
    stop = schema()["properties"]["stops"]["items"]
    assert stop["properties"]["city"]["description"] == "Use the English name."
    window = schema()["properties"]["window"]  # a NamedTuple is an object
    assert window["properties"]["start"]["description"] == "Hour of the day, 0-23."


def test_the_model_only_description_wins_over_field_doc_and_docstring() -> None:
    props = schema()["properties"]
    assert props["stops"]["items"]["properties"]["code"]["description"] == (
        "Three letters, upper case."
    )
    assert props["only"]["properties"]["tag"]["description"] == "One tag.\n\nLower case."


def test_hidden_fields_and_parameters_are_left_out_and_code_gets_the_default() -> None:
    made = Tool.from_function(route)
    props = made.spec.input_schema["properties"]
    assert "debug" not in props
    assert "internal" not in props["stops"]["items"]["properties"]
    assert "trace" not in props["leg"]["properties"]
    args = {
        "stops": [{"city": "Oslo"}],
        "leg": {"minutes": 5},
        "only": {"tag": "x"},
        "window": {"start": 9},
    }
    outcome = made.invoke_sync(args)
    assert not outcome.is_error, outcome.text
    assert "internal=7" in outcome.text
    assert "trace='off'" in outcome.text
    assert outcome.text.endswith("'' False")
    # Hidden means not accepted from the model either.
    sneaky = made.invoke_sync({**args, "stops": [{"city": "Oslo", "internal": 1}]})
    assert sneaky.is_error
    assert "stops[0].internal" in sneaky.text


@dataclass
class Secret:
    key: Annotated[str, Param(hidden=True)]


@dataclass
class Box:
    size: Annotated[int, Param(name="dimension")]


def test_hiding_a_required_field_is_refused() -> None:
    def use(s: Secret) -> str:
        """Use."""
        return s.key

    with pytest.raises(ToolDefinitionError) as raised:
        Tool.from_function(use)
    assert [(p.code, p.path) for p in raised.value.problems] == [("hidden-field", "s.key")]


def test_the_decorator_level_param_wins_over_the_annotated_one() -> None:
    @tool(params={"q": Param(description="Outer.", note="Outer note.")})
    def search(q: Annotated[str, Param(description="Inner.", note="Inner note.")]) -> str:
        """Search."""
        return q

    prop = Tool.from_function(search).spec.input_schema["properties"]["q"]
    assert prop["description"] == "Outer.\n\nOuter note."


def test_decorator_level_hiding() -> None:
    @tool(params={"verbose": Param(hidden=True)})
    def search(q: str, verbose: bool = False) -> str:
        """Search."""
        return f"{q} {verbose}"

    made = Tool.from_function(search)
    assert list(made.spec.input_schema["properties"]) == ["q"]
    assert made.invoke_sync({"q": "mug"}).text == "mug False"


def test_param_name_in_annotated_renames_a_parameter() -> None:
    def search(q: Annotated[str, Param(name="query")]) -> str:
        """Search."""
        return q

    made = Tool.from_function(search)
    assert list(made.spec.input_schema["properties"]) == ["query"]
    assert made.invoke_sync({"query": "mug"}).text == "mug"


def test_param_name_on_a_nested_field_is_refused_with_the_way_to_do_it() -> None:
    def pack(box: Box) -> int:
        """Pack."""
        return box.size

    with pytest.raises(ToolDefinitionError) as raised:
        Tool.from_function(pack)
    (problem,) = raised.value.problems
    assert (problem.code, problem.path) == ("nested-rename", "box.size")
    assert "pydantic alias" in problem.message


def test_guidance_reaches_result_schemas_too() -> None:
    def leg() -> Leg:
        """A leg."""
        return Leg(minutes=3)

    output = Tool.from_function(leg).spec.output_schema
    assert output is not None
    assert output["properties"]["minutes"]["description"] == "Duration.\n\nWhole minutes."
