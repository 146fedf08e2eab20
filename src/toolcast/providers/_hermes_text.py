"""Reading `<tool_call>` blocks (Hermes JSON and Qwen XML) out of model text.

Rules (docs/providers/hermes.md):

- A `<tool_call>` is a call attempt only when its body starts (after spaces and
  an optional code fence) with `{`, `[` or `<function=`; anything else (an empty
  block, prose such as "Add a <tool_call>to the query") is text and stays in the
  text untouched.
- An attempt holds call objects: `{"name": ..., "arguments": {...}}` (a bare
  `{"name": ...}` calls a tool without arguments). Several objects in one block
  (a JSON list, comma-joined, one per line) are several calls. A tool definition
  (`parameters`, `description`, `{"type": "function", ...}`) is not a call.
- An attempt that is not a call becomes a call marked with
  `provider_data["error"]`, the real reason worded for the model ("The
  <tool_call> block is not valid JSON: a string is not closed (at character
  12)."); invoking answers it with that message.
- Qwen3-Coder's XML form `<function=NAME><parameter=P>V</parameter></function>`
  is read too; a value is JSON when the tool's schema wants a non-string there
  and the value parses, else the raw string (without `tools`, JSON when it parses).

Cost is linear in the text: every block is read inside its own region (up to the
next `<tool_call>`), and Python-literal fallback reading is capped per text.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from toolcast._json_errors import json_problem
from toolcast._spec import Arguments, ToolCall
from toolcast.providers._projection import specs_of
from toolcast.providers._read import ERROR_KEY, describe

__all__ = ("ParsedText", "parse_text")

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_FUNCTION, _FUNCTION_END = "<function=", "</function>"
_PARAMETER, _PARAMETER_END = "<parameter=", "</parameter>"
# A call attempt: the tag, spaces and an optional code fence, then `{`, `[` or
# `<function=`. Any other `<tool_call>` is prose.
_ATTEMPT = re.compile(
    # Possessive quantifiers: a megabyte of spaces is scanned once, not backtracked.
    r"<tool_call>[ \t\r\n]*+(?:```[A-Za-z]*+[ \t]*+\n?[ \t\r\n]*+)?(?=[{\[]|<function=)"
)
# What may sit between a block's JSON and `</tool_call>`: separators, a closing
# fence, or the stray `}` / `]` models sometimes add.
_FILLER = re.compile(r"[\s,`}\]]*")
_SEPARATORS = re.compile(r"[\s,]*")
_NAME = re.compile(r"""["']name["']\s*:\s*["']([A-Za-z0-9_.:-]{1,64})["']""")
# Python-literal reading (`{'name': 'x'}`, as the Hermes prompt's own examples
# write) is safe but slow: at most this many characters per text.
_LITERAL_BUDGET = 64_000
MAX_CALLS = 128
"""Calls read from one text; more are refused with one error call (a bound on cost)."""
_DEFINITION_KEYS = ("parameters", "description", "input_schema", "inputSchema")
_CALL_SHAPE = 'a call is {"name": "<tool>", "arguments": {...}}'
_DECODER = json.JSONDecoder()

_Entry: TypeAlias = "tuple[str, Arguments, str | None]"


@dataclass(frozen=True, slots=True)
class ParsedText:
    """A model's text split into its tool calls and everything else."""

    text: str
    """The text outside the `<tool_call>` blocks, stripped."""
    calls: tuple[ToolCall, ...]
    """The calls, in order."""


