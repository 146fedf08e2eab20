"""Rows of the C# schema contract and the .NET catalog that toolcast keeps (issue 16)."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

from toolcast import JsonPart, Param, Tool, ToolDefinitionError, tool


def test_decorator_level_overrides_match_parameter_names_ignoring_case() -> None:
    @tool(params={"City": Param(name="location", description="Where.")})
    def forecast(city: str) -> str:
        """Forecast."""
        return city

    spec = Tool.from_function(forecast).spec
    assert spec.input_schema["properties"] == {
        "location": {"type": "string", "description": "Where."}
    }
    assert Tool.from_function(forecast).invoke_sync({"location": "Oslo"}).text == "Oslo"


def test_an_exact_name_wins_over_a_case_insensitive_one() -> None:
    @tool(params={"city": "exact", "CITY": "folded"})
    def forecast(city: str) -> str:
        """Forecast."""
        return city

    with pytest.raises(ToolDefinitionError) as raised:
        Tool.from_function(forecast)
    assert [(p.code, p.path) for p in raised.value.problems] == [("unknown-param-override", "CITY")]


def test_a_key_fitting_several_parameters_only_by_case_fits_none() -> None:
    @tool(params={"NAME": "which one?"})
    def greet(name: str, Name: str) -> str:
        """Greet."""
        return name + Name

    with pytest.raises(ToolDefinitionError) as raised:
        Tool.from_function(greet)
    assert [p.code for p in raised.value.problems] == ["unknown-param-override"]


def test_decorator_level_metadata_wins_over_parameter_level() -> None:
    # Documented choice: params= is how a host describes a function it does not
    # own, so the outer, explicit override wins over the function's Annotated.
    @tool(params={"q": "From the decorator."})
    def search(q: Annotated[str, Field(description="From the annotation.")]) -> str:
        """Search."""
        return q

    spec = Tool.from_function(search).spec
    assert spec.input_schema["properties"]["q"]["description"] == "From the decorator."


def test_none_from_an_optional_result_is_sent_as_null() -> None:
    @tool
    def find(code: str) -> int | None:
        """Find a code."""
        return None

    outcome = Tool.from_function(find).invoke_sync({"code": "x"})
    assert not outcome.is_error
    assert outcome.text == "null"
    assert outcome.content == (JsonPart("null"),)
    assert outcome.value is None


def test_a_tool_returning_none_by_declaration_sends_nothing() -> None:
    @tool
    def forget(code: str) -> None:
        """Forget a code."""

    outcome = Tool.from_function(forget).invoke_sync({"code": "x"})
    assert (outcome.text, outcome.content, outcome.is_error) == ("", (), False)
