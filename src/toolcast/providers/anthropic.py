"""Anthropic Messages API: tool definitions, tool choice, `tool_use` calls, `tool_result` replies.

Wire shapes follow https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools
and .../handle-tool-calls. Strict tools (`strict: true`) accept only the subset listed at
https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations;
what strict cannot carry is moved into descriptions, and the per-request caps (20 strict
tools, 24 optional and 16 union-typed parameters over all strict schemas) are checked
before anything is sent. Payloads are plain JSON-ready dicts; the SDK is never imported.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from toolcast._content import ImagePart, JsonPart, TextPart
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

__all__ = (
    "format_results",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
)

TARGET = "anthropic"

# https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
MAX_STRICT_TOOLS = 20
MAX_OPTIONAL_PARAMS = 24
MAX_UNION_PARAMS = 16

# https://platform.claude.com/docs/en/build-with-claude/vision (base64 image sources)
_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})

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


def format_tools(
    tools: Iterable[Any], *, strict: bool | None = None
) -> list[dict[str, Any]]:
    """The `tools` request parameter: one definition per tool, order kept.

    Args:
        tools: Tools, ToolSpecs or a ToolSet.
        strict: Force strict decoding on (True) or off (False) for every tool;
            None follows each spec's `strict` and quietly falls back to
            non-strict where a schema or the per-request caps do not allow it.

    Raises:
        UnsupportedSchemaError: `strict=True` and a schema or the request's
            strict caps cannot be honoured.
    """
    projections = [project(spec, strict=strict) for spec in specs_of(tools)]
    problem = strict_budget_problem(projections)
    if problem is None:
        return [dict(p.definition) for p in projections]
    if strict:
        raise UnsupportedSchemaError(problem)
    warnings.warn(
        f"{problem} Sending every tool non-strict for this request.",
        stacklevel=2,
    )
    return [dict(project(p_spec, strict=False).definition) for p_spec in specs_of(tools)]


def project(tool: Any, *, strict: bool | None = None) -> Projection:
    """One tool as Anthropic sees it, cached per (spec, strict option)."""
    spec: ToolSpec = getattr(tool, "spec", tool)
    return cached_projection(
        spec, TARGET, strict, lambda s: _project(s, strict=strict)
    )


def _project(spec: ToolSpec, *, strict: bool | None) -> Projection:
    want = spec.strict if strict is None else strict
    schema, notes, is_strict = convert_schema(
        spec.input_schema, strict=want, required_strict=strict is True, where=spec.name
    )
    definition: dict[str, Any] = {"name": spec.name}
    if spec.description:
        definition["description"] = spec.description
    definition["input_schema"] = schema
    if is_strict:
        definition["strict"] = True
    return Projection(TARGET, spec.name, definition, is_strict, tuple(notes))


def strict_budget_problem(projections: Iterable[Projection]) -> str | None:
    """Why these strict tools cannot share one request, or None when they fit."""
    strict = [p for p in projections if p.strict]
    optional = unions = 0
    for p in strict:
        o, u = _count_optional_and_unions(p.definition["input_schema"])
        optional += o
        unions += u
    over = []
    if len(strict) > MAX_STRICT_TOOLS:
        over.append(f"{len(strict)} strict tools (at most {MAX_STRICT_TOOLS})")
    if optional > MAX_OPTIONAL_PARAMS:
        over.append(f"{optional} optional parameters (at most {MAX_OPTIONAL_PARAMS})")
    if unions > MAX_UNION_PARAMS:
        over.append(f"{unions} union-typed parameters (at most {MAX_UNION_PARAMS})")
    if not over:
        return None
    return (
        "Anthropic caps strict tools per request, and this request has "
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
    """
    content = _get(response, "content")
    if content is None and not isinstance(response, Mapping):
        items = list(response)
        if any(_get(item, "type") in _STREAM_EVENTS for item in items):
            return _calls_from_events(items)
        content = items
    calls = []
    for block in content or ():
        if _get(block, "type") == "tool_use":
            calls.append(
                ToolCall(
                    id=str(_get(block, "id")),
                    name=str(_get(block, "name")),
                    arguments=_get(block, "input") or {},
                )
            )
    return calls


def _calls_from_events(events: Iterable[Any]) -> list[ToolCall]:
    started: dict[int, tuple[str, str, Any]] = {}
    fragments: dict[int, list[str]] = {}
    for event in events:
        kind = _get(event, "type")
        if kind == "content_block_start":
            block = _get(event, "content_block")
            if _get(block, "type") == "tool_use":
                index = int(_get(event, "index"))
                started[index] = (
                    str(_get(block, "id")),
                    str(_get(block, "name")),
                    _get(block, "input") or {},
                )
                fragments[index] = []
        elif kind == "content_block_delta":
            delta = _get(event, "delta")
            index = int(_get(event, "index"))
            if _get(delta, "type") == "input_json_delta" and index in fragments:
                fragments[index].append(str(_get(delta, "partial_json")))
    calls = []
    for index in sorted(started):
        call_id, name, initial = started[index]
        # The start event carries `input: {}`; the real input arrives as deltas.
        text = "".join(fragments[index])
        calls.append(ToolCall(id=call_id, name=name, arguments=text or initial))
    return calls


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
    for outcome in correlate(outcomes, calls):
        if outcome.call_id is None:
            msg = f"The result of {outcome.tool_name!r} has no call_id to answer."
            raise ValueError(msg)
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": outcome.call_id}
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
        if isinstance(part, (TextPart, JsonPart)):
            blocks.append({"type": "text", "text": part.text})
        elif part.mime_type in _IMAGE_TYPES:
            source = {"type": "base64", "media_type": part.mime_type, "data": part.base64}
            blocks.append({"type": "image", "source": source})
        else:
            note = f"[An image of type {part.mime_type} was left out: Claude reads jpeg, png, gif and webp.]"
            blocks.append({"type": "text", "text": note})
    return blocks


def correlate(
    outcomes: Iterable[ToolOutcome], calls: Iterable[ToolCall] | None
) -> list[ToolOutcome]:
    """Outcomes in call order, with a `not_run` error for every unanswered call.

    Without `calls` the outcomes are returned as given.

    Raises:
        ValueError: an outcome answers no call in `calls`, or two answer the same.
    """
    outcomes = list(outcomes)
    if calls is None:
        return outcomes
    by_id: dict[str | None, ToolOutcome] = {}
    for outcome in outcomes:
        if outcome.call_id in by_id:
            msg = f"Two results answer call {outcome.call_id!r}."
            raise ValueError(msg)
        by_id[outcome.call_id] = outcome
    ordered = []
    for call in calls:
        found = by_id.pop(call.id, None)
        if found is None:
            found = ToolOutcome.failure(
                "not_run",
                f"Tool {call.name!r} was not run, so this call has no result.",
                tool_name=call.name,
                call_id=call.id,
            )
        ordered.append(found)
    if by_id:
        msg = f"Results answer calls that were not made: {sorted(map(str, by_id))}."
        raise ValueError(msg)
    return ordered


def _get(obj: Any, key: str) -> Any:
    """`obj[key]` for dicts, `obj.key` for SDK objects, None when absent."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)
