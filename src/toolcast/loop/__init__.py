"""The run loop: drive a model until it answers, under a policy, with resumable state.

The loop knows no provider: it speaks to a `Model` (each provider module has
one, around the official async client) and to the root runtime (`ToolSet`,
`Tool`, `ToolCall`, `ToolOutcome`) and `toolcast.policy`. Providers may import
this wing's `_model` vocabulary; this wing never imports a provider.
"""

from __future__ import annotations

from toolcast.loop._conversation import FORMAT, CallRecord, Conversation, RunStatus
from toolcast.loop._errors import (
    ConversationConflictError,
    ConversationError,
    StoreError,
    UndecidedCallsError,
)
from toolcast.loop._events import EventHook, EventKind, LoopEvent
from toolcast.loop._model import Model, ModelRequest, ModelTurn, Usage
from toolcast.loop._run import RunResult, run
from toolcast.loop._store import ConversationStore, MemoryStore

__all__ = (
    "FORMAT",
    "CallRecord",
    "Conversation",
    "ConversationConflictError",
    "ConversationError",
    "ConversationStore",
    "EventHook",
    "EventKind",
    "LoopEvent",
    "MemoryStore",
    "Model",
    "ModelRequest",
    "ModelTurn",
    "RunResult",
    "RunStatus",
    "StoreError",
    "UndecidedCallsError",
    "Usage",
    "run",
)
