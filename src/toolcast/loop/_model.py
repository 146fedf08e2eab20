"""What the loop asks of a model, and what a model turn gives back.

A `Model` adapter owns its provider's message format: the loop keeps the history
as the JSON-ready messages the adapter hands it (`user_message`, `ModelTurn.message`,
`result_messages`), so a saved conversation is exactly what the provider saw,
and the loop itself stays provider-free.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias

from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec

__all__ = ("Message", "Model", "ModelRequest", "ModelTurn", "ToolChoiceMode", "Usage")

Message: TypeAlias = "dict[str, Any]"
"""One message in the provider's own JSON shape."""

ToolChoiceMode: TypeAlias = "Literal['auto', 'required', 'none'] | str"
"""`auto`, `required`, `none`, or the name of the one tool the model must call."""


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a request used, as the provider reported them (0 when it did not)."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    @property
    def total_tokens(self) -> int:
        """Input and output together."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One request: the history so far and the tools the model may call now."""

    messages: Sequence[Message]
    """The conversation in the model's message format (system prompt excluded)."""
    tools: Sequence[ToolSpec]
    """What the model is shown this round (toolbox members appear once opened)."""
    system: str | None = None
    tool_choice: ToolChoiceMode = "auto"
    parallel_calls: bool = True
    """False when the set holds a tool that is not `parallel_safe`."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Extra keyword arguments for the client call (temperature, max_tokens, ...)."""


@dataclass(frozen=True, slots=True)
class ModelTurn:
    """The model's answer: its message, the calls in it, its text and usage."""

    message: Message
    """The assistant turn, JSON-ready, appended to the history once."""
    calls: tuple[ToolCall, ...] = ()
    text: str = ""
    usage: Usage = Usage()
    finish_reason: str | None = None


class Model(Protocol):
    """A model behind a provider's official client, as the loop drives it."""

    def user_message(self, text: str) -> list[Message]:
        """The messages that carry a user's text."""
        ...

    def result_messages(self, outcomes: Sequence[ToolOutcome]) -> list[Message]:
        """The messages that answer a batch of calls, in call order."""
        ...

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send one request through the client; the SDK's own retries apply."""
        ...
