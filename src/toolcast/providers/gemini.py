"""Google Gemini (google-genai / REST): declarations, calling config, calls, responses.

Two schema variants: `parametersJsonSchema` (JSON Schema, the default) and the
OpenAPI-subset `parameters`, which the Live API still needs
(https://ai.google.dev/gemini-api/docs/function-calling). Payloads are REST JSON
(camelCase keys, base64 thought signatures); google-genai accepts them as they are.
Gemini 3 attaches opaque thought signatures to `functionCall` parts that must come
back unchanged (https://ai.google.dev/gemini-api/docs/thought-signatures):
`parse_calls` keeps them in `ToolCall.provider_data` and `format_calls` puts them back.
Calls without an `id` get a synthetic one that never reaches the wire; their
responses are matched by name and order, as the API does.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias

from toolcast._content import ImagePart, JsonPart
from toolcast._json import JsonSchema
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.loop._model import ModelRequest, ModelTurn
from toolcast.providers._adapter import Adapter, choice_of, plain, usage_of
from toolcast.providers._common import answer_all, materialize
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
from toolcast.providers._refs import inline_refs, isolate_refs
from toolcast.providers._schema import (
    const_to_enum,
    drop_keywords,
    move_to_description,
    one_of_to_any_of,
    order_keys,
    rewrite,
    strip_extensions,
    to_nullable_keyword,
    types_of,
    walk,
    widen_tuples,
)
from toolcast.providers._shapes import expect
from toolcast.providers.anthropic import object_root

__all__ = (
    "Api",
    "Model",
    "Variant",
    "format_calls",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
)

TARGET = "gemini"
_WIRE = Wire("Gemini")

Variant: TypeAlias = Literal["json_schema", "openapi"]
"""`json_schema` fills `parametersJsonSchema`; `openapi` fills `parameters` (Live)."""

Api: TypeAlias = Literal["gemini", "vertex"]
"""The Gemini Developer API or Vertex AI (they differ on `additionalProperties`)."""

SYNTHETIC_ID_PREFIX = "toolcast:"
"""Ids made up for calls that came without one; they are never sent back."""

THOUGHT_SIGNATURE = "thought_signature"
"""`ToolCall.provider_data` key holding a call's thought signature (base64 text)."""

# https://ai.google.dev/api/caching#FunctionDeclaration: "Must start with a letter or
# an underscore" -- stricter than toolcast's own name rule.
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


def format_tools(
    tools: Iterable[Any],
    *,
    strict: bool | None = None,
    variant: Variant = "json_schema",
    api: Api = "gemini",
) -> list[dict[str, Any]]:
    """The `tools` request field: one `{"functionDeclarations": [...]}`, or `[]`.

    Gemini has no per-tool strict flag; `strict` is accepted so generic code can
    pass it, and schema-checked calls are asked for with
    `format_tool_choice(..., validated=True)`.
    """
    del strict  # no per-declaration flag on this target (see docstring)
    specs = specs_of(tools)
    names = [spec.name for spec in specs]
    if len(set(names)) < len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        msg = f"Tool names must be unique per request; repeated: {', '.join(twice)}."
        raise ValueError(msg)
    declarations = fresh_definitions(
        specs, TARGET, (variant, api), lambda s: _project(s, variant, api)
    )
    return [{"functionDeclarations": declarations}] if declarations else []


def project(tool: Any, *, variant: Variant = "json_schema", api: Api = "gemini") -> Projection:
    """One function declaration, cached per (spec, variant, api)."""
    spec: ToolSpec = getattr(tool, "spec", tool)
    return cached_projection(spec, TARGET, (variant, api), lambda s: _project(s, variant, api))


def _project(spec: ToolSpec, variant: Variant, api: Api) -> Projection:
    if not spec.name or spec.name[0] not in _NAME_START:
        msg = f"Gemini function names start with a letter or '_'; rename {spec.name!r}."
        raise UnsupportedSchemaError(msg)
    declaration: dict[str, Any] = {"name": spec.name}
    if spec.description:
        declaration["description"] = spec.description
    schema, notes = convert_schema(spec.input_schema, variant=variant, api=api, name=spec.name)
    if schema is not None:
        key = "parametersJsonSchema" if variant == "json_schema" else "parameters"
        declaration[key] = schema
    return Projection(TARGET, spec.name, declaration, False, tuple(notes))


