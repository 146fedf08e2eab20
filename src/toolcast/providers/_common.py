"""Helpers shared by the OpenAI-family, Mistral and Ollama modules.

The OpenAI parameter dialect (strict and loose) is used by four targets: Chat
Completions, Responses, Realtime and Mistral, which mirrors the Chat Completions
shape. The rest reads SDK objects and plain dicts alike, orders results so every
call is answered, and renders outcomes as text for targets without an error flag.
Nothing here is public; each provider module re-exposes what its users need.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolcast._content import ImagePart
from toolcast._json import JsonSchema
from toolcast._outcome import ToolOutcome
from toolcast._spec import Arguments, ToolCall, ToolSpec
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers import _schema as sch
from toolcast.providers._projection import ConversionNote, specs_of
from toolcast.providers._read import Wire, describe
from toolcast.providers._refs import isolate_refs
from toolcast.providers._strict import make_strict

__all__ = (
    "STRICT_FORMATS",
    "OPENAI_NAME",
    "ChoiceDeltas",
    "OpenAIParameters",
    "answer_all",
    "arguments_text",
    "check_choice_names",
    "check_names",
    "get",
    "materialize",
    "new_call_id",
    "openai_parameters",
    "outcome_text",
    "require_id",
    "to_plain",
)

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""Function names OpenAI and Mistral accept (openai `FunctionDefinition.name`)."""

# https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
# lists these string formats; anything else (`uri` is the usual one, chatlas PR 255)
# is a 400 under strict, so it becomes words.
STRICT_FORMATS = frozenset(
    {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    }
)
# Same page: composition the strict grammar cannot take.
_STRICT_FORBIDDEN = (
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
)
# Keywords the supported-schemas list does not name. minLength/maxLength are
# contradictory in the docs; peers (pydantic-ai profiles/openai.py) treat them as
# unsupported, and a 400 costs more than a sentence.
_STRICT_WORDS = frozenset(
    {
        "minLength",
        "maxLength",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "propertyNames",
        "contains",
        "minContains",
        "maxContains",
        "contentEncoding",
        "contentMediaType",
        "examples",
        "deprecated",
    }
)
# Annotations that carry nothing for the model, stripped under strict by peers.
_STRICT_DROP = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "title",
        "discriminator",
        "readOnly",
        "writeOnly",
        "unevaluatedProperties",
        "unevaluatedItems",
    }
)
_LOOKAROUND = re.compile(r"\(\?<?[=!]")
# Structured Outputs limits (same page): nesting depth and enum value count.
_MAX_NESTING = 10
_MAX_ENUM_VALUES = 1000


@dataclass(frozen=True, slots=True)
class OpenAIParameters:
    """A schema in the OpenAI dialect, and whether it went over strict."""

    schema: JsonSchema
    strict: bool
    notes: tuple[ConversionNote, ...]


def _strict_words(keyword: str, value: Any, _node: Mapping[str, Any]) -> bool:
    if keyword in _STRICT_WORDS:
        return True
    if keyword == "format":
        return value not in STRICT_FORMATS
    return keyword == "pattern" and isinstance(value, str) and bool(_LOOKAROUND.search(value))


def _root_object(schema: JsonSchema, notes: list[ConversionNote]) -> JsonSchema:
    # Both Chat and Responses need an object at the root (a missing type gave
    # "type: 'None' is not valid", browserbase/stagehand issue 1159).
    kinds = sch.types_of(schema)
    if kinds == ("object",):
        return schema
    if not kinds and not any(k in schema for k in ("anyOf", "oneOf", "allOf", "$ref")):
        notes.append(ConversionNote("", "type", "rewritten", "Root type set to object."))
        return sch.order_keys({"type": "object", **schema})
    msg = (
        "OpenAI-style targets need an object schema at the root of the tool's "
        f"parameters, not {sch.summarize(schema)!r}; wrap the value in an object."
    )
    raise UnsupportedSchemaError(msg)


