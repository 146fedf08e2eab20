"""`ConversationStore`: where conversations live between runs, with an optimistic version check.

A store saves a whole conversation under its id. `save` succeeds only when the
stored version is the one the copy was loaded at (0 for a new conversation),
then bumps it: two workers continuing the same conversation cannot silently
overwrite each other; the second gets `ConversationConflictError`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from toolcast.loop._conversation import Conversation
from toolcast.loop._errors import ConversationConflictError

__all__ = ("ConversationStore", "MemoryStore")


@runtime_checkable
class ConversationStore(Protocol):
    """Loads and saves conversations by id."""

    async def load(self, conversation_id: str) -> Conversation | None:
        """The stored conversation, or None."""
        ...

    async def save(self, conversation: Conversation) -> None:
        """Store it if its version is the stored one, and bump `conversation.version`.

        Raises:
            ConversationConflictError: Another writer saved it first.
            StoreError: The store cannot be reached (the conversation in memory is intact).
        """
        ...

    async def delete(self, conversation_id: str) -> None:
        """Forget a conversation (no error when it is not there)."""
        ...


class MemoryStore:
    """A store in this process's memory: for tests and single-process hosts.

    It keeps the JSON text, not the object, so what is loaded is what a
    process-crossing store would give back.
    """

    def __init__(self) -> None:
        self._data: dict[str, tuple[int, str]] = {}

    async def load(self, conversation_id: str) -> Conversation | None:
        """The stored conversation, or None."""
        found = self._data.get(conversation_id)
        return Conversation.from_json(found[1]) if found is not None else None

    async def save(self, conversation: Conversation) -> None:
        """Store it (optimistic version check), bumping `conversation.version`."""
        current = self._data.get(conversation.id)
        found = current[0] if current is not None else 0
        if found != conversation.version:
            raise ConversationConflictError(
                conversation.id, conversation.version, found if current else None
            )
        conversation.version += 1
        try:
            self._data[conversation.id] = (conversation.version, conversation.to_json())
        except BaseException:
            conversation.version -= 1
            raise

    async def delete(self, conversation_id: str) -> None:
        """Forget a conversation."""
        self._data.pop(conversation_id, None)

    def __len__(self) -> int:
        return len(self._data)
