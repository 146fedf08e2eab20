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
        return content_hash(self)


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
        return content_hash(self)


def content_hash(value: Any) -> int:
    """A hash equal for equal JSON values (dict order ignored, as `==` ignores it).

    Equal specs built apart must hash equally (they compare equal); the caches that
    want one entry per object key on `id()` instead.
    """
    if isinstance(value, dict):
        return hash((dict, frozenset((k, content_hash(v)) for k, v in value.items())))
    if isinstance(value, list):
        return hash((list, tuple(content_hash(v) for v in value)))
    return hash(value)


_SHARED: dict[tuple[Any, ...], FrozenDict] = {}
"""Small keyword-only fragments (`{"type": "string"}`), one read-only copy each."""
_SHARED_IDS: set[int] = set()
_SHARED_MAX = 2048
"""The table stops growing here (fragments past it are simply not shared)."""
_SCALARS = (str, int, float, bool, type(None))


def freeze(value: Any) -> Any:
    """Return `value` with every dict and list made read-only (recursively).

    A container that is already read-only all the way down is returned as it is, and
    small fragments without a description are shared: a catalog repeats
    `{"type": "string"}` in nearly every tool, and none of them can change.
    """
    if isinstance(value, dict):
        if isinstance(value, FrozenDict) and _frozen_below(value):
            return value
        frozen = {k: freeze(v) for k, v in value.items()}
        if len(frozen) > 3 or "description" in frozen:
            return FrozenDict(frozen)
        key = _share_key(frozen)
        if key is None:
            return FrozenDict(frozen)
        shared = _SHARED.get(key)
        if shared is None:
            shared = FrozenDict(frozen)
            if len(_SHARED) < _SHARED_MAX:
                _SHARED[key] = shared
                _SHARED_IDS.add(id(shared))  # never removed, so the id stays its own
        return shared
    if isinstance(value, list):
        if isinstance(value, FrozenList) and _frozen_below(value):
            return value
        return FrozenList(freeze(v) for v in value)
    return value


def _share_key(fragment: dict[str, Any]) -> tuple[Any, ...] | None:
    """A key equal only for equal fragments (`True` and `1` differ), or None.

    Children count by identity: a shared child is the one copy of its content.
    """
    key: list[Any] = []
    for k, v in fragment.items():
        if isinstance(v, float):
            key += (k, float, repr(v))  # -0.0 == 0.0, but they are written differently
        elif isinstance(v, _SCALARS):
            key += (k, type(v), v)
        elif id(v) in _SHARED_IDS:
            key += (k, FrozenDict, id(v))
        else:
            return None
    return tuple(key)


def _frozen_below(value: FrozenDict | FrozenList) -> bool:
    """Whether every container inside `value` is read-only too."""
    items = value.values() if isinstance(value, dict) else value
    for item in items:
        if isinstance(item, (dict, list)) and (
            not isinstance(item, (FrozenDict, FrozenList)) or not _frozen_below(item)
        ):
            return False
    return True


def thaw(value: Any) -> Any:
    """Return a plain, mutable deep copy of a JSON value."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value
