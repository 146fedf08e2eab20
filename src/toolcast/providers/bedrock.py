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

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

from toolcast._content import ImagePart, JsonPart
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.loop._model import ModelRequest, ModelTurn
from toolcast.providers import anthropic
from toolcast.providers._adapter import StrictAdapter, choice_of, usage_of
from toolcast.providers._common import answer_all, check_names, require_id, to_plain
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
from toolcast.providers._streams import bedrock_calls

__all__ = (
    "Model",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "parse_calls",
    "project",
)

TARGET = "bedrock"
_WIRE = Wire("Bedrock")

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
        lambda chosen, s: fresh_definitions(chosen, TARGET, s, lambda t: _project(t, s)),
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

    Raises:
        ResponseFormatError: the response is not in the Converse shape (e.g. a
            `toolUse` without `toolUseId`, a stream event without
            `contentBlockIndex`).
    """
    if isinstance(response, (str, bytes, bytearray)):
        _WIRE.fail("", "is text; pass the converse() response, its message or its content")
    if hasattr(response, "model_dump"):  # another SDK's object: read as its data
        response = to_plain(response)
    if isinstance(response, Mapping):
        expect(_WIRE, "bedrock", response)
        if "stream" in response:
            return bedrock_calls(response["stream"])
        where = ""
        message: Any = response
        if "output" in response:
            output = _WIRE.obj(response["output"], "output")
            message, where = output.get("message"), "output.message"
        message = _WIRE.obj(message, where)
        at = f"{where}.content" if where else "content"
        content = _WIRE.seq(message.get("content"), at)
    elif isinstance(response, Iterable):
        items = list(response)
        expect(_WIRE, "bedrock", [to_plain(item) for item in items])
        if any(_is_event(item) for item in items):
            return bedrock_calls(items)
        content, at = items, ""
    else:
        _WIRE.fail("", f"is {describe(response)}, not a Converse response")
    calls = []
    for i, block in enumerate(content):
        path = f"{at}[{i}]"
        use = _WIRE.obj(block, path).get("toolUse")
        if use is not None:
            use = _WIRE.obj(use, f"{path}.toolUse")
            call_id = _WIRE.text(use.get("toolUseId"), f"{path}.toolUse.toolUseId")
            assert call_id is not None
            calls.append(_WIRE.call(f"{path}.toolUse", call_id, use.get("name"), use.get("input")))
    return calls


def _is_event(item: Any) -> bool:
    return isinstance(item, Mapping) and (
        "contentBlockStart" in item or "contentBlockDelta" in item or "messageStart" in item
    )


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
        elif not isinstance(part, ImagePart):  # text, and what is shown as text here
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


# --- Model adapter for the run loop


class Model(StrictAdapter):
    """A Bedrock model behind the host's botocore `bedrock-runtime` client (`converse`).

    botocore is synchronous, so each request runs in a worker thread
    (`asyncio.to_thread`) and the event loop stays free; botocore's own retry
    configuration applies. `request.system` becomes `system=[{"text": ...}]`;
    Converse has no "none" tool choice and no parallel-call switch, so "none"
    raises (see `format_tool_choice`) and `parallel_calls` is not sent.

    Example:
        >>> client = botocore.session.get_session().create_client("bedrock-runtime")
        >>> model = bedrock.Model(client, "anthropic.claude-sonnet-5", inferenceConfig={...})
    """

    provider = "Bedrock Converse"
    method = "converse"
    expects = "a botocore bedrock-runtime client"
    extra = "bedrock"

    def user_message(self, text: str) -> list[dict[str, Any]]:
        """A `user` message with one text block."""
        return [{"role": "user", "content": [{"text": text}]}]

    def result_messages(self, outcomes: Iterable[ToolOutcome]) -> list[dict[str, Any]]:
        """One `user` message answering every call (see `format_results`)."""
        return [format_results(outcomes)]

    def request(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of `converse` for `request`."""
        kwargs: dict[str, Any] = {"modelId": self.model, "messages": list(request.messages)}
        if request.system:
            kwargs["system"] = [{"text": request.system}]
        if request.tools:
            kwargs["toolConfig"] = {
                "tools": format_tools(request.tools, strict=self.strict),
                "toolChoice": format_tool_choice(choice_of(request.tool_choice)),
            }
        return {**kwargs, **self.merged(request)}

    async def send(self, **kwargs: Any) -> Any:
        """Call `converse` in a worker thread."""
        return await asyncio.to_thread(self._send, **kwargs)

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send one request; the turn's message is `output.message` as returned."""
        data = await self.send(**self.request(request))
        expect(_WIRE, "bedrock", data)
        reply = dict((data.get("output") or {}).get("message") or {})
        message = {"role": "assistant", "content": list(reply.get("content") or [])}
        text = "".join(b["text"] for b in message["content"] if isinstance(b.get("text"), str))
        return ModelTurn(
            message=message,
            calls=tuple(parse_calls(message)),
            text=text,
            usage=usage_of(data.get("usage"), ["inputTokens"], ["outputTokens"]),
            finish_reason=data.get("stopReason"),
        )
