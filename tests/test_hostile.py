"""Hostile arguments under the default `Limits`: refused or accepted in bounded cost.

Every argument object up to the 1 MiB size limit is answered within a time and memory
bound (issue 10, "bounded cost"): errors are not collected by the million, patterns
that need back-tracking stop on a time bound, echoes of the model's text are short,
and long results are cut with a note the model can read. Extra memory is measured with
`tracemalloc` on a warm tool (the first call compiles the validators); it is far below
what the unbounded paths took (gigabytes). Time is never compared with a fixed number
(a loaded machine is slow, not wrong): given the same input at a quarter of the size,
the cost must grow at most linearly (`growth.assert_linear`). `HANG` only stops a
test that would otherwise run for minutes.
"""

from __future__ import annotations

import asyncio
import json
import time
import tracemalloc
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from growth import FACTOR, assert_linear, growth
from toolcast import Limits, Tool, ToolOutcome

MiB = 1 << 20
HANG = 60.0
"""Seconds after which a call counts as hung (not a speed claim: growth is checked)."""
MEGABYTES = 64


@dataclass(frozen=True)
class Cost:
    outcome: ToolOutcome
    seconds: float
    megabytes: float


WARM = json.dumps({"warm": ["x" * 40] * 500})
"""Over the full-report size, so warming up also compiles the bounded validator."""


def cost(tool: Tool, raw: str, *, traced: str | None = None, quarter: str | None = None) -> Cost:
    """The outcome of a warm call, its time, and the peak memory a call allocates.

    `traced`: the input whose memory is measured, when not `raw` (a quarter-size
    copy where tracing a megabyte of accepted values would take seconds).
    `quarter`: the same input at a quarter of the size; given it, the time must
    grow at most linearly from it to `raw`.
    """
    tool.invoke_sync(WARM)  # compiles the validators; refused (unknown key), cheaply
    start = time.perf_counter()
    outcome = tool.invoke_sync(raw)
    seconds = time.perf_counter() - start
    if quarter is not None:
        assert len(raw) / len(quarter) == pytest.approx(FACTOR, rel=0.1)
        assert_linear(lambda: tool.invoke_sync(quarter), lambda: tool.invoke_sync(raw))
    tracemalloc.start()
    try:
        tool.invoke_sync(raw if traced is None else traced)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    scale = 1 if traced is None else len(raw) / len(traced)
    return Cost(outcome, seconds, peak * scale / 1e6)


def within_bounds(measured: Cost) -> None:
    assert measured.seconds < HANG, f"{measured.seconds:.3f} s"
    assert measured.megabytes < MEGABYTES, f"{measured.megabytes:.1f} MB"


def filled(prefix: str, item: str, suffix: str, size: int = MiB) -> str:
    """`prefix item,item,... suffix`, as close to `size` as the items allow."""
    count = (size - len(prefix) - len(suffix)) // (len(item) + 1)
    text = prefix + ",".join([item] * count) + suffix
    assert size - 2 * len(item) - 2 < len(text) <= size
    return text


def test_warming_up_compiles_the_bounded_validator() -> None:
    assert len(WARM) > 16 * 1024
    assert "Argument 'warm' is not accepted" in Tool.from_function(plain).invoke_sync(WARM).text


class Line(BaseModel):
    sku: str
    qty: int


def order(items: list[Line]) -> int:
    return len(items)


def lookup(by_id: dict[str, Line]) -> int:
    return len(by_id)


def anything(value: Any) -> str:
    return type(value).__name__


def total(values: list[Decimal]) -> str:
    return str(sum(values))


def count(values: list[int]) -> int:
    return len(values)


def plain(x: int) -> int:
    return x


LOOKAROUND = r"^(?=a)(a|a)*$"
"""Exponential on a back-tracking engine: 7 s at 27 characters in Python's `re`."""


def tagged(tag: Annotated[str, Field(pattern=LOOKAROUND)]) -> str:
    return tag


def tags(values: list[Annotated[str, Field(pattern=LOOKAROUND)]]) -> int:
    return len(values)


# -- errors are not collected by the million ----------------------------------------


def test_a_megabyte_of_empty_objects_for_a_list_of_models_is_refused_in_bounded_cost() -> None:
    # Before: 5 s and 1.1 GB (a million errors materialised, 20 shown).
    raw, quarter = (filled('{"items": [', "{}", "]}", size) for size in (MiB, MiB // FACTOR))
    measured = cost(Tool.from_function(order), raw, quarter=quarter)
    within_bounds(measured)
    assert measured.outcome.text == (
        "Invalid arguments for 'order' (2 problems):\n"
        "- Argument 'items[0].sku' is required.\n"
        "- Argument 'items[0].qty' is required.\n"
        "Each array was checked up to its first bad item."
    )


HAND_WRITTEN = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                "required": ["sku", "qty"],
            },
        }
    },
    "required": ["items"],
}


