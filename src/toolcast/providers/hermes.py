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

import copy
import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias

from toolcast._content import ImagePart, JsonPart
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.errors import ResponseFormatError
from toolcast.providers._common import answer_all, to_plain
from toolcast.providers._hermes_text import ParsedText
from toolcast.providers._hermes_text import parse_text as _parse_text
from toolcast.providers._projection import (
    Projection,
    ToolChoice,
    cached_projection,
    fresh_definitions,
    normalize_choice,
    specs_of,
)
from toolcast.providers._read import Wire, describe
from toolcast.providers._shapes import expect

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

_WIRE = Wire("Hermes")

TARGET = "hermes"

Dialect: TypeAlias = Literal["hermes", "qwen"]
"""`hermes`: NousResearch Hermes 2 Pro / 3 wording, results as
`{"name": ..., "content": ...}` JSON. `qwen`: the Qwen2.5 / Qwen3 chat-template
wording, results as the tool's text."""

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
    return fresh_definitions(specs_of(tools), TARGET, None, _project)


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


def parse_calls(
    response: Any, *, id_prefix: str = "call_", tools: Iterable[Any] | None = None
) -> list[ToolCall]:
    """The `<tool_call>` blocks in a model's text, in order.

    `response` is the text, or a message (dict or object) with a `content` or
    `text` string (or a list of text parts). See `parse_text` for the rules.

    Raises:
        ResponseFormatError: `response` holds no text to read.
    """
    if not isinstance(response, str):
        _not_structured(response)
    return list(parse_text(_text_of(response), id_prefix=id_prefix, tools=tools).calls)


def _not_structured(response: Any) -> None:
    """Refuse a provider response whose calls are structured: reading its text loses them."""
    try:
        if isinstance(response, (list, tuple)):  # stream chunks or events
            data: Any = [to_plain(item) for item in response]
        elif isinstance(response, Mapping) or hasattr(response, "model_dump"):
            data = to_plain(response)
        else:
            return
    except (TypeError, ValueError, RecursionError):
        return
    expect(_WIRE, "hermes", data)
    if isinstance(data, Mapping) and data.get("tool_calls"):
        _WIRE.fail(
            "tool_calls",
            "holds calls the server already parsed: read them with "
            "toolcast.providers.openai_chat (or ollama, mistral), not as text",
        )


def parse_text(
    text: str, *, id_prefix: str = "call_", tools: Iterable[Any] | None = None
) -> ParsedText:
    """Split model text into calls and the text around them.

    A `<tool_call>` block is a call attempt when its body starts with `{`, `[`
    or `<function=` (after spaces or a code fence); other blocks are prose and
    stay in the text as written. An attempt holds call objects
    (`{"name": ..., "arguments": {...}}`; several per block, as a list, joined by
    commas or one per line) or Qwen's XML form
    `<function=NAME><parameter=P>V</parameter></function>`. Whitespace, code
    fences, a final unterminated block, single-quoted Python-literal dicts and a
    stray closing brace are tolerated; blocks inside `<think>` are reasoning and
    stay in the text. An attempt that is not a call (invalid JSON, a tool
    definition, no name) still becomes a call: `provider_data["error"]` holds the
    real reason in words for the model, and invoking through a `ToolSet` answers
    with it. With `tools`, Qwen XML values are read as their schema says (JSON for
    non-string parameters, the raw text for strings). Ids are `id_prefix` + the
    call's position (0, 1, ...), unique in one message; pass a per-turn prefix
    when ids must be unique across a conversation. Time is linear in the text.
    """
    return _parse_text(text, id_prefix=id_prefix, tools=tools)


def _text_of(response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, (Mapping, list, tuple)) or hasattr(response, "content"):
        for key in ("content", "text"):
            value = (
                response.get(key) if isinstance(response, Mapping) else getattr(response, key, None)
            )
            if isinstance(value, str):
                return value
            if isinstance(value, (list, tuple)):
                # OpenAI-style content parts: [{"type": "text", "text": ...}, ...]
                return "".join(
                    part["text"]
                    for part in value
                    if isinstance(part, Mapping) and isinstance(part.get("text"), str)
                )
            if value is None and isinstance(response, Mapping) and key in response:
                return ""
    elif hasattr(response, "text") and isinstance(response.text, str):
        return str(response.text)
    raise ResponseFormatError(
        "Hermes",
        "",
        f"is {describe(response)} with no text; pass the text or a message with `content`",
    )


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
