"""Exceptions raised by toolcast.

```
ToolcastError
├─ ToolDefinitionError     a callable or schema cannot become a tool (developer's bug)
├─ CatalogError            catalog names collide or a lookup is impossible
├─ UnsupportedSchemaError  a schema cannot be expressed for one provider
├─ ResponseFormatError     a provider response is not in the shape its wire format documents
├─ ToolCallError           `ToolOutcome.raise_for_error()`: a call's outcome is an error
└─ ToolError               raised *by a tool* to send a deliberate message to the model
```

Definition errors speak to the developer. `ToolError` messages are written for the
model and are sent back as the tool's result, verbatim.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = (
    "CatalogError",
    "DefinitionProblem",
    "ResponseFormatError",
    "ToolCallError",
    "ToolDefinitionError",
    "ToolError",
    "ToolcastError",
    "UnsupportedSchemaError",
)


class ToolcastError(Exception):
    """Base class of every exception toolcast raises."""


@dataclass(frozen=True, slots=True)
class DefinitionProblem:
    """One reason a callable cannot become a tool."""

    code: str
    """Stable identifier, e.g. `unsupported-type` (see docs/errors.md)."""
    path: str
    """Where: the parameter path inside the function (`items[].qty`), or `""`."""
    message: str
    """What is wrong and how to fix it, as a sentence."""

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"[{self.code}] {where}{self.message}"


class ToolDefinitionError(ToolcastError, TypeError):
    """A callable, method or schema cannot become a tool.

    Every problem found is collected and reported at once in `problems`.
    """

    def __init__(self, qualname: str, problems: Iterable[DefinitionProblem]) -> None:
        self.qualname = qualname
        self.problems = tuple(problems)
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        lines = [f"{qualname} cannot become a tool ({count} {noun}):"]
        lines += [f"  {problem}" for problem in self.problems]
        super().__init__("\n".join(lines))

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes of every problem, in the order found."""
        return tuple(problem.code for problem in self.problems)


class CatalogError(ToolcastError, ValueError):
    """Tool names collide in a catalog, or a catalog cannot be built as asked."""


class UnsupportedSchemaError(ToolcastError, ValueError):
    """A tool's schema cannot be expressed in one provider's dialect."""


class ResponseFormatError(ToolcastError, ValueError):
    """A provider response (or request) cannot be read as that provider's wire format.

    Raised by every `parse_calls` instead of a raw `KeyError`/`IndexError`/...
    One bad call inside a readable response is not an error: it becomes a
    `ToolCall` that invoking answers with an error result.

    Example:
        >>> str(ResponseFormatError("OpenAI Chat", "choices", "is empty"))
        'OpenAI Chat response: choices is empty'
    """

    def __init__(self, provider: str, path: str, problem: str, *, noun: str = "response") -> None:
        self.provider = provider
        """The wire format, e.g. `OpenAI Chat`."""
        self.path = path
        """Where in the response: `choices[0].message.tool_calls[1].id`, or `""`."""
        self.problem = problem
        """What is wrong there, e.g. `is missing`."""
        where = f": {path} " if path else " "
        super().__init__(f"{provider} {noun}{where}{problem}")


class ToolCallError(ToolcastError):
    """A call's outcome is an error, raised for a host that wants an exception.

    Raised by `ToolOutcome.raise_for_error()` (httpx's `raise_for_status` is the
    model). The outcome is kept whole in `outcome`; `message` is what the model
    would read. When the tool itself raised, that exception is the `__cause__`.

    Example:
        >>> tool.invoke_sync('{"a": "x"}').raise_for_error()
        Traceback (most recent call last):
        toolcast.errors.ToolCallError: Tool call 'add' failed (invalid_arguments): ...
    """

    def __init__(self, outcome: Any, *, kind: str | None = None, message: str = "") -> None:
        # `outcome` is a `ToolOutcome`; typed loosely so this leaf module imports nothing.
        self.outcome = outcome
        """The failed `ToolOutcome`, as invoking returned it."""
        self.kind = kind
        """Why it failed (`invalid_arguments`, `timeout`, ...), from `outcome.error`."""
        self.message = message
        """The model-facing message."""
        self.tool_name: str = outcome.tool_name
        self.call_id: str | None = outcome.call_id
        why = f" ({kind})" if kind else ""
        super().__init__(f"Tool call '{self.tool_name}' failed{why}: {message}")


class ToolError(ToolcastError):
    """Raised by a tool to send `message` to the model as an error result.

    Example:
        >>> raise ToolError("No place named 'Atlantis'. Try a nearby city.")
    """

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)
