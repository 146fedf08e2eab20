"""OpenAI Chat Completions: tool definitions, tool choice, calls and tool messages.

Wire reference: https://platform.openai.com/docs/api-reference/chat/create and the
function-calling guide https://platform.openai.com/docs/guides/function-calling.
A tool is `{"type": "function", "function": {name, description?, parameters,
strict}}`; calls come back in `message.tool_calls` with JSON-text arguments; each
is answered by a `{"role": "tool", "tool_call_id", "content"}` message.

Strict tools make every parameter required and let optional ones be `null`.
Calls parsed here carry `provider_data["null_means_default"] = True`: pass it to
`Tool.invoke(..., null_means_default=...)` so a `null` for a parameter that does
not accept null means "use the default" (see `invoke_options`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from toolcast._constraint._constraint import Constraint, constraint
from toolcast._content import ImagePart
from toolcast._outcome import ToolOutcome
from toolcast._spec import ToolCall, ToolSpec
from toolcast.loop._model import ModelRequest, ModelTurn
from toolcast.providers._adapter import Adapter, openai_tool_fields, plain, usage_of
from toolcast.providers._common import (
    ChoiceDeltas,
    answer_all,
    arguments_text,
    check_choice_names,
    check_names,
    materialize,
    new_call_id,
    openai_parameters,
    outcome_text,
    require_id,
)
from toolcast.providers._deadline import deadline_of, joined_stream
from toolcast.providers._projection import (
    Projection,
    ToolChoice,
    cached_projection,
    fresh_definitions,
    normalize_choice,
    specs_of,
)
from toolcast.providers._read import Wire
from toolcast.providers._servers import (
    CUT_OFF_MESSAGE,
    PROFILES,
    Profile,
    outgoing,
    profile_of,
    server_cut_call_off,
    tool_prompt,
)
from toolcast.providers._shapes import expect

__all__ = (
    "PROFILES",
    "CallAccumulator",
    "Model",
    "Profile",
    "format_assistant_message",
    "format_results",
    "format_tool_choice",
    "format_tools",
    "invoke_options",
    "parse_calls",
    "project",
)

TARGET = "openai_chat"
_WIRE = Wire("OpenAI Chat")
# "A max of 128 functions are supported" (openai-openapi, `tools` of
# CreateChatCompletionRequest).
_MAX_TOOLS = 128


def project(tool: Any, *, strict: bool | None = None) -> Projection:
    """Project one Tool or ToolSpec; `strict=None` follows the tool's own setting.

    A tool that cannot be strict (a `dict[str, T]` parameter, an untyped value)
    goes over non-strict, and the projection's notes say why; with `strict=True`
    that raises `UnsupportedSchemaError` instead.
    """
    (spec,) = specs_of([tool])
    return cached_projection(spec, TARGET, strict, lambda s: _project(s, strict))


def _project(spec: ToolSpec, strict: bool | None) -> Projection:
    check_names([spec], "OpenAI Chat Completions")
    want = spec.strict if strict is None else strict
    converted = openai_parameters(spec.input_schema, strict=want, insist=strict is True)
    function: dict[str, Any] = {"name": spec.name}
    if spec.description:
        function["description"] = spec.description
    function["parameters"] = converted.schema
    function["strict"] = converted.strict
    return Projection(
        target=TARGET,
        name=spec.name,
        definition={"type": "function", "function": function},
        strict=converted.strict,
        notes=converted.notes,
    )


def format_tools(tools: Iterable[Any], *, strict: bool | None = None) -> list[dict[str, Any]]:
    """The `tools` list for `chat.completions.create`, in the given order.

    An empty result means "send no `tools`" (the API rejects an empty list).
    """
    specs = specs_of(tools)
    check_names(specs, "OpenAI Chat Completions")
    if len(specs) > _MAX_TOOLS:
        msg = f"Chat Completions takes at most {_MAX_TOOLS} tools, got {len(specs)}."
        raise ValueError(msg)
    return fresh_definitions(specs, TARGET, strict, lambda s: _project(s, strict))


def format_tool_choice(
    choice: ToolChoice, *, tools: Iterable[Any] | None = None
) -> str | dict[str, Any]:
    """The `tool_choice` value: `"auto"`, `"none"`, `"required"` or a named/allowed one.

    One name gives `{"type": "function", "function": {"name": ...}}`; several give
    `{"type": "allowed_tools", ...}` with mode `auto` or `required`. With `tools`,
    names are checked against them.
    """
    normal = normalize_choice(choice)
    check_choice_names(normal.names, tools)
    if not normal.names:
        return normal.mode
    if len(normal.names) == 1 and normal.mode == "required":
        return {"type": "function", "function": {"name": normal.names[0]}}
    return {
        "type": "allowed_tools",
        "allowed_tools": {
            "mode": normal.mode,
            "tools": [{"type": "function", "function": {"name": n}} for n in normal.names],
        },
    }


def parse_calls(response: Any, *, choice: int = 0) -> list[ToolCall]:
    """The tool calls in a completion, a message, a list of tool calls, or a stream.

    Accepts `ChatCompletion`, `ChatCompletionMessage`, their dict forms, or an
    iterable of `ChatCompletionChunk`s (fragments are joined per `index`). Empty
    argument text (some servers send it for no-argument tools) reads as `{}`; a
    missing call id is minted (some compatible servers send none).

    Raises:
        ResponseFormatError: the response is not in the Chat Completions shape
            (`choices is empty`, `choices[0].message.tool_calls[1] is a string, not
            an object`). A call without a name becomes a call that invoking answers
            with an error result.
    """
    data = materialize(response, _WIRE)
    expect(_WIRE, "chat", data)
    if isinstance(data, list):
        # Mistral's SDK wraps each chunk as {"data": chunk}: one shape, read as one.
        if any(
            isinstance(item, Mapping) and ("choices" in item or "data" in item) for item in data
        ):
            stream = CallAccumulator(choice=choice)
            for chunk in data:
                stream.add(chunk)
            return stream.calls()
        return [_call(item, f"[{i}]") for i, item in enumerate(data)]
    data = _WIRE.obj(data, "")
    where = ""
    if "choices" in data:
        picked = _WIRE.obj(_WIRE.pick(data["choices"], choice, "choices"), f"choices[{choice}]")
        if "delta" in picked:
            stream = CallAccumulator(choice=choice)
            stream.add(data)
            return stream.calls()
        where = f"choices[{choice}].message"
        data = _WIRE.obj(picked.get("message") or {}, where)
        where += "."
    if "function" in data or "custom" in data:
        return [_call(data, "")]
    return _message_calls(data, where)


def _message_calls(message: Mapping[str, Any], where: str = "") -> list[ToolCall]:
    """The calls of an assistant message that is plain data already."""
    items = _WIRE.seq(message.get("tool_calls"), f"{where}tool_calls")
    return [_call(item, f"{where}tool_calls[{i}]") for i, item in enumerate(items)]


def _call(item: Any, path: str) -> ToolCall:
    item = _WIRE.obj(item, path)
    at = f"{path}." if path else ""
    call_id = _WIRE.text(item.get("id"), f"{at}id", required=False) or new_call_id()
    if item.get("type") == "custom":
        # Free-text custom tools send `input`, not JSON; the invoker answers with
        # an error result rather than leaving the call unanswered.
        custom = _WIRE.obj(item.get("custom") or {}, f"{at}custom")
        return _WIRE.call(
            f"{at}custom", call_id, custom.get("name"), custom.get("input"), {"type": "custom"}
        )
    function = _WIRE.obj(item.get("function") or {}, f"{at}function")
    return _WIRE.call(
        f"{at}function",
        call_id,
        function.get("name"),
        function.get("arguments"),
        {"null_means_default": True},
    )


class CallAccumulator(ChoiceDeltas):
    """Joins `ChatCompletionChunk` tool-call fragments into `ToolCall`s.

    Example:
        >>> acc = CallAccumulator()
        >>> for chunk in client.chat.completions.create(..., stream=True):
        ...     acc.add(chunk)
        >>> calls = acc.calls()
    """

    def calls(self, **provider_data: Any) -> list[ToolCall]:
        """The calls assembled so far, in `index` order."""
        return super().calls(null_means_default=True, **provider_data)


def invoke_options(call: ToolCall) -> dict[str, Any]:
    """Keyword arguments for `Tool.invoke` that this target's calls need.

    Example:
        >>> await tool.invoke(call.arguments, call_id=call.id, **invoke_options(call))
    """
    return {"null_means_default": bool(call.provider_data.get("null_means_default", False))}


def format_results(
    outcomes: Iterable[ToolOutcome],
    *,
    calls: Iterable[ToolCall] | None = None,
    error_prefix: str = "Error: ",
    images: Literal["message", "omit"] = "message",
) -> list[dict[str, Any]]:
    """One `tool` message per outcome, in call order when `calls` is given.

    With `calls`, a call with no outcome is answered with an error, because the
    API rejects an assistant turn whose calls are not all answered. Tool messages
    carry text only, so failures are prefixed with `error_prefix`; images go in one
    `user` message after the tool messages (`images="message"`) or are named and
    left out (`"omit"`).
    """
    messages: list[dict[str, Any]] = []
    pictures: list[dict[str, Any]] = []
    for outcome in answer_all(outcomes, calls):
        call_id = require_id(outcome, "Chat Completions")
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": outcome_text(outcome, error_prefix=error_prefix),
            }
        )
        found = [part for part in outcome.content if isinstance(part, ImagePart)]
        if found and images == "message":
            pictures.append(
                {
                    "type": "text",
                    "text": f"Images from tool call {call_id} ({outcome.tool_name}):",
                }
            )
            pictures += [
                {
                    "type": "image_url",
                    "image_url": {"url": f"data:{p.mime_type};base64,{p.base64}"},
                }
                for p in found
            ]
    if pictures:
        messages.append({"role": "user", "content": pictures})
    return messages


def format_assistant_message(
    calls: Iterable[ToolCall], *, content: str | None = None
) -> dict[str, Any]:
    """The assistant message that made `calls`, for replaying a conversation."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": arguments_text(call.arguments),
                },
            }
            for call in calls
        ],
    }


