"""`AliasSession`: one conversation's aliases, in a store of the host's choosing."""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Mapping, Sequence
from typing import Any, cast

from toolcast.aliases._declare import PREFIX
from toolcast.aliases._plan import UUID_IN_TEXT, UUID_TEXT
from toolcast.aliases._store import AliasStore, MemoryAliasStore

__all__ = ("AliasSession", "UnknownAliasError")

_FORMAT = 1


class UnknownAliasError(LookupError):
    """`AliasSession.resolve` was given an alias this conversation never handed out."""


class AliasSession:
    """The aliases of one conversation: the model sees `link-1`, code sees the UUID.

    Pass it to `tools.invoke(call, aliases=session)`; the loop's `Conversation`
    owns one. By default the aliases live in this session's own memory; pass a
    shared `store` (e.g. `RedisAliasStore`) so several processes serving the
    same conversation agree. An empty conversation id gets a throwaway session:
    a private store under a random id, never shared with anyone.
    """

    __slots__ = ("conversation_id", "store", "throwaway")

    def __init__(self, conversation_id: str, *, store: AliasStore | None = None) -> None:
        if not isinstance(cast(object, conversation_id), str):
            kind = type(conversation_id).__name__
            msg = f"AliasSession takes a conversation id string, got {kind}."
            raise TypeError(msg)
        self.throwaway = not conversation_id
        """True for an empty conversation id: nothing is shared or kept."""
        if self.throwaway:
            conversation_id = f"throwaway-{uuid_module.uuid4().hex}"
            store = MemoryAliasStore()
        self.conversation_id = conversation_id
        self.store: AliasStore = store if store is not None else MemoryAliasStore()

    def __repr__(self) -> str:
        return f"AliasSession({self.conversation_id!r}, store={self.store!r})"

    @property
    def memory(self) -> MemoryAliasStore | None:
        """The in-memory store when that is where the aliases live (sync calls need it)."""
        store = self.store
        return store if isinstance(store, MemoryAliasStore) else None

    # -- host API ----------------------------------------------------------------

    async def register(self, prefix: str, uuid: uuid_module.UUID | str) -> str:
        """The alias of `uuid` (allocating `<prefix>-<n>` if new), e.g. for a prompt.

        Raises:
            ValueError: `prefix` is not `[a-z][a-z0-9_]*` or `uuid` is not a UUID.
        """
        return (await self.register_many([(prefix, uuid)]))[0]

    async def register_many(self, pairs: Sequence[tuple[str, uuid_module.UUID | str]]) -> list[str]:
        """`register` for many ids at once (one store round trip)."""
        return await self.store.register(self.conversation_id, _checked(pairs))

    async def resolve(self, alias: str) -> uuid_module.UUID:
        """The UUID behind `alias`.

        Raises:
            UnknownAliasError: This conversation never gave out `alias`.
        """
        found, _ = await self.store.lookup(self.conversation_id, [alias], [])
        if found[0] is None:
            raise UnknownAliasError(f"{alias!r} is not an id in this conversation.")
        return uuid_module.UUID(found[0])

    async def aliasify_text(self, text: str) -> str:
        """`text` with every UUID this conversation knows replaced by its alias.

        For prompt text built from ids the host registered: only whole UUIDs
        are matched (fixed length, so no id can rewrite part of another), and
        UUIDs without an alias are left as they are.
        """
        found = list(dict.fromkeys(m.group() for m in UUID_IN_TEXT.finditer(text)))
        if not found:
            return text
        aliases = await self.store.aliases_of(self.conversation_id, found)
        return _replace_known(text, found, aliases)

    def aliasify_text_sync(self, text: str) -> str:
        """`aliasify_text` for an in-memory session."""
        found = list(dict.fromkeys(m.group() for m in UUID_IN_TEXT.finditer(text)))
        if not found:
            return text
        aliases = self._memory().aliases_of_sync(self.conversation_id, found)
        return _replace_known(text, found, aliases)

    def register_sync(self, prefix: str, uuid: uuid_module.UUID | str) -> str:
        """`register` for an in-memory session."""
        pairs = _checked([(prefix, uuid)])
        return self._memory().register_sync(self.conversation_id, pairs)[0]

    def _memory(self) -> MemoryAliasStore:
        memory = self.memory
        if memory is None:
            msg = (
                f"{type(self.store).__name__} is async only: use the async methods "
                "(await session.register(...), await tools.invoke(call, aliases=session))."
            )
            raise TypeError(msg)
        return memory

    # -- snapshots ---------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready snapshot: the id, and the aliases when they live in memory.

        A session on a shared store saves only its id (the store keeps the rest);
        restore it with `from_json(data, store=...)`.
        """
        data: dict[str, Any] = {"format": _FORMAT, "conversation_id": self.conversation_id}
        memory = self.memory
        if memory is not None:
            data["aliases"] = dict(memory.snapshot(self.conversation_id))
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, store: AliasStore | None = None) -> AliasSession:
        """The session `to_json` saved (into `store`, or a fresh in-memory one).

        Raises:
            ValueError: `data` is not a snapshot this version can read.
        """
        raw: object = data  # from a file: check, do not trust the annotation
        if not isinstance(raw, Mapping) or raw.get("format") != _FORMAT:
            raise ValueError("not an AliasSession snapshot (expected format 1).")
        conversation = data.get("conversation_id")
        aliases = data.get("aliases", {})
        if not isinstance(conversation, str) or not isinstance(aliases, Mapping):
            raise ValueError("an AliasSession snapshot needs 'conversation_id' and 'aliases'.")
        pairs = []
        for alias, uuid in aliases.items():
            prefix, _, number = str(alias).rpartition("-")
            if not PREFIX.match(prefix) or not number.isdigit() or not _is_uuid(uuid):
                raise ValueError(f"snapshot entry {alias!r}: {uuid!r} is not an alias of a UUID.")
            pairs.append((str(alias), str(uuid)))
        session = cls(conversation or "", store=store)
        if pairs:
            memory = session.memory
            if memory is None:
                raise ValueError("a snapshot with aliases restores into an in-memory store.")
            memory.restore(session.conversation_id, pairs)
        return session


def _is_uuid(value: object) -> bool:
    return isinstance(value, str) and bool(UUID_TEXT.match(value))


def _checked(pairs: Sequence[tuple[Any, Any]]) -> list[tuple[str, str]]:
    out = []
    for prefix, uuid in pairs:
        if not isinstance(prefix, str) or not PREFIX.match(prefix):
            raise ValueError(f"alias prefix {prefix!r} must match [a-z][a-z0-9_]*.")
        text = str(uuid) if isinstance(uuid, uuid_module.UUID) else uuid
        if not _is_uuid(text):
            raise ValueError(f"{uuid!r} is not a UUID (8-4-4-4-12 hex digits).")
        out.append((prefix, text))
    return out


def _replace_known(text: str, found: list[str], aliases: list[str | None]) -> str:
    known = {uuid: alias for uuid, alias in zip(found, aliases, strict=True) if alias is not None}
    if not known:
        return text
    return UUID_IN_TEXT.sub(lambda m: known.get(m.group(), m.group()), text)
