"""Exact wire formats for scalars: JSON integers and the string formats toolcast emits.

pydantic-core reads these more loosely than the schema says (its date parsers take
spaces, unix timestamps and missing offsets; its base64 takes URL-safe and unpadded
text; its strict int refuses `1.0`), so the validators here accept exactly the
language the advertised schema describes: `INT_BASE` for `integer`, and parsers for
RFC 3339 `date`, `time` and `date-time`, ISO 8601 `duration` (`DURATION_PATTERN`),
`uuid` and base64 `contentEncoding`. `string_format` pairs a format with its parser
as a `Node`.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import decimal
import re
import uuid
from collections.abc import Callable
from typing import Any

from pydantic_core import PydanticCustomError
from pydantic_core import core_schema as cs

from toolcast._define._node import Node

__all__ = ("DURATION_PATTERN",)


def _integral(value: float) -> int:
    # int_schema's own float conversion stops at 2**63; JSON Schema has no such limit.
    if not value.is_integer():
        raise PydanticCustomError("int_from_float", "must be an integer")
    return int(value)


INT_BASE = cs.union_schema(
    # JSON Schema counts 1.0 as an integer; strict int alone would refuse it.
    [
        cs.int_schema(strict=True),
        cs.no_info_after_validator_function(
            _integral, cs.float_schema(strict=True, allow_inf_nan=False)
        ),
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
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?([Zz]|[+-][0-9]{2}:[0-9]{2})"
_DATE_RE = re.compile(rf"{_DATE}\Z")
_TIME_RE = re.compile(rf"{_TIME}\Z")
_DATETIME_RE = re.compile(rf"{_DATE}[Tt]{_TIME}\Z")
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\Z")
DURATION_PATTERN = (
    r"^P(?:[0-9]+W|[0-9]+D(?:T(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\.[0-9]+)?S)?)?|"
    r"T(?:[0-9]+H(?:[0-9]+M)?(?:[0-9]+(?:\.[0-9]+)?S)?|[0-9]+M(?:[0-9]+(?:\.[0-9]+)?S)?"
    r"|[0-9]+(?:\.[0-9]+)?S))$"
)
_DURATION_RE = re.compile(DURATION_PATTERN)
_DURATION_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)([WDHMS])")


def _format_error(kind: str, example: str) -> PydanticCustomError:
    return PydanticCustomError("format", f"must be {kind} (e.g. {example})")


def _tz(text: str) -> dt.tzinfo:
    if text in ("Z", "z"):
        return dt.timezone.utc
    sign = 1 if text[0] == "+" else -1
    delta = dt.timedelta(hours=int(text[1:3]), minutes=int(text[4:6]))
    return dt.timezone(sign * delta)


def _micro(frac: str | None) -> int:
    return int((frac or "0")[:6].ljust(6, "0"))


def parse_datetime(value: str) -> dt.datetime:
    m = _DATETIME_RE.match(value)
    try:
        if m is None:
            raise ValueError
        y, mo, d, h, mi, s, frac, tz = m.groups()
        return dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), _micro(frac), _tz(tz))
    except ValueError:
        raise _format_error("an RFC 3339 date-time", "2024-05-01T09:30:00Z") from None


def parse_date(value: str) -> dt.date:
    m = _DATE_RE.match(value)
    try:
        if m is None:
            raise ValueError
        return dt.date(*(int(g) for g in m.groups()))
    except ValueError:
        raise _format_error("a date", "2024-05-01") from None


def parse_time(value: str) -> dt.time:
    m = _TIME_RE.match(value)
    try:
        if m is None:
            raise ValueError
        h, mi, s, frac, tz = m.groups()
        return dt.time(int(h), int(mi), int(s), _micro(frac), _tz(tz))
    except ValueError:
        raise _format_error("an RFC 3339 time with offset", "09:30:00Z") from None


_DATE_UNITS = {"W": 604800, "D": 86400}
_TIME_UNITS = {"H": 3600, "M": 60, "S": 1}


def parse_duration(value: str) -> dt.timedelta:
    if not _DURATION_RE.match(value):
        raise _format_error(
            "an ISO 8601 duration in weeks, days, hours, minutes, seconds", "P1DT2H"
        )
    date_part, _, time_part = value[1:].partition("T")
    # Exact decimal arithmetic (floats lose microseconds on long durations);
    # digits beyond microseconds are dropped, as for date-time fractions.
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


def string_format(fmt: str, parse: Callable[[str], Any], **extra: Any) -> Node:
    return Node(
        {"type": "string", "format": fmt, **extra},
        cs.no_info_after_validator_function(parse, cs.str_schema(strict=True)),
    )
