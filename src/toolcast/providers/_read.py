"""Reading provider responses defensively, naming the path of anything malformed.

Every `parse_calls` reads through a `Wire`: a response that is not in its
format's shape raises one `ResponseFormatError` naming the provider and the path
(`choices[0].message.tool_calls[1].id is missing`), never a `KeyError` or an
`IndexError`. One bad call inside a readable response is not an error: `call`
turns it into a `ToolCall` whose `provider_data["error"]` says what is wrong, and
invoking answers it with that message as an error result (`refused_call`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from toolcast._spec import Arguments, ToolCall
from toolcast.errors import ResponseFormatError

__all__ = ("ERROR_KEY", "Wire", "describe")

ERROR_KEY = "error"
"""`ToolCall.provider_data` key holding why a call cannot run (written for the model)."""


def describe(value: Any) -> str:
    """What a JSON-ish value is, in words: `a string`, `null`, `a list`, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


@dataclass(frozen=True, slots=True)
class Wire:
    """One provider's reader: `provider` names it in every error (`OpenAI Chat`).

    `noun` says what is read: `response` (from a model) or `request` (MCP).
    """

    provider: str
    noun: str = "response"

    def fail(self, path: str, problem: str) -> NoReturn:
        """Raise the `ResponseFormatError` for `path`."""
        raise ResponseFormatError(self.provider, path, problem, noun=self.noun)

    def obj(self, value: Any, path: str) -> Mapping[str, Any]:
        """`value` when it is an object (a mapping), else fail."""
        if not isinstance(value, Mapping):
            self.fail(path, f"is {describe(value)}, not an object")
        return value

    def seq(self, value: Any, path: str) -> list[Any]:
        """`value` as a list; a missing (`None`) list is empty; anything else fails."""
        if value is None:
            return []
        if not isinstance(value, (list, tuple)):
            self.fail(path, f"is {describe(value)}, not a list")
        return list(value)

    def pick(self, items: Any, index: int, path: str) -> Any:
        """`items[index]`, failing with `is empty` / `has no item N`."""
        found = self.seq(items, path)
        if not found:
            self.fail(path, "is empty")
        if not -len(found) <= index < len(found):
            self.fail(path, f"has no item {index} (it has {len(found)})")
        return found[index]

    def text(self, value: Any, path: str, *, required: bool = True) -> str | None:
        """A non-empty string field, or fail (`is missing`, `is a number, not a string`)."""
        if value is None or value == "":
            if required:
                self.fail(path, "is missing")
            return None
        if not isinstance(value, str):
            self.fail(path, f"is {describe(value)}, not a string")
        return value

    def index(self, value: Any, path: str) -> int:
        """A stream block index: a non-negative integer, or fail."""
        if value is None:
            self.fail(path, "is missing")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(path, f"is {describe(value)}, not a non-negative integer")
        return value

    def call(
        self,
        path: str,
        call_id: str,
        name: Any,
        arguments: Any,
        provider_data: Mapping[str, Any] | None = None,
    ) -> ToolCall:
        """A `ToolCall` from raw fields; a missing name or unusable arguments mark it.

        A marked call carries `provider_data["error"]` (for the model) and
        `provider_data["error_path"]`; invoking answers it with an error result.
        `arguments` of `None` or `""` mean `{}`; a JSON value that is not an
        object travels as JSON text, so the argument parser names the problem.
        """
        data = dict(provider_data or {})
        at = f"{path}." if path else ""
        problem = None
        if not isinstance(name, str) or not name:
            what = "no tool name" if name in (None, "") else f"a name that is {describe(name)}"
            problem = (f"{at}name", f"The call has {what}; send the name of one of the tools.")
            name = ""
        args: Arguments
        if arguments is None or arguments == "":
            args = "{}"
        elif isinstance(arguments, (str, Mapping)):
            args = arguments
        else:
            try:
                args = json.dumps(arguments, ensure_ascii=False)
            except (TypeError, ValueError, RecursionError):
                args = "{}"
                problem = problem or (
                    f"{at}arguments",
                    f"The arguments of the call are {describe(arguments)}, not a JSON object.",
                )
        if problem is not None:
            data["error_path"], data[ERROR_KEY] = problem
        return ToolCall(call_id, name, args, data)
