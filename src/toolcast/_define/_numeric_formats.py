"""The OpenAPI numeric formats of hand-written schemas, checked as the names imply.

`int32`, `int64` and the other integer formats of the OpenAPI format registry assert
their range; `float` and `double` assert the finite range of IEEE 754 binary32 and
binary64 (a larger number would reach a program reading the format as infinity), not
their precision (`0.1` has no exact binary form in either, and JSON numbers are
decimal). jsonschema-rs checks formats on strings only, so the check is a custom
keyword put beside each such `format` in the validator's copy of the schema.
"""

from __future__ import annotations

import decimal
from typing import Any

from toolcast._numbers import FLOAT32_MAX, FLOAT_MAX, INTEGER_FORMATS, float_range_reason

__all__ = ("NUMERIC_FORMATS", "RANGE_KEYWORD", "NumericFormat")

RANGE_KEYWORD = "x-toolcast-numeric-format"
"""Never in a published schema: only the validator's copy carries it."""

_FLOAT_LIMITS = {"float": FLOAT32_MAX, "double": FLOAT_MAX}
NUMERIC_FORMATS = frozenset(INTEGER_FORMATS) | frozenset(_FLOAT_LIMITS)
_NUMBERS = (int, float, decimal.Decimal)


class NumericFormat:
    """jsonschema-rs custom keyword: the value of a numeric format is in its range."""

    __slots__ = ("_high", "_low", "_reason")

    def __init__(self, _parent: Any, value: str, _path: Any) -> None:
        if value in _FLOAT_LIMITS:
            limit = _FLOAT_LIMITS[value]
            self._low, self._high = -limit, limit
            kind = "a float32" if value == "float" else "a double"
            self._reason = f"{float_range_reason(limit, kind)} (format {value})"
        else:
            self._low, self._high = INTEGER_FORMATS[value]
            article = "a" if value.startswith("u") else "an"
            self._reason = f"must be {article} {value}, from {self._low} to {self._high}"

    def validate(self, instance: Any) -> None:
        """Raise ValueError (the message's phrase) for a number out of range."""
        if type(instance) in _NUMBERS and not self._low <= instance <= self._high:
            raise ValueError(self._reason)
