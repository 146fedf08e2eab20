"""`Decision`: what a policy says about one call, and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ("Decision", "DecisionStatus")

DecisionStatus: TypeAlias = Literal["allowed", "denied", "pending", "failed"]
"""Allowed (run it), denied (answer the model with the reason), pending (wait for
the host), failed (the decision could not be made: unknown tool, evaluator raised)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A policy's verdict on one call."""

    status: DecisionStatus
    """What happens to the call."""
    reason: str | None = None
    """Why, in words: sent to the model for a denial, shown to the host otherwise."""

    @classmethod
    def allow(cls, reason: str | None = None) -> Decision:
        """Run the call."""
        return cls("allowed", reason)

    @classmethod
    def deny(cls, reason: str) -> Decision:
        """Refuse the call; the model gets `Tool 'x' was denied: REASON`."""
        return cls("denied", reason)

    @classmethod
    def pending(cls, reason: str | None = None) -> Decision:
        """Wait for the host to approve or deny the call."""
        return cls("pending", reason)

    @classmethod
    def failed(cls, reason: str) -> Decision:
        """No decision could be made (the call is answered with an error)."""
        return cls("failed", reason)

    @property
    def allowed(self) -> bool:
        """True for `allowed`."""
        return self.status == "allowed"
