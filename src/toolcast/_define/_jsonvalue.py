"""Recognising the "any JSON value" annotations, which become the empty schema `{}`.

`toolcast.typing.JsonValue`, pydantic's `JsonValue`, and the union a recursive alias
expands into under `get_type_hints` (`None | bool | int | float | str | list[J] |
dict[str, J]`), whose identity is lost on the way.
"""

from __future__ import annotations

import types
import typing
from typing import Any

import typing_extensions

__all__ = ("is_json_value_alias",)


def is_json_value_alias(tp: Any) -> bool:
    if isinstance(tp, type):  # the common case: a plain class is never the alias
        return False
    name = getattr(tp, "__name__", None) or getattr(tp, "__qualname__", None)
    from toolcast import _json as tc_typing

    return (
        tp is tc_typing.JsonValue
        or (name == "JsonValue" and "pydantic" in str(getattr(tp, "__module__", "")))
        or _is_json_union(tp)
    )


_JSON_SCALARS = frozenset({type(None), bool, int, float, str})


def _is_json_union(tp: Any) -> bool:
    """`None | bool | int | float | str | list[J] | dict[str, J]` for a JSON value J.

    `get_type_hints` expands a recursive alias such as `toolcast.typing.JsonValue`
    into this union (with forward references left inside), so its identity is lost.
    """
    if typing_extensions.get_origin(tp) not in (typing.Union, types.UnionType):
        return False
    args = typing_extensions.get_args(tp)
    rest = [a for a in args if a not in _JSON_SCALARS]
    if _JSON_SCALARS - set(args) or len(rest) != 2:
        return False
    kinds = set()
    for container in rest:
        ref = container.__forward_arg__ if isinstance(container, typing.ForwardRef) else None
        if ref is not None:  # an unexpanded 'list[JsonValue]' or 'dict[str, JsonValue]'
            kinds.add(
                list if ref.startswith("list[") else dict if ref.startswith("dict[str,") else None
            )
            continue
        origin = typing_extensions.get_origin(container)
        inner = typing_extensions.get_args(container)
        if origin is dict and inner[:1] != (str,):
            return False
        item = inner[-1] if inner else typing.Any
        if not (item is typing.Any or isinstance(item, typing.ForwardRef) or _is_json_union(item)):
            return False
        kinds.add(origin)
    return kinds == {list, dict}
