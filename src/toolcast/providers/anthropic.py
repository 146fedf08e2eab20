"""Anthropic Messages API: tool definitions, tool choice, `tool_use` and `tool_result`.

Wire shapes follow
https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools and
https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls.
Strict tools (`strict: true`) take only the subset listed at
https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations;
what strict cannot carry is moved into descriptions, and the per-request caps (20
strict tools, 24 optional and 16 union-typed parameters over all strict schemas) are
checked before anything is sent. Payloads are plain JSON-ready dicts; the SDK is
never imported.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolcast._content import ImagePart
from toolcast._json import JsonSchema
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.loop._model import ModelRequest, ModelTurn
from toolcast.providers._adapter import Adapter, choice_of, plain, text_of, usage_of
from toolcast.providers._anthropic_strict import strict_blockers
from toolcast.providers._common import (
    STRICT_FORMATS,
    answer_all,
    check_names,
    materialize,
    require_id,
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
from toolcast.providers._schema import (
    add_to_description,
    drop_keywords,
    is_object,
    move_to_description,
    one_of_to_any_of,
    order_keys,
    rewrite,
    strip_extensions,
    summarize,
    types_of,
    walk,
    widen_tuples,
)
from toolcast.providers._shapes import expect
from toolcast.providers._streams import anthropic_calls

__all__ = (
    "Model",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
)

TARGET = "anthropic"
_WIRE = Wire("Anthropic")

# https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
MAX_STRICT_TOOLS = 20
MAX_OPTIONAL_PARAMS = 24
MAX_UNION_PARAMS = 16

# https://platform.claude.com/docs/en/build-with-claude/vision (base64 image sources)
_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})

_IMAGE_LEFT_OUT = "[An image of type {} was left out: Claude reads jpeg, png, gif and webp.]"

_STREAM_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    }
)


def format_tools(tools: Iterable[Any], *, strict: bool | None = None) -> list[dict[str, Any]]:
    """The `tools` request parameter: one definition per tool, order kept.

    Args:
        tools: Tools, ToolSpecs or a ToolSet.
        strict: Force strict decoding on (True) or off (False) for every tool;
            None follows each spec's `strict`, falling back to non-strict (with a
            `strict_disabled` note, or a warning for the per-request caps) where
            Anthropic's strict mode cannot take the tools.

    Raises:
        UnsupportedSchemaError: `strict=True` and a schema or the request's
            strict caps cannot be honoured.
    """
    specs = specs_of(tools)
    check_names(specs, "Anthropic")
    return budgeted_definitions(
        specs,
        strict,
        project,
        lambda d: d["input_schema"],
        lambda chosen, s: fresh_definitions(chosen, TARGET, s, lambda t: _project(t, s)),
        target="Anthropic",
    )


def budgeted_definitions(
    specs: list[ToolSpec],
    strict: bool | None,
    project: Callable[..., Projection],
    schema_of: Callable[[Mapping[str, Any]], Mapping[str, Any]],
    fresh: Callable[[list[ToolSpec], bool | None], list[dict[str, Any]]],
    *,
    target: str,
) -> list[dict[str, Any]]:
    """Fresh definitions for one request, within the strict caps (see `format_tools`).

    `project` gives the cached projections the caps are counted on; `fresh(specs,
    strict)` the definitions sent, from the projection cache's JSON.
    """
    projections = [project(spec, strict=strict) for spec in specs]
    problem = strict_budget_problem(
        (schema_of(p.definition) for p in projections if p.strict), target=target
    )
    if problem is None:
        return fresh(specs, strict)
    if strict:
        raise UnsupportedSchemaError(problem)
    # stacklevel 3: the user's call of format_tools, not format_tools itself.
    warnings.warn(f"{problem} Sending every tool non-strict.", stacklevel=3)
    return fresh(specs, False)


def project(tool: Any, *, strict: bool | None = None) -> Projection:
    """One tool as Anthropic sees it, cached per (spec, strict option)."""
    spec: ToolSpec = getattr(tool, "spec", tool)
    return cached_projection(spec, TARGET, strict, lambda s: _project(s, strict))


def _project(spec: ToolSpec, strict: bool | None) -> Projection:
    schema, notes, is_strict = convert_schema(
        spec.input_schema,
        strict=spec.strict if strict is None else strict,
        insist=strict is True,
        name=spec.name,
    )
    definition: dict[str, Any] = {"name": spec.name}
    if spec.description:
        definition["description"] = spec.description
    definition["input_schema"] = schema
    if is_strict:
        definition["strict"] = True
    return Projection(TARGET, spec.name, definition, is_strict, tuple(notes))


# ----------------------------------------------------------------------------- schema


def convert_schema(
    schema: Mapping[str, Any], *, strict: bool, insist: bool, name: str
) -> tuple[JsonSchema, list[ConversionNote], bool]:
    """Down-convert a canonical schema; returns (schema, notes, is_strict).

    Non-strict Anthropic takes any JSON Schema with an object root. Strict takes
    the structured-outputs subset; when the schema cannot be made strict the tool
    goes non-strict with `strict_disabled` notes, or, with `insist`, this raises.
    """
    notes: list[ConversionNote] = []
    loose = object_root(drop_keywords(strip_extensions(schema, notes), _META, notes), notes, name)
    if not strict:
        return loose, notes, False
    strict_notes: list[ConversionNote] = []
    result, blockers = _strict(loose, strict_notes)
    if not blockers:
        return result, notes + strict_notes, True
    if insist:
        lines = "".join(f"\n  {b.path or '/'}: {b.detail}" for b in blockers)
        msg = f"Tool {name!r} cannot use Anthropic's strict mode:{lines}\nPass strict=False."
        raise UnsupportedSchemaError(msg)
    return loose, notes + blockers, False


# Meta keywords no model needs; `$schema` in particular is refused by several targets.
_META = ("$schema", "$id", "$comment")

# https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
_STRICT_FORMATS = STRICT_FORMATS | {"uri"}  # OpenAI's strict formats plus `uri`
_STRICT_KEEP = frozenset(
    {
        "type",
        "description",
        "title",
        "enum",
        "const",
        "anyOf",
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "default",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "format",
        "pattern",
        "minItems",
    }
)
# Regex features the strict grammar cannot compile: backreferences, lookaround,
# word boundaries (same doc). Oversized {n,m} is also refused but its limit is not
# documented, so it is left to the API.
_UNSAFE_REGEX = re.compile(r"\\[1-9bB]|\(\?<?[=!]")


def _strict_moves(keyword: str, value: Any, _node: Mapping[str, Any]) -> bool:
    if keyword == "format":
        return value not in _STRICT_FORMATS
    if keyword == "pattern":
        return not isinstance(value, str) or bool(_UNSAFE_REGEX.search(value))
    if keyword == "minItems":
        return value not in (0, 1)
    return keyword not in _STRICT_KEEP


def _strict(
    schema: JsonSchema, notes: list[ConversionNote]
) -> tuple[JsonSchema, list[ConversionNote]]:
    blockers = [
        ConversionNote(path, keyword, "strict_disabled", detail)
        for path, keyword, detail in strict_blockers(schema)
    ]
    if blockers:
        return schema, blockers
    schema = widen_tuples(one_of_to_any_of(schema, notes), notes)
    schema = move_to_description(schema, _strict_moves, notes)

    def close(node: JsonSchema, path: str) -> JsonSchema:
        if is_object(node) and "additionalProperties" not in node:
            node["additionalProperties"] = False
            detail = (
                "Object closed with additionalProperties: false (strict requires it); the "
                "model can send only the declared keys (the tool itself accepts others)."
            )
            notes.append(ConversionNote(path, "additionalProperties", "narrowed", detail))
            return order_keys(node)
        return node

    return rewrite(schema, close), []


def object_root(schema: Mapping[str, Any], notes: list[ConversionNote], name: str) -> JsonSchema:
    """The schema with a plain object at its root, merging a root union if needed.

    Anthropic (and Gemini) refuse `anyOf`/`oneOf`/`allOf` at the root ("input_schema
    does not support oneOf, allOf, or anyOf at the top level", claude-code #27337),
    which MCP servers often send. The branches' properties are merged into one
    object (a key is required only when every alternative requires it) and the
    alternatives are spelled out in the description; the invoker still checks the
    original schema.

    Raises:
        UnsupportedSchemaError: the root is not an object and cannot be made one.
    """
    node = dict(schema)
    for keyword in ("allOf", "anyOf", "oneOf"):
        branches = node.get(keyword)
        if isinstance(branches, list):
            node = _merge_branches(node, keyword, branches, notes, name)
    kinds = types_of(node)
    if kinds and kinds != ("object",):
        msg = (
            f"Tool {name!r} takes {summarize(node)} at the root; tool arguments must "
            "be a JSON object. Wrap the value in an object property."
        )
        raise UnsupportedSchemaError(msg)
    if not kinds:
        node["type"] = "object"
    return order_keys(node)


def _merge_branches(
    node: JsonSchema,
    keyword: str,
    branches: list[Any],
    notes: list[ConversionNote],
    name: str,
) -> JsonSchema:
    defs = node.get("$defs") or {}
    objects = []
    for branch in branches:
        if isinstance(branch, Mapping) and isinstance(branch.get("$ref"), str):
            branch = defs.get(branch["$ref"].rsplit("/", 1)[-1], branch)
        if not isinstance(branch, Mapping) or not is_object(branch):
            msg = (
                f"Tool {name!r} has a root {keyword} with a branch that is not an "
                f"object ({summarize(branch)}); tool arguments must be a JSON object."
            )
            raise UnsupportedSchemaError(msg)
        objects.append(branch)
    merged = {k: v for k, v in node.items() if k != keyword}
    properties: dict[str, Any] = dict(merged.get("properties") or {})
    for branch in objects:
        for key, sub in (branch.get("properties") or {}).items():
            properties.setdefault(key, sub)
    required_sets = [set(b.get("required") or ()) for b in objects]
    own = list(merged.get("required") or ())
    if keyword == "allOf":
        extra = set().union(*required_sets)
    else:
        extra = set.intersection(*required_sets) if required_sets else set()
    required = own + [k for k in properties if k in extra and k not in own]
    merged["type"] = "object"
    merged["properties"] = properties
    if required:
        merged["required"] = required
    if all(b.get("additionalProperties") is False for b in objects):
        merged["additionalProperties"] = False
    if keyword != "allOf":
        forms = " or ".join("{" + ", ".join(b.get("properties") or {}) + "}" for b in objects)
        merged = add_to_description(merged, f"Send the keys of one of these forms: {forms}.")
    detail = f"Root {keyword} merged into one object (a union root is refused)."
    notes.append(ConversionNote("", keyword, "rewritten", detail))
    return merged


_COUNTS: dict[int, tuple[Mapping[str, Any], int, int]] = {}
_MAX_COUNTED = 10_000


def _budget_counts(schema: Mapping[str, Any]) -> tuple[int, int]:
    """(optional properties, unions) of one schema, remembered per cached schema object.

    The projection cache hands the same schema object to every request, so a warm
    `format_tools` does not walk every schema again to check the caps.
    """
    hit = _COUNTS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1], hit[2]
    optional = unions = 0
    for _path, node in walk(schema):
        if is_object(node):
            required = set(node.get("required") or ())
            optional += sum(1 for key in node.get("properties") or {} if key not in required)
        if "anyOf" in node or len(types_of(node)) > 1:
            unions += 1
    if len(_COUNTS) >= _MAX_COUNTED:
        _COUNTS.clear()
    _COUNTS[id(schema)] = (schema, optional, unions)
    return optional, unions


def strict_budget_problem(
    schemas: Iterable[Mapping[str, Any]], *, target: str = "Anthropic"
) -> str | None:
    """Why these strict input schemas cannot share one request, or None when they fit.

    Counts follow the structured-outputs limits: every non-required property and
    every union (`anyOf`, or a `type` list) in every strict schema of the request.
    """
    tools = optional = unions = 0
    for schema in schemas:
        tools += 1
        more_optional, more_unions = _budget_counts(schema)
        optional += more_optional
        unions += more_unions
    over = []
    if tools > MAX_STRICT_TOOLS:
        over.append(f"{tools} strict tools (at most {MAX_STRICT_TOOLS})")
    if optional > MAX_OPTIONAL_PARAMS:
        over.append(f"{optional} optional parameters (at most {MAX_OPTIONAL_PARAMS})")
    if unions > MAX_UNION_PARAMS:
        over.append(f"{unions} union-typed parameters (at most {MAX_UNION_PARAMS})")
    if not over:
        return None
    return (
        f"{target} caps strict tools per request, and these tools have "
        + ", ".join(over)
        + ". Pass strict=False, mark fewer tools strict, or send fewer tools."
    )


def format_tool_choice(choice: ToolChoice = "auto", *, parallel: bool = True) -> dict[str, Any]:
    """The `tool_choice` request parameter.

    `"required"` becomes `any`, one named tool becomes `tool`. With `parallel=False`
    the model makes at most one call (`auto`) or exactly one (`any`, `tool`).

    Raises:
        ValueError: the choice restricts the model to a subset of several tools,
            which Anthropic cannot express (send only those tools instead).
    """
    # https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools#forcing-tool-use
    norm = normalize_choice(choice)
    if norm.mode == "none":
        return {"type": "none"}
    out: dict[str, Any]
    if not norm.names:
        out = {"type": "auto" if norm.mode == "auto" else "any"}
    elif len(norm.names) == 1 and norm.mode == "required":
        out = {"type": "tool", "name": norm.names[0]}
    else:
        msg = (
            f"Anthropic cannot restrict tool choice to {list(norm.names)} with mode "
            f"{norm.mode!r}; pass only those tools to format_tools() instead."
        )
        raise ValueError(msg)
    if not parallel:
        # https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use
        out["disable_parallel_tool_use"] = True
    return out


def parse_calls(response: Any) -> list[ToolCall]:
    """The `tool_use` calls in a response, in order.

    Accepts an SDK `Message`, a message dict, a list of content blocks, or the raw
    stream events (SDK objects or dicts); streamed `input_json_delta` fragments are
    joined and left as JSON text, so malformed input becomes an error result.

    Raises:
        ResponseFormatError: the response is not in the Messages shape (a block
            that is not an object, a `tool_use` without `id`, a stream event
            without `index`).
    """
    if not isinstance(response, Mapping) and not hasattr(response, "model_dump"):
        content = getattr(response, "content", None)
        if isinstance(content, (list, tuple)):  # a message-like object of the host's
            response = {"content": content}
    data = materialize(response, _WIRE)
    expect(_WIRE, "anthropic", data)
    if isinstance(data, list):
        if any(isinstance(item, Mapping) and _is_event(item.get("type")) for item in data):
            return anthropic_calls(data)
        content, where = data, ""
    else:
        data = _WIRE.obj(data, "")
        content, where = _WIRE.seq(data.get("content"), "content"), "content"
    calls = []
    for i, block in enumerate(content):
        block = _WIRE.obj(block, f"{where}[{i}]")
        if block.get("type") == "tool_use":
            calls.append(_call(_WIRE, block, f"{where}[{i}]", block.get("input")))
    return calls


def _is_event(kind: Any) -> bool:
    return isinstance(kind, str) and kind in _STREAM_EVENTS


def _call(wire: Wire, block: Mapping[str, Any], path: str, arguments: Any) -> ToolCall:
    call_id = wire.text(block.get("id"), f"{path}.id")
    assert call_id is not None
    return wire.call(path, call_id, block.get("name"), arguments)


def format_results(
    outcomes: Iterable[ToolOutcome], *, calls: Iterable[ToolCall] | None = None
) -> dict[str, Any]:
    """One user message holding a `tool_result` block per call.

    Anthropic wants every result of a turn in one message, before any text
    (https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls).
    Given `calls`, results follow the calls' order and a call without an outcome
    is answered with an error result saying it was not run.
    """
    blocks = []
    for outcome in answer_all(outcomes, calls):
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": require_id(outcome, "Anthropic"),
        }
        content = _result_content(outcome)
        if content:
            block["content"] = content
        if outcome.is_error:
            block["is_error"] = True
        blocks.append(block)
    return {"role": "user", "content": blocks}


def _result_content(outcome: ToolOutcome) -> str | list[dict[str, Any]]:
    if not any(isinstance(part, ImagePart) for part in outcome.content):
        return outcome.text
    blocks: list[dict[str, Any]] = []
    for part in outcome.content:
        if not isinstance(part, ImagePart):  # text, and what is shown as text here
            blocks.append({"type": "text", "text": part.text})
        elif part.mime_type in _IMAGE_TYPES:
            source = {
                "type": "base64",
                "media_type": part.mime_type,
                "data": part.base64,
            }
            blocks.append({"type": "image", "source": source})
        else:
            note = _IMAGE_LEFT_OUT.format(part.mime_type)
            blocks.append({"type": "text", "text": note})
    return blocks


# --- Model adapter for the run loop

_INPUT = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


class Model(Adapter):
    """A Claude model behind the host's `anthropic.AsyncAnthropic` client.

    `max_tokens` (required by the API) defaults to 4096; `request.system` goes in
    `system`; `parallel_calls=False` sends `disable_parallel_tool_use`.
    """

    provider, method, extra = "Anthropic", "messages.create", "anthropic"
    expects = "an anthropic.AsyncAnthropic client"

    def user_message(self, text: str) -> list[dict[str, Any]]:
        """A `user` message."""
        return [{"role": "user", "content": text}]

    def result_messages(self, outcomes: Iterable[ToolOutcome]) -> list[dict[str, Any]]:
        """One `user` message answering every call (see `format_results`)."""
        return [format_results(outcomes)]

    def request(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of `messages.create` for `request`."""
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(request.messages)}
        if request.system:
            kwargs["system"] = request.system
        if request.tools:
            kwargs["tools"] = format_tools(request.tools)
            choice = choice_of(request.tool_choice)
            kwargs["tool_choice"] = format_tool_choice(choice, parallel=request.parallel_calls)
        return {"max_tokens": 4096, **kwargs, **self.merged(request)}

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send one request; the turn's message holds the response's content blocks."""
        data = plain(await self.send(**self.request(request)))
        expect(_WIRE, "anthropic", data)
        message = {"role": "assistant", "content": data.get("content") or []}
        return ModelTurn(
            message,
            calls=tuple(parse_calls(message)),
            text=text_of(message["content"]),
            usage=usage_of(data.get("usage"), _INPUT, ["output_tokens"]),
            finish_reason=data.get("stop_reason"),
        )
