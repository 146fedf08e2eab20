"""Hermes / Qwen text tool calling, for raw-completion endpoints of open-weight models.

Tools are rendered into the system prompt inside `<tools></tools>`; the model answers
with `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks in its text;
results go back as `<tool_response>...</tool_response>` blocks in the next turn.
Sources: NousResearch Hermes-Function-Calling
(https://github.com/NousResearch/Hermes-Function-Calling), the Qwen2.5/Qwen3 chat
templates (`chat_template` in e.g.
https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/blob/main/tokenizer_config.json) and
vLLM's Hermes parser
(https://github.com/vllm-project/vllm/blob/main/vllm/tool_parsers/hermes_tool_parser.py).
The format has no call ids: calls and results are matched by order, so parsed calls
get synthetic ids (`call_0`, `call_1`, ...). Use this module only when nothing parses
the calls for you; a server that does (vLLM, Ollama) speaks the OpenAI-style formats.
"""

from __future__ import annotations

import ast
import copy
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from toolcast._content import ImagePart, JsonPart
from toolcast._frozen import thaw
from toolcast._outcome import ToolOutcome
from toolcast._spec import Arguments, ToolCall, ToolSpec
from toolcast.providers._common import answer_all
from toolcast.providers._projection import (
    Projection,
    ToolChoice,
    cached_projection,
    normalize_choice,
    specs_of,
)

__all__ = (
    "Dialect",
    "ParsedText",
    "format_results",
    "format_system_prompt",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "parse_text",
    "project",
)

TARGET = "hermes"

Dialect: TypeAlias = Literal["hermes", "qwen"]
"""`hermes`: NousResearch Hermes 2 Pro / 3 wording, results as
`{"name": ..., "content": ...}` JSON. `qwen`: the Qwen2.5 / Qwen3 chat-template
wording, results as the tool's text."""

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_FENCE = re.compile(r"\A```[A-Za-z]*\s*|\s*```\Z")
# Whitespace and an optional opening code fence before the JSON of a block.
_LEAD = re.compile(r"\s*(?:```[A-Za-z]*\s*)?")
# What may sit between a block's JSON and `</tool_call>`: a closing fence, or the
# stray `}` / `]` models sometimes add.
_FILLER = re.compile(r"[\s`}\]]*")
_NAME = re.compile(r"""["']name["']\s*:\s*["']([^"'\\]+)["']""")
_ARGUMENTS = re.compile(r"""["'](?:arguments|parameters)["']\s*:\s*""")
# Python-literal fallback only for blocks of reasonable size: `ast.literal_eval`
# is safe but slow, and deep nesting exhausts the stack.
_MAX_LITERAL = 100_000
_DECODER = json.JSONDecoder()

# Wording from the Qwen2.5 / Qwen3 chat templates [QW in PROVIDERS.md §7.4].
_QWEN_HEAD = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n"
    "<tools>"
)
_QWEN_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name "
    "and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)
# Wording from the Hermes 2 Pro function-calling prompt [HE in PROVIDERS.md §7.4].
_HERMES_HEAD = (
    "You are a function calling AI model. You are provided with function signatures "
    "within <tools></tools> XML tags. You may call one or more functions to assist "
    "with the user query. Don't make assumptions about what values to plug into "
    "functions. Here are the available tools: <tools>"
)
_HERMES_TAIL = (
    " </tools>\nUse the following pydantic model json schema for each tool call you "
    'will make: {"properties": {"name": {"title": "Name", "type": "string"}, '
    '"arguments": {"title": "Arguments", "type": "object"}}, "required": ["name", '
    '"arguments"], "title": "FunctionCall", "type": "object"}\n'
    "For each function call return a json object with function name and arguments "
    "within <tool_call></tool_call> XML tags as follows:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-dict>}\n</tool_call>'
)


def format_tools(tools: Iterable[Any], *, strict: bool | None = None) -> list[dict[str, Any]]:
    """The tool definitions that go inside `<tools>`, order kept.

    Args:
        tools: Tools, ToolSpecs or a ToolSet.
        strict: Accepted for symmetry with the other targets; a text prompt
            cannot constrain decoding, so it changes nothing.
    """
    del strict
    return [thaw(project(spec).definition) for spec in specs_of(tools)]


def project(tool: Any) -> Projection:
    """One tool in the OpenAI-function shape both templates render, schema as is."""
    spec: ToolSpec = getattr(tool, "spec", tool)
    return cached_projection(spec, TARGET, None, _project)


def _project(spec: ToolSpec) -> Projection:
    function: dict[str, Any] = {"name": spec.name}
    if spec.description:
        function["description"] = spec.description
    # The model reads the schema as text, so every keyword reaches it unchanged.
    function["parameters"] = copy.deepcopy(dict(spec.input_schema))
    definition = {"type": "function", "function": function}
    return Projection(TARGET, spec.name, definition, False)


