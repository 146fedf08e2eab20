"""Read-only JSON containers, so a published schema cannot be changed by accident.

They are real `dict`/`list` subclasses (JSON encoders and SDK types take them as
they are); `copy.deepcopy` returns ordinary, mutable containers.
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ("FrozenDict", "FrozenList", "freeze", "thaw")

_MSG = "this schema is read-only; copy.deepcopy() it to get a mutable copy"


def _refuse(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise TypeError(_MSG)


class FrozenDict(dict[str, Any]):
    """A dict that refuses mutation."""

    __slots__ = ()
    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)


class FrozenList(list[Any]):
    """A list that refuses mutation."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)


def freeze(value: Any) -> Any:
    """Return `value` with every dict and list made read-only (recursively)."""
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Return a plain, mutable deep copy of a JSON value."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value
