"""JSON syntax errors in words a model can act on.

The parsers' own messages (`control character ... found while
parsing a string at line 2 column 0`, `Expecting ',' delimiter: line 1 column 9
(char 8)`) name their internals; a model needs the problem and where it is. Both
jiter's (argument parsing) and the standard library's (Hermes text blocks)
messages are mapped here. JSON that is invalid only because it stops early was
cut off (a token limit, a stream ended): the model is asked for a shorter call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ("JsonProblem", "arguments_message", "json_problem")

# (needle in the parser's message, "problem|hint" in words, is it "ended too early")
_CONTROL = "a string holds a raw control character|write it as \\n or \\t"
_PROBLEMS = (
    # jiter
    ("eof while parsing a string", "a string is not closed", True),
    ("eof while parsing an object", "an object is not closed", True),
    ("eof while parsing a list", "a list is not closed", True),
    ("eof while parsing a value", "a value is missing", True),
    ("eof while parsing", "the text ends too early", True),
    ("control character", _CONTROL, False),
    ("expected `:`", "a ':' is missing after a key", False),
    ("expected `,` or `}`", "a ',' or '}' is missing after a member", False),
    ("expected `,` or `]`", "a ',' or ']' is missing after an item", False),
    ("trailing comma", "a comma comes right before a closing bracket", False),
    ("key must be a string", "an object key is not a double-quoted string", False),
    ("expected value", "a value is missing or is not JSON|strings need double quotes", False),
    ("expected ident", "a word is not JSON|write true, false or null", False),
    ("trailing characters", "there is text after the JSON value", False),
    ("invalid escape", "a string has an invalid backslash escape", False),
    ("invalid unicode", "a \\u escape is not a valid character", False),
    ("surrogate", "a \\u escape is not a valid character", False),
    ("invalid number", "a number is not written as JSON", False),
    # the standard library's json
    ("unterminated string", "a string is not closed", True),
    (
        "invalid control character",
        "a string holds a raw control character|write it as \\n or \\t",
        False,
    ),
    ("expecting ':' delimiter", "a ':' is missing after a key", False),
    ("expecting ',' delimiter", "a ',' is missing between two members or items", False),
    (
        "expecting property name",
        "an object key is not a double-quoted string (or a comma comes before '}')",
        False,
    ),
    ("expecting value", "a value is missing or is not JSON|strings need double quotes", False),
    ("extra data", "there is text after the JSON value", False),
    ("invalid \\uxxxx escape", "a \\u escape is not a valid character", False),
    ("invalid \\escape", "a string has an invalid backslash escape", False),
)
_CHAR = re.compile(r"\(char (\d+)\)")
_LINE_COLUMN = re.compile(r"line (\d+) column (\d+)")


@dataclass(frozen=True, slots=True)
class JsonProblem:
    """What is wrong with a JSON text, for a model."""

    reason: str
    """The problem in words, e.g. `a string is not closed`."""
    hint: str
    """How to fix it, when that is not obvious (`write it as \\n`), else `""`."""
    position: int | None
    """Where, as a character number counted from 1, when the parser said."""
    cut_off: bool
    """The text is valid up to its very end: it was cut off, not mistyped."""

    def __str__(self) -> str:
        where = f" (at character {self.position})" if self.position is not None else ""
        hint = f"; {self.hint}" if self.hint else ""
        return f"{self.reason}{where}{hint}"


def _position(document: str, message: str) -> int | None:
    found = _CHAR.search(message)
    if found:
        return int(found.group(1)) + 1
    found = _LINE_COLUMN.search(message)
    if not found:
        return None
    line, column = int(found.group(1)), int(found.group(2))
    start = 0
    for _ in range(line - 1):
        newline = document.find("\n", start)
        if newline < 0:
            break
        start = newline + 1
    return max(start + column, 1)


def json_problem(document: str | bytes | bytearray, message: str) -> JsonProblem:
    """Name the problem behind a JSON parser's `message` about `document`.

    Args:
        document: The text that failed to parse (bytes are read as UTF-8).
        message: The parser's error message (jiter or `json`).
    """
    text = (
        bytes(document).decode("utf-8", "replace")
        if isinstance(document, (bytes, bytearray))
        else document
    )
    if text.startswith("\ufeff"):
        return JsonProblem("the text starts with a byte order mark", "send plain JSON", 1, False)
    lowered = message.lower()
    reason, early = "the text is not JSON", False
    for needle, words, ends_early in _PROBLEMS:
        if needle in lowered:
            reason, early = words, ends_early
            break
    position = _position(text, message)
    end = len(text.rstrip())
    if not early and position is not None and end and position > end:
        # "Expecting ',' delimiter" at the very end: the text stops mid-value.
        reason, early = "the JSON is not complete", True
    reason, _, hint = reason.partition("|")
    return JsonProblem(reason, hint, position, early)


def arguments_message(tool: str, document: str | bytes | bytearray, message: str) -> str:
    """The model-facing message for argument text of `tool` that is not JSON."""
    problem = json_problem(document, message)
    if problem.cut_off:
        return (
            f"Your arguments for '{tool}' were cut off ({problem.reason} at the end); "
            "send a shorter call."
        )
    return f"The arguments for '{tool}' are not valid JSON: {problem}."
