"""Issue 21, defect 7: the smaller seams, each a test named after it.

The ToolSpec hash, description precedence and Sphinx-role tests live with their
neighbours (`test_public_api.py`, `test_docstring.py`).
"""

from __future__ import annotations

import json

import pytest

import toolcast
from toolcast import Catalog, Tool, ToolCallError, ToolcastError, ToolError, ToolOutcome, tool
from toolcast.errors import ToolCallError as FromErrors
from toolcast.providers import openai_chat


def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


def broken() -> int:
    """Always breaks."""
    raise KeyError("missing")


def refuse() -> int:
    """Refuses in words."""
    raise ToolError("No such place; try a city.")


@tool(timeout=0.01)
async def slow() -> str:
    """Too slow."""
    import asyncio

    await asyncio.sleep(30)
    return "late"


def test_defect_7_raise_for_error_returns_the_outcome_itself_when_ok() -> None:
    outcome = Tool.from_function(add).invoke_sync('{"a": 2, "b": 3}', call_id="c1")
    assert outcome.raise_for_error() is outcome
    assert outcome.raise_for_error().value == 5


@pytest.mark.parametrize(
    ("fn", "arguments", "kind", "message"),
    [
        (add, '{"a": "x"}', "invalid_arguments", "Argument 'a' must be an integer (got \"x\")."),
        (broken, "{}", "exception", "Tool 'broken' failed: KeyError: 'missing'"),
        (refuse, "{}", "tool_error", "No such place; try a city."),
        (slow, "{}", "timeout", "Tool 'slow' timed out after 0.01 s."),
    ],
)
def test_defect_7_raise_for_error_raises_a_toolcast_error_carrying_the_outcome(
    fn: object, arguments: str, kind: str, message: str
) -> None:
    outcome = Tool.from_function(fn).invoke_sync(arguments, call_id="c9")
    with pytest.raises(ToolCallError) as raised:
        outcome.raise_for_error()
    error = raised.value
    assert isinstance(error, ToolcastError)
    assert error.outcome is outcome
    assert error.kind == kind
    assert error.message == message == outcome.text
    assert (error.tool_name, error.call_id) == (outcome.tool_name, "c9")
    assert str(error) == f"Tool call '{outcome.tool_name}' failed ({kind}): {message}"
    # The tool's own exception is the cause, for the host's traceback.
    assert error.__cause__ is outcome.exception


def test_defect_7_raise_for_error_on_unknown_tools_and_unreadable_calls() -> None:
    tools = Catalog([add]).select()
    (call,) = openai_chat.parse_calls(
        {"tool_calls": [{"id": "c", "type": "function", "function": {"name": "sub"}}]}
    )
    with pytest.raises(ToolCallError) as raised:
        tools.invoke_sync(call).raise_for_error()
    assert raised.value.kind == "unknown_tool"
    assert raised.value.__cause__ is None


def test_defect_7_raise_for_error_is_exported() -> None:
    assert FromErrors is ToolCallError is toolcast.ToolCallError
    assert "ToolCallError" in toolcast.__all__
    assert "ToolCallError" in toolcast.errors.__all__
    assert callable(ToolOutcome.raise_for_error)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (add, "Pass a list of tools, not one function: Catalog([add])."),
        (Tool.from_function(add), "Pass a list of tools, not one Tool: Catalog([add])."),
        (json, "Pass a list of tools, not a module: Catalog.from_modules(json)."),
        ("add", "Pass a list of tools, not one str: Catalog([...])."),
    ],
    ids=["function", "tool", "module", "text"],
)
def test_defect_7_catalog_of_one_item_says_pass_a_list(given: object, said: str) -> None:
    with pytest.raises(TypeError) as raised:
        Catalog(given)  # type: ignore[arg-type]
    assert str(raised.value) == said
    assert "not iterable" not in str(raised.value)
    # format_tools says the same kind of thing.
    with pytest.raises(TypeError, match="Pass a list of tools"):
        openai_chat.format_tools(add)  # type: ignore[arg-type]


def test_defect_7_catalog_still_takes_every_iterable() -> None:
    assert [t.name for t in Catalog((add,)).select().tools()] == ["add"]
    assert [t.name for t in Catalog(iter([add])).select().tools()] == ["add"]


def test_defect_7_every_parser_in_the_formats_module_is_used() -> None:
    """`parse_datetime`/`parse_time` were never called; no dead parser is left behind."""
    import ast
    from pathlib import Path

    source = Path(toolcast.__file__).parent
    module = source / "_define" / "_formats.py"
    tree = ast.parse(module.read_text())
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert "parse_datetime" not in defined
    assert "parse_time" not in defined
    elsewhere = "\n".join(p.read_text() for p in source.rglob("*.py") if p != module)
    text = module.read_text()
    unused = [
        name
        for name in defined
        if name not in elsewhere and text.count(name) == 1  # only its own `def`
    ]
    assert unused == []
