"""Bounded conversion of JSON numbers to Python numbers, with the refusal's words.

A JSON number may be spelled `1e1000000`: 9 bytes whose integer has a million
digits, and turning it into an `int` costs time quadratic in that. Every path that
reads a number exactly (typed `int` and `Decimal` parameters, `from_schema` tools,
gRPC fields) uses these bounds, so the same value is refused in the same words
whichever way it is written (see docs/schema.md, "Numbers").

A leaf: it imports nothing of toolcast's. `reason` functions return the phrase a
message puts after the argument's name (`Argument 'n' {reason} (got ...).`).
"""

from __future__ import annotations

import decimal
import sys

__all__ = (
    "FLOAT32_MAX",
    "FLOAT_MAX",
    "INTEGER_FORMATS",
    "MAX_EXPONENT",
    "MAX_INTEGER_DIGITS",
    "exponent_reason",
    "float_range_reason",
    "integer_reason",
    "magnitude_reason",
    "nearest_float",
)

MAX_INTEGER_DIGITS = 4300
"""Most digits an integer may have: jiter's limit for an integer literal and Python's
default `sys.get_int_max_str_digits()`, so `1e4300` is refused as its 4,301 written
digits are."""
MAX_EXPONENT = 4300
"""Largest decimal exponent (of the leading digit, either sign) a number read exactly
may have; beyond it exact arithmetic on the value costs more than a call should."""
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
    "double-int": (-(2**53), 2**53),
}
"""The OpenAPI format registry's integer formats and the range each name implies."""

_LARGEST = decimal.Decimal(FLOAT_MAX)


def integer_reason(exact: decimal.Decimal) -> str | None:
    """Why `exact` cannot be an integer argument, or None: it is integral and small enough.

    Constant time in the exponent: `1e999999999999` is judged without building it.
    """
    if not exact.is_finite():
        return "must be a finite number"
    if exact.adjusted() >= MAX_INTEGER_DIGITS:
        return f"must be an integer of at most {MAX_INTEGER_DIGITS} digits"
    if exact != exact.to_integral_value():
        return "must be an integer"
    return None


def magnitude_reason(exact: decimal.Decimal) -> str | None:
    """Why `exact` cannot be read exactly (its exponent is beyond `MAX_EXPONENT`), or None."""
    if not exact or -MAX_EXPONENT <= exact.adjusted() <= MAX_EXPONENT:
        return None
    return exponent_reason(large=exact.adjusted() > 0)


def exponent_reason(*, large: bool) -> str:
    """The phrase for a number whose decimal exponent is beyond `MAX_EXPONENT`."""
    sign = "" if large else "-"
    return f"must have a decimal exponent from -{MAX_EXPONENT} to {MAX_EXPONENT}, not {sign}more"


def float_range_reason(limit: float = FLOAT_MAX) -> str:
    """The phrase for a number beyond the range of a float (binary64 unless `limit`)."""
    return f"must be a number from {-limit!r} to {limit!r} (a float cannot hold a larger one)"


def nearest_float(exact: decimal.Decimal, limit: float = FLOAT_MAX) -> float | None:
    """The float nearest `exact` (an underflow keeps its sign: `-1e-400` is `-0.0`).

    None when `exact` is beyond `limit` in magnitude: never a silent `inf`.
    """
    if exact.is_finite() and exact.adjusted() > 400:  # far past any float; no work
        return None
    value = float(exact)
    if value != value or abs(value) > limit:
        return None
    return value


def within_float(exact: decimal.Decimal, limit: float) -> bool:
    """Whether `abs(exact) <= limit`, in constant time for any exponent."""
    if not exact.is_finite():
        return False
    if exact.adjusted() > 400:
        return False
    return abs(exact) <= (decimal.Decimal(limit) if limit != FLOAT_MAX else _LARGEST)
