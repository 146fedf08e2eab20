"""Exact wire formats for scalars: JSON integers and the string formats toolcast emits.

pydantic-core reads these more loosely than the schema says (its date parsers take
spaces, unix timestamps and missing offsets; its base64 takes URL-safe and unpadded
text; its strict int refuses `1.0`), so the validators here accept exactly the
language the advertised schema describes: `INT_BASE` for `integer`, and parsers for
RFC 3339 `date`, `time` and `date-time` (offsets range-checked: `+00:99` is refused),
their offset-optional forms for plain `datetime`/`time` parameters
(`LOCAL_DATETIME_PATTERN`, `LOCAL_TIME_PATTERN`), RFC 3339 appendix A `duration`
(`DURATION_PATTERN`), numeric strings for `Decimal` (`NUMBER_TEXT_PATTERN`), `uuid`
and base64 `contentEncoding`. `string_format` pairs a format with its parser as a
`Node`.
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import datetime as dt
import decimal
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from pydantic_core import PydanticCustomError
from pydantic_core import core_schema as cs

from toolcast._define._node import Node

__all__ = (
    "ANY",
    "BOOL",
    "DECIMAL_OR_TEXT",
    "DURATION_PATTERN",
    "FLOAT",
    "INTS_FROM_TEXT",
    "LOCAL_DATETIME_PATTERN",
    "LOCAL_TIME_PATTERN",
    "NUMBER_TEXT_PATTERN",
    "PATTERN_DEADLINE",
    "PATTERN_TIMEOUT",
    "STR",
    "decimal_value",
    "local_format",
    "parse_local_datetime",
    "parse_local_time",
    "timed_pattern",
)


INTS_FROM_TEXT: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "toolcast_ints_from_text", default=False
)
"""Set by the argument parser once it has re-read the text's integers exactly."""


def _integral(value: float) -> int:
    # int_schema's own float conversion stops at 2**63; JSON Schema has no such limit.
    if not value.is_integer():
        raise PydanticCustomError("int_from_float", "must be an integer")
    if not INTS_FROM_TEXT.get():
        # The float may have rounded the text (`1e23`, `1.0000000000000000001`): the
        # argument parser reads the digits exactly and validates again. Plain integer
        # digits never reach this function, so ordinary calls pay nothing.
        raise PydanticCustomError("int_from_text", "must be an integer")
    return int(value)


# Leaf validators every tool uses, made once: pydantic-core keeps the schema a
# validator was compiled from, and never changes it, so tools can share these.
ANY = cs.any_schema()
STR = cs.str_schema(strict=True)
BOOL = cs.bool_schema(strict=True)
FLOAT = cs.float_schema(strict=True, allow_inf_nan=False)

INT_BASE = cs.union_schema(
    # JSON Schema counts 1.0 as an integer; strict int alone would refuse it.
    [
        cs.int_schema(strict=True),
        cs.no_info_after_validator_function(_integral, FLOAT),
    ],
    custom_error_type="int_type",
    mode="left_to_right",
)


# -- string formats -----------------------------------------------------------------
# Validated in Python so the accepted language is exactly RFC 3339 (pydantic-core's
# parsers also take spaces, unix timestamps and missing offsets, which the schema
# does not allow).

# [0-9], not \d: Python's \d also matches non-ASCII digits, ECMA-262's does not.
_DATE = r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
_CLOCK_GROUPS = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
_OFFSET_GROUP = r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
_DATE_RE = re.compile(rf"{_DATE}\Z")
_NAIVE_TIME_RE = re.compile(rf"{_CLOCK_GROUPS}{_OFFSET_GROUP}?\Z")
_NAIVE_DATETIME_RE = re.compile(rf"{_DATE}[Tt]{_CLOCK_GROUPS}{_OFFSET_GROUP}?\Z")
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\Z")
# RFC 3339 appendix A (what `format: duration` refers to) without years and months,
# which a timedelta cannot hold: dur-week, or dur-day [dur-time], or dur-time, where
# dur-time is "T" (H [M [S]] / M [S] / S). The grammar has no fractions.
_DUR_TIME = r"T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
DURATION_PATTERN = rf"^P(?:[0-9]+W|[0-9]+D(?:{_DUR_TIME})?|{_DUR_TIME})$"
_DURATION_RE = re.compile(DURATION_PATTERN)
_DURATION_PART = re.compile(r"([0-9]+)([WDHMS])")

