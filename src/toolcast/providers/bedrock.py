"""AWS Bedrock Converse: `toolConfig`, `toolUse` calls and `toolResult` replies.

Shapes follow the Converse API reference
(https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html) and
botocore's bedrock-runtime service model, which the tests validate against. Strict
tool specs use the same down-conversion and per-request caps as Anthropic's strict
mode, because Claude on Bedrock compiles the same grammar. Converse has no "none"
tool choice, and it refuses a request whose history holds tool blocks without a
`toolConfig`, so "none" is refused with the remedies spelled out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolcast._content import JsonPart, TextPart
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.providers import anthropic
from toolcast.providers._common import answer_all, check_names, require_id
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

TARGET = "bedrock"

# https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html
_IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}

_IMAGE_LEFT_OUT = "[An image of type {} was left out: Converse reads png, jpeg, gif and webp.]"

# Converse rejects empty text blocks ("text content blocks must be non-empty",
# hermes-agent #55092), and `toolResult.content` is required.
_NO_OUTPUT = "(no output)"


def format_tools(tools: Iterable[Any], *, strict: bool | None = None) -> list[dict[str, Any]]:
    """The `toolConfig.tools` list: one `{"toolSpec": ...}` per tool, order kept.

    `strict` works as in `toolcast.providers.anthropic.format_tools`.

    Raises:
        UnsupportedSchemaError: `strict=True` and a schema or the request's
            strict caps cannot be honoured.
    """
    specs = specs_of(tools)
    check_names(specs, "Bedrock")
    return anthropic.budgeted_definitions(
        specs,
        strict,
        project,
        lambda d: d["toolSpec"]["inputSchema"]["json"],
        target="Bedrock (as Anthropic)",
    )


def project(tool: Any, *, strict: bool | None = None) -> Projection:
    """One tool as a Converse `toolSpec`, cached per (spec, strict option)."""
    spec: ToolSpec = getattr(tool, "spec", tool)
    return cached_projection(spec, TARGET, strict, lambda s: _project(s, strict))


def _project(spec: ToolSpec, strict: bool | None) -> Projection:
    # Claude on Bedrock compiles Anthropic's strict grammar: same schema, same rules.
    claude = anthropic.project(spec, strict=strict)
    tool_spec: dict[str, Any] = {"name": spec.name}
    if spec.description:  # the service model gives `description` a minimum length of 1
        tool_spec["description"] = spec.description
    tool_spec["inputSchema"] = {"json": claude.definition["input_schema"]}
    if claude.strict:
        tool_spec["strict"] = True
    return Projection(TARGET, spec.name, {"toolSpec": tool_spec}, claude.strict, claude.notes)


def format_tool_choice(choice: ToolChoice = "auto") -> dict[str, Any]:
    """The `toolConfig.toolChoice` union: `auto`, `any` or `tool` (with a name).

    Raises:
        ValueError: for "none" (Converse has no such member) and for a choice
            restricted to several tools.
    """
    # https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html
    norm = normalize_choice(choice)
    if norm.mode == "none":
        msg = (
            "Bedrock Converse has no 'none' tool choice. Leave toolConfig out of the "
            "request (allowed only while no toolUse/toolResult blocks are in the "
            "messages), or keep the tools and tell the model in the prompt."
        )
        raise ValueError(msg)
    if not norm.names:
        return {"auto": {}} if norm.mode == "auto" else {"any": {}}
    if len(norm.names) == 1 and norm.mode == "required":
        # Documented for Anthropic Claude 3+ and Amazon Nova models only.
        return {"tool": {"name": norm.names[0]}}
    msg = (
        f"Bedrock cannot restrict tool choice to {list(norm.names)} with mode "
        f"{norm.mode!r}; pass only those tools to format_tools() instead."
    )
    raise ValueError(msg)


def parse_calls(response: Any) -> list[ToolCall]:
    """The `toolUse` calls in a Converse response, in order.

    Accepts the `converse()` response, its `output.message`, a content list, or
    `converse_stream()` events (the response or its `stream`); streamed input
    fragments are joined and left as JSON text.
    """
    if isinstance(response, Mapping):
        if "stream" in response:
            return _calls_from_events(response["stream"])
        message = response.get("output", {}).get("message", response)
        content = message.get("content", ())
    else:
        items = list(response)
        if any(_is_event(item) for item in items):
            return _calls_from_events(items)
        content = items
    calls = []
    for block in content:
        use = block.get("toolUse")
        if use is not None:
            calls.append(
                ToolCall(
                    id=use["toolUseId"],
                    name=use["name"],
                    arguments=use.get("input") or {},
                )
            )
    return calls


def _is_event(item: Any) -> bool:
    return isinstance(item, Mapping) and (
        "contentBlockStart" in item or "contentBlockDelta" in item or "messageStart" in item
    )


def _calls_from_events(events: Iterable[Mapping[str, Any]]) -> list[ToolCall]:
    started: dict[int, tuple[str, str]] = {}
    fragments: dict[int, list[str]] = {}
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            use = start.get("start", {}).get("toolUse")
            if use is not None:
                index = start["contentBlockIndex"]
                started[index] = (use["toolUseId"], use["name"])
                fragments[index] = []
        elif "contentBlockDelta" in event:
            delta = event["contentBlockDelta"]
            use = delta.get("delta", {}).get("toolUse")
            index = delta["contentBlockIndex"]
            if use is not None and index in fragments:
                fragments[index].append(use.get("input", ""))
    return [
        ToolCall(
            id=started[i][0],
            name=started[i][1],
            arguments="".join(fragments[i]) or "{}",
        )
        for i in sorted(started)
    ]


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    status: bool = True,
) -> dict[str, Any]:
    """One user message with a `toolResult` block per call.

    Args:
        outcomes: The outcomes to send.
        calls: The calls they answer; results follow their order and an
            unanswered call gets an error result saying it was not run.
        status: Set `status` ("success"/"error"). Converse documents it for
            Claude and Nova models; pass False for models that refuse it.
    """
    blocks = []
    for outcome in answer_all(outcomes, calls):
        result: dict[str, Any] = {
            "toolUseId": require_id(outcome, "Bedrock"),
            "content": _result_content(outcome),
        }
        if status:
            result["status"] = "error" if outcome.is_error else "success"
        blocks.append({"toolResult": result})
    return {"role": "user", "content": blocks}


def _result_content(outcome: ToolOutcome) -> list[dict[str, Any]]:
    if isinstance(outcome.structured, Mapping) and not outcome.is_error:
        return [{"json": dict(outcome.structured)}]
    blocks: list[dict[str, Any]] = []
    for part in outcome.content:
        if isinstance(part, JsonPart) and isinstance(part.value, Mapping):
            blocks.append({"json": dict(part.value)})
        elif isinstance(part, (TextPart, JsonPart)):
            if part.text:
                blocks.append({"text": part.text})
        elif part.mime_type in _IMAGE_FORMATS:
            image = {
                "format": _IMAGE_FORMATS[part.mime_type],
                "source": {"bytes": part.data},
            }
            blocks.append({"image": image})
        else:
            note = _IMAGE_LEFT_OUT.format(part.mime_type)
            blocks.append({"text": note})
    return blocks or [{"text": _NO_OUTPUT}]
