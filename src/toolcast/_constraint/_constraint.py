"""`toolcast.constraint(tools)`: what a valid call to one of these tools looks like.

The JSON Schema is an `anyOf` over the tools of
`{"name": {"const": NAME}, "arguments": INPUT_SCHEMA}` (each tool's `$defs` moved
to the top under `NAME__DEF`); the grammar is the same in GBNF for llama.cpp's
`grammar` parameter. Send either to a server that constrains generation, then
read the output back with `Constraint.parse`: the calls it returns are validated
like any other call when they run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolcast._spec import ToolCall, ToolSpec

__all__ = ("REPLY", "Constraint", "ConstraintNote", "constraint")

REPLY = "reply"
"""The key of the text branch (`{"reply": "..."}`) when text answers are allowed."""


@dataclass(frozen=True, slots=True)
class ConstraintNote:
    """A part of a tool's schema the grammar does not enforce (validation still does)."""

    tool: str
    path: str
    """Where in the tool's input schema, as a JSON pointer."""
    keyword: str
    detail: str


@dataclass(frozen=True, slots=True)
class Constraint:
    """One call (or a list of calls) to one of a set of tools, as schema and grammar."""

    names: tuple[str, ...]
    json_schema: dict[str, Any]
    """JSON Schema of the output (for `response_format` / structured outputs)."""
    grammar: str
    """GBNF of the output (llama.cpp's `grammar`)."""
    notes: tuple[ConstraintNote, ...]
    """What the grammar leaves to validation."""
    many: bool = False
    """The output is a JSON array of calls."""
    text: bool = False
    """The output may be `{"reply": TEXT}` instead of a call."""
    longest: int | None = None
    """With `max_tokens`: the most bytes (so tokens) an output can take; None when
    the grammar has no bound (no `max_tokens` given, or a recursive schema)."""

    def parse(self, output: str) -> tuple[list[ToolCall], str]:
        """The calls in a constrained output, and the reply text if it answered instead.

        Never raises: output that is not the expected JSON (cut off at the token
        limit, say) becomes one call carrying the raw text as its arguments when a
        tool name can be read from it, so the model is told its arguments are not
        valid JSON; otherwise it is returned as text.
        """
        try:
            data = json.loads(output)
        except ValueError:
            match = _NAME.search(output)
            if match is None:
                return [], output
            raw = output[match.end() :].partition('"arguments"')[2].lstrip(" :")
            return [ToolCall(_call_id(), match.group(1), raw or output)], ""
        items = data if isinstance(data, list) else [data]
        calls: list[ToolCall] = []
        texts: list[str] = []
        for item in items:
            if isinstance(item, Mapping) and REPLY in item and "name" not in item:
                texts.append(str(item[REPLY]))
            elif isinstance(item, Mapping):
                arguments = item.get("arguments", {})
                text = arguments if isinstance(arguments, str) else json.dumps(arguments)
                calls.append(ToolCall(_call_id(), str(item.get("name", "")), text))
            else:
                texts.append(json.dumps(item))
        return calls, "\n".join(texts)


_NAME = re.compile(r'"name"\s*:\s*"([^"\\]*)"')


def _call_id() -> str:
    import secrets  # deferred: it costs import time and is needed per parsed call only

    return "call_" + secrets.token_hex(12)


