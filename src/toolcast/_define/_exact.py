"""Validation of argument text against a hand-written schema, with exact numbers.

The text has already passed the argument parser's checks (size, depth, duplicate
keys, NaN, UTF-8). Numbers are read exactly: an integral number (`7`, `7.0`, `1e3`,
`9007199254740993`) is an `int` of any size; another number is a `float` when the
float holds it as written (`0.1`, `2.5`), else a `Decimal` with every digit. The
schema is checked against those values, so bounds and `multipleOf` compare exactly,
and the handler receives the values the schema accepted.
"""

from __future__ import annotations

import decimal
from itertools import islice
from typing import Any

import jiter
import jsonschema_rs

from toolcast._arguments import ArgumentsError, clip
from toolcast._define._nulls import NullPlan, needs_plan
from toolcast._define._schema_messages import format_schema_errors
from toolcast._messages import MAX_LISTED, format_path
from toolcast._numbers import magnitude_reason, spelled_reason

__all__ = ("ExactValidator", "exact_numbers")

# The text is scanned with bytes methods (C speed; a regex scan costs more than the
# parse): with every digit mapped to `0`, `0.`, `0e` or `0E` marks a fraction or an
# exponent. Text without one holds only plain integers, which jiter reads exactly at
# any size. A number may not be what a float holds as written when it has an exponent
# or a run of digits and a point longer than 16 characters (more than 15 significant
# digits). A hit counts only where it starts a JSON number (after `:`, `,`, `[` or
# whitespace), so hex in a UUID or digits in an identifier keep the fast path.
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_DIGITS_AND_POINT = bytes.maketrans(b"123456789.", b"0000000000")
_LONG = b"0" * 17
_BEFORE_NUMBER = frozenset(b":,[ \t\r\n")
_DIGIT_BYTES = frozenset(b"0123456789")
_WORDS = bytes(0x30 if chr(c) in "0123456789.-+eE" else 0x20 for c in range(256))
_ZEROS = bytes(0x30 if c == 0x30 else 0x20 for c in range(256))
# Beyond this many hits inside strings, the scan stops and the exact path is taken
# (always correct, only slower): the scan stays linear on hostile text.
_MAX_HITS = 64
# jsonschema-rs collects every error before it yields the first, at tens of µs each
# (a megabyte of `[{}, {}, ...]` would take seconds); above this size only the first
# problem is looked for, which costs no more than a valid call.
_LIST_EVERY_PROBLEM_UP_TO = 8192
_GOT_CHARS = 60
# A literal of at most this many characters without an exponent has at most 15
# significant digits, which a float holds as written.
_SHORT = 16


class _TooLarge(Exception):
    """A number beyond the exact bounds (`toolcast._numbers`); `where` is its path."""

    def __init__(self, reason: str, number: jiter.LosslessFloat) -> None:
        self.reason = reason
        self.text = bytes(number).decode()
        self.where: list[str | int] = []


def _exact(number: jiter.LosslessFloat) -> int | float | decimal.Decimal:
    text = bytes(number)
    if len(text) <= _SHORT and b"e" not in text and b"E" not in text:
        as_float = float(number)
        return int(as_float) if as_float.is_integer() else as_float
    try:
        value = number.as_decimal()
    except (ValueError, decimal.InvalidOperation):  # an exponent beyond Decimal's own
        raise _TooLarge(spelled_reason(bytes(number).decode()), number) from None
    reason = magnitude_reason(value)
    if reason is not None:
        raise _TooLarge(reason, number)
    if value == value.to_integral_value():
        return int(value)
    as_float = float(value)
    if decimal.Decimal(repr(as_float)) == value:
        return as_float
    return value


def _convert(container: Any) -> None:
    """Replace, in place, every LosslessFloat in `container` by its exact number."""
    pairs = container.items() if type(container) is dict else enumerate(container)
    for key, item in pairs:
        kind = type(item)
        try:
            if kind is jiter.LosslessFloat:
                container[key] = _exact(item)
            elif kind is dict or kind is list:
                _convert(item)
        except _TooLarge as exc:
            exc.where.insert(0, key)
            raise


def _starts_a_number(data: bytes, words: bytes, at: int) -> bool:
    # `words` has every character that can be part of a number mapped to "0" and every
    # other to " ": the character before this run decides (C-speed rfind, not a loop).
    before = words.rfind(b" ", 0, at)
    return before < 0 or data[before] in _BEFORE_NUMBER


