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
import re
from itertools import islice
from typing import Any

import jiter
import jsonschema_rs

from toolcast._arguments import ArgumentsError
from toolcast._define._schema_messages import format_schema_errors
from toolcast._messages import MAX_LISTED

__all__ = ("ExactValidator", "exact_numbers")

# Text without a digit followed by `.`, `e` or `E` holds no fraction or exponent: every
# number in it is a plain integer, which jiter reads exactly at any size.
_MAY_HAVE_FRACTIONS = re.compile(rb"[0-9][.eE]")
# Integers above this many digits (or exponents beyond it) are refused, as the
# parser already refuses longer integer literals: exact arithmetic on them is costly.
_MAX_DIGITS = 4300
# A literal of at most this many characters without an exponent has at most 15
# significant digits, which a float holds as written.
_SHORT = 16


class _TooLarge(Exception):
    pass


def _exact(number: jiter.LosslessFloat) -> int | float | decimal.Decimal:
    text = bytes(number)
    if len(text) <= _SHORT and b"e" not in text and b"E" not in text:
        as_float = float(number)
        return int(as_float) if as_float.is_integer() else as_float
    value = number.as_decimal()
    exponent = value.adjusted()
    if exponent > _MAX_DIGITS or exponent < -_MAX_DIGITS:
        raise _TooLarge
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
        if kind is jiter.LosslessFloat:
            container[key] = _exact(item)
        elif kind is dict or kind is list:
            _convert(item)


def exact_numbers(data: bytes) -> Any:
    """Parse JSON text with each number in its exact Python form (see the module doc)."""
    if not _MAY_HAVE_FRACTIONS.search(data):
        return jiter.from_json(data)
    value = jiter.from_json(data, float_mode="lossless-float")
    if type(value) is jiter.LosslessFloat:
        return _exact(value)
    if isinstance(value, (dict, list)):
        _convert(value)
    return value


class ExactValidator:
    """The validator behind a `from_schema` tool: `validate_json(text)` -> the arguments."""

    __slots__ = ("_schema", "_tool", "_validator")

    def __init__(self, tool: str, validator: jsonschema_rs.Validator, schema: Any) -> None:
        self._tool = tool
        self._validator = validator
        self._schema = schema

    def validate_json(self, raw: str | bytes) -> Any:
        """Validate argument text; return its value or raise ArgumentsError."""
        data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
        try:
            value = exact_numbers(data)
        except _TooLarge:
            raise ArgumentsError(
                f"Arguments for '{self._tool}' contain a number too large to handle."
            ) from None
        if self._validator.is_valid(value):
            return value
        errors = list(islice(self._validator.iter_errors(value), MAX_LISTED + 1))
        raise ArgumentsError(format_schema_errors(self._tool, errors, self._schema))