def parse_text(
    text: str, *, id_prefix: str = "call_", tools: Iterable[Any] | None = None
) -> ParsedText:
    """Split model text into calls and the text around them (rules in the module doc)."""
    schemas = {spec.name: spec.input_schema for spec in specs_of(tools)} if tools else {}
    reader = _Reader(text, schemas)
    outside: list[str] = []
    calls: list[ToolCall] = []
    pos = 0

    def add(name: str, arguments: Arguments, error: str | None) -> None:
        data: dict[str, Any] = {"index": len(calls)}
        if error is not None:
            data[ERROR_KEY] = error
        calls.append(ToolCall(f"{id_prefix}{len(calls)}", name, arguments, data))

    for start, body, region_end in reader.opens():
        if start < pos:
            continue
        entries, end = reader.block(body, region_end)
        outside.append(text[pos:start])
        pos = end
        if len(calls) + len(entries) > MAX_CALLS:
            for entry in entries[: MAX_CALLS - len(calls)]:
                add(*entry)
            # The rest stays unread: a bound on cost, and the model hears why.
            problem = (
                f"The reply has more than {MAX_CALLS} tool calls; only the first "
                f"{MAX_CALLS} were read. Send fewer calls per turn."
            )
            add("", "[]", problem)
            break
        for entry in entries:
            add(*entry)
    outside.append(text[pos:])
    return ParsedText("".join(outside).strip(), tuple(calls))