def _limits(schema: JsonSchema) -> list[ConversionNote]:
    """Strict-mode limits and observed rejections that the structure alone shows."""
    blockers = []
    enum_values = 0
    for path, node in sch.walk(schema):
        enum_values += len(node.get("enum") or ())
        # Nesting counts the objects on the way down (the root is the first);
        # `$defs` entries are counted from their own root.
        steps = path.split("/$defs/")[-1].split("/")
        depth = 1 + sum(1 for s in steps if s == "properties") - (path == "")
        if sch.is_object(node) and depth > _MAX_NESTING:
            detail = f"Objects nest deeper than {_MAX_NESTING} levels at {path}."
            blockers.append(ConversionNote(path, "properties", "strict_disabled", detail))
            break
        # Observed 400: object branches of one anyOf must not share their first key
        # ("must not share identical first keys", zenn.dev/nicopin/scraps/a8d8f53f5faebb).
        firsts: list[str] = [
            next(iter(branch["properties"]))
            for branch in node.get("anyOf") or ()
            if isinstance(branch, Mapping) and branch.get("properties")
        ]
        shared = {key for key in firsts if firsts.count(key) > 1}
        if shared:
            detail = (
                f"Object branches of the anyOf at {path or '/'} start with the same key "
                f"({', '.join(sorted(shared))}), which strict mode rejects."
            )
            blockers.append(ConversionNote(path, "anyOf", "strict_disabled", detail))
    if enum_values > _MAX_ENUM_VALUES:
        detail = f"{enum_values} enum values exceed strict mode's {_MAX_ENUM_VALUES}."
        blockers.append(ConversionNote("", "enum", "strict_disabled", detail))
    return blockers


def _loose(schema: Any, notes: list[ConversionNote]) -> JsonSchema:
    converted = sch.strip_extensions(schema, notes)
    # OpenAI rejects objects without `properties` (spring-ai issue 4776); adding an
    # empty map changes nothing the schema accepts.
    return _root_object(sch.ensure_properties(converted), notes)


def openai_parameters(
    schema: Mapping[str, Any], *, strict: bool, insist: bool = False
) -> OpenAIParameters:
    """Convert a canonical input schema to the OpenAI parameter dialect.

    With `strict`, apply the Structured Outputs subset
    (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas);
    when the schema cannot be strict, return the loose form with `strict=False`
    and the blockers among the notes, or, with `insist`, raise.

    Raises:
        UnsupportedSchemaError: the root is not an object, or `insist` and the
            schema cannot be strict (the message lists every reason).
    """
    loose_notes: list[ConversionNote] = []
    loose = _loose(schema, loose_notes)
    if not strict:
        return OpenAIParameters(loose, False, tuple(loose_notes))
    notes = list(loose_notes)
    converted = sch.drop_keywords(
        loose, _STRICT_DROP, notes, reason="strict mode does not take annotations"
    )
    converted = sch.move_to_description(converted, _strict_words, notes)
    converted = sch.one_of_to_any_of(converted, notes)
    converted = sch.widen_tuples(converted, notes)
    result = make_strict(converted, forbidden=_STRICT_FORBIDDEN)
    blockers = list(result.blockers)
    if result.schema is not None:
        blockers += _limits(result.schema)
    if blockers or result.schema is None:
        if insist:
            reasons = "\n".join(f"  {b.path or '/'}: {b.detail}" for b in blockers)
            msg = f"This schema cannot be strict (strict=True was asked for):\n{reasons}"
            raise UnsupportedSchemaError(msg)
        return OpenAIParameters(loose, False, (*loose_notes, *blockers))
    # `$ref` next to a description is a 400 under strict (pydantic-ai issue 1488).
    final = isolate_refs(result.schema)
    return OpenAIParameters(final, True, (*notes, *result.notes))


def check_choice_names(names: Sequence[str], tools: Iterable[Any] | None) -> None:
    """Refuse a tool choice that names a tool outside `tools` (when given)."""
    if tools is None:
        return
    known = [spec.name for spec in specs_of(tools)]
    unknown = [n for n in names if n not in known]
    if unknown:
        msg = (
            f"Tool choice names {', '.join(unknown)}, not among the tools: "
            f"{', '.join(known) or '(none)'}."
        )
        raise ValueError(msg)


def check_names(specs: Sequence[ToolSpec], target: str) -> None:
    """Refuse names a target rejects and duplicate names, naming the fix."""
    seen: set[str] = set()
    for spec in specs:
        if not OPENAI_NAME.match(spec.name):
            msg = (
                f"Tool name {spec.name!r} is not valid for {target} "
                "(letters, digits, '_' and '-', at most 64); give the tool a "
                "name or alias that fits."
            )
            raise UnsupportedSchemaError(msg)
        if spec.name in seen:
            msg = f"Two tools are named {spec.name!r}; names must be unique per request."
            raise ValueError(msg)
        seen.add(spec.name)


