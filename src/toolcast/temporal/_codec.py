"""What crosses a Temporal payload: model turns, tool outcomes, run results, as plain JSON.

Activities and the workflow exchange JSON-ready dicts only (Temporal's default
JSON converter), so no client object or Python value crosses a process. A tool's
Python return value travels as its JSON form, as in a saved `Conversation`.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from toolcast._cost import Cost
from toolcast._outcome import ToolOutcome, with_costs
from toolcast._spec import Arguments, ToolCall
from toolcast.loop._conversation import Conversation, outcome_from_dict, outcome_to_dict
from toolcast.loop._model import ModelTurn, Usage
from toolcast.loop._run import RunResult

__all__ = (
    "arguments_to_json",
    "decode_outcome",
    "decode_turn",
    "encode_outcome",
    "encode_turn",
    "jsonable",
    "result_from_dict",
    "unjsonable",
)


def jsonable(value: Any) -> Any:
    """Provider data as JSON (bytes, e.g. Gemini thought signatures, as `{"$bytes": b64}`)."""
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def unjsonable(value: Any) -> Any:
    """The inverse of `jsonable`."""
    if isinstance(value, dict):
        if len(value) == 1 and "$bytes" in value:
            return base64.b64decode(value["$bytes"])
        return {k: unjsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unjsonable(v) for v in value]
    return value


def arguments_to_json(arguments: Arguments) -> Any:
    """Raw arguments as JSON: text stays text, an object stays an object."""
    if isinstance(arguments, (bytes, bytearray)):
        return bytes(arguments).decode("utf-8", "replace")
    return arguments if isinstance(arguments, str) else dict(arguments)


def encode_turn(turn: ModelTurn) -> dict[str, Any]:
    """A model turn as JSON."""
    return {
        "message": jsonable(turn.message),
        "calls": [
            [c.id, c.name, arguments_to_json(c.arguments), jsonable(dict(c.provider_data))]
            for c in turn.calls
        ],
        "text": turn.text,
        "usage": [turn.usage.input_tokens, turn.usage.output_tokens],
        "finish_reason": turn.finish_reason,
    }


def decode_turn(data: Mapping[str, Any]) -> ModelTurn:
    """The turn `encode_turn` wrote."""
    calls = tuple(ToolCall(str(i), str(n), a, unjsonable(p) or {}) for i, n, a, p in data["calls"])
    return ModelTurn(
        message=unjsonable(data["message"]),
        calls=calls,
        text=str(data.get("text", "")),
        usage=Usage(*data.get("usage", (0, 0))),
        finish_reason=data.get("finish_reason"),
    )


def encode_outcome(outcome: ToolOutcome) -> dict[str, Any]:
    """An outcome as JSON, its cost lines included."""
    out = outcome_to_dict(outcome)
    if outcome.costs:
        out["costs"] = [[c.amount, c.unit, c.label] for c in outcome.costs]
    return out


def decode_outcome(data: Mapping[str, Any], call_id: str) -> ToolOutcome:
    """The outcome `encode_outcome` wrote."""
    outcome = outcome_from_dict(data, call_id)
    return with_costs(outcome, [Cost(a, u, label) for a, u, label in data.get("costs", ())])


def result_from_dict(data: Mapping[str, Any]) -> RunResult:
    """The `RunResult` the workflow returned, its conversation read back whole."""
    conversation = Conversation.from_json(data["conversation"])
    costs: dict[str, list[Cost]] = {}
    for call_id, amount, unit, label in data.get("costs", ()):
        costs.setdefault(call_id, []).append(Cost(amount, unit, label))
    by_id = {r.id: r for r in conversation.calls}
    calls = []
    for call_id in data.get("calls", ()):
        record = by_id.get(call_id)
        if record is None:
            continue
        if record.outcome is not None and call_id in costs:
            record.outcome = with_costs(record.outcome, costs[call_id])
        calls.append(record)
    return RunResult(
        status=data["status"],
        text=conversation.text,
        output=data.get("output"),
        calls=tuple(calls),
        rounds=int(data.get("rounds", 0)),
        usage=Usage(*data.get("usage", (0, 0))),
        messages=tuple(conversation.messages),
        pending=conversation.pending,
        conversation=conversation,
        costs=tuple(c for call_id in data.get("calls", ()) for c in costs.get(call_id, ())),
    )


def cost_lines(call_id: str, costs: Sequence[Cost]) -> list[list[Any]]:
    """Cost lines as JSON rows `[call_id, amount, unit, label]`."""
    return [[call_id, c.amount, c.unit, c.label] for c in costs]