# Offset-optional date-times and times, as models often send them, written so the
# pattern accepts exactly what `datetime`/`time` can hold: years 0001-9999, the days
# of each month with the Gregorian leap rule, hours 00-23, no leap second.
_YEAR = r"(?:[0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000)"
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_CALENDAR_DATE = (
    rf"(?:{_YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    rf"|{_LEAP_YEAR}-02-29)"
)
_CLOCK = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
LOCAL_DATETIME_PATTERN = rf"^{_CALENDAR_DATE}[Tt]{_CLOCK}$"
"""A date-time without an offset (the other branch of a plain `datetime`'s anyOf)."""
LOCAL_TIME_PATTERN = rf"^{_CLOCK}$"
"""A time without an offset (the other branch of a plain `time`'s anyOf)."""

NUMBER_TEXT_PATTERN = r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]{1,9})?$"
"""A JSON number written as a string: what an unconstrained `Decimal` also accepts
(exponents up to nine digits, which `Decimal` holds)."""
_NUMBER_TEXT_RE = re.compile(NUMBER_TEXT_PATTERN)


def _format_error(kind: str, example: str) -> PydanticCustomError:
    return PydanticCustomError("format", f"must be {kind} (e.g. {example})")


def _tz(text: str | None) -> dt.tzinfo | None:
    if text is None:
        return None
    if text in ("Z", "z"):
        return dt.timezone.utc
    sign = 1 if text[0] == "+" else -1
    hours, minutes = int(text[1:3]), int(text[4:6])
    # RFC 3339 time-numoffset: hours 00-23, minutes 00-59 (timedelta alone would
    # turn +00:99 into +01:39).
    if hours > 23 or minutes > 59:
        raise ValueError(text)
    return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))


def _micro(frac: str | None) -> int:
    return int((frac or "0")[:6].ljust(6, "0"))


def _without_newline(value: str, offset_at: int, regex: re.Pattern[str]) -> re.Match[str] | None:
    # The schema's pattern ends in `$`, which (in Python, as the reference validator
    # reads it) also matches before one final newline: only the offset-less branch.
    text = value[:-1] if value.endswith("\n") else value
    m = regex.match(text)
    if m is None or (text is not value and m.group(offset_at) is not None):
        return None
    return m


def parse_local_datetime(value: str) -> dt.datetime:
    """A date-time whose offset may be left out; without one it arrives naive.

    The regex takes any digits; the `datetime` constructor and the offset check
    refuse what `LOCAL_DATETIME_PATTERN` and `format: date-time` refuse.
    """
    m = _without_newline(value, 8, _NAIVE_DATETIME_RE)
    try:
        if m is None:
            raise ValueError
        y, mo, d, h, mi, s, frac, tz = m.groups()
        return dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), _micro(frac), _tz(tz))
    except ValueError:
        raise _format_error(
            "an RFC 3339 date-time, offset optional", "2024-05-01T09:30:00"
        ) from None


def parse_local_time(value: str) -> dt.time:
    """A time whose offset may be left out; without one it arrives naive."""
    m = _without_newline(value, 5, _NAIVE_TIME_RE)
    try:
        if m is None:
            raise ValueError
        h, mi, s, frac, tz = m.groups()
        return dt.time(int(h), int(mi), int(s), _micro(frac), _tz(tz))
    except ValueError:
        raise _format_error("a time, offset optional", "09:30:00") from None


def parse_number_text(value: str) -> decimal.Decimal:
    """A JSON number written as text, exactly (`"19.99"` -> `Decimal("19.99")`)."""
    if _NUMBER_TEXT_RE.match(value) is None:
        raise _format_error("a number or a numeric string", "19.99")
    try:
        return decimal.Decimal(value)
    except decimal.InvalidOperation:  # an exponent beyond Decimal's range
        raise PydanticCustomError("format", "must be a number of a smaller magnitude") from None


DECIMAL_OR_TEXT = cs.union_schema(
    [
        # Rust all the way for the common case: exact digits handed over as text.
        cs.chain_schema(
            [
                cs.str_schema(strict=True, pattern=NUMBER_TEXT_PATTERN),
                cs.decimal_schema(allow_inf_nan=False),
            ]
        ),
        cs.no_info_plain_validator_function(lambda value: decimal_value(value)),
    ],
    mode="left_to_right",
    custom_error_type="number_or_text",
    custom_error_message="must be a number or a numeric string",
)
"""A JSON number or a numeric string, as an exact Decimal (an unconstrained `Decimal`)."""


