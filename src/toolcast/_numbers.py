"""Bounded conversion of JSON numbers to Python numbers, with the refusal's words.

A JSON number may be spelled `1e1000000`: 9 bytes whose integer has a million
digits, and turning it into an `int` costs time quadratic in that. Every path that
reads a number exactly (typed `int` and `Decimal` parameters, `from_schema` tools)
uses these bounds, so the same value is refused in the same words whichever way it
is written (see docs/schema.md, "Numbers"). gRPC fields may use them too.

A leaf: it imports nothing of toolcast's. A reason is the phrase a message puts
after the argument's name: `Argument 'n' {reason} (got 1E+1000000).`
"""

from __future__ import annotations

import decimal
import sys

__all__ = (
    "FLOAT32_MAX",
    "FLOAT_MAX",
    "INTEGER_FORMATS",
    "MAX_INTEGER_DIGITS",
    "MIN_EXPONENT",
    "TOO_LARGE",
    "TOO_SMALL",
    "float_range_reason",
    "integer_reason",
    "magnitude_reason",
    "spelled_reason",
)

MAX_INTEGER_DIGITS = 4300
"""Most digits before the decimal point of a number read exactly: jiter's limit for a
literal and Python's default `sys.get_int_max_str_digits()` (beyond it `str(n)`
raises), so `1e4300` is refused as its 4,301 written digits are."""
MIN_EXPONENT = -4300
"""Smallest decimal exponent (of the leading digit) of a non-zero number read exactly."""
TOO_LARGE = f"must have at most {MAX_INTEGER_DIGITS} digits before its decimal point"
TOO_SMALL = f"must be 0 or have a decimal exponent of at least {MIN_EXPONENT}"

FLOAT_MAX = sys.float_info.max
"""Largest finite float (IEEE 754 binary64)."""
FLOAT32_MAX = 3.4028234663852886e38
"""Largest finite IEEE 754 binary32 value (`format: float`, protobuf `float`)."""

INTEGER_FORMATS: dict[str, tuple[int, int]] = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}
"""The OpenAPI format registry's integer formats and the range each name implies."""


def magnitude_reason(exact: decimal.Decimal) -> str | None:
    """Why `exact` is too large or too small to read exactly, or None.

    Constant time in the exponent: `1e999999999999` is judged without being built.
    """
    if not exact:
        return None
    exponent = exact.adjusted()
    if exponent >= MAX_INTEGER_DIGITS:
        return TOO_LARGE
    return TOO_SMALL if exponent < MIN_EXPONENT else None


def integer_reason(exact: decimal.Decimal) -> str | None:
    """Why `exact` cannot be an integer argument, or None: integral and within bounds."""
    if not exact.is_finite():
        return "must be a finite number"
    if exact and exact.adjusted() >= MAX_INTEGER_DIGITS:  # `0e5000` is 0
        return TOO_LARGE
    if exact != exact.to_integral_value():
        return "must be an integer"
    return None


def spelled_reason(text: str) -> str:
    """The reason for a literal whose exponent is beyond even `Decimal` (`1e10**20`)."""
    return TOO_SMALL if text.lower().partition("e")[2].startswith("-") else TOO_LARGE


def float_range_reason(limit: float = FLOAT_MAX, kind: str = "a float") -> str:
    """The phrase for a number beyond the range of `kind` (binary64 unless `limit`)."""
    return f"must be within {kind}'s range, ±{limit!r}"
