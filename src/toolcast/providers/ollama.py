"""Ollama `/api/chat`: tools, calls without ids, and `tool` messages by name and order.

Wire reference: https://github.com/ollama/ollama/blob/main/docs/api.md (chat,
tool calling) and ollama-python `_types.py`. A tool is `{"type": "function",
"function": {name, description, parameters}}`. Calls come back in
`message.tool_calls[].function{name, arguments}` with arguments as an object and
no call id, so `parse_calls` mints one per call. Results are `{"role": "tool",
"tool_name", "content"}` messages in call order. There is no `tool_choice` and
no strict mode.

The Python client validates tools through its own `Tool` model, whose property
schema keeps only `type`, `items`, `description` and `enum`, silently dropping
everything else (`anyOf`, `default`, bounds, nested `properties`; ollama-python
issues 429 and 508). So each parameter is reduced to those four keys here and
everything else is written into its description, where the model still reads it.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

from toolcast._content import ImagePart
from toolcast._json import JsonSchema
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.loop._model import ModelRequest, ModelTurn
from toolcast.providers import _schema as sch
from toolcast.providers._adapter import Adapter, plain, usage_of
from toolcast.providers._common import (
    answer_all,
    check_choice_names,
    materialize,
    new_call_id,
    openai_parameters,
    outcome_text,
)
from toolcast.providers._projection import (
    ConversionNote,
    Projection,
    ToolChoice,
    cached_projection,
    fresh_definitions,
    normalize_choice,
    specs_of,
)
from toolcast.providers._read import Wire
from toolcast.providers._refs import inline_refs
from toolcast.providers._shapes import expect

__all__ = (
    "Model",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
)

TARGET = "ollama"
_WIRE = Wire("Ollama")
# ollama-python 0.6.3 `Tool.Function.Parameters.Property`: the only keys kept.
_PROPERTY_KEYS = ("type", "items", "description", "enum")
# `Tool.Function.Parameters`: the only root keys kept.
_ROOT_KEYS = ("type", "$defs", "items", "required", "properties")


def project(tool: Any, *, full_schema: bool = False) -> Projection:
    """Project one Tool or ToolSpec into the shape the Ollama client keeps intact.

    With `full_schema`, the loose JSON Schema goes over unreduced, for hosts that
    post to `/api/chat` themselves (recent servers read nested `properties` and
    `anyOf`; the Python client would drop them).
    """
    (spec,) = specs_of([tool])
    return cached_projection(spec, TARGET, full_schema, lambda s: _project(s, full_schema))


def _project(spec: ToolSpec, full_schema: bool) -> Projection:
    notes: list[ConversionNote] = []
    if full_schema:
        parameters = openai_parameters(spec.input_schema, strict=False).schema
    else:
        parameters = _parameters(spec.input_schema, notes)
    function = {
        "name": spec.name,
        "description": spec.description,
        "parameters": parameters,
    }
    definition = {"type": "function", "function": function}
    return Projection(TARGET, spec.name, definition, False, tuple(notes))


def _parameters(schema: Mapping[str, Any], notes: list[ConversionNote]) -> JsonSchema:
    converted = sch.strip_extensions(schema, notes)
    try:
        # Property-level `$ref` would be dropped by the client; inline it.
        converted = inline_refs(converted, target="Ollama")
    except UnsupportedSchemaError as exc:
        notes.append(ConversionNote("", "$ref", "moved_to_description", str(exc)))
    converted = sch.const_to_enum(converted, notes)
    defs = {
        f"#/{key}/{name}": sub
        for key in ("$defs", "definitions")
        for name, sub in (converted.get(key) or {}).items()
    }
    properties = {
        name: _property(sub, sch.pointer("", "properties", name), notes, defs)
        for name, sub in (converted.get("properties") or {}).items()
    }
    root: JsonSchema = {"type": "object", "properties": properties}
    if converted.get("required"):
        root["required"] = list(converted["required"])
    for key in converted:
        if key not in _ROOT_KEYS and key not in ("additionalProperties", "description"):
            notes.append(
                ConversionNote(
                    "",
                    key,
                    "dropped",
                    f"Root keyword {key} is dropped by the Ollama client.",
                )
            )
    return root


def _property(
    sub: Any,
    path: str,
    notes: list[ConversionNote],
    defs: Mapping[str, Any],
    seen: frozenset[str] = frozenset(),
) -> JsonSchema:
    node = dict(sub) if isinstance(sub, Mapping) else {}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref in defs and ref not in seen:
        # Only a recursive schema keeps refs here; open one level of it so the
        # model sees the shape, and name the type where it recurses.
        seen = seen | {ref}
        node = {**defs[ref], **{k: v for k, v in node.items() if k != "$ref"}}
    elif isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        node = {k: v for k, v in node.items() if k != "$ref"}
        node.setdefault("type", "object")
        node = sch.add_to_description(node, f"A {name}, shaped as described above.")
    node = _flatten_type_union(node, path, notes)
    if "prefixItems" in node and "items" in node:
        # The positions go to words below; the rest-of-items schema alone (often
        # `false`) would then bind every position and refuse every tuple.
        node.pop("items")
        detail = "items (the items after the tuple's positions) is dropped with prefixItems."
        notes.append(ConversionNote(path, "items", "dropped", detail))
    sentences = []
    for key in [k for k in node if k not in _PROPERTY_KEYS]:
        value = node.pop(key)
        sentence = _words(key, value)
        if sentence:
            sentences.append(sentence)
        notes.append(
            ConversionNote(
                path,
                key,
                "moved_to_description" if sentence else "dropped",
                f"{key} is dropped by the Ollama client"
                + (f"; the description says {sentence!r}" if sentence else "."),
            )
        )
    if "items" in node and isinstance(node["items"], Mapping):
        # `items` is kept verbatim by the client, but the server's Go types read
        # only the same four keys, so items are reduced the same way.
        node["items"] = _property(node["items"], sch.pointer(path, "items"), notes, defs, seen)
    for sentence in sentences:
        node = sch.add_to_description(node, sentence)
    return sch.order_keys(node)


def _flatten_type_union(node: JsonSchema, path: str, notes: list[ConversionNote]) -> JsonSchema:
    """`anyOf` of bare types becomes a type list (`Property.type` takes a list)."""
    branches = node.get("anyOf")
    if not isinstance(branches, list) or "type" in node:
        return node
    if all(
        isinstance(b, Mapping) and set(b) <= {"type"} and isinstance(b.get("type"), str)
        for b in branches
    ):
        node = {k: v for k, v in node.items() if k != "anyOf"}
        node["type"] = [b["type"] for b in branches]
        notes.append(
            ConversionNote(
                path,
                "anyOf",
                "rewritten",
                "A union of plain types sent as a type list.",
            )
        )
    return node


def _words(key: str, value: Any) -> str:
    if key == "properties" and isinstance(value, Mapping):
        return (
            "Keys: "
            + "; ".join(f"{name} ({sch.summarize(sub)})" for name, sub in value.items())
            + "."
        )
    if key == "required" and isinstance(value, list):
        return ("Required keys: " + ", ".join(value) + ".") if value else ""
    if key == "anyOf" and isinstance(value, list):
        return "One of: " + "; ".join(sch.summarize(b) for b in value) + "."
    if key in ("additionalProperties", "title", "$comment"):
        return (
            sch.describe(key, value) if key == "additionalProperties" and value is not False else ""
        )
    return sch.describe(key, value)


def format_tools(
    tools: Iterable[Any], *, strict: bool | None = None, full_schema: bool = False
) -> list[dict[str, Any]]:
    """The `tools` list for `ollama.chat`, in the given order.

    `strict` is accepted for symmetry with the other targets; Ollama has no
    strict mode.
    """
    del strict
    return fresh_definitions(
        specs_of(tools), TARGET, full_schema, lambda s: _project(s, full_schema)
    )


def format_tool_choice(choice: ToolChoice, *, tools: Iterable[Any] | None = None) -> None:
    """Ollama has no `tool_choice`: `"auto"` needs nothing sent, the rest cannot be.

    Raises:
        ValueError: for every choice but `"auto"`, saying what to do instead
            (omit `tools` for "none"; send only the chosen tool otherwise, which
            still does not force a call).
    """
    normal = normalize_choice(choice)
    check_choice_names(normal.names, tools)
    if normal.mode == "auto" and not normal.names:
        return
    if normal.mode == "none":
        msg = "Ollama has no tool_choice; to stop tool calls, send no tools."
    else:
        msg = (
            "Ollama has no tool_choice and cannot force a tool call; send only the "
            "tools the model may use and say in the prompt that it must call one."
        )
    raise ValueError(msg)


def parse_calls(response: Any) -> list[ToolCall]:
    """The tool calls in a `ChatResponse`, a message dict, or a list of stream chunks.

    Ollama sends no call ids, so each call gets a fresh one; results are matched
    by order and `tool_name`.

    Raises:
        ResponseFormatError: the response is not in Ollama's chat shape.
    """
    data = materialize(response, _WIRE)
    expect(_WIRE, "ollama", data)
    chunks = data if isinstance(data, list) else [data]
    calls = []
    for number, chunk in enumerate(chunks):
        where = f"[{number}]" if isinstance(data, list) else ""
        chunk = _WIRE.obj(chunk, where)
        if "message" in chunk:
            where = f"{where}.message" if where else "message"
            message = _WIRE.obj(chunk["message"] or {}, where)
        else:
            message = chunk
        at = f"{where}.tool_calls" if where else "tool_calls"
        for i, item in enumerate(_WIRE.seq(message.get("tool_calls"), at)):
            item = _WIRE.obj(item, f"{at}[{i}]")
            function = _WIRE.obj(item.get("function") or {}, f"{at}[{i}].function")
            extra = {"index": function["index"]} if "index" in function else {}
            calls.append(
                _WIRE.call(
                    f"{at}[{i}].function",
                    new_call_id("ollama_"),
                    function.get("name"),
                    function.get("arguments"),
                    extra,
                )
            )
    return calls


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    error_prefix: str = "Error: ",
) -> list[dict[str, Any]]:
    """One `tool` message per outcome, in call order when `calls` is given.

    Ollama matches results by order and `tool_name`; with `calls`, unanswered
    calls get an error message in their place. Images go in the message's
    `images` list (base64), which Ollama's multimodal models read.
    """
    messages = []
    for outcome in answer_all(outcomes, calls):
        message: dict[str, Any] = {
            "role": "tool",
            "tool_name": outcome.tool_name,
            "content": outcome_text(outcome, error_prefix=error_prefix),
        }
        pictures = [p for p in outcome.content if isinstance(p, ImagePart)]
        if pictures:
            message["images"] = [base64.b64encode(p.data).decode("ascii") for p in pictures]
        messages.append(message)
    return messages


# --- Model adapter for the run loop


class Model(Adapter):
    """An Ollama model behind the host's `ollama.AsyncClient` (`/api/chat`).

    Ollama has no tool choice: `"none"` sends no tools, a named tool sends only
    that tool, and `"required"` sends them all (Ollama cannot force a call; the
    model may still answer in text). Options such as `think`, `format`,
    `keep_alive` and `options={...}` pass through to `chat`.

    Example:
        >>> model = ollama.Model(ollama.AsyncClient(), "qwen3:4b", options={"temperature": 0})
    """

    provider = "Ollama"
    method = "chat"
    expects = "an ollama.AsyncClient"
    extra = "ollama"

    def __init__(
        self, client: Any, model: str, *, full_schema: bool = False, **options: Any
    ) -> None:
        super().__init__(client, model, **options)
        self.full_schema = full_schema

    def user_message(self, text: str) -> list[dict[str, Any]]:
        """A `user` message."""
        return [{"role": "user", "content": text}]

    def result_messages(self, outcomes: Iterable[ToolOutcome]) -> list[dict[str, Any]]:
        """One `tool` message per outcome, by name and order (see `format_results`)."""
        return format_results(outcomes)

    def request(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of `AsyncClient.chat` for `request`."""
        system = [{"role": "system", "content": request.system}] if request.system else []
        kwargs: dict[str, Any] = {"model": self.model, "messages": [*system, *request.messages]}
        choice = request.tool_choice
        tools = [t for t in request.tools if choice in ("auto", "required", t.name)]
        if tools and choice != "none":
            kwargs["tools"] = format_tools(tools, full_schema=self.full_schema)
        return {**kwargs, **self.merged(request)}

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send one request; calls get fresh ids (Ollama sends none)."""
        data = plain(await self.send(**self.request(request)))
        expect(_WIRE, "ollama", data)
        reply = data.get("message") or {}
        message = {k: v for k, v in reply.items() if k in _KEPT}
        message["role"] = "assistant"
        usage = usage_of(data, ["prompt_eval_count"], ["eval_count"])
        return ModelTurn(
            message=message,
            calls=tuple(parse_calls(message)),
            text=reply.get("content") or "",
            usage=usage,
            finish_reason=data.get("done_reason"),
        )


_KEPT = ("role", "content", "thinking", "tool_calls", "images")
