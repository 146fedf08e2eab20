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

__all__ = (
    "NotIntegral",
    "Unreadable",
    "as_digits",
    "as_integer",
    "contains",
    "exact_at",
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
    return str(exact) if type(exact) in _NUMBERS else value


class Unreadable(Exception):
    """The text holds a number too large to read as a Decimal."""


class NotIntegral(Exception):
    """A number at an integer position has a fraction a float would round away."""

    def __init__(self, exact: decimal.Decimal) -> None:
        self.exact = exact
        self.where = ""


def as_integer(value: Any, exact: Any) -> Any:
    if type(value) is not float or type(exact) is not decimal.Decimal:
        return value
    if exact != exact.to_integral_value():
        raise NotIntegral(exact)  # a float would round 1.0000000000000000001 to 1.0
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
                    return [str(e) if type(e) in _NUMBERS else e for e in exact]
                if not rest and convert is as_integer:
                    odd = next(
                        (e for e in exact if type(e) is _DECIMAL and e != e.to_integral_value()),
                        None,
                    )
                    if odd is not None:
                        raise NotIntegral(odd)
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
    except NotIntegral as exc:
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
