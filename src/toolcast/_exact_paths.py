"""Exact numbers at guarded paths of an argument object.

pydantic-core reads a JSON number written with a fraction or exponent through a
float, which may drop digits. The argument parser knows the paths where a
Decimal or an int goes (`Node.guards`); these helpers put the text's exact
digits there, or refuse a fraction a float would have rounded away.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from typing import Any

import jiter

from toolcast._numbers import MAX_INTEGER_DIGITS, integer_reason, magnitude_reason

__all__ = (
    "BadNumber",
    "as_digits",
    "as_integer",
    "contains",
    "exact_at",
    "find_number",
    "literal_at",
    "strings_at",
)


def strings_at(value: Any, path: tuple[Any, ...]) -> str | None:
    """The location of a JSON string at a guarded path, if there is one."""
    if not path:
        return "" if isinstance(value, str) else None
    head, rest = path[0], path[1:]
    if head == "*":
        items: Any = ()
        if isinstance(value, dict):
            items = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        for key, item in items:
            found = strings_at(item, rest)
            if found is not None:
                return f"[{key}]{found}" if isinstance(key, int) else f".{key}{found}"
        return None
    if isinstance(head, int):
        if isinstance(value, list) and head < len(value):
            found = strings_at(value[head], rest)
            return None if found is None else f"[{head}]{found}"
        return None
    if isinstance(value, dict) and head in value:
        found = strings_at(value[head], rest)
        return None if found is None else f".{head}{found}"
    return None


_NUMBERS = (int, decimal.Decimal)
_DECIMAL = decimal.Decimal


def as_digits(value: Any, exact: Any) -> Any:
    if type(exact) is _DECIMAL:
        reason = magnitude_reason(exact)
        if reason is not None:
            raise BadNumber(exact, reason)  # `1e999999999999` as a Decimal: refused, not kept
        return _text(exact)
    return str(exact) if type(exact) is int else value


def _text(exact: decimal.Decimal) -> str:
    if not exact and exact.adjusted() not in range(-MAX_INTEGER_DIGITS, MAX_INTEGER_DIGITS):
        return "-0" if exact.is_signed() else "0"  # `0e1000000000` is 0, nothing to keep
    return str(exact)


class BadNumber(Exception):
    """A number at a guarded path is refused; `reason` says why, `where` says where.

    At an integer position: a fraction a float would round away
    (`1.0000000000000000001`), or more digits than `MAX_INTEGER_DIGITS` (`1e1000000`:
    building that int alone takes minutes). At a Decimal position: an exponent
    beyond `MAX_EXPONENT`.
    """

    def __init__(self, exact: decimal.Decimal, reason: str) -> None:
        self.exact = exact
        self.reason = reason
        self.where = ""


def as_integer(value: Any, exact: Any) -> Any:
    if type(value) is not float or type(exact) is not decimal.Decimal:
        return value
    reason = integer_reason(exact)
    if reason is not None:
        raise BadNumber(exact, reason)
    return int(exact)


def exact_at(
    value: Any, exact: Any, path: tuple[Any, ...], convert: Callable[[Any, Any], Any]
) -> Any:
    """`value` with the numbers at `path` replaced by `convert(value, exact)`."""
    if not path:
        return convert(value, exact)
    head, rest = path[0], path[1:]
    try:
        if head == "*":
            if isinstance(value, dict) and isinstance(exact, dict):
                return {k: exact_at(v, exact[k], rest, convert) for k, v in value.items()}
            if isinstance(value, list) and isinstance(exact, list):
                # `list[Decimal]`, `list[int]`: no call per item.
                if not rest and convert is as_digits:
                    odd = next(
                        (e for e in exact if type(e) is _DECIMAL and magnitude_reason(e)), None
                    )
                    if odd is not None:
                        raise BadNumber(odd, magnitude_reason(odd) or "")
                    return [
                        _text(e) if type(e) is _DECIMAL else str(e) if type(e) is int else e
                        for e in exact
                    ]
                if not rest and convert is as_integer:
                    odd = next(
                        (e for e in exact if type(e) is _DECIMAL and integer_reason(e)), None
                    )
                    if odd is not None:
                        raise BadNumber(odd, integer_reason(odd) or "")
                    return [
                        int(e) if type(e) is _DECIMAL else v
                        for v, e in zip(value, exact, strict=True)
                    ]
                if not rest:
                    return [convert(v, e) for v, e in zip(value, exact, strict=True)]
                return [exact_at(v, e, rest, convert) for v, e in zip(value, exact, strict=True)]
            return value
        if isinstance(head, int):
            if isinstance(value, list) and isinstance(exact, list) and head < len(value):
                item = exact_at(value[head], exact[head], rest, convert)
                return [*value[:head], item, *value[head + 1 :]]
            return value
        if isinstance(value, dict) and isinstance(exact, dict) and head in value:
            return {**value, head: exact_at(value[head], exact[head], rest, convert)}
    except BadNumber as exc:
        # Only the failing call pays for naming where it was.
        if head == "*":
            if isinstance(value, dict):
                key = next(k for k, e in exact.items() if contains(e, exc.exact, rest))
                exc.where = f".{key}{exc.where}"
            else:
                index = next(i for i, e in enumerate(exact) if contains(e, exc.exact, rest))
                exc.where = f"[{index}]{exc.where}"
        else:
            exc.where = f"[{head}]{exc.where}" if isinstance(head, int) else f".{head}{exc.where}"
        raise
    return value


def contains(exact: Any, number: decimal.Decimal, path: tuple[Any, ...]) -> bool:
    """Whether `number` (the same object) sits at `path` inside `exact`."""
    if not path:
        return exact is number
    head, rest = path[0], path[1:]
    if head == "*":
        items = exact.values() if isinstance(exact, dict) else exact
        return isinstance(exact, (dict, list)) and any(contains(e, number, rest) for e in items)
    if isinstance(head, int):
        return isinstance(exact, list) and head < len(exact) and contains(exact[head], number, rest)
    return isinstance(exact, dict) and head in exact and contains(exact[head], number, rest)


# -- where an unreadable number is (error paths only) ------------------------------

_NUMBER_BYTES = frozenset(b"0123456789+-.eE")
_NUMBER_WORDS = bytes(0x30 if c in _NUMBER_BYTES else 0x20 for c in range(256))
_MARK = "\x00toolcast:number"
_MARK_TEXT = b'"\\u0000toolcast:number'  # an unfinished string: partial mode keeps it


def find_number(value: Any, test: Callable[[Any], bool], where: str = "") -> tuple[str, Any] | None:
    """The path (`.a[2].b`) and value of the first number in `value` that passes `test`."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, node = stack.pop()
        if type(node) is dict:
            stack.extend((f"{path}.{k}", v) for k, v in reversed(node.items()))
        elif type(node) is list:
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(node))))
        elif type(node) is not str and type(node) is not bool and test(node):
            return path, node
    return None