class _Reader:
    def __init__(self, text: str, schemas: Mapping[str, Any]) -> None:
        self.text = text
        self.schemas = schemas
        self.literal_left = _LITERAL_BUDGET

    def opens(self) -> Iterable[tuple[int, int, int]]:
        """Call attempts outside `<think>`: the tag's start, the body's, the region's end.

        One regex pass finds the attempts (C speed: prose tags cost nothing more);
        a region ends at the next `<tool_call>` of any kind.
        """
        text = self.text
        spans = _think_spans(text)
        positions = []
        at = text.find(_OPEN)
        while at >= 0:
            positions.append(at)
            at = text.find(_OPEN, at + len(_OPEN))
        span = 0
        for match in _ATTEMPT.finditer(text):
            start = match.start()
            while span < len(spans) and spans[span][1] <= start:
                span += 1
            if span < len(spans) and spans[span][0] <= start:
                continue
            following = bisect.bisect_right(positions, start)
            region_end = positions[following] if following < len(positions) else len(text)
            yield start, match.end(), region_end

    def block(self, start: int, region_end: int) -> tuple[list[_Entry], int]:
        """The entries of the block whose body starts at `start`, and where it ends."""
        text = self.text
        close = text.find(_CLOSE, start, region_end)
        if text.startswith(_FUNCTION, start, region_end):
            limit = close if close >= 0 else region_end
            return self._xml(start, limit), (close + len(_CLOSE) if close >= 0 else region_end)
        return self._json(start, close, region_end)

    # -- JSON --------------------------------------------------------------------

    def _json(self, start: int, close: int, region_end: int) -> tuple[list[_Entry], int]:
        # Decoding runs to the region's end, not to the first `</tool_call>`, so an
        # argument string holding the closing tag does not split the block.
        region = self.text[start:region_end]
        end_in_region = close - start if close >= 0 else -1
        values: list[Any] = []
        i = stop = 0
        while True:
            try:
                value, stop = _DECODER.raw_decode(region, i)
            except (ValueError, RecursionError) as exc:
                return self._unreadable(region, start, i, end_in_region, exc, values)
            values.append(value)
            separators = _SEPARATORS.match(region, stop)
            i = separators.end() if separators else stop
            if i >= len(region) or region[i] not in "{[":
                break
        entries = [entry for value in values for entry in _entries(value)]
        if end_in_region < 0:
            # A final block without its closing tag (vLLM accepts one too): the
            # JSON is the call, and what follows is text.
            return entries, start + stop
        if stop <= end_in_region and _FILLER.fullmatch(region, stop, end_in_region):
            return entries, close + len(_CLOSE)
        if stop > end_in_region:
            # The JSON ran past the first closing tag (a string holding it).
            later = self.text.find(_CLOSE, start + stop, start + len(region))
            if later < 0:
                return entries, start + stop
            if _FILLER.fullmatch(self.text, start + stop, later):
                return entries, later + len(_CLOSE)
            return entries, start + stop
        problem = "The <tool_call> block has text after its JSON; put only calls in a block."
        return [*entries, _failed(region[stop:end_in_region], problem)], close + len(_CLOSE)

    def _unreadable(
        self,
        region: str,
        start: int,
        at: int,
        close: int,
        exc: Exception,
        values: list[Any],
    ) -> tuple[list[_Entry], int]:
        body = region[at : close if close >= 0 else len(region)].rstrip()
        body = body.removesuffix("```").rstrip()
        end = start + (close + len(_CLOSE) if close >= 0 else len(region))
        entries = [entry for value in values for entry in _entries(value)]
        literal = self._literal(body)
        if literal is not None:
            return [*entries, *_entries(literal)], end
        if isinstance(exc, RecursionError):
            reason = "The <tool_call> block is nested too deeply to read."
        else:
            problem = json_problem(body, _relative(str(exc), at))
            if problem.cut_off and close < 0:
                reason = (
                    f"The <tool_call> block was cut off ({problem.reason} at the end); "
                    "send a shorter call."
                )
            else:
                reason = f"The <tool_call> block is not valid JSON: {problem}."
        return [*entries, _failed(body, reason)], end

    def _literal(self, body: str) -> Any:
        """The block read as a Python literal (`{'name': 'x'}`) holding JSON data."""
        if len(body) > self.literal_left or not body.startswith(("{", "[")) or "'" not in body:
            return None
        self.literal_left -= len(body)
        try:
            value = ast.literal_eval(body)
            json.dumps(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        return value

    # -- Qwen XML ----------------------------------------------------------------

    def _xml(self, start: int, limit: int) -> list[_Entry]:
        text = self.text
        entries: list[_Entry] = []
        i = start
        while text.startswith(_FUNCTION, i, limit):
            name_end = text.find(">", i, limit)
            if name_end < 0:
                problem = "The <function=...> tag is not closed with '>'."
                return [*entries, _failed(text[start:limit], problem)]
            name = text[i + len(_FUNCTION) : name_end].strip()
            i, entry = self._parameters(name, name_end + 1, limit)
            entries.append(entry)
            i = _skip_space(text, i, limit)
        if i < limit and text[i:limit].strip():
            problem = (
                "The <tool_call> block has text outside <function=...>...</function>; "
                "put one function per block, or several one after another."
            )
            entries.append(_failed(text[i:limit], problem))
        return entries

    def _parameters(self, name: str, i: int, limit: int) -> tuple[int, _Entry]:
        text = self.text
        arguments: dict[str, Any] = {}
        schema = self.schemas.get(name)
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        while True:
            i = _skip_space(text, i, limit)
            if text.startswith(_FUNCTION_END, i, limit):
                i += len(_FUNCTION_END)
                break
            if not text.startswith(_PARAMETER, i, limit):
                if i >= limit:
                    break  # an unclosed <function=...> at the end of its block
                problem = (
                    f"Inside <function={name}> only <parameter=NAME>value</parameter> "
                    "tags may appear."
                )
                return _next_function(text, i, limit), _failed(text[i:limit], problem, name)
            key_end = text.find(">", i, limit)
            if key_end < 0:
                problem = "A <parameter=...> tag is not closed with '>'."
                return limit, _failed(text[i:limit], problem, name)
            key = text[i + len(_PARAMETER) : key_end].strip()
            value_start = key_end + 1
            value_end = text.find(_PARAMETER_END, value_start, limit)
            if value_end < 0:
                value_end = _first(text, value_start, limit, (_PARAMETER, _FUNCTION_END))
                i = value_end
            else:
                i = value_end + len(_PARAMETER_END)
            if key in arguments:
                problem = f"The parameter {key!r} is given twice in the call to {name!r}."
                return _next_function(text, i, limit), _failed(text[value_start:i], problem, name)
            raw = _strip_one_newline(text[value_start:value_end])
            wanted = properties.get(key) if isinstance(properties, Mapping) else None
            arguments[key] = _xml_value(raw, wanted, known=properties is not None)
        if not name:
            return i, _failed("", "The <function=...> tag has no tool name.")
        return i, (name, arguments, None)


def _next_function(text: str, i: int, limit: int) -> int:
    found = text.find(_FUNCTION, i, limit)
    return limit if found < 0 else found


def _first(text: str, start: int, limit: int, needles: tuple[str, ...]) -> int:
    found = [at for at in (text.find(n, start, limit) for n in needles) if at >= 0]
    return min(found) if found else limit


def _skip_space(text: str, i: int, limit: int) -> int:
    while i < limit and text[i].isspace():
        i += 1
    return i


def _strip_one_newline(value: str) -> str:
    # The Qwen3-Coder template writes each value on its own lines.
    value = value[1:] if value.startswith("\n") else value
    return value[:-1] if value.endswith("\n") else value


def _types(schema: Any) -> set[str] | None:
    if not isinstance(schema, Mapping):
        return None
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list):
        found: set[str] = set()
        for branch in branches:
            kinds = _types(branch)
            if kinds is None:
                return None
            found |= kinds
        return found
    if "enum" in schema or "const" in schema:
        values = schema.get("enum") or [schema.get("const")]
        return {"string"} if all(isinstance(v, str) for v in values) else None
    return None