def decimal_value(value: Any) -> decimal.Decimal:
    """A JSON number, or a numeric string, as an exact Decimal."""
    if isinstance(value, str):
        return parse_number_text(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PydanticCustomError("number_or_text", "must be a number or a numeric string")
    # A float only arrives where the exact-digit guard does not reach (wide unions).
    return decimal.Decimal(value if isinstance(value, int) else repr(value))


def parse_date(value: str) -> dt.date:
    m = _DATE_RE.match(value)
    try:
        if m is None:
            raise ValueError
        return dt.date(*(int(g) for g in m.groups()))
    except ValueError:
        raise _format_error("a date", "2024-05-01") from None


_DATE_UNITS = {"W": 604800, "D": 86400}
_TIME_UNITS = {"H": 3600, "M": 60, "S": 1}


def parse_duration(value: str) -> dt.timedelta:
    # fullmatch: `format: duration` refuses the trailing newline `$` would let in.
    if not _DURATION_RE.fullmatch(value):
        raise _format_error(
            "an RFC 3339 duration in weeks, days, hours, minutes and whole seconds", "P1DT2H"
        )
    date_part, _, time_part = value[1:].partition("T")
    # Exact arithmetic: floats would lose microseconds on long durations.
    seconds = sum(
        (decimal.Decimal(n) * _DATE_UNITS[u] for n, u in _DURATION_PART.findall(date_part)),
        decimal.Decimal(0),
    ) + sum(
        (decimal.Decimal(n) * _TIME_UNITS[u] for n, u in _DURATION_PART.findall(time_part)),
        decimal.Decimal(0),
    )
    try:
        return dt.timedelta(microseconds=int(seconds * 1_000_000))
    except OverflowError:
        raise PydanticCustomError(
            "format", "must be a duration shorter than 1000000000 days"
        ) from None


def parse_uuid(value: str) -> uuid.UUID:
    if not _UUID_RE.match(value):
        raise _format_error("a UUID", "123e4567-e89b-12d3-a456-426614174000")
    return uuid.UUID(value)


def parse_base64(value: str) -> bytes:
    # Standard alphabet with padding (RFC 4648 section 4); pydantic-core would also
    # take URL-safe and unpadded text, which the schema does not describe.
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise PydanticCustomError("format", "must be base64-encoded (RFC 4648)") from None


PATTERN_TIMEOUT = 0.1
"""Seconds back-tracking patterns may spend on one argument object, all values together."""
PATTERN_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "toolcast_pattern_deadline", default=None
)
"""`time.perf_counter()` by which the current validation's pattern checks must end
(set by the argument parser around each validation)."""


def timed_pattern(pattern: str) -> Callable[[str], str]:
    """A check of `pattern` (look-around, back-references) that stops after a time bound.

    Such patterns need a back-tracking engine, whose time can grow exponentially with
    the text (`^(?=a)(a|a)*$` takes seconds on 30 characters in Python's `re`); the
    `regex` engine takes a timeout, so a model cannot stall the host.

    Raises:
        regex.error: `pattern` is not a regular expression.
    """
    import regex

    compiled = regex.compile(pattern)

    def check(value: str) -> str:
        deadline = PATTERN_DEADLINE.get()
        timeout = PATTERN_TIMEOUT if deadline is None else deadline - time.perf_counter()
        try:
            if timeout <= 0:
                raise TimeoutError
            found = compiled.search(value, timeout=timeout)
        except TimeoutError:
            raise PydanticCustomError(
                "pattern_timeout",
                "could not be checked against the pattern {pattern} in time; "
                "send a shorter or simpler value",
                {"pattern": pattern},
            ) from None
        if found is None:
            raise PydanticCustomError(
                "string_pattern_mismatch", "must match the pattern {pattern}", {"pattern": pattern}
            )
        return value

    return check


def string_format(fmt: str, parse: Callable[[str], Any], **extra: Any) -> Node:
    return Node(
        {"type": "string", "format": fmt, **extra},
        cs.no_info_after_validator_function(parse, STR),
    )


def local_format(fmt: str, local_pattern: str, parse: Callable[[str], Any]) -> Node:
    """`format` with an offset, or the same text without one (`anyOf` of both)."""
    json = {
        "anyOf": [
            {"type": "string", "format": fmt},
            {"type": "string", "pattern": local_pattern},
        ]
    }
    return Node(json, cs.no_info_after_validator_function(parse, STR))