def _any_number_at(data: bytes, words: bytes, shape: bytes, marker: bytes) -> bool:
    """Whether `marker` (in `shape`) occurs where a JSON number starts; linear time."""
    at = shape.find(marker)
    for _ in range(_MAX_HITS):
        if at < 0:
            return False
        if _starts_a_number(data, words, at):
            return True
        # Skip the rest of this run: a megabyte of digits in a string is looked at once.
        run_end = words.find(b" ", at)
        at = shape.find(marker, run_end) if run_end >= 0 else -1
    return at >= 0  # too many hits in strings to tell cheaply: take the exact path


def _has_integral_fraction(data: bytes) -> bool:
    """Whether a number like `7.0` (a fraction of zeros) may be in the text."""
    at = data.find(b".0")
    zeros = data.translate(_ZEROS) if at >= 0 else b""
    for _ in range(_MAX_HITS):
        if at < 0:
            return False
        end = zeros.find(b" ", at + 1)  # past the zeros after the point
        end = len(data) if end < 0 else end
        if (
            at > 0
            and data[at - 1] in _DIGIT_BYTES
            and (end == len(data) or data[end] not in _DIGIT_BYTES)
        ):
            return True
        at = data.find(b".0", end)
    return at >= 0  # too many to tell cheaply: the walk decides


def _integral_floats(container: Any) -> None:
    pairs = container.items() if type(container) is dict else enumerate(container)
    for key, item in pairs:
        kind = type(item)
        if kind is float:
            if item.is_integer():
                container[key] = int(item)
        elif kind is dict or kind is list:
            _integral_floats(item)


def exact_numbers(data: bytes) -> Any:
    """Parse JSON text with each number in its exact Python form (see the module doc)."""
    shape = data.translate(_DIGITS)
    if b"0." not in shape and b"0e" not in shape and b"0E" not in shape:
        return jiter.from_json(data)
    words = data.translate(_WORDS)
    inexact = (
        _any_number_at(data, words, shape, b"0e")
        or _any_number_at(data, words, shape, b"0E")
        or _any_number_at(data, words, data.translate(_DIGITS_AND_POINT), _LONG)
    )
    if not inexact:
        # Every fraction has at most 15 significant digits: a float holds it as written.
        value = jiter.from_json(data)
        if type(value) is float:
            return int(value) if value.is_integer() else value
        if isinstance(value, (dict, list)) and _has_integral_fraction(data):
            _integral_floats(value)
        return value
    value = jiter.from_json(data, float_mode="lossless-float")
    if type(value) is jiter.LosslessFloat:
        return _exact(value)
    if isinstance(value, (dict, list)):
        _convert(value)
    return value


class ExactValidator:
    """The validator behind a `from_schema` tool: `validate_json(text)` -> the arguments.

    With `nulls`, the nulls that stand for "not given" under a strict projection are
    removed before validation (`null_means_default`, toolcast._define._nulls).
    """

    __slots__ = ("_nulls", "_schema", "_tool", "_validator")

    def __init__(
        self,
        tool: str,
        validator: jsonschema_rs.Validator,
        schema: Any,
        nulls: NullPlan | None = None,
    ) -> None:
        self._tool = tool
        self._validator = validator
        self._schema = schema
        self._nulls = nulls

    def null_means_default(self) -> ExactValidator:
        """This validator, reading a null for an optional property as "not given".

        The same validator when no optional property lacks null (nothing to remove).
        """
        if not needs_plan(self._schema):
            return self
        return ExactValidator(self._tool, self._validator, self._schema, NullPlan(self._schema))

    def validate_json(self, raw: str | bytes) -> Any:
        """Validate argument text; return its value or raise ArgumentsError."""
        data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
        try:
            value = exact_numbers(data)
        except _TooLarge as exc:
            where = format_path(exc.where)
            got = clip(exc.text, _GOT_CHARS)
            raise ArgumentsError(f"Argument '{where}' {exc.reason} (got {got}).") from None
        if self._nulls is not None:
            value = self._nulls.strip(value)
        if self._validator.is_valid(value):
            return value
        if len(data) <= _LIST_EVERY_PROBLEM_UP_TO:
            errors = list(islice(self._validator.iter_errors(value), MAX_LISTED + 1))
            raise ArgumentsError(format_schema_errors(self._tool, errors, self._schema))
        try:
            self._validator.validate(value)
        except jsonschema_rs.ValidationError as exc:
            first = format_schema_errors(self._tool, [exc], self._schema)
            raise ArgumentsError(
                f"{first} (Only the first problem is reported for arguments this large.)"
            ) from None
        return value  # pragma: no cover - is_valid and validate agree