# ----------------------------------------------------------------------------- schema

# https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/GenerationConfig
# (responseJsonSchema: the JSON Schema keywords Gemini reads); the rest is described.
_JSON_KEEP = frozenset(
    {
        "$id",
        "$defs",
        "$ref",
        "$anchor",
        "type",
        "format",
        "title",
        "description",
        "enum",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "anyOf",
        "properties",
        "additionalProperties",
        "required",
        "propertyOrdering",
    }
)
# google-genai `types.Schema`, the OpenAPI 3.0 subset behind `parameters`, less
# `title` (dropped) and `default` (described): both are in the SDK type, yet users
# report "Unknown name" for them (PROVIDERS.md §9 item 5), and neither constrains.
_OPENAPI_KEEP = frozenset(
    {
        "type",
        "nullable",
        "format",
        "description",
        "enum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "example",
        "anyOf",
        "propertyOrdering",
        "additionalProperties",
    }
)
# "format: only 'enum' and 'date-time' are supported for STRING type" (gemini-cli
# #3178); numeric formats are the OpenAPI ones the Schema docstring lists, each for
# its own type ("for NUMBER type: float, double; for INTEGER type: int32, int64").
_FORMATS = {
    "string": frozenset({"enum", "date-time"}),
    "number": frozenset({"float", "double"}),
    "integer": frozenset({"int32", "int64"}),
}


def _format_moves(value: Any, node: Mapping[str, Any]) -> bool:
    """Whether Gemini cannot take `format: value` on `node` (it then goes in words)."""
    kind = node.get("type")
    return not isinstance(kind, str) or value not in _FORMATS.get(kind, ())


_META = ("$schema", "$comment")
# https://ai.google.dev/api/caching#FunctionDeclaration: parameter names "must start
# with a letter or an underscore and must only contain chars a-z, A-Z, 0-9, or
# underscores with a maximum length of 64".
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")


def convert_schema(
    schema: Mapping[str, Any], *, variant: Variant, api: Api, name: str
) -> tuple[JsonSchema | None, list[ConversionNote]]:
    """Down-convert a canonical schema; None means "send no parameters".

    Raises:
        UnsupportedSchemaError: the `openapi` variant met a recursive schema, an
            `allOf`, or a parameter name Gemini refuses.
    """
    notes: list[ConversionNote] = []
    node = drop_keywords(strip_extensions(schema, notes), _META, notes)
    node = object_root(node, notes, name)
    node = one_of_to_any_of(const_to_enum(node, notes), notes)
    if variant == "json_schema":
        # A `$ref` may only have `$` siblings (responseJsonSchema field docs).
        node = _split_null_enums(isolate_refs(node), notes)
        node = move_to_description(node, _json_moves, notes)
    else:
        node = _openapi(node, api, notes, name)
    if not node.get("properties") and not isinstance(node.get("additionalProperties"), Mapping):
        # "properties: should be non-empty for OBJECT type" (vercel/ai #3371); a
        # declaration without parameters is how the API spells "no arguments".
        return None, notes
    return node, notes


def _json_moves(keyword: str, value: Any, _node: Mapping[str, Any]) -> bool:
    if keyword == "enum":
        return not all(_is_str_or_number(v) for v in value)
    if keyword == "format":
        return _format_moves(value, _node)
    return keyword not in _JSON_KEEP


def _openapi(node: JsonSchema, api: Api, notes: list[ConversionNote], name: str) -> JsonSchema:
    node = inline_refs(node, target="Gemini's OpenAPI `parameters` (Live API)")
    node = drop_keywords(node, ("title",), notes, reason="Gemini's `parameters` refuse it")
    for path, sub in walk(node):
        if "allOf" in sub:
            msg = (
                f"Tool {name!r} uses allOf at {path or '/'}, which Gemini's OpenAPI "
                "`parameters` cannot express; use variant='json_schema' or merge it."
            )
            raise UnsupportedSchemaError(msg)
    node = to_nullable_keyword(widen_tuples(node, notes), notes)
    if api == "gemini":
        # "additionalProperties ... is only supported in Vertex" (google-genai
        # `_transformers.process_schema`; "Unknown name", pydantic-ai #3538).
        node = drop_keywords(
            node,
            lambda k, v, _n: k == "additionalProperties" and v is False,
            notes,
            reason="the Gemini Developer API does not accept it (Vertex AI does)",
        )
    node = move_to_description(node, lambda k, v, n: _openapi_moves(k, v, n, api), notes)
    for key in node.get("properties") or {}:
        if not _PARAM_NAME.match(key):
            msg = (
                f"Tool {name!r} has a parameter {key!r}; Gemini parameter names start "
                "with a letter or '_' and use only letters, digits and '_' (max 64)."
            )
            raise UnsupportedSchemaError(msg)
    return rewrite(node, _openapi_node)


