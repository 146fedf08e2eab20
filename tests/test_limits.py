"""Hostile input is bounded: size, depth, UTF-8, NaN/Infinity, duplicate keys, huge numbers.

Each case must come back as a clear error result; none may hang or raise. There
are no timing assertions: returning at all (within pytest's patience) is the
claim, and the inputs are big enough that a quadratic path would be noticed.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from toolcast import Limits, Tool

MiB = 1 << 20


def store(payload: Any) -> str:
    """Accept any JSON value (unbounded nesting)."""
    return type(payload).__name__


def tag(label: str) -> str:
    return label


def count(n: int) -> int:
    return n


def ratio(x: float) -> float:
    return x


def grid(rows: list[list[int]]) -> int:
    return len(rows)


def settings(values: dict[str, Any]) -> int:
    return len(values)


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclass
class Folder:
    name: str
    subfolders: list[Folder] = field(default_factory=list)


def tree(root: Folder) -> str:
    return root.name


def nested_payload(levels: int) -> str:
    """`{"payload": [[...]]}` whose deepest array sits at `levels` (the object is level 1)."""
    arrays = levels - 1
    return '{"payload": ' + "[" * arrays + "]" * arrays + "}"


def nested_folder(levels: int) -> dict[str, Any]:
    folder: dict[str, Any] = {"name": "leaf"}
    for _ in range(levels):
        folder = {"name": "f", "subfolders": [folder]}
    return {"root": folder}


# -- the defaults -------------------------------------------------------------------


def test_default_limits_are_one_mebibyte_and_64_levels() -> None:
    assert Limits() == Limits(max_bytes=MiB, max_depth=64)


def test_limits_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limits().max_bytes = 1  # type: ignore[misc]


# -- size -----------------------------------------------------------------------------


def padded(size: int) -> str:
    """A `{"label": "xxx…"}` text of exactly `size` bytes."""
    overhead = len('{"label": ""}')
    return '{"label": "' + "x" * (size - overhead) + '"}'


def test_arguments_at_the_size_limit_are_accepted() -> None:
    outcome = Tool.from_function(tag).invoke_sync(padded(MiB))
    assert not outcome.is_error
    assert len(outcome.value) == MiB - len('{"label": ""}')


@pytest.mark.parametrize("kind", ["str", "bytes", "bytearray"])
def test_arguments_over_the_size_limit_are_refused(kind: str) -> None:
    raw: Any = padded(MiB + 1)
    if kind != "str":
        raw = (bytes if kind == "bytes" else bytearray)(raw.encode())
    outcome = Tool.from_function(tag).invoke_sync(raw)
    assert outcome.is_error
    assert outcome.text == (
        f"Arguments for 'tag' are too large ({MiB + 1} bytes; the limit is {MiB})."
    )
    assert outcome.error is not None
    assert outcome.error.kind == "invalid_arguments"


def test_an_oversized_mapping_is_refused_after_serialising() -> None:
    outcome = Tool.from_function(tag).invoke_sync({"label": "x" * MiB})
    assert outcome.text.startswith("Arguments for 'tag' are too large (")


def test_size_is_counted_in_utf8_bytes_not_characters() -> None:
    # 400 000 characters, 1 200 000 bytes: over the limit although len() is not.
    raw = json.dumps({"label": "€" * 400_000}, ensure_ascii=False)
    assert len(raw) < MiB < len(raw.encode())
    outcome = Tool.from_function(tag).invoke_sync(raw)
    assert outcome.text == (
        f"Arguments for 'tag' are too large ({len(raw.encode())} bytes; the limit is {MiB})."
    )


def test_trailing_whitespace_counts_towards_the_size() -> None:
    outcome = Tool.from_function(tag).invoke_sync('{"label": "x"}' + " " * MiB)
    assert outcome.text.startswith("Arguments for 'tag' are too large")


def test_a_megabyte_of_wrong_values_gives_a_capped_message() -> None:
    def total(values: list[int]) -> int:
        return sum(values)

    raw = '{"values": [' + ",".join(['"a"'] * 200_000) + "]}"
    assert len(raw) < MiB
    outcome = Tool.from_function(total).invoke_sync(raw)
    # Large input stops at each array's first bad item instead of collecting 200 000.
    assert outcome.text == (
        "Argument 'values[0]' must be an integer (got \"a\"). "
        "Each array was checked up to its first bad item."
    )


def test_small_input_still_lists_and_counts_every_problem() -> None:
    def total(values: list[int]) -> int:
        return sum(values)

    raw = '{"values": [' + ",".join(['"a"'] * 2_000) + "]}"
    outcome = Tool.from_function(total).invoke_sync(raw)
    assert outcome.text.startswith("Invalid arguments for 'total' (2000 problems):")
    assert outcome.text.endswith("- ... and 1980 more problems.")


# -- depth ---------------------------------------------------------------------------


def test_nesting_at_the_depth_limit_is_accepted() -> None:
    outcome = Tool.from_function(store).invoke_sync(nested_payload(64))
    assert not outcome.is_error, outcome.text


def test_nesting_over_the_depth_limit_is_refused_for_any() -> None:
    outcome = Tool.from_function(store).invoke_sync(nested_payload(65))
    assert outcome.text == "Arguments for 'store' are nested deeper than 64 levels."


def test_nesting_over_the_depth_limit_is_refused_for_dict_values() -> None:
    raw = '{"values": {"a": ' + '{"a": ' * 70 + "1" + "}" * 70 + "}}"
    outcome = Tool.from_function(settings).invoke_sync(raw)
    assert outcome.text == "Arguments for 'settings' are nested deeper than 64 levels."


def test_nesting_over_the_depth_limit_is_refused_for_recursive_types() -> None:
    tool = Tool.from_function(tree)
    assert not tool.invoke_sync(nested_folder(20)).is_error
    outcome = tool.invoke_sync(nested_folder(40))  # two levels per folder
    assert outcome.text == "Arguments for 'tree' are nested deeper than 64 levels."


def test_a_mapping_is_held_to_the_same_depth_limit() -> None:
    outcome = Tool.from_function(store).invoke_sync(json.loads(nested_payload(65)))
    assert outcome.text == "Arguments for 'store' are nested deeper than 64 levels."


def test_extreme_nesting_is_stopped_by_the_parser() -> None:
    outcome = Tool.from_function(store).invoke_sync(nested_payload(100_000))
    assert outcome.is_error
    assert outcome.text.startswith("Arguments for 'store' are nested too deeply (line 1 column ")


def test_bounded_schemas_report_deep_input_as_a_type_error_not_a_depth_error() -> None:
    """A schema that cannot nest past the limit needs no depth walk: validation refuses."""
    outcome = Tool.from_function(grid).invoke_sync('{"rows": [[[[[[[[1]]]]]]]]}')
    assert outcome.text == "Argument 'rows[0][0]' must be an integer (got [[[[[[1]]]]]])."
    deep = '{"rows": ' + "[" * 100 + "]" * 100 + "}"
    assert "must be an integer" in Tool.from_function(grid).invoke_sync(deep).text


# -- configurable -------------------------------------------------------------------


def test_max_bytes_is_configurable() -> None:
    tool = Tool.from_function(tag, limits=Limits(max_bytes=100))
    assert not tool.invoke_sync(padded(100)).is_error
    assert tool.invoke_sync(padded(101)).text == (
        "Arguments for 'tag' are too large (101 bytes; the limit is 100)."
    )


def test_max_depth_is_configurable() -> None:
    tool = Tool.from_function(store, limits=Limits(max_depth=3))
    assert not tool.invoke_sync('{"payload": [[1]]}').is_error
    assert tool.invoke_sync('{"payload": [[[1]]]}').text == (
        "Arguments for 'store' are nested deeper than 3 levels."
    )


def test_a_depth_limit_below_a_bounded_schemas_depth_is_enforced_too() -> None:
    tool = Tool.from_function(grid, limits=Limits(max_depth=2))
    assert tool.invoke_sync('{"rows": [[1]]}').text == (
        "Arguments for 'grid' are nested deeper than 2 levels."
    )


def test_limits_apply_to_null_means_default_parsing_too() -> None:
    tool = Tool.from_function(tag, limits=Limits(max_bytes=50))
    outcome = tool.invoke_sync(padded(51), null_means_default=True)
    assert outcome.text == "Arguments for 'tag' are too large (51 bytes; the limit is 50)."


def test_limits_are_configurable_for_schema_tools() -> None:
    schema = {"type": "object", "properties": {"payload": {}}, "additionalProperties": False}
    tool = Tool.from_schema(
        "store",
        "Keep a value.",
        schema,
        lambda args: "ok",
        limits=Limits(max_bytes=30, max_depth=3),
    )
    assert tool.invoke_sync('{"payload": [[1]]}').text == "ok"
    assert tool.invoke_sync('{"payload": [[[1]]]}').text == (
        "Arguments for 'store' are nested deeper than 3 levels."
    )
    assert tool.invoke_sync('{"payload": "' + "x" * 30 + '"}').text.startswith(
        "Arguments for 'store' are too large (45 bytes; the limit is 30)"
    )


# -- invalid UTF-8 --------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b'{"label": "\xff"}',  # never valid in UTF-8
        b'{"label": "\xc3\x28"}',  # a broken two-byte sequence
        b'{"label": "\xed\xa0\x80"}',  # an encoded surrogate
        b'{"label": "caf\xe9"}',  # Latin-1, not UTF-8
        b'\xff{"label": "x"}',  # garbage before the object
    ],
)
def test_invalid_utf8_bytes_are_refused_clearly(raw: bytes) -> None:
    outcome = Tool.from_function(tag).invoke_sync(raw)
    assert outcome.text == "Arguments for 'tag' are not valid UTF-8 text."


def test_a_string_with_a_lone_surrogate_is_refused_as_invalid_utf8() -> None:
    outcome = Tool.from_function(tag).invoke_sync('{"label": "\ud800"}')
    assert outcome.text == "Arguments for 'tag' are not valid UTF-8 text."


def test_valid_multibyte_utf8_bytes_are_accepted() -> None:
    outcome = Tool.from_function(tag).invoke_sync('{"label": "café €"}'.encode())
    assert outcome.value == "café €"


def test_a_byte_order_mark_is_not_json() -> None:
    outcome = Tool.from_function(tag).invoke_sync(b'\xef\xbb\xbf{"label": "x"}')
    assert outcome.is_error
    assert outcome.text == (
        "The arguments for 'tag' are not valid JSON: the text starts with a byte order mark "
        "(at character 1); send plain JSON."
    )


# -- NaN and Infinity -----------------------------------------------------------------

NON_FINITE = (
    "Arguments for 'ratio' contain NaN or Infinity, which JSON does not allow; "
    "send a finite number or null."
)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_tokens_are_refused(token: str) -> None:
    outcome = Tool.from_function(ratio).invoke_sync(f'{{"x": {token}}}')
    assert outcome.text == NON_FINITE


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_nan_and_infinity_in_a_mapping_are_refused(value: float) -> None:
    assert Tool.from_function(ratio).invoke_sync({"x": value}).text == NON_FINITE


def test_nan_nested_in_an_any_value_is_refused() -> None:
    outcome = Tool.from_function(store).invoke_sync('{"payload": {"a": [1, NaN]}}')
    assert outcome.text.startswith("Arguments for 'store' contain NaN or Infinity")


def test_the_word_nan_inside_a_string_is_just_text() -> None:
    assert Tool.from_function(tag).invoke_sync('{"label": "NaN, Infinity"}').value == (
        "NaN, Infinity"
    )


def test_a_number_that_overflows_a_float_is_not_finite() -> None:
    outcome = Tool.from_function(ratio).invoke_sync('{"x": 1e400}')
    assert (
        outcome.text
        == "Argument 'x' must be within a float's range, ±1.7976931348623157e+308 (got 1e400)."
    )


# -- duplicate keys ---------------------------------------------------------------


def test_a_repeated_argument_is_refused() -> None:
    outcome = Tool.from_function(tag).invoke_sync('{"label": "a", "label": "b"}')
    assert outcome.text == (
        "Arguments for 'tag' repeat the key \"label\" (line 1 column 24); send each argument once."
    )


def test_a_repeated_key_inside_a_nested_object_is_refused() -> None:
    outcome = Tool.from_function(store).invoke_sync('{"payload": {"a": 1, "a": 2}}')
    assert outcome.text == (
        "Arguments for 'store' repeat the key \"a\" (line 1 column 26); send each argument once."
    )


def test_a_repeated_key_far_into_a_large_object_is_found() -> None:
    keys = ",".join(f'"k{i}": 1' for i in range(80_000))
    outcome = Tool.from_function(store).invoke_sync('{"payload": {' + keys + ', "k5": 2}}')
    assert outcome.text.startswith("Arguments for 'store' repeat the key \"k5\"")


# -- huge numbers -------------------------------------------------------------------


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_of_100000_digits_is_refused(sign: str) -> None:
    outcome = Tool.from_function(count).invoke_sync('{"n": ' + sign + "9" * 100_000 + "}")
    assert outcome.is_error
    assert outcome.text == (
        "Argument 'n' must have at most 4300 digits before its decimal point "
        f"(got {sign}{'9' * (59 - len(sign))}…)."
    )


def test_a_huge_python_integer_in_a_mapping_is_refused() -> None:
    outcome = Tool.from_function(count).invoke_sync({"n": 10**100_000})
    assert outcome.text.startswith("Argument 'n' must have at most 4300 digits before its decimal")


def test_a_huge_integer_inside_an_any_value_is_refused() -> None:
    outcome = Tool.from_function(store).invoke_sync('{"payload": [' + "1" * 100_000 + "]}")
    assert outcome.text.startswith("Argument 'payload[0]' must have at most 4300 digits before")


def test_an_integer_too_large_for_an_int_enum_is_out_of_range() -> None:
    def set_level(level: Level) -> int:
        return int(level)

    outcome = Tool.from_function(set_level).invoke_sync('{"level": 1' + "0" * 30 + "}")
    assert outcome.text == f"Argument 'level' is out of range (got 1{'0' * 30})."


def test_a_float_with_100000_digits_is_handled() -> None:
    outcome = Tool.from_function(ratio).invoke_sync('{"x": 1.' + "1" * 100_000 + "}")
    assert not outcome.is_error
    assert outcome.value == pytest.approx(1.1111111111111112)


def test_an_exponent_of_100000_digits_is_handled() -> None:
    outcome = Tool.from_function(ratio).invoke_sync('{"x": 1e' + "1" * 100_000 + "}")
    assert outcome.text == (
        f"Argument 'x' must have at most 4300 digits before its decimal point (got 1e{'1' * 57}…)."
    )


# -- the empty text -------------------------------------------------------------


@pytest.mark.parametrize("raw", ["", "  \n", b""])
def test_empty_arguments_mean_an_empty_object(raw: Any) -> None:
    def ping() -> str:
        return "pong"

    assert Tool.from_function(ping).invoke_sync(raw).text == "pong"
    assert Tool.from_function(tag).invoke_sync(raw).text == "Argument 'label' is required."