def test_a_megabyte_of_empty_objects_for_a_hand_written_schema_is_refused_in_bounded_cost() -> None:
    # The same flood through `Tool.from_schema` (the full 2020-12 validator).
    tool = Tool.from_schema("order", "Place an order.", HAND_WRITTEN, len)
    raw, quarter = (filled('{"items": [', "{}", "]}", size) for size in (MiB, MiB // FACTOR))
    measured = cost(tool, raw, quarter=quarter)
    within_bounds(measured)
    assert measured.outcome.is_error
    assert measured.outcome.text.startswith("Argument 'items[0].")
    assert "Only the first problem is reported" in measured.outcome.text


def test_a_megabyte_of_bad_values_in_a_map_is_refused_in_bounded_cost() -> None:
    raw, quarter = (
        '{"by_id": {' + ",".join(f'"{i}": {{}}' for i in range(n)) + "}}"
        for n in (80_000, 80_000 // FACTOR)
    )
    assert len(raw) <= MiB
    measured = cost(Tool.from_function(lookup), raw, quarter=quarter)
    within_bounds(measured)
    assert measured.outcome.text.startswith("Invalid arguments for 'lookup' (2 problems):")


def test_a_megabyte_of_unknown_keys_is_refused_in_bounded_cost() -> None:
    raw, quarter = (
        '{"x":1,' + ",".join(f'"k{i}":0' for i in range(n)) + "}"
        for n in (90_000, 90_000 // FACTOR)
    )
    assert len(raw) <= MiB
    measured = cost(Tool.from_function(plain), raw, quarter=quarter)
    within_bounds(measured)
    lines = measured.outcome.text.splitlines()
    assert lines[0] == "Invalid arguments for 'plain' (90000 problems):"
    assert lines[1] == "- Argument 'k0' is not accepted by 'plain' (known: x)."
    assert lines[-1] == "- ... and 89980 more problems."


def test_a_megabyte_of_nested_values_for_any_is_accepted_in_bounded_cost() -> None:
    raw, quarter = (filled('{"value": [', "{}", "]}", size) for size in (MiB, MiB // 4))
    measured = cost(Tool.from_function(anything), raw, traced=quarter, quarter=quarter)
    within_bounds(measured)
    assert measured.outcome.text == "list"


def test_a_megabyte_of_decimals_keeps_every_digit_in_bounded_cost() -> None:
    raw, quarter = (filled('{"values": [', "0.10", "]}", size) for size in (MiB, MiB // 4))
    measured = cost(Tool.from_function(total), raw, traced=quarter, quarter=quarter)
    within_bounds(measured)
    # Every 0.10 exact: no float drift in the sum, and the trailing zero kept.
    assert measured.outcome.text == str(Decimal("0.10") * raw.count("0.10"))


def test_a_megabyte_of_integers_written_as_floats_in_bounded_cost() -> None:
    # The exact-digit path (an exponent): re-read as decimals, rebuilt, validated.
    raw, quarter = (filled('{"values": [', "1e23", "]}", size) for size in (MiB, MiB // 4))
    measured = cost(Tool.from_function(count), raw, traced=quarter, quarter=quarter)
    within_bounds(measured)
    assert not measured.outcome.is_error


def test_small_input_still_reports_every_problem() -> None:
    raw = json.dumps({"items": [{}] * 30})
    text = Tool.from_function(order).invoke_sync(raw).text
    assert text.startswith("Invalid arguments for 'order' (60 problems):")
    assert text.endswith("- ... and 40 more problems.")


# -- patterns that need back-tracking run on a time bound -------------------------------


def test_a_back_tracking_pattern_is_cut_off_in_time() -> None:
    tool = Tool.from_function(tagged)
    assert tool.invoke_sync('{"tag": "aaaa"}').text == "aaaa"
    measured = cost(tool, json.dumps({"tag": "a" * 40 + "b"}))  # years in Python's re
    within_bounds(measured)
    assert measured.outcome.text.startswith(
        f"Argument 'tag' could not be checked against the pattern {LOOKAROUND} in time"
    )


def test_back_tracking_patterns_share_one_time_bound_per_call() -> None:
    # 300 hostile strings in one call: the bound is per call, not per value. So 4x
    # the strings cost about the same (one bound); a bound per value would cost 4x.
    raw = json.dumps({"values": ["a" * 40 + "b"] * 300})
    quarter = json.dumps({"values": ["a" * 40 + "b"] * 75})
    tool = Tool.from_function(tags)
    measured = cost(tool, raw)
    within_bounds(measured)
    assert growth(lambda: tool.invoke_sync(quarter), lambda: tool.invoke_sync(raw)) < 2.0
    assert "could not be checked against the pattern" in measured.outcome.text


# -- what is echoed back is short ---------------------------------------------------


def test_an_unknown_megabyte_key_is_echoed_shortened() -> None:
    # Before: the whole key came back in the error text.
    raw, quarter = ('{"x": 1, "' + "k" * (size - 20) + '": 1}' for size in (MiB, MiB // FACTOR))
    measured = cost(Tool.from_function(plain), raw, quarter=quarter)
    within_bounds(measured)
    assert len(measured.outcome.text) < 300
    assert measured.outcome.text.startswith("Argument '[\"kkkk")
    assert "…" in measured.outcome.text


def test_a_repeated_megabyte_key_is_echoed_shortened() -> None:
    key = "k" * (MiB // 2 - 20)
    outcome = Tool.from_function(plain).invoke_sync(f'{{"{key}": 1, "{key}": 2}}')
    assert outcome.text.startswith("Arguments for 'plain' repeat the key")
    assert len(outcome.text) < 400


def test_a_long_wrong_value_is_echoed_shortened() -> None:
    outcome = Tool.from_function(plain).invoke_sync(json.dumps({"x": "v" * 500_000}))
    assert outcome.text == f"Argument 'x' must be an integer (got \"{'v' * 58}…)."


# -- results have a size limit ------------------------------------------------------


def long_text() -> str:
    return "x" * 1_000_000


def long_list() -> list[int]:
    return list(range(200_000))


def test_a_long_result_is_cut_with_a_note_the_model_can_read() -> None:
    outcome = Tool.from_function(long_text).invoke_sync("{}")
    limit = Limits().max_result_chars
    assert outcome.text == (
        "x" * limit + "\n[Result truncated: showing 100000 of 1000000 characters. "
        "Ask for less (a narrower query, fewer fields, or a page) to see the rest.]"
    )
    assert outcome.value == "x" * 1_000_000  # the host still has the whole value


def test_the_result_limit_is_configurable_and_cut_json_becomes_text() -> None:
    tool = Tool.from_function(long_list, limits=Limits(max_result_chars=20))
    outcome = tool.invoke_sync("{}")
    assert outcome.text.startswith("[0,1,2,3,4,5,6,7,8,9\n[Result truncated: showing 20 of ")
    assert outcome.structured is None  # the model did not see the whole value
    assert not outcome.is_error


@pytest.mark.parametrize("limit", [10, 1_000_000])
def test_a_result_within_the_limit_is_untouched(limit: int) -> None:
    def short() -> str:
        return "0123456789"

    outcome = Tool.from_function(short, limits=Limits(max_result_chars=limit)).invoke_sync("{}")
    assert outcome.text == "0123456789"


def long_dict() -> dict[str, list[int]]:
    return {"items": list(range(1_000))}


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_long_dict_result_is_cut_like_any_other(kind: str) -> None:
    """A dict takes the short per-call path to its outcome; the limit still applies."""
    tool = Tool.from_function(long_dict, limits=Limits(max_result_chars=20), blocking=False)
    outcome = tool.invoke_sync("{}") if kind == "sync" else asyncio.run(tool.invoke("{}"))
    assert outcome.text.startswith('{"items":[0,1,2,3,4,\n[Result truncated: showing 20 of ')
    assert outcome.structured is None
    assert outcome.value == {"items": list(range(1_000))}


def test_a_dict_result_that_is_not_json_fails_in_words_for_the_model() -> None:
    def odd() -> dict[str, Any]:
        return {"x": object()}

    outcome = Tool.from_function(odd).invoke_sync("{}")
    assert outcome.is_error
    assert outcome.text == "Tool 'odd' failed: its result could not be converted to JSON."
    assert outcome.exception is not None


def test_a_deprecated_tool_notes_it_after_a_dict_result() -> None:
    def old() -> dict[str, int]:
        return {"n": 1}

    outcome = Tool.from_function(old, deprecated="use new").invoke_sync("{}")
    assert outcome.text == "{\"n\":1}\nNote: tool 'old' is deprecated: use new."