def constraint(
    tools: Iterable[Any],
    *,
    many: bool = False,
    text: bool = False,
    max_tokens: int | None = None,
) -> Constraint:
    """The constraint for calls to `tools` (Tools, ToolSpecs or a ToolSet).

    Args:
        tools: The tools the model may call.
        many: Describe a non-empty JSON array of calls instead of one call.
        text: Also allow `{"reply": TEXT}`, an answer without a call (tool choice
            "auto"); without it the output is always a call ("required").
        max_tokens: The request's output budget. The grammar then bounds every
            string, array and map (the schema's own `maxLength`/`maxItems`, tightened
            where needed) so its longest output fits in `max_tokens` tokens; each cap
            it chose is a note. A recursive schema cannot be bounded: that is a note too.

    Example:
        >>> c = toolcast.constraint([weather], max_tokens=256)
        >>> client.chat.completions.create(..., max_tokens=256, extra_body={"grammar": c.grammar})
    """
    specs = _specs(tools)
    if not specs:
        raise ValueError("A constraint needs at least one tool.")
    if max_tokens is None:
        return _build(specs, many, text, None)
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1.")
    from toolcast._constraint._gbnf import Caps

    # The largest caps whose longest output still fits: a token is at least one
    # byte of text, so a grammar of at most N bytes ends within N tokens.
    low, high = 1, max_tokens
    best = _build(specs, many, text, Caps(text=1, items=1))
    if (best.longest or max_tokens + 1) > max_tokens:
        return _over_budget(best, max_tokens)
    while low < high:
        middle = (low + high + 1) // 2
        found = _build(specs, many, text, Caps(text=middle, items=max(1, middle // 8)))
        if found.longest is not None and found.longest <= max_tokens:
            best, low = found, middle
        else:
            high = middle - 1
    return best


def _over_budget(found: Constraint, max_tokens: int) -> Constraint:
    if found.longest is None:
        detail = "A recursive schema has no longest call: it may still be cut off."
    else:
        detail = f"Even the shortest caps allow {found.longest} bytes: raise max_tokens."
    note = ConstraintNote(found.names[0], "", "max_tokens", detail)
    return replace(found, notes=(*found.notes, note))


def _build(specs: list[ToolSpec], many: bool, text: bool, caps: Any) -> Constraint:
    # The grammar compiler loads on first use: most hosts never constrain decoding.
    from toolcast._constraint._gbnf import GrammarBuilder, literal
    from toolcast._constraint._length import longest

    branches: list[dict[str, Any]] = []
    defs: dict[str, Any] = {}
    grammar = GrammarBuilder(caps)
    notes: list[ConstraintNote] = []
    alternatives = []
    for index, spec in enumerate(specs):
        schema = _plain(spec.input_schema)
        arguments, own_defs = _hoist(schema, spec.name, f"#/anyOf/{index}/properties/arguments")
        defs.update(own_defs)
        branches.append(
            {
                "type": "object",
                "properties": {"name": {"const": spec.name}, "arguments": arguments},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )

        def note(path: str, keyword: str, detail: str, tool: str = spec.name) -> None:
            found = ConstraintNote(tool, path, keyword, detail)
            if found not in notes:
                notes.append(found)

        body = grammar.expression(schema, schema, spec.name, "", note)
        call = f'"{{" ws {literal("name")} ws ":" ws {literal(spec.name)} ws "," ws '
        call += f'{literal("arguments")} ws ":" ws {body} ws "}}"'
        alternatives.append(grammar.rule(f"call-{spec.name}", call))
    if text:
        branches.append(
            {
                "type": "object",
                "properties": {REPLY: {"type": "string"}},
                "required": [REPLY],
                "additionalProperties": False,
            }
        )
        reply = "string" if caps is None else f'"\\"" text-char{{0,{caps.text}}} "\\""'
        alternatives.append(
            grammar.rule("reply", f'"{{" ws {literal(REPLY)} ws ":" ws {reply} ws "}}"')
        )
    one: dict[str, Any] = {"anyOf": branches}
    choice = grammar.rule("call", " | ".join(alternatives))
    if many:
        document: dict[str, Any] = {"type": "array", "items": one, "minItems": 1}
        more = "*" if caps is None else f"{{0,{max(caps.items - 1, 0)}}}"
        root = f'"[" ws {choice} (ws "," ws {choice}){more} ws "]"'
    else:
        document, root = one, choice
    if defs:
        document["$defs"] = defs
    text_of_grammar = grammar.text(root)
    return Constraint(
        names=tuple(s.name for s in specs),
        json_schema=document,
        grammar=text_of_grammar,
        notes=tuple(notes),
        many=many,
        text=text,
        longest=None if caps is None else longest(text_of_grammar),
    )


def _specs(tools: Iterable[Any]) -> list[ToolSpec]:
    if hasattr(tools, "tools") and callable(tools.tools):
        tools = tools.tools()
    specs = []
    for item in tools:
        spec = getattr(item, "spec", item)
        if not isinstance(spec, ToolSpec):
            raise TypeError(f"Expected a Tool or ToolSpec, got {type(item).__name__}.")
        specs.append(spec)
    return specs


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _hoist(schema: Any, tool: str, here: str) -> tuple[Any, dict[str, Any]]:
    """The schema with its `$defs` taken out (renamed `TOOL__NAME`) and refs rewritten."""
    own = {}
    if isinstance(schema, Mapping):
        for key in ("$defs", "definitions"):
            for name, value in (schema.get(key) or {}).items():
                own[f"{tool}__{name}"] = value

    def rewrite(node: Any) -> Any:
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        if not isinstance(node, Mapping):
            return node
        out = {}
        for key, value in node.items():
            if key in ("$defs", "definitions") and node is schema:
                continue
            if key == "$ref" and isinstance(value, str) and value.startswith("#"):
                out[key] = _moved(value, tool, here)
            else:
                out[key] = rewrite(value)
        return out

    return rewrite(schema), {name: rewrite(value) for name, value in own.items()}


def _moved(ref: str, tool: str, here: str) -> str:
    for key in ("$defs", "definitions"):
        prefix = f"#/{key}/"
        if ref.startswith(prefix):
            name, _, rest = ref[len(prefix) :].partition("/")
            return f"#/$defs/{tool}__{name}" + (f"/{rest}" if rest else "")
    return here + ref[1:]
