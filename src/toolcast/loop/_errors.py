"""The loop's errors: a conversation that cannot be resumed, or a store that cannot be reached."""

from __future__ import annotations

from collections.abc import Sequence

from toolcast.errors import ToolcastError

__all__ = ("ConversationConflictError", "ConversationError", "StoreError", "UndecidedCallsError")


class ConversationError(ToolcastError, ValueError):
    """A conversation cannot be used as asked (bad JSON, an unknown call id, ...)."""


class UndecidedCallsError(ConversationError):
    """`run` was asked to resume while some pending calls have no decision yet."""

    def __init__(self, call_ids: Sequence[str]) -> None:
        self.call_ids = tuple(call_ids)
        """The calls still waiting for `approve`, `deny` or `complete`."""
        listed = ", ".join(repr(c) for c in self.call_ids)
        super().__init__(
            f"Cannot resume: {len(self.call_ids)} pending call(s) have no decision yet "
            f"({listed}). Call conversation.approve(call_id), .deny(call_id, reason) or "
            ".complete(call_id, result) for each, then run again."
        )


class ConversationConflictError(ConversationError):
    """Another writer saved the conversation since it was loaded (optimistic version check)."""

    def __init__(self, conversation_id: str, expected: int, found: int | None) -> None:
        self.conversation_id = conversation_id
        self.expected = expected
        self.found = found
        stored = "no longer stored" if found is None else f"at version {found}"
        super().__init__(
            f"Conversation {conversation_id!r} was changed by another writer: this copy is "
            f"version {expected}, the store's is {stored}. Nothing was overwritten; load it "
            "again and retry."
        )


class StoreError(ToolcastError, ConnectionError):
    """A conversation store could not be reached; the conversation in memory is intact."""