def format_tool_choice(choice: ToolChoice = "auto") -> str:
    """The sentence that asks the model for a tool choice ("" for `auto`).

    A text prompt cannot force a choice; `format_system_prompt` also narrows the
    tools it lists to the ones the choice allows, which models follow better.
    """
    norm = normalize_choice(choice)
    if norm.mode == "none":
        return "Do not call any functions; answer directly."
    if norm.mode == "auto":
        return ""
    if len(norm.names) == 1:
        return f"You must call the function {norm.names[0]} before you answer."
    return "You must call at least one function before you answer."


def format_system_prompt(
    tools: Iterable[Any],
    *,
    system: str = "",
    dialect: Dialect = "qwen",
    tool_choice: ToolChoice = "auto",
) -> str:
    """The system prompt: `system`, then the tools and the call-format instructions.

    With `tool_choice="none"` the tools are left out; a choice that names tools
    lists only those.

    Raises:
        ValueError: the choice names a tool that is not in `tools`.
    """
    specs = specs_of(tools)
    norm = normalize_choice(tool_choice)
    if norm.mode == "none" or not specs:
        return system
    if norm.names:
        known = {spec.name for spec in specs}
        missing = [name for name in norm.names if name not in known]
        if missing:
            msg = f"The tool choice names tools that are not offered: {missing}."
            raise ValueError(msg)
        specs = [spec for spec in specs if spec.name in norm.names]
    rendered = [json.dumps(d, ensure_ascii=False) for d in format_tools(specs)]
    if dialect == "qwen":
        block = _QWEN_HEAD + "".join("\n" + d for d in rendered) + _QWEN_TAIL
    else:
        block = _HERMES_HEAD + " " + "\n".join(rendered) + _HERMES_TAIL
    instruction = format_tool_choice(tool_choice)
    if instruction:
        block += "\n\n" + instruction
    return f"{system}\n\n{block}" if system else block


@dataclass(frozen=True, slots=True)
class ParsedText:
    """A model's text split into its tool calls and everything else."""

    text: str
    """The text outside the `<tool_call>` blocks, stripped."""
    calls: tuple[ToolCall, ...]
    """The calls, in order."""


def parse_calls(response: Any, *, id_prefix: str = "call_") -> list[ToolCall]:
    """The `<tool_call>` blocks in a model's text, in order.

    `response` is the text, or a message (dict or object) with a `content` or
    `text` string. See `parse_text` for the rules.
    """
    return list(parse_text(_text_of(response), id_prefix=id_prefix).calls)


def parse_text(text: str, *, id_prefix: str = "call_") -> ParsedText:
    """Split model text into calls and the text around them.

    Robust to what models emit in practice: whitespace and code fences around the
    JSON, several blocks, a final block left unterminated (as vLLM accepts), an
    array of calls in one block, `parameters` for `arguments`, single-quoted
    Python-literal dicts (the Hermes prompt's own examples use them), a stray
    closing brace, and blocks inside `<think>` reasoning (left as text). A block
    that cannot be read still becomes a call: its name if one can be found (else
    `""`) and its arguments as the raw text, so the invoker answers with an error
    result the model can act on; `provider_data["error"]` says what was wrong.
    Ids are `id_prefix` + the call's position (0, 1, ...), unique in one message;
    pass a per-turn prefix when ids must be unique across a conversation.
    """
    thinking = _think_spans(text)
    outside: list[str] = []
    calls: list[ToolCall] = []
    pos = 0
    while True:
        start = _find_open(text, pos, thinking)
        if start < 0:
            outside.append(text[pos:])
            break
        outside.append(text[pos:start])
        entries, pos = _read_block(text, start + len(_OPEN))
        for name, arguments, error in entries:
            data: dict[str, Any] = {"index": len(calls)}
            if error is not None:
                data["error"] = error
            calls.append(ToolCall(f"{id_prefix}{len(calls)}", name, arguments, data))
    return ParsedText("".join(outside).strip(), tuple(calls))


def _text_of(response: Any) -> str:
    if isinstance(response, str):
        return response
    for key in ("content", "text"):
        value = response.get(key) if isinstance(response, Mapping) else getattr(response, key, None)
        if isinstance(value, str):
            return value
    msg = f"Cannot read model text from a {type(response).__name__}; pass the text."
    raise TypeError(msg)


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


def _find_open(text: str, pos: int, thinking: list[tuple[int, int]]) -> int:
    while (start := text.find(_OPEN, pos)) >= 0:
        if not any(a <= start < b for a, b in thinking):
            return start
        pos = start + len(_OPEN)
    return -1


_Entry: TypeAlias = "tuple[str, Arguments, str | None]"


