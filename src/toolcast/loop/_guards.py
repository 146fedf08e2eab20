"""Loop guards: cut-off arguments, a call repeated round after round, a tool out of retries.

Small models get stuck in ways a loop can see: a reply that hit its token limit
mid-arguments, the same refused call sent again and again, a tool failing on
every try. Each guard answers the call with a message the model can act on
instead of running it; `run(repeat_limit=..., retry_budget=...)` turns the last
two on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from toolcast.loop._conversation import CallRecord, fingerprint

__all__ = ("TOKEN_LIMIT", "cut_off", "out_of_retries", "repeats")

TOKEN_LIMIT = frozenset({"length", "max_tokens", "MAX_TOKENS"})
"""The finish reasons meaning "the reply hit its token limit", across providers."""

_CUT_OFF = (
    "Your arguments for '{name}' were cut off (the reply reached its token limit); "
    "send a shorter call."
)
_REPEATED = (
    "Tool '{name}' was not run: it was called with the same arguments {count} times in a "
    "row. The run stopped; answer with what you have."
)
_OUT_OF_RETRIES = (
    "Tool '{name}' was not run: it has failed {count} times in this conversation. "
    "Stop calling it; answer without it or ask the user."
)
# Failures a retry budget counts: the call reached the tool (or its validation) and failed.
_RETRIED_KINDS = frozenset({"invalid_arguments", "tool_error", "exception", "timeout"})


def cut_off(batch: Sequence[CallRecord]) -> list[tuple[CallRecord, str]]:
    """Calls of a turn that hit its token limit whose arguments are not whole JSON."""
    found = []
    for record in batch:
        raw = record.arguments
        if record.outcome is not None or not isinstance(raw, (str, bytes, bytearray)):
            continue
        if record.provider_data.get("error"):  # its parser said why already, in its words
            continue
        try:
            json.loads(raw)
        except ValueError:
            found.append((record, _CUT_OFF.format(name=record.name)))
    return found


def repeats(
    batch: Sequence[CallRecord], history: Sequence[CallRecord], limit: int | None
) -> list[tuple[CallRecord, str]]:
    """Calls made, with the same arguments, in `limit` rounds in a row (this one included)."""
    if limit is None:
        return []
    by_round: dict[int, set[str]] = {}
    for old in history:
        by_round.setdefault(old.round, set()).add(fingerprint(old.name, old.arguments))
    found = []
    for record in batch:
        if record.outcome is not None:
            continue
        mark, count, earlier = fingerprint(record.name, record.arguments), 1, record.round - 1
        while mark in by_round.get(earlier, ()):
            count, earlier = count + 1, earlier - 1
        if count >= limit:
            found.append((record, _REPEATED.format(name=record.name, count=count)))
    return found


def out_of_retries(name: str, records: Iterable[CallRecord], budget: int | None) -> str:
    """The answer for a call of `name` once its failures used up `budget`, else ""."""
    if budget is None:
        return ""
    failed = sum(
        1
        for old in records
        if old.name == name
        and old.outcome is not None
        and old.outcome.error is not None
        and old.outcome.error.kind in _RETRIED_KINDS
    )
    return _OUT_OF_RETRIES.format(name=name, count=failed) if failed >= budget else ""
