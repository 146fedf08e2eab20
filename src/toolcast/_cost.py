"""`Cost`: one line of what a call spent (money, credits, tokens), for the host."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ("Cost", "total_costs")


@dataclass(frozen=True, slots=True)
class Cost:
    """One cost line a tool recorded with `ToolContext.add_cost`.

    Example:
        >>> Cost(0.002, "usd", "geocoder")
        Cost(amount=0.002, unit='usd', label='geocoder')
    """

    amount: float
    """How much, in `unit`."""
    unit: str = "usd"
    """What `amount` counts: a currency code, "credits", "tokens", ..."""
    label: str | None = None
    """What it was spent on, for the host's books."""

    def __post_init__(self) -> None:
        # A host mistake, not the model's: it must not reach a bill as NaN.
        if isinstance(self.amount, bool) or not isinstance(self.amount, (int, float)):
            msg = f"Cost amount must be a number, got {type(self.amount).__name__}."
            raise TypeError(msg)
        if not math.isfinite(self.amount):
            msg = f"Cost amount must be finite, got {self.amount!r}."
            raise ValueError(msg)
        if not self.unit:
            raise ValueError("Cost unit must be a non-empty string.")


def total_costs(lines: Iterable[Cost]) -> Mapping[str, float]:
    """The amounts summed per unit, in first-seen unit order."""
    totals: dict[str, float] = {}
    for line in lines:
        totals[line.unit] = totals.get(line.unit, 0.0) + line.amount
    return totals