def literal_at(raw: bytes, line: int, column: int) -> tuple[str, bytes] | None:
    """The path and text of the number literal at `line`:`column` (1-based, in bytes).

    For jiter's "number out of range": only the text before the literal is parsed
    (partial mode), with a marker string in the literal's place, so one long number
    costs one parse of the prefix however many more follow it.
    """
    start = 0
    for _ in range(line - 1):
        start = raw.find(b"\n", start) + 1
        if start == 0:
            return None
    at = start + column - 1
    if not 0 <= at < len(raw) or raw[at] not in _NUMBER_BYTES:
        return None
    words = raw.translate(_NUMBER_WORDS)  # C speed, for a literal of a megabyte
    begin = words.rfind(b" ", 0, at) + 1
    end = words.find(b" ", at)
    end = len(raw) if end < 0 else end
    try:
        prefix = jiter.from_json(raw[:begin] + _MARK_TEXT, partial_mode="trailing-strings")
    except ValueError:
        return None
    found = _last_path(prefix)
    return None if found is None else (found, raw[begin:end])


def _last_path(value: Any) -> str | None:
    # The literal's stand-in is the last value of the partial parse, at its deepest.
    path = ""
    while type(value) is dict or type(value) is list:
        if not value:
            return None
        if type(value) is dict:
            key = next(reversed(value))
            path, value = f"{path}.{key}", value[key]
        else:
            path, value = f"{path}[{len(value) - 1}]", value[-1]
    return path if value == _MARK else None
