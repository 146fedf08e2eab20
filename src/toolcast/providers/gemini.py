"""Google Gemini (google-genai / REST): function declarations, calling config, calls, responses.

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
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from typing_extensions import TypeAlias

from toolcast._content import ImagePart, JsonPart
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers._projection import (
    Projection,
    ToolChoice,
    cached_projection,
    normalize_choice,
    specs_of,
)
from toolcast.providers.anthropic import correlate

__all__ = (
    "Api",
    "Variant",
    "format_calls",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
)

TARGET = "gemini"

Variant: TypeAlias = Literal["json_schema", "openapi"]
"""`json_schema` fills `parametersJsonSchema`; `openapi` fills `parameters` (Live API)."""

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
    declarations = [
        dict(project(spec, variant=variant, api=api).definition)
        for spec in specs_of(tools)
    ]
    return [{"functionDeclarations": declarations}] if declarations else []


def project(
    tool: Any, *, variant: Variant = "json_schema", api: Api = "gemini"
) -> Projection:
    """One function declaration, cached per (spec, variant, api)."""
    spec: ToolSpec = getattr(tool, "spec", tool)
    return cached_projection(
        spec, TARGET, (variant, api), lambda s: _project(s, variant, api)
    )


def _project(spec: ToolSpec, variant: Variant, api: Api) -> Projection:
    if spec.name[0] not in _NAME_START:
        msg = f"Gemini function names must start with a letter or '_'; rename {spec.name!r}."
        raise UnsupportedSchemaError(msg)
    declaration: dict[str, Any] = {"name": spec.name}
    if spec.description:
        declaration["description"] = spec.description
    schema, notes = convert_schema(spec.input_schema, variant=variant, api=api, where=spec.name)
    if schema is not None:
        key = "parametersJsonSchema" if variant == "json_schema" else "parameters"
        declaration[key] = schema
    return Projection(TARGET, spec.name, declaration, False, tuple(notes))


def format_tool_choice(
    choice: ToolChoice = "auto", *, validated: bool = False
) -> dict[str, Any]:
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
    parts, or the chunks of a stream. A call's thought signature goes to
    `provider_data["thought_signature"]`; a call without an id gets a synthetic one.
    """
    calls = []
    for part in _parts_of(response):
        call = _get(part, "function_call", "functionCall")
        if call is None:
            continue
        name = str(_get(call, "name"))
        call_id = _get(call, "id") or f"{SYNTHETIC_ID_PREFIX}{len(calls)}:{name}"
        data: dict[str, Any] = {}
        signature = _get(part, "thought_signature", "thoughtSignature")
        if signature:
            if isinstance(signature, (bytes, bytearray)):
                signature = base64.b64encode(signature).decode("ascii")
            data[THOUGHT_SIGNATURE] = signature
        args = _get(call, "args") or {}
        calls.append(ToolCall(id=str(call_id), name=name, arguments=args, provider_data=data))
    return calls


def _parts_of(response: Any) -> list[Any]:
    candidates = _get(response, "candidates")
    if candidates is not None:
        content = _get(candidates[0], "content") if candidates else None
        return list(_get(content, "parts") or ())
    parts = _get(response, "parts")
    if parts is not None or isinstance(response, Mapping):
        return list(parts or ())
    items = list(response)
    # A stream yields whole responses; each chunk adds parts to the same turn.
    if any(_get(item, "candidates") is not None for item in items):
        return [part for chunk in items for part in _parts_of(chunk)]
    return items


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
    for outcome in correlate(outcomes, calls):
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
        return any(
            key in ("$ref", "$defs") or _mentions_ref(item) for key, item in value.items()
        )
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