def _openapi_moves(keyword: str, value: Any, node: Mapping[str, Any], api: Api) -> bool:
    if keyword == "enum":
        # Schema.enum is a list of strings ("enum only allowed for STRING type").
        return not (types_of(node) in ((), ("string",)) and all(isinstance(v, str) for v in value))
    if keyword == "format":
        return _format_moves(value, node)
    if keyword == "additionalProperties":
        return api == "gemini"
    return keyword not in _OPENAPI_KEEP


def _openapi_node(node: JsonSchema, _path: str) -> JsonSchema:
    kind = node.get("type")
    if "enum" in node and kind is None:
        node["type"] = kind = "string"
    if isinstance(kind, str):
        # The proto enum names (google-genai `types.Type`), as the SDK sends them.
        node["type"] = kind.upper()
    return order_keys(node)


def _split_null_enums(schema: JsonSchema, notes: list[ConversionNote]) -> JsonSchema:
    """`enum: [..., null]` becomes `anyOf: [{enum: [...]}, {type: "null"}]`.

    Gemini's JSON Schema enums hold strings and numbers only, while `type: "null"`
    is native, so an optional enum keeps its values and its null this way.
    """

    def step(node: JsonSchema, path: str) -> JsonSchema:
        values = node.get("enum")
        if not isinstance(values, list) or None not in values or values == [None]:
            return node
        inner: JsonSchema = {"enum": [v for v in values if v is not None]}
        kinds = [k for k in types_of(node) if k != "null"]
        if kinds:
            inner = {"type": kinds[0] if len(kinds) == 1 else kinds, **inner}
        outer = {k: v for k, v in node.items() if k not in ("type", "enum")}
        outer["anyOf"] = [order_keys(inner), {"type": "null"}]
        detail = "null taken out of the enum into a separate null branch."
        notes.append(ConversionNote(path, "enum", "rewritten", detail))
        return order_keys(outer)

    return rewrite(schema, step)