# ------------------------------------------------------------------ reading payloads


def to_plain(value: Any, mode: str = "json") -> Any:
    """An SDK object (pydantic model) or mapping as plain JSON-like data.

    `mode="python"` keeps bytes as bytes (google-genai dumps them as URL-safe
    base64 in JSON mode, which is not the form its REST API uses).
    """
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode=mode, by_alias=True, exclude_none=True)
    if isinstance(value, Mapping):
        return {k: to_plain(v, mode) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v, mode) for v in value]
    return value


def get(value: Any, key: str, default: Any = None) -> Any:
    """`value[key]` for mappings, `value.key` for objects, else `default`."""
    if isinstance(value, Mapping):
        return value.get(key, default)
    return getattr(value, key, default)


def new_call_id(prefix: str = "call_") -> str:
    """A fresh call id for targets that send none (24 hex digits after `prefix`)."""
    return prefix + secrets.token_hex(12)


def arguments_text(arguments: Arguments) -> str:
    """Arguments as the JSON text OpenAI-style wires carry."""
    if isinstance(arguments, str):
        return arguments
    if isinstance(arguments, (bytes, bytearray)):
        return bytes(arguments).decode("utf-8")
    return json.dumps(dict(arguments), ensure_ascii=False, separators=(",", ":"))


# ------------------------------------------------------------------ writing results


def outcome_text(outcome: ToolOutcome, *, error_prefix: str = "Error: ") -> str:
    """The outcome as one string, for targets whose results are text only.

    Failures get `error_prefix` because these targets have no error flag; images
    are named in brackets so the model knows something was left out.
    """
    if any(isinstance(part, ImagePart) for part in outcome.content):
        pieces = [
            f"[image: {part.mime_type}, {len(part.data)} bytes, not shown]"
            if isinstance(part, ImagePart)
            else part.text
            for part in outcome.content
        ]
        text = "\n".join(pieces)
    else:
        text = outcome.text
    if outcome.is_error and error_prefix and not text.startswith(error_prefix):
        return error_prefix + text
    return text


def answer_all(
    outcomes: Iterable[ToolOutcome], calls: Iterable[ToolCall] | None = None
) -> list[ToolOutcome]:
    """The outcomes in call order, with a `not_run` failure for any unanswered call.

    Every provider rejects a turn that leaves a call unanswered (OpenAI "must be
    followed by tool messages", agno issue 3105; Responses "No tool output found",
    openai-agents issue 673), so a missing outcome becomes an explicit error.
    Outcomes are matched by call id; when a model repeats an id, the calls that
    share it are answered in order (the first outcome with that id answers the
    first such call), so every call still gets its own result. More outcomes for
    an id than calls with it, or one for a call that was not made, are the host's
    bug and raise ValueError.
    """
    single: Any = outcomes
    if isinstance(single, ToolOutcome):
        msg = "Pass a list of outcomes, not one ToolOutcome: format_results([outcome])."
        raise TypeError(msg)
    single = calls
    if isinstance(single, ToolCall):
        msg = "Pass a list of calls, not one ToolCall: calls=[call]."
        raise TypeError(msg)
    given = list(outcomes)
    if calls is None:
        return given
    made = list(calls)
    wanted: dict[str | None, int] = {}
    for call in made:
        wanted[call.id] = wanted.get(call.id, 0) + 1
    by_id: dict[str | None, list[ToolOutcome]] = {}
    for outcome in given:
        queue = by_id.setdefault(outcome.call_id, [])
        queue.append(outcome)
        if outcome.call_id in wanted and len(queue) > wanted[outcome.call_id]:
            msg = f"Two results answer call {outcome.call_id!r}."
            raise ValueError(msg)
    unknown = [call_id for call_id in by_id if call_id not in wanted]
    if unknown:
        msg = f"Results answer calls that were not made: {sorted(map(str, unknown))}."
        raise ValueError(msg)
    ordered = []
    for call in made:
        waiting = by_id.get(call.id)
        if waiting:
            ordered.append(waiting.pop(0))
            continue
        ordered.append(
            ToolOutcome.failure(
                "not_run",
                f"The call to '{call.name}' was not run.",
                tool_name=call.name,
                call_id=call.id,
            )
        )
    return ordered


