"""Test doubles for your own loops: `ScriptedModel` replays scripted turns, offline.

```python
model = ScriptedModel([
    [call("find_product", query="blue mug")],   # round 1: one call
    "Ordered two blue mugs.",                   # round 2: the answer
])
result = await run(model, "Order two blue mugs", tools=tools, policy=policy)
model.requests[1].messages                      # what the model was sent
```

Messages use the OpenAI Chat shape (`role`, `content`, `tool_calls`, `tool`
results), so a saved conversation reads like a real transcript. `FakeClock` is a
clock for timeouts that moves only when told (`ToolContext(clock=...)`).
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from toolcast._clock import FakeClock
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall
from toolcast.loop._model import Message, ModelRequest, ModelTurn, Usage

__all__ = ("FakeClock", "ScriptExhaustedError", "ScriptedModel", "Turn", "call")

Turn: TypeAlias = (
    "str | ToolCall | Sequence[ToolCall] | ModelTurn | "
    "Callable[[ModelRequest], Turn | Awaitable[Turn]]"
)
"""One scripted answer: text, a call, several calls, a whole `ModelTurn`, or a
function of the request that returns one of those (sync or async)."""

_ids = itertools.count(1)


def call(name: str, /, *, id: str | None = None, **arguments: Any) -> ToolCall:
    """A scripted tool call (`call("add", a=1, b=2)`); ids are `call_1`, `call_2`, ..."""
    return ToolCall(id or f"call_{next(_ids)}", name, json.dumps(arguments))


class ScriptExhaustedError(AssertionError):
    """The loop asked for more turns than the script has."""


class ScriptedModel:
    """A `Model` that answers with scripted turns, in order, and records each request."""

    def __init__(self, turns: Sequence[Turn], *, usage: Usage | None = None) -> None:
        """Script the model.

        Args:
            turns: One answer per request.
            usage: The tokens each turn reports (so usage sums can be tested).
        """
        self.turns = list(turns)
        self.usage = usage or Usage()
        self.requests: list[ModelRequest] = []
        """Every request received, in order."""

    def user_message(self, text: str) -> list[Message]:
        """`{"role": "user", "content": text}`."""
        return [{"role": "user", "content": text}]

    def result_messages(self, outcomes: Sequence[ToolOutcome]) -> list[Message]:
        """One `tool` message per outcome, in call order."""
        return [{"role": "tool", "tool_call_id": o.call_id, "content": o.text} for o in outcomes]

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """The next scripted turn."""
        self.requests.append(request)
        index = len(self.requests) - 1
        if index >= len(self.turns):
            msg = (
                f"ScriptedModel has no turn for request {index + 1}: the script has "
                f"{len(self.turns)} turn(s)."
            )
            raise ScriptExhaustedError(msg)
        return await self._turn(self.turns[index], request)

    async def _turn(self, turn: Any, request: ModelRequest) -> ModelTurn:
        if callable(turn) and not isinstance(turn, ToolCall):
            made = turn(request)
            turn = await made if inspect.isawaitable(made) else made
        if isinstance(turn, ModelTurn):
            return turn
        if isinstance(turn, str):
            return ModelTurn(
                {"role": "assistant", "content": turn},
                text=turn,
                usage=self.usage,
                finish_reason="stop",
            )
        calls = (turn,) if isinstance(turn, ToolCall) else tuple(turn)
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": _text(c.arguments)},
                }
                for c in calls
            ],
        }
        return ModelTurn(message, calls, usage=self.usage, finish_reason="tool_calls")


def _text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    if isinstance(arguments, (bytes, bytearray)):
        return bytes(arguments).decode("utf-8", "replace")
    return json.dumps(arguments)