def _read_block(text: str, body_start: int) -> tuple[list[_Entry], int]:
    """The calls of the block whose body starts at `body_start`, and where it ends."""
    # Decode from the start rather than cutting at the first `</tool_call>`, so an
    # argument string that contains the closing tag does not split the block.
    lead = _LEAD.match(text, body_start)
    start = lead.end() if lead else body_start
    try:
        value, stop = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        stop = -1
    if stop >= 0:
        close = text.find(_CLOSE, stop)
        next_open = text.find(_OPEN, stop)
        if close < 0 or 0 <= next_open < close:
            # A block without its closing tag (vLLM accepts a final one too): the JSON
            # is the call, and what follows is text or the next block.
            return _entries(value, text[start:stop]), stop
        if _FILLER.fullmatch(text, stop, close):
            return _entries(value, text[start:stop]), close + len(_CLOSE)
    close = text.find(_CLOSE, body_start)
    end = len(text) if close < 0 else close
    after = end if close < 0 else close + len(_CLOSE)
    body = _FENCE.sub("", text[body_start:end].strip())
    value = _literal(body)
    if value is not None:
        return _entries(value, body), after
    return [_salvage(body, _json_problem(body))], after


def _json_problem(body: str) -> str:
    try:
        json.loads(body)
    except (ValueError, RecursionError) as exc:
        return f"The <tool_call> block is not valid JSON ({exc})."
    return "The <tool_call> block has text around its JSON."


def _literal(body: str) -> Any:
    """The block read as a Python literal (`{'name': 'x'}`) holding JSON data."""
    if len(body) > _MAX_LITERAL or not body.lstrip().startswith(("{", "[")):
        return None
    try:
        value = ast.literal_eval(body)
        json.dumps(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value


def _entries(value: Any, raw: str) -> list[_Entry]:
    if isinstance(value, list):
        return [_entry(item, json.dumps(item)) for item in value]
    return [_entry(value, raw)]


def _entry(value: Any, raw: str) -> _Entry:
    if not isinstance(value, dict):
        return _salvage(raw, "The <tool_call> block is not a JSON object.")
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return _salvage(raw, 'The <tool_call> object has no "name" string.')
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, (dict, str)):
        # A string is JSON text some models double-encode; the invoker parses it.
        return name, arguments, None
    return name, json.dumps(arguments), None


def _salvage(body: str, problem: str) -> _Entry:
    """A call from an unreadable block: the name if visible, the raw arguments text."""
    match = _NAME.search(body)
    name = match.group(1) if match else ""
    found = _ARGUMENTS.search(body)
    arguments = _balanced(body[found.end() :]) if found else body
    return name, arguments, problem


def _balanced(text: str) -> str:
    """The leading `{...}` of `text`, matched outside strings (else all of it)."""
    if not text.startswith("{"):
        return text
    depth = 0
    quote = ""
    escaped = False
    for i, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[: i + 1]
    return text


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    dialect: Dialect = "hermes",
) -> str:
    """The next turn's text: one `<tool_response>` block per call, in call order.

    Hermes puts this in a `tool` turn, Qwen in a `user` turn. The `hermes` dialect
    sends `{"name": ..., "content": ...}` (`"error"` instead of `"content"` for a
    failure); `qwen` sends the result text (failures start with `Error:`). Images
    cannot travel in text and are replaced by a note. Given `calls`, results are put
    in the calls' order and a call without an outcome is answered with an error
    saying it was not run; without `calls`, pass outcomes in call order.

    Raises:
        ValueError: with `calls`, an outcome answers no call, or two answer one.
    """
    blocks = [_response(o, dialect) for o in answer_all(outcomes, calls)]
    return "\n".join(f"<tool_response>\n{b}\n</tool_response>" for b in blocks)


def _response(outcome: ToolOutcome, dialect: Dialect) -> str:
    if outcome.is_error:
        message = outcome.error.message if outcome.error is not None else outcome.text
        if dialect == "qwen":
            return _guard(f"Error: {message}")
        return _json({"name": outcome.tool_name, "error": message})
    parts = outcome.content
    text = outcome.text
    if any(isinstance(part, ImagePart) for part in parts):
        text = "".join(_part_text(part) for part in parts)
    if dialect == "qwen":
        return _guard(text)
    content: Any = text
    if len(parts) == 1 and isinstance(parts[0], JsonPart):
        content = parts[0].value
    return _json({"name": outcome.tool_name, "content": content})


def _part_text(part: Any) -> str:
    if isinstance(part, ImagePart):
        return (
            f"[{part.mime_type} image of {len(part.data)} bytes left out: "
            "this text format carries text only.]"
        )
    return str(part.text)


def _json(value: Any) -> str:
    # `\/` is a legal JSON escape: no result text can close the block early.
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def _guard(text: str) -> str:
    # Raw text cannot be escaped, but it must not end the block it sits in.
    return text.replace("</tool_response>", "<\\/tool_response>")
