"""Errors become results: every failure of a call is a message the model can act on.

Pins the model-facing texts of the contract (SCHEMA.md, "Errors become results"):
arguments that are not a JSON object, missing / unknown / null / wrong-typed
arguments with their paths, deliberate `ToolError`s, exceptions, timeouts, and
that caller cancellation propagates instead of becoming a result.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from annotated_types import Ge, Le

from corpus import CORPUS
from toolcast import TextPart, Tool, ToolContext, ToolError, tool
from toolcast._messages import MAX_LISTED

# Fragments that would mean pydantic's wording, error codes, URLs or a traceback
# reached the model.
LEAKS = (
    "Input should",
    "type=",
    "errors.pydantic.dev",
    "https://",
    "Traceback",
    'File "',
    "pydantic",
    "Pydantic",
    "ValidationError",
    "For further information",
    "<class",
    "Value error,",
)


@dataclass
class LineItem:
    sku: str
    qty: Annotated[int, Ge(1)]


def order(items: list[LineItem], note: str, count: int = 1) -> str:
    """Place an order."""
    return f"{len(items)} items"


@pytest.fixture
def order_tool() -> Tool:
    return Tool.from_function(order)


def assert_model_safe(text: str) -> None:
    for leak in LEAKS:
        assert leak not in text, f"{leak!r} leaked into {text!r}"


# -- arguments that are not a JSON object --------------------------------------------


@pytest.mark.parametrize("raw", ["[1, 2]", '"text"', "null", "42", "true", b"[]"])
def test_json_that_is_not_an_object_gets_the_contract_message(order_tool: Tool, raw: Any) -> None:
    outcome = order_tool.invoke_sync(raw)
    assert outcome.is_error
    assert outcome.text == "Arguments for 'order' must be a JSON object."
    assert outcome.error is not None
    assert outcome.error.kind == "invalid_arguments"


@pytest.mark.parametrize(
    "raw", ["not json", "{", '{"items": [}', "{'note': 'x'}", '{"note": "x",}']
)
def test_text_that_is_not_json_gets_the_contract_message_and_where_it_broke(
    order_tool: Tool, raw: str
) -> None:
    outcome = order_tool.invoke_sync(raw)
    assert outcome.is_error
    # Worded for a model by toolcast._json_errors: the problem and where it is.
    assert outcome.text.startswith(
        (
            "The arguments for 'order' are not valid JSON: ",
            "Your arguments for 'order' were cut off",
        )
    )
    assert "(at character " in outcome.text or "cut off" in outcome.text
    assert_model_safe(outcome.text)


def test_truncated_json_text_is_pinned(order_tool: Tool) -> None:
    outcome = order_tool.invoke_sync('{"note": "x"')
    assert outcome.text == (
        "Your arguments for 'order' were cut off (an object is not closed at the end); "
        "send a shorter call."
    )


@pytest.mark.parametrize("arguments", [42, None, ["note"], 1.5])
def test_python_values_that_are_not_mappings_are_refused(order_tool: Tool, arguments: Any) -> None:
    outcome = order_tool.invoke_sync(arguments)
    assert outcome.text == "Arguments for 'order' must be a JSON object."


def test_a_mapping_holding_non_json_values_is_refused_without_python_reprs(
    order_tool: Tool,
) -> None:
    outcome = order_tool.invoke_sync({"items": [], "note": object()})
    assert outcome.text == "Arguments for 'order' must be a JSON object of JSON values."


# -- argument problems ------------------------------------------------------------


def test_a_missing_argument_is_named(order_tool: Tool) -> None:
    outcome = order_tool.invoke_sync('{"items": []}')
    assert outcome.text == "Argument 'note' is required."


def test_an_unknown_argument_is_named_with_the_known_names(order_tool: Tool) -> None:
    outcome = order_tool.invoke_sync('{"items": [], "note": "n", "colour": "red"}')
    assert outcome.text == (
        "Argument 'colour' is not accepted by 'order' (known: items, note, count)."
    )


def test_an_unknown_nested_field_lists_the_names_of_that_object(order_tool: Tool) -> None:
    raw = '{"items": [{"sku": "a", "qty": 1, "size": "L"}], "note": "n"}'
    assert order_tool.invoke_sync(raw).text == (
        "Argument 'items[0].size' is not accepted by 'order' (known: sku, qty)."
    )


def test_an_unknown_argument_of_a_tool_without_parameters_lists_nothing() -> None:
    def ping() -> str:
        return "pong"

    outcome = Tool.from_function(ping).invoke_sync('{"verbose": true}')
    assert outcome.text == "Argument 'verbose' is not accepted by 'ping'."


def test_null_for_an_argument_that_does_not_accept_it_is_refused(order_tool: Tool) -> None:
    outcome = order_tool.invoke_sync('{"items": [], "note": null}')
    assert outcome.text == "Argument 'note' must be a string (got null)."


def test_null_for_a_defaulted_argument_is_refused_by_plain_invoke(order_tool: Tool) -> None:
    outcome = order_tool.invoke_sync('{"items": [], "note": "n", "count": null}')
    assert outcome.text == "Argument 'count' must be an integer (got null)."


def test_a_wrong_type_names_the_path_what_was_expected_and_what_came(order_tool: Tool) -> None:
    raw = json.dumps(
        {
            "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}, {"sku": "c", "qty": "x"}],
            "note": "n",
        }
    )
    assert (
        order_tool.invoke_sync(raw).text
        == "Argument 'items[2].qty' must be an integer (got \"x\")."
    )


def test_a_constraint_violation_says_what_was_expected(order_tool: Tool) -> None:
    raw = '{"items": [{"sku": "a", "qty": 0}], "note": "n"}'
    assert order_tool.invoke_sync(raw).text == (
        "Argument 'items[0].qty' must be greater than or equal to 1 (got 0)."
    )


def test_every_problem_is_listed_under_a_header(order_tool: Tool) -> None:
    raw = '{"items": [{"sku": 1}], "note": 5, "count": 1.5, "extra": true}'
    assert order_tool.invoke_sync(raw).text == (
        "Invalid arguments for 'order' (5 problems):\n"
        "- Argument 'items[0].sku' must be a string (got 1).\n"
        "- Argument 'items[0].qty' is required.\n"
        "- Argument 'note' must be a string (got 5).\n"
        "- Argument 'count' must be an integer (got 1.5).\n"
        "- Argument 'extra' is not accepted by 'order' (known: items, note, count)."
    )


def test_a_long_problem_list_is_capped_and_counted() -> None:
    def total(values: list[int]) -> int:
        return sum(values)

    raw = json.dumps({"values": ["x"] * (MAX_LISTED + 5)})
    text = Tool.from_function(total).invoke_sync(raw).text
    lines = text.splitlines()
    assert lines[0] == f"Invalid arguments for 'total' ({MAX_LISTED + 5} problems):"
    assert lines[1] == "- Argument 'values[0]' must be an integer (got \"x\")."
    assert lines[-1] == "- ... and 5 more problems."
    assert len(lines) == 1 + MAX_LISTED + 1


def test_a_long_offending_value_is_shortened() -> None:
    def echo(text: str) -> str:
        return text

    outcome = Tool.from_function(echo).invoke_sync(json.dumps({"text": list(range(1000))}))
    assert outcome.text.startswith("Argument 'text' must be a string (got [0,1,2,")
    assert outcome.text.endswith("…).")
    assert len(outcome.text) < 120


def test_property_names_that_are_not_identifiers_are_quoted_in_paths() -> None:
    def tally(counts: dict[str, int]) -> int:
        return sum(counts.values())

    outcome = Tool.from_function(tally).invoke_sync('{"counts": {"two words": "x"}}')
    assert outcome.text == 'Argument \'counts["two words"]\' must be an integer (got "x").'


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"n": 500}', "Argument 'n' must be less than or equal to 100 (got 500)."),
        ('{"n": true}', "Argument 'n' must be an integer (got true)."),
        ('{"n": "5"}', "Argument 'n' must be an integer (got \"5\")."),
        ('{"n": 10000000000000000000000000000000}', "Argument 'n' must be less than or equal "
         "to 100 (got 10000000000000000000000000000000)."),
    ],
)  # fmt: skip
def test_scalar_problems_are_pinned(raw: str, expected: str) -> None:
    def bounded(n: Annotated[int, Ge(0), Le(100)]) -> int:
        return n

    assert Tool.from_function(bounded).invoke_sync(raw).text == expected


def test_an_invalid_arguments_outcome_is_a_single_text_part(order_tool: Tool) -> None:
    outcome = order_tool.invoke_sync('{"items": []}', call_id="call_7")
    assert outcome.is_error
    assert outcome.call_id == "call_7"
    assert outcome.tool_name == "order"
    assert outcome.content == (TextPart("Argument 'note' is required."),)
    assert outcome.value is None
    assert outcome.structured is None
    assert outcome.exception is None


# -- no internals, over many bad inputs -------------------------------------------

BAD_VALUES: list[Any] = [
    None, True, 0, -1, 1.5, 10**30, "", "x", "2024-13-45", "not-a-uuid", "!!", [], [1, "a", None],
    [[1]], {}, {"a": 1}, {"x": {"y": []}},
]  # fmt: skip


def bad_argument_objects(tool: Tool) -> list[dict[str, Any]]:
    names = list(tool.spec.input_schema.get("properties", {}))
    cases: list[dict[str, Any]] = [{}, {"unknown_argument": 1}]
    for value in BAD_VALUES:
        cases.append(dict.fromkeys(names, value))
        cases.extend({name: value} for name in names)
    return cases


@pytest.mark.parametrize("fn", CORPUS, ids=lambda fn: fn.__name__)
def test_no_pydantic_internals_or_tracebacks_reach_the_model(fn: Any) -> None:
    tool = Tool.from_function(fn)  # invoke_sync runs the async one in a fresh loop
    refused = 0
    for arguments in bad_argument_objects(tool):
        outcome = tool.invoke_sync(json.dumps(arguments))
        assert_model_safe(outcome.text)
        refused += outcome.is_error
    assert refused, "a bad input should have been refused"


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "{", "[]", "nul", '{"a": NaN}', '{"a": 1, "a": 2}', b"\xff\xfe", "{" * 5000],
)
def test_hostile_raw_texts_never_leak_internals(raw: Any) -> None:
    for fn in CORPUS:
        tool = Tool.from_function(fn)
        assert_model_safe(tool.invoke_sync(raw).text)


# -- failures inside the tool -----------------------------------------------------


def test_a_tool_error_passes_its_message_verbatim() -> None:
    def find(city: str) -> str:
        raise ToolError(f"No place named '{city}'. Try a nearby city.")

    outcome = Tool.from_function(find).invoke_sync('{"city": "Atlantis"}')
    assert outcome.is_error
    assert outcome.text == "No place named 'Atlantis'. Try a nearby city."
    assert outcome.error is not None
    assert outcome.error.kind == "tool_error"
    assert isinstance(outcome.exception, ToolError)


def test_an_exception_gives_tool_failed_with_type_and_message() -> None:
    def divide(a: int, b: int) -> float:
        if b == 0:
            raise ValueError("b must not be zero")
        return a / b

    outcome = Tool.from_function(divide).invoke_sync('{"a": 1, "b": 0}')
    assert outcome.text == "Tool 'divide' failed: ValueError: b must not be zero"
    assert outcome.error is not None
    assert outcome.error.kind == "exception"
    assert isinstance(outcome.exception, ValueError)
    assert outcome.exception.__traceback__ is not None  # the host's log gets the traceback
    assert_model_safe(outcome.text)


async def test_an_exception_in_an_async_tool_becomes_a_result() -> None:
    async def fetch(url: str) -> str:
        raise ConnectionError(f"cannot reach {url}")

    outcome = await Tool.from_function(fetch).invoke('{"url": "db.local"}')
    assert outcome.text == "Tool 'fetch' failed: ConnectionError: cannot reach db.local"
    assert isinstance(outcome.exception, ConnectionError)


async def test_an_exception_in_a_worker_thread_becomes_a_result() -> None:
    def parse(text: str) -> int:
        return int(text)

    outcome = await Tool.from_function(parse).invoke('{"text": "twelve"}')
    assert outcome.text == (
        "Tool 'parse' failed: ValueError: invalid literal for int() with base 10: 'twelve'"
    )


def test_an_exception_without_a_message_names_its_type() -> None:
    def crash() -> None:
        raise RuntimeError

    assert Tool.from_function(crash).invoke_sync("{}").text == "Tool 'crash' failed: RuntimeError"


def test_a_very_long_exception_message_is_shortened() -> None:
    def noisy() -> None:
        raise ValueError("x" * 10_000)

    text = Tool.from_function(noisy).invoke_sync("{}").text
    assert text.startswith("Tool 'noisy' failed: ValueError: xxx")
    assert text.endswith("…")
    assert len(text) < 600


def test_an_exception_whose_str_fails_still_becomes_a_result() -> None:
    class Weird(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str for you")

    def odd() -> None:
        raise Weird

    outcome = Tool.from_function(odd).invoke_sync("{}")
    assert outcome.text == "Tool 'odd' failed: Weird"
    assert isinstance(outcome.exception, Weird)


def test_a_timeout_raised_by_the_tool_itself_is_an_exception_not_a_timeout() -> None:
    @tool(timeout=5)
    async def upstream() -> str:
        raise TimeoutError("the upstream API timed out")

    outcome = Tool.from_function(upstream).invoke_sync("{}")
    assert outcome.text == "Tool 'upstream' failed: TimeoutError: the upstream API timed out"
    assert outcome.error is not None
    assert outcome.error.kind == "exception"


# -- timeouts -----------------------------------------------------------------------


async def test_an_async_tool_over_its_timeout_is_cancelled_and_answered() -> None:
    stopped = asyncio.Event()

    @tool(timeout=0.05)
    async def slow() -> str:
        try:
            await asyncio.sleep(10)
        finally:
            stopped.set()
        return "late"

    outcome = await Tool.from_function(slow).invoke("{}", call_id="c1")
    assert outcome.is_error
    assert outcome.text == "Tool 'slow' timed out after 0.05 s."
    assert outcome.error is not None
    assert outcome.error.kind == "timeout"
    assert outcome.call_id == "c1"
    assert stopped.is_set()  # the coroutine was cancelled, not left running


async def test_a_whole_second_timeout_is_written_without_decimals() -> None:
    @tool(timeout=1)
    async def wait() -> None:
        await asyncio.sleep(10)

    t = Tool.from_function(wait)
    # The same text whatever the value; 1 s is written as "1 s".
    assert t.spec.timeout == 1
    outcome = await asyncio.wait_for(t.invoke("{}"), 5)
    assert outcome.text == "Tool 'wait' timed out after 1 s."


async def test_a_blocking_sync_tool_is_answered_on_time_and_its_cancel_event_is_set() -> None:
    seen: dict[str, Any] = {}
    finished = threading.Event()
    release = threading.Event()

    @tool(timeout=0.1)
    def crunch(ctx: ToolContext) -> str:
        seen["ctx"] = ctx
        seen["set_in_time"] = ctx.cancel_event.wait(60)  # cooperative code polls the event
        seen["cancelled"] = ctx.cancelled
        release.wait(60)  # held until the test has its answer: the answer cannot wait for it
        finished.set()
        return "done"

    outcome = await Tool.from_function(crunch).invoke("{}")
    assert not finished.is_set()  # answered while the thread is still running
    release.set()
    assert outcome.text == "Tool 'crunch' timed out after 0.1 s."
    assert seen["ctx"].cancel_event.is_set()
    # The thread cannot be stopped; it keeps running and sees the signal.
    assert await asyncio.to_thread(finished.wait, 60)
    assert seen["set_in_time"] is True
    assert seen["cancelled"] is True


async def test_a_blocking_sync_tool_without_a_context_parameter_still_times_out() -> None:
    release = threading.Event()

    @tool(timeout=0.05)
    def stuck() -> str:
        release.wait(10)
        return "late"

    try:
        outcome = await Tool.from_function(stuck).invoke("{}")
    finally:
        release.set()
    assert outcome.text == "Tool 'stuck' timed out after 0.05 s."


async def test_a_host_context_is_not_cancelled_by_one_calls_timeout() -> None:
    seen: list[ToolContext] = []

    @tool(timeout=0.05)
    def wait(ctx: ToolContext) -> None:
        seen.append(ctx)
        ctx.cancel_event.wait(10)

    host = ToolContext(state={"user": "ada"})
    outcome = await Tool.from_function(wait).invoke("{}", context=host)
    assert outcome.error is not None
    assert outcome.error.kind == "timeout"
    assert seen[0].cancel_event.is_set()
    assert seen[0].state is host.state
    assert not host.cancel_event.is_set()  # each call gets its own signal


async def test_a_tool_that_finishes_in_time_is_not_affected_by_its_timeout() -> None:
    @tool(timeout=5)
    async def quick(x: int) -> int:
        return x * 2

    outcome = await Tool.from_function(quick).invoke('{"x": 21}')
    assert not outcome.is_error
    assert outcome.value == 42


# -- cancellation -----------------------------------------------------------------


async def test_caller_cancellation_of_an_async_tool_propagates() -> None:
    entered = asyncio.Event()

    async def forever() -> None:
        entered.set()
        await asyncio.sleep(10)

    task = asyncio.create_task(Tool.from_function(forever).invoke("{}"))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_caller_cancellation_of_a_thread_tool_propagates_and_sets_cancel_event() -> None:
    entered = threading.Event()
    seen: list[ToolContext] = []

    def poll(ctx: ToolContext) -> str:
        seen.append(ctx)
        entered.set()
        ctx.cancel_event.wait(10)
        return "stopped"

    task = asyncio.create_task(Tool.from_function(poll).invoke("{}"))
    assert await asyncio.to_thread(entered.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen[0].cancel_event.is_set()


async def test_caller_timeout_around_invoke_propagates_as_cancellation() -> None:
    async def forever() -> None:
        await asyncio.sleep(10)

    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(Tool.from_function(forever).invoke("{}"), 0.05)
