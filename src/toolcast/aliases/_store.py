"""Where a conversation's aliases live: the `AliasStore` protocol and the in-memory store.

A store keeps, per conversation id, the counter of each prefix and the two maps
(UUID -> alias, alias -> UUID as first spelled). Allocation is atomic per store
call: the same UUID always gets the same alias, two UUIDs never share one. A
conversation idle for longer than the store's TTL is forgotten; every call on
it counts as use.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, runtime_checkable

from toolcast.errors import ToolcastError

__all__ = (
    "DEFAULT_TTL",
    "AliasStore",
    "AliasesUnavailableError",
    "MemoryAliasStore",
)

DEFAULT_TTL = 24 * 3600.0
"""Seconds a conversation's aliases survive without use (a day)."""


class AliasesUnavailableError(ToolcastError, RuntimeError):
    """The alias store did not answer; calls that need ids fail closed."""


@runtime_checkable
class AliasStore(Protocol):
    """Keeps conversations' aliases; one call is one atomic step (one round trip)."""

    async def register(self, conversation: str, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """The alias of each `(prefix, uuid)`, allocating `<prefix>-<n>` for new UUIDs.

        A UUID that already has an alias keeps it (whatever the prefix); UUIDs
        are compared case-insensitively and the first spelling is kept.
        """
        ...

    async def lookup(
        self, conversation: str, aliases: Sequence[str], prefixes: Sequence[str]
    ) -> tuple[list[str | None], list[int]]:
        """The UUID (as first spelled) of each alias or None, and each prefix's count."""
        ...

    async def aliases_of(self, conversation: str, uuids: Sequence[str]) -> list[str | None]:
        """The alias of each UUID (any case), or None where it has none."""
        ...


class _Conversation:
    __slots__ = ("counters", "to_alias", "to_uuid", "used")

    def __init__(self, now: float) -> None:
        self.counters: dict[str, int] = {}
        self.to_alias: dict[str, str] = {}
        self.to_uuid: dict[str, str] = {}
        self.used = now


class MemoryAliasStore:
    """Aliases in this process's memory: the default, and what snapshots restore into.

    Thread-safe. Both the async protocol and same-named `*_sync` methods are
    offered, so `invoke_sync` can use it.
    """

    def __init__(
        self, *, ttl: float | None = DEFAULT_TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """Make an empty store.

        Args:
            ttl: Seconds of idleness after which a conversation is forgotten (None: never).
            clock: A monotonic clock in seconds (tests pass a fake one).
        """
        self.ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self._conversations: dict[str, _Conversation] = {}
        self._next_sweep = clock() + (ttl if ttl is not None else 0.0)

    def __repr__(self) -> str:
        return f"MemoryAliasStore({len(self._conversations)} conversations, ttl={self.ttl})"

    def _get(self, conversation: str) -> _Conversation:
        # Caller holds the lock.
        now = self._clock()
        ttl = self.ttl
        if ttl is not None and now >= self._next_sweep:
            # Idle conversations go, so a long-lived store does not grow without bound.
            idle = [c for c, s in self._conversations.items() if now - s.used > ttl]
            for name in idle:
                del self._conversations[name]
            self._next_sweep = now + ttl
        state = self._conversations.get(conversation)
        if state is None or (ttl is not None and now - state.used > ttl):
            state = self._conversations[conversation] = _Conversation(now)
        state.used = now
        return state

    def __contains__(self, conversation: object) -> bool:
        return conversation in self._conversations

    # -- sync --------------------------------------------------------------------

    def register_sync(self, conversation: str, pairs: Iterable[tuple[str, str]]) -> list[str]:
        """`register`, without an event loop."""
        out: list[str] = []
        add = out.append
        with self._lock:
            state = self._get(conversation)
            to_alias, to_uuid, counters = state.to_alias, state.to_uuid, state.counters
            known = to_alias.get
            for prefix, uuid in pairs:
                key = uuid.lower()
                alias = known(key)
                if alias is None:
                    number = counters.get(prefix, 0) + 1
                    counters[prefix] = number
                    alias = to_alias[key] = f"{prefix}-{number}"
                    to_uuid[alias] = uuid
                add(alias)
        return out

    def lookup_sync(
        self, conversation: str, aliases: Sequence[str], prefixes: Sequence[str]
    ) -> tuple[list[str | None], list[int]]:
        """`lookup`, without an event loop."""
        with self._lock:
            state = self._get(conversation)
            found = list(map(state.to_uuid.get, aliases))
            return found, [state.counters.get(p, 0) for p in prefixes]

    def aliases_of_sync(self, conversation: str, uuids: Sequence[str]) -> list[str | None]:
        """`aliases_of`, without an event loop."""
        with self._lock:
            state = self._get(conversation)
            return [state.to_alias.get(u.lower()) for u in uuids]

    def snapshot(self, conversation: str) -> list[tuple[str, str]]:
        """`(alias, uuid)` pairs of a conversation, in allocation order."""
        with self._lock:
            state = self._conversations.get(conversation)
            return list(state.to_uuid.items()) if state is not None else []

    def restore(self, conversation: str, pairs: Iterable[tuple[str, str]]) -> None:
        """Load `(alias, uuid)` pairs (a snapshot) into a conversation."""
        with self._lock:
            state = self._get(conversation)
            for alias, uuid in pairs:
                prefix, _, number = alias.rpartition("-")
                state.to_uuid[alias] = uuid
                state.to_alias[uuid.lower()] = alias
                state.counters[prefix] = max(state.counters.get(prefix, 0), int(number))

    # -- async (the AliasStore protocol) -----------------------------------------

    async def register(self, conversation: str, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """See `AliasStore.register`."""
        return self.register_sync(conversation, pairs)

    async def lookup(
        self, conversation: str, aliases: Sequence[str], prefixes: Sequence[str]
    ) -> tuple[list[str | None], list[int]]:
        """See `AliasStore.lookup`."""
        return self.lookup_sync(conversation, aliases, prefixes)

    async def aliases_of(self, conversation: str, uuids: Sequence[str]) -> list[str | None]:
        """See `AliasStore.aliases_of`."""
        return self.aliases_of_sync(conversation, uuids)