def require_id(outcome: ToolOutcome, target: str) -> str:
    """The outcome's call id, or a clear error when it has none."""
    if outcome.call_id is None:
        msg = (
            f"The outcome of '{outcome.tool_name}' has no call_id; {target} "
            "correlates results by id. Invoke with call_id=call.id."
        )
        raise ValueError(msg)
    return outcome.call_id


# ------------------------------------------------------------------ streaming


class ChoiceDeltas:
    """Accumulates Chat-Completions-style `delta.tool_calls` fragments into calls.

    OpenAI sends `id` and `name` once and the arguments in pieces, keyed by
    `index` (openai `ChoiceDeltaToolCall`); Mistral usually sends each call whole,
    sometimes with parsed-object arguments. Both shapes go through here. A chunk
    that is not in this shape raises `ResponseFormatError` naming its path.
    """

    def __init__(
        self, *, choice: int = 0, id_prefix: str = "call_", provider: str = "OpenAI Chat"
    ) -> None:
        self.choice = choice
        self.id_prefix = id_prefix
        self._wire = Wire(f"{provider} stream")
        self._chunks = 0
        self._slots: dict[int, dict[str, Any]] = {}

    def add(self, chunk: Any) -> None:
        """Take one stream chunk (SDK object or dict); other choices are ignored."""
        wire = self._wire
        where = f"chunk[{self._chunks}]"
        self._chunks += 1
        data = wire.obj(to_plain(chunk), where)
        # Mistral's SDK wraps each chunk as `{"data": CompletionChunk}`.
        if "choices" not in data and "data" in data:
            data = wire.obj(data["data"], f"{where}.data")
        for number, choice in enumerate(wire.seq(data.get("choices"), f"{where}.choices")):
            at = f"{where}.choices[{number}]"
            choice = wire.obj(choice, at)
            if choice.get("index", 0) != self.choice:
                continue
            delta = wire.obj(choice.get("delta") or {}, f"{at}.delta")
            deltas = wire.seq(delta.get("tool_calls"), f"{at}.delta.tool_calls")
            for position, item in enumerate(deltas):
                self._merge(wire.obj(item, f"{at}.delta.tool_calls[{position}]"), position, at)

    def _merge(self, delta: Mapping[str, Any], position: int, at: str) -> None:
        wire = self._wire
        path = f"{at}.delta.tool_calls[{position}]"
        index = delta.get("index")
        if index is not None:
            index = wire.index(index, f"{path}.index")
        slot = self._slots.setdefault(
            position if index is None else index,
            {"id": None, "name": None, "text": [], "object": None, "path": path},
        )
        call_id = wire.text(delta.get("id"), f"{path}.id", required=False)
        if call_id and call_id != "null":
            slot["id"] = call_id
        function = wire.obj(delta.get("function") or {}, f"{path}.function")
        name = function.get("name")
        if name and not slot["name"]:
            slot["name"] = name
        arguments = function.get("arguments")
        if isinstance(arguments, Mapping):
            slot["object"] = dict(arguments)
        elif isinstance(arguments, str):
            slot["text"].append(arguments)
        elif arguments is not None:
            slot["object"] = arguments  # not an object: `Wire.call` names the problem

    def calls(self, **provider_data: Any) -> list[ToolCall]:
        """The calls assembled so far, in index order (ids minted where missing)."""
        calls = []
        for _, slot in sorted(self._slots.items()):
            if slot["id"] is None:
                slot["id"] = new_call_id(self.id_prefix)
            arguments = slot["object"] if slot["object"] is not None else "".join(slot["text"])
            calls.append(
                self._wire.call(slot["path"], slot["id"], slot["name"], arguments, provider_data)
            )
        return calls


def materialize(response: Any, wire: Wire, mode: str = "json") -> Any:
    """Plain data for a response; a stream or iterator becomes a list of items.

    Raises:
        ResponseFormatError: `response` is text, a number or another non-response.
    """
    if isinstance(response, (str, bytes, bytearray)):
        wire.fail("", f"is {describe(response)}; pass the response object, a dict or its chunks")
    try:
        if isinstance(response, Mapping) or hasattr(response, "model_dump"):
            return to_plain(response, mode)
        if isinstance(response, Iterable):
            return [to_plain(item, mode) for item in response]
    except RecursionError:
        wire.fail("", "is nested too deeply to read")
    except (TypeError, ValueError) as exc:  # an SDK object whose dump fails
        wire.fail("", f"could not be read as plain data ({type(exc).__name__}: {exc})")
    wire.fail("", f"is {describe(response)}, not a response object, a dict or a list of chunks")