# --- Model adapter for the run loop

CONSTRAINED_MAX_TOKENS = 1024
"""The output budget of a constrained request when the host sets none: the grammar
is bounded to fit it (strings of about 40 characters and arrays of about 4 items for
a three-argument tool), and it never runs to its end unless the model writes calls
that long, since generation stops where the grammar's output is complete."""


class Model(Adapter):
    """A Chat Completions model behind the host's `openai.AsyncOpenAI` client.

    Options given here (`temperature=0`, `max_completion_tokens=...`) go with every
    request; `ModelRequest.options` override them. For OpenAI-compatible local
    servers pick a `profile` (`"llama-cpp-python"`, or a `Profile(...)`), and
    `constrain=True` to have the server generate calls under
    `toolcast.constraint(tools)` instead of its own tool calling; servers whose
    "required" tool choice fails get it through the constraint automatically.

    Example:
        >>> model = openai_chat.Model(openai.AsyncOpenAI(), "gpt-5-mini", temperature=0)
        >>> result = await toolcast.run(model, "Weather in Paris?", tools=tools)
    """

    provider = "OpenAI Chat Completions"
    method = "chat.completions.create"
    expects = "an openai.AsyncOpenAI client"
    extra = "openai"

    def __init__(
        self,
        client: Any,
        model: str,
        *,
        strict: bool | None = None,
        profile: str | Profile | None = None,
        constrain: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(client, model, **options)
        self._cut_offs = 0
        self.profile = profile_of(profile)
        self.strict = self.profile.strict if strict is None else strict
        self.constrain = constrain
        self._fields: tuple[Any, dict[str, Any]] | None = None

    def user_message(self, text: str) -> list[dict[str, Any]]:
        """A `user` message."""
        return [{"role": "user", "content": text}]

    def result_messages(self, outcomes: Iterable[ToolOutcome]) -> list[dict[str, Any]]:
        """One `tool` message per outcome (see `format_results`)."""
        return format_results(outcomes)

    def constraint_for(self, request: ModelRequest) -> Constraint | None:
        """The constraint this request is generated under, or None (native tool calls)."""
        choice = request.tool_choice
        if not request.tools or choice == "none":
            return None
        if not self.constrain and (choice == "auto" or self.profile.required_choice):
            return None
        tools = [t for t in request.tools if choice in ("auto", "required", t.name)]
        budget = self.budget(request)
        return constraint(tools or request.tools, text=choice == "auto", max_tokens=budget)

    def budget(self, request: ModelRequest) -> int:
        """The output budget of a constrained request: the host's, else `CONSTRAINED_MAX_TOKENS`.

        The grammar is bounded to fit it, so a constrained call always ends and parses;
        the profile's `max_tokens` (a stop for runaway native calls) does not apply.
        """
        options = self.merged(request)
        for key in ("max_tokens", "max_completion_tokens"):
            if isinstance(options.get(key), int) and not isinstance(options[key], bool):
                return int(options[key])
        return CONSTRAINED_MAX_TOKENS

    def request(self, request: ModelRequest, rule: Constraint | None = None) -> dict[str, Any]:
        """The keyword arguments of `chat.completions.create` for `request`."""
        return self._arguments(request, rule, reuse=False)

    def _tool_fields(self, request: ModelRequest, *, reuse: bool) -> dict[str, Any]:
        if not reuse:
            return openai_tool_fields(request, format_tools, format_tool_choice, strict=self.strict)
        # The loop hands the same tuple of specs while the shown tools stay the same:
        # their definitions are made once, not copied again for every request (the
        # SDK reads them and never changes them). The cache holds the tuple, so an
        # `is` match cannot be a new tuple at an old one's address.
        key = (request.tools, request.tool_choice, request.parallel_calls, self.strict)
        cached = self._fields
        if cached is not None and all(a is b for a, b in zip(cached[0], key, strict=True)):
            return cached[1]
        fields = openai_tool_fields(request, format_tools, format_tool_choice, strict=self.strict)
        self._fields = (key, fields)
        return fields

    def _arguments(
        self, request: ModelRequest, rule: Constraint | None, *, reuse: bool
    ) -> dict[str, Any]:
        profile, system = self.profile, request.system
        if rule is not None:
            profile = profile.but(calls_as_text=True, results_as_text=True)
            shown = [t for t in request.tools if t.name in rule.names]
            query = _last_user_text(request.messages)
            system = tool_prompt(system, shown, constrained=True, reply=rule.text, query=query)
        elif request.tools and profile.describe_tools:
            system = tool_prompt(system, request.tools, constrained=False, reply=False)
        messages = outgoing(request.messages, profile)
        if system:
            messages.insert(0, {"role": "system", "content": system})
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        if rule is not None:
            kwargs["max_tokens"] = self.budget(request)
            kwargs.update(_constraint_fields(rule, profile))
        else:
            if profile.max_tokens is not None:
                kwargs["max_tokens"] = profile.max_tokens
            kwargs.update(self._tool_fields(request, reuse=reuse))
        return {**kwargs, **self.merged(request)}

    async def complete(self, request: ModelRequest) -> ModelTurn:
        """Send one request; the turn's message is the assistant message as sent back."""
        rule = self.constraint_for(request)
        kwargs = self._arguments(request, rule, reuse=True)
        try:
            if rule is not None and self.profile.stream_to_stop:
                # Streamed so that the client's timeout stops the server too (see
                # `_deadline`); only constrained replies, which are text, are.
                stream = await self.send(**{**kwargs, "stream": True})
                data = await joined_stream(stream, deadline_of(self.client, kwargs))
            else:
                data = plain(await self.send(**kwargs))
        except Exception as exc:
            if not server_cut_call_off(exc):
                raise
            # One call to answer, marked as unreadable as every provider parser marks
            # one: the loop answers it with the message and the run goes on.
            self._cut_offs += 1
            call = ToolCall(f"call_cut_off_{self._cut_offs}", "", "", {"error": CUT_OFF_MESSAGE})
            message = format_assistant_message([call])
            return ModelTurn(message=message, calls=(call,), finish_reason="length")
        expect(_WIRE, "chat", data)
        picked = (data.get("choices") or [{}])[0]
        reply = picked.get("message") or {}
        text = reply.get("content") or ""
        message = {"role": "assistant", "content": reply.get("content")}
        if rule is not None:
            calls, text = rule.parse(text)
            message = format_assistant_message(calls) if calls else {"role": "assistant"}
            message["content"] = text or None
        elif reply.get("tool_calls"):
            message["tool_calls"] = reply["tool_calls"]
        usage = usage_of(data.get("usage"), ["prompt_tokens"], ["completion_tokens"])
        return ModelTurn(
            message=message,
            # The message is plain data checked above: read its calls without the copy
            # and the shape check `parse_calls` makes of what a host hands it.
            calls=tuple(_message_calls(message)),
            text=text,
            usage=usage,
            finish_reason=picked.get("finish_reason"),
        )


def _last_user_text(messages: Iterable[Mapping[str, Any]]) -> str:
    """The text of the last `user` message (what the tools are ordered against)."""
    for message in reversed(list(messages)):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            parts = content if isinstance(content, list) else ()
            return " ".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping))
    return ""


def _constraint_fields(rule: Constraint, profile: Profile) -> dict[str, Any]:
    if profile.constraint_field == "grammar":
        return {"extra_body": {"grammar": rule.grammar}}
    if profile.constraint_field == "json_object":
        return {"response_format": {"type": "json_object", "schema": rule.json_schema}}
    schema = {"name": "tool_call", "schema": rule.json_schema, "strict": True}
    return {"response_format": {"type": "json_schema", "json_schema": schema}}
