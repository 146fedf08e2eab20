"""`@tool` on something that cannot become a tool fails at decoration (issue 24)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from toolcast import Tool, ToolDefinitionError, tool


class Opaque:
    """A class with no JSON Schema."""


def test_an_unsupported_parameter_type_fails_at_the_decorator() -> None:
    def lookup(key: Opaque) -> str:
        """Look up."""
        return "x"

    with pytest.raises(ToolDefinitionError) as caught:
        tool(lookup)
    (problem,) = caught.value.problems
    assert problem.code == "unsupported-type"
    assert "key: type Opaque has no JSON Schema" in str(caught.value)


def test_star_args_fail_at_the_decorator_naming_the_fix() -> None:
    with pytest.raises(
        ToolDefinitionError, match=r"\*numbers cannot be described to a model; use a list"
    ):

        @tool
        def total(*numbers: int) -> int:
            """Add numbers."""
            return sum(numbers)


def test_something_not_callable_is_refused() -> None:
    with pytest.raises(TypeError, match="@tool needs a function or method, got int 3"):
        tool(3)  # type: ignore[call-overload]


def test_what_a_later_override_can_supply_is_still_left_to_it() -> None:
    @tool  # no docstring: `description=` may still come when the tool is built
    def quiet(x: int) -> int:
        return x

    assert Tool.from_function(quiet, description="Echo.").spec.description == "Echo."


def test_a_forward_reference_is_checked_when_the_tool_is_built() -> None:
    @tool
    def later(item: Later) -> str:
        """Take a later thing."""
        return "ok"

    assert Tool.from_function(later, description="x") is not None


@dataclass
class Later:
    """Defined after the function that names it."""

    name: str
