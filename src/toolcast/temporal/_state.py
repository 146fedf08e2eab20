"""What the run workflow keeps between rounds, and carries across continue-as-new."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from temporalio import workflow

from toolcast.aliases._session import AliasSession
from toolcast.aliases._store import MemoryAliasStore
from toolcast.loop._conversation import Conversation
from toolcast.loop._model import Usage
from toolcast.temporal._worker import Runtime, runtime_for

__all__ = ("RunState",)


class RunState:
    """What the workflow keeps between rounds (and carries across continue-as-new)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.input = dict(data)
        carried = data.get("carried") or {}
        saved = data.get("conversation")
        # The alias session lives in the workflow state: a store with no idle expiry,
        # since an approval may take days.
        store = MemoryAliasStore(ttl=None)
        if saved is not None:
            self.conversation = Conversation.from_json(saved, alias_store=store)
        else:
            self.conversation = Conversation(id=data["id"], system=data.get("system"))
            self.conversation.aliases = AliasSession(self.conversation.id, store=store)
        self.max_rounds: int = int(data.get("max_rounds", 8))
        self.rounds: int = int(carried.get("rounds", 0))
        self.usage = Usage(*carried.get("usage", (0, 0)))
        self.costs: list[list[Any]] = [list(c) for c in carried.get("costs", ())]
        self.first_round = int(carried.get("first_round", self.conversation.rounds))
        self.carried_ids: list[str] = list(
            carried.get("carried_ids", [r.id for r in self.conversation.batch])
        )
        self.output: Any = carried.get("output")
        self.alias_lock = asyncio.Lock()
        self._runtime: Runtime | None = None

    @property
    def runtime(self) -> Runtime:
        if self._runtime is None:
            self._runtime = runtime_for(workflow.info().task_queue)
        return self._runtime

    def call_ids(self) -> list[str]:
        """The calls this run handled: the batch it resumed, then its own rounds'."""
        ids = list(self.carried_ids)
        ids += [
            r.id for r in self.conversation.calls if r.round > self.first_round and r.id not in ids
        ]
        return ids

    def carried(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "usage": [self.usage.input_tokens, self.usage.output_tokens],
            "costs": self.costs,
            "first_round": self.first_round,
            "carried_ids": self.carried_ids,
            "output": self.output,
        }

    def result(self, status: str) -> dict[str, Any]:
        self.conversation.status = status  # type: ignore[assignment]
        return {
            "status": status,
            "conversation": self.conversation.to_dict(),
            "calls": self.call_ids(),
            "rounds": self.rounds,
            "usage": [self.usage.input_tokens, self.usage.output_tokens],
            "costs": self.costs,
            "output": self.output,
        }