def _xml_value(raw: str, schema: Any, *, known: bool) -> Any:
    """A parameter value: JSON where the schema wants a non-string, else the raw text."""
    kinds = _types(schema) if known else None
    if kinds == {"string"}:
        return raw
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    if isinstance(value, str):
        return raw  # a quoted string: keep exactly what the model wrote
    kind = _json_kind(value)
    if kind == "number" and isinstance(value, int) and "integer" in (kinds or ()):
        kind = "integer"
    if kinds is not None and kind not in kinds:
        return raw  # e.g. `123` for a string-or-null parameter stays text
    return value


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object"


def _relative(message: str, offset: int) -> str:
    """A `json` message about a region, made relative to the body at `offset`."""
    found = re.search(r"\(char (\d+)\)", message)
    if not found:
        return message
    return message[: found.start()] + f"(char {max(int(found.group(1)) - offset, 0)})"


def _entries(value: Any) -> list[_Entry]:
    if isinstance(value, list):
        return [_entry(item) for item in value]
    return [_entry(value)]


def _entry(value: Any) -> _Entry:
    # What is not a call keeps its JSON for the host's logs, inside a list: the
    # argument parser refuses it even when a Tool is invoked with the call directly.
    raw = json.dumps([value], ensure_ascii=False)
    if not isinstance(value, dict):
        problem = (
            f"The <tool_call> block holds {describe(value)}, not a call object; {_CALL_SHAPE}."
        )
        return "", raw, problem
    name = value.get("name")
    if value.get("type") == "function" and isinstance(value.get("function"), Mapping):
        problem = f"The <tool_call> block holds a tool definition, not a call; {_CALL_SHAPE}."
        return "", raw, problem
    if not isinstance(name, str) or not name:
        problem = f'The <tool_call> object has no "name" string; {_CALL_SHAPE}.'
        return "", raw, problem
    if "arguments" not in value:
        extra = [key for key in _DEFINITION_KEYS if key in value]
        if extra:
            problem = (
                f'The <tool_call> object has "{extra[0]}" but no "arguments", so it is a '
                f"tool definition, not a call; {_CALL_SHAPE}."
            )
            return name, raw, problem
        return name, {}, None
    arguments = value["arguments"]
    if isinstance(arguments, (dict, str)):
        # A string is JSON text some models double-encode; the invoker parses it.
        return name, arguments, None
    return name, json.dumps(arguments), None


def _failed(body: str, problem: str, name: str = "") -> _Entry:
    """An entry for an attempt that is not a call: the visible name, the raw text."""
    if not name:
        match = _NAME.search(body)
        name = match.group(1) if match else ""
    return name, body, problem


def _think_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    pos = 0
    first_close = text.find(_THINK_CLOSE)
    first_open = text.find(_THINK_OPEN)
    if first_close >= 0 and (first_open < 0 or first_close < first_open):
        # Qwen3 templates open `<think>` in the prompt: a reply may start inside it.
        spans.append((0, first_close))
        pos = first_close + len(_THINK_CLOSE)
    while (start := text.find(_THINK_OPEN, pos)) >= 0:
        end = text.find(_THINK_CLOSE, start)
        end = len(text) if end < 0 else end
        spans.append((start, end))
        pos = end + len(_THINK_CLOSE)
    return spans