def _is_str_or_number(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def format_tool_choice(choice: ToolChoice = "auto", *, validated: bool = False) -> dict[str, Any]:
    """The `toolConfig` request field.

    `validated=True` turns `auto` into `VALIDATED` (calls checked against the
    schemas); a choice restricted to some tools in `auto` mode uses `VALIDATED`
    too, the only mode besides `ANY` that takes `allowedFunctionNames`.
    """
    # https://ai.google.dev/api/caching#Mode (AUTO, ANY, NONE, VALIDATED)
    norm = normalize_choice(choice)
    config: dict[str, Any]
    if norm.mode == "none":
        config = {"mode": "NONE"}
    elif norm.mode == "required":
        config = {"mode": "ANY"}
    else:
        config = {"mode": "VALIDATED" if validated or norm.names else "AUTO"}
    if norm.names and norm.mode != "none":
        config["allowedFunctionNames"] = list(norm.names)
    return {"functionCallingConfig": config}


def parse_calls(response: Any) -> list[ToolCall]:
    """The function calls in a response, in order.

    Accepts a `GenerateContentResponse`, a `Content`, their REST dicts, a list of
    parts, the chunks of a stream, or a Live API `LiveServerMessage` / its
    `toolCall`. A call's thought signature goes to
    `provider_data["thought_signature"]`; a call without an id gets a synthetic one.

    Raises:
        ResponseFormatError: the response is not in the Gemini shape (e.g. a
            `functionCalls` that is a string, a part that is not an object).
    """
    calls: list[ToolCall] = []
    plain_response = materialize(response, _WIRE, "python")
    expect(_WIRE, "gemini", plain_response)
    for path, part in _parts_of(plain_response, ""):
        part = _WIRE.obj(part, path)
        call = _get(part, "function_call", "functionCall")
        if call is None:
            continue
        at = f"{path}.functionCall"
        call = _WIRE.obj(call, at)
        name = _get(call, "name")
        given = _WIRE.text(_get(call, "id"), f"{at}.id", required=False)
        label = name if isinstance(name, str) else ""
        call_id = given or f"{SYNTHETIC_ID_PREFIX}{len(calls)}:{label}"
        data: dict[str, Any] = {}
        signature = _get(part, "thought_signature", "thoughtSignature")
        if signature:
            if isinstance(signature, (bytes, bytearray)):
                signature = base64.b64encode(signature).decode("ascii")
            data[THOUGHT_SIGNATURE] = _WIRE.text(signature, f"{path}.thoughtSignature")
        calls.append(_WIRE.call(at, call_id, name, _get(call, "args"), data))
    return calls


def _parts_of(response: Any, path: str) -> list[tuple[str, Any]]:
    """The parts of a response with their paths (`candidates[0].content.parts[2]`)."""
    at = f"{path}." if path else ""
    if isinstance(response, list):
        # A stream yields whole responses; each chunk adds parts to the same turn.
        if any(isinstance(item, Mapping) and "candidates" in item for item in response):
            return [
                found
                for i, chunk in enumerate(response)
                for found in _parts_of(_WIRE.obj(chunk, f"{path}[{i}]"), f"{path}[{i}]")
            ]
        return [(f"{path}[{i}]", part) for i, part in enumerate(response)]
    response = _WIRE.obj(response, path)
    if "candidates" in response:
        # A blocked prompt has no candidates; only the first candidate is read.
        candidates = _WIRE.seq(response["candidates"], f"{at}candidates")
        if not candidates:
            return []
        first = _WIRE.obj(candidates[0], f"{at}candidates[0]")
        content = _get(first, "content")
        if content is None:
            return []
        where = f"{at}candidates[0].content"
        parts = _WIRE.seq(_get(_WIRE.obj(content, where), "parts"), f"{where}.parts")
        return [(f"{where}.parts[{i}]", part) for i, part in enumerate(parts)]
    live = _get(response, "tool_call", "toolCall")
    if live is not None or _has(response, "function_calls") or _has(response, "functionCalls"):
        # Live API: a LiveServerMessage's toolCall, or the toolCall itself.
        where = f"{at}toolCall" if live is not None else path
        holder = _WIRE.obj(live if live is not None else response, where)
        key = f"{where}.functionCalls" if where else "functionCalls"
        calls = _WIRE.seq(_get(holder, "function_calls", "functionCalls"), key)
        return [(f"{key}[{i}]", {"functionCall": call}) for i, call in enumerate(calls)]
    parts = _WIRE.seq(_get(response, "parts"), f"{at}parts")
    return [(f"{at}parts[{i}]", part) for i, part in enumerate(parts)]


def _has(obj: Any, key: str) -> bool:
    return key in obj if isinstance(obj, Mapping) else hasattr(obj, key)


def format_calls(calls: Iterable[ToolCall], *, text: str | None = None) -> dict[str, Any]:
    """The model turn that made `calls`, thought signatures included, for history.

    Use it when the conversation is rebuilt from `ToolCall`s rather than by
    appending the response's own content (which keeps the signatures as well).
    """
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    for call in calls:
        function_call: dict[str, Any] = {}
        if not call.id.startswith(SYNTHETIC_ID_PREFIX):
            function_call["id"] = call.id
        function_call["name"] = call.name
        function_call["args"] = _args_object(call)
        part: dict[str, Any] = {"functionCall": function_call}
        signature = call.provider_data.get(THOUGHT_SIGNATURE)
        if signature:
            part["thoughtSignature"] = signature
        parts.append(part)
    return {"role": "model", "parts": parts}


def _args_object(call: ToolCall) -> Any:
    if isinstance(call.arguments, Mapping):
        return dict(call.arguments)
    try:
        args = json.loads(call.arguments)
    except ValueError:
        args = None
    if not isinstance(args, dict):
        msg = f"The arguments of call {call.id!r} are not a JSON object."
        raise ValueError(msg)
    return args


def format_results(
    outcomes: Iterable[ToolOutcome], *, calls: Iterable[ToolCall] | None = None
) -> dict[str, Any]:
    """One user turn with a `functionResponse` part per call, in call order.

    Successes send `{"output": ...}`, failures `{"error": "..."}` (the keys the
    API documents for FunctionResponse.response). Given `calls`, an unanswered
    call gets an error response saying it was not run.
    """
    parts = []
    for outcome in answer_all(outcomes, calls):
        response: dict[str, Any] = {}
        call_id = outcome.call_id
        if call_id is not None and not call_id.startswith(SYNTHETIC_ID_PREFIX):
            response["id"] = call_id
        response["name"] = outcome.tool_name
        if outcome.is_error:
            response["response"] = {"error": outcome.text}
        else:
            response["response"] = {"output": _output(outcome)}
        images = [p for p in outcome.content if isinstance(p, ImagePart)]
        if images:
            # Gemini 3 takes media inside the function response itself.
            response["parts"] = [
                {"inlineData": {"mimeType": p.mime_type, "data": p.base64}} for p in images
            ]
        parts.append({"functionResponse": response})
    return {"role": "user", "parts": parts}


def _output(outcome: ToolOutcome) -> Any:
    value = outcome.structured
    if value is None and len(outcome.content) == 1 and isinstance(outcome.content[0], JsonPart):
        value = outcome.content[0].value
    if value is None:
        return outcome.text
    if _mentions_ref(value):
        # Gemini 3 resolves `$ref` found inside function responses and rejects
        # unknown ones (hermes-agent #93014), so such values travel as JSON text.
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value


def _mentions_ref(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(key in ("$ref", "$defs") or _mentions_ref(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(_mentions_ref(item) for item in value)
    return False


def _get(obj: Any, snake: str, camel: str | None = None) -> Any:
    """A field of an SDK object or of a REST (camelCase) or SDK-style (snake) dict."""
    if isinstance(obj, Mapping):
        value = obj.get(snake)
        if value is None and camel is not None:
            value = obj.get(camel)
        return value
    return getattr(obj, snake, None)


# --- Model adapter for the run loop


class Model(Adapter):
    """A Gemini model behind the host's `google.genai.Client` (its `client.aio`).

    History is REST-shaped `Content` dicts; the model turn is rebuilt with
    `format_calls`, so thought signatures go back unchanged. `request.system`
    becomes `system_instruction`; automatic function calling stays off.
    `variant`/`api` go to `format_tools`, `validated` to `format_tool_choice`.

    Example:
        >>> model = gemini.Model(genai.Client(), "gemini-3-flash", temperature=0)
    """

    provider = "Gemini"
    method = "aio.models.generate_content"
    expects = "a google.genai.Client"
    extra = "gemini"

    def __init__(
        self,
        client: Any,
        model: str,
        *,
        variant: Variant = "json_schema",
        api: Api = "gemini",
        validated: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(client, model, **options)
        self.variant, self.api, self.validated = variant, api, validated

    def user_message(self, text: str) -> list[dict[str, Any]]:
        """A `user` content with one text part."""
        return [{"role": "user", "parts": [{"text": text}]}]

    def result_messages(self, outcomes: Iterable[ToolOutcome]) -> list[dict[str, Any]]:
        """One `user` content answering every call (see `format_results`)."""
        return [format_results(outcomes)]

    def request(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of `aio.models.generate_content` for `request`."""
        config: dict[str, Any] = {"automatic_function_calling": {"disable": True}}
        if request.system:
            config["system_instruction"] = request.system
        if request.tools:
            config["tools"] = format_tools(request.tools, variant=self.variant, api=self.api)
            choice = choice_of(request.tool_choice)
            config["tool_config"] = format_tool_choice(choice, validated=self.validated)
        config.update(self.merged(request))
        return {"model": self.model, "contents": list(request.messages), "config": config}

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send one request; the turn is the model's content, signatures kept."""
        data = plain(await self.send(**self.request(request)))
        expect(_WIRE, "gemini", data)
        candidates = _get(data, "candidates") or [{}]
        parts = _get(_get(candidates[0], "content") or {}, "parts") or []
        text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
        calls = parse_calls({"parts": parts})
        if calls:
            message = format_calls(calls, text=text or None)
        else:
            message = {"role": "model", "parts": [{"text": text}]}
        report = _get(data, "usage_metadata", "usageMetadata")
        usage = usage_of(
            report, ["promptTokenCount"], ["candidatesTokenCount", "thoughtsTokenCount"]
        )
        reason = _get(candidates[0], "finish_reason", "finishReason")
        return ModelTurn(message, tuple(calls), text, usage, reason)
