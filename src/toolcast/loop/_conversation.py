"""`Conversation`: the history, the tools shown, the decisions and the call journal.

Everything a loop needs to continue in another process is here and in
`to_json()`: the messages in the model's own format, the tool names shown so far
(opened toolboxes included), and one `CallRecord` per call with its decision,
the fingerprint of the arguments it was decided for, and its outcome once run.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from toolcast._content import (
    AudioPart,
    ContentPart,
    ImagePart,
    JsonPart,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    ToolResult,
)
from toolcast._outcome import ErrorKind, ToolFailure, ToolOutcome
from toolcast._spec import Arguments, ToolCall
from toolcast.aliases._session import AliasSession
from toolcast.aliases._store import AliasStore
from toolcast.loop._errors import ConversationError
from toolcast.loop._model import Message, Usage
from toolcast.policy._decision import Decision

__all__ = (
    "FORMAT",
    "CallRecord",
    "Conversation",
    "DecidedBy",
    "RunStatus",
    "fingerprint",
    "saved_value",
)

FORMAT = "toolcast.conversation/1"
"""The `format` tag of `Conversation.to_json()`; another version is refused by name."""

RunStatus: TypeAlias = Literal[
    "new", "done", "pending", "max_rounds", "ended", "cancelled", "repeated"
]
"""Why a run stopped (`new`: never run; `repeated`: the repeat guard stopped it)."""

DecidedBy: TypeAlias = Literal["policy", "approver", "host"]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint(name: str, arguments: Arguments) -> str:
    """sha256 of the tool name and the arguments as canonical JSON (raw text if unreadable)."""
    if isinstance(arguments, (bytes, bytearray)):
        arguments = bytes(arguments).decode("utf-8", "replace")
    if isinstance(arguments, str):
        try:
            parsed: Any = json.loads(arguments)
        except ValueError:
            parsed = {"$raw": arguments}
    else:
        parsed = arguments
    try:
        text = _canonical([name, parsed])
    except (TypeError, ValueError):
        text = _canonical([name, {"$raw": repr(parsed)}])
    import hashlib  # deferred: only approvals fingerprint arguments

    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(slots=True, eq=False)
class CallRecord:
    """One call of the model and everything decided and done about it (read it, don't edit it)."""

    id: str
    """The model's call id."""
    name: str
    """The tool name the model asked for."""
    arguments: Arguments
    """The arguments exactly as sent."""
    round: int = 0
    """The conversation round (model request) the call came in."""
    provider_data: Mapping[str, Any] = field(default_factory=dict)
    """What the provider needs back (thought signatures, strict-mode flags)."""
    decision: Decision | None = None
    """The recorded decision, or None before the batch was evaluated."""
    decided_by: DecidedBy | None = None
    """Who decided: the policy, the inline approver, or the host (`approve`/`deny`)."""
    fingerprint: str | None = None
    """The fingerprint of the arguments the decision was made for (approvals only)."""
    deferred: bool = False
    """A `defer` rule matched: the tool runs elsewhere, the host completes the call."""
    started: bool = False
    """The tool was started (journalled before it runs)."""
    outcome: ToolOutcome | None = None
    """The result, once run, refused, or completed by the host."""

    @property
    def call(self) -> ToolCall:
        """The call as a `ToolCall`."""
        return ToolCall(self.id, self.name, self.arguments, self.provider_data)

    @property
    def pending(self) -> bool:
        """Waiting for the host: pending and not answered."""
        return (
            self.outcome is None and self.decision is not None and self.decision.status == "pending"
        )

    @property
    def reason(self) -> str | None:
        """Why the call is where it is (the decision's reason)."""
        return self.decision.reason if self.decision is not None else None

    def __repr__(self) -> str:
        status = self.decision.status if self.decision else "undecided"
        done = " answered" if self.outcome is not None else ""
        return f"CallRecord(id={self.id!r}, name={self.name!r}, {status}{done})"


class Conversation:
    """A conversation the loop can stop and resume: history, tools shown, decisions, journal.

    Save it with `to_json()` (or a `ConversationStore`), load it with `from_json()`,
    record decisions on its pending calls with `approve`, `deny` and `complete`,
    then pass it back to `run(..., conversation=...)`.
    """

    def __init__(self, *, id: str | None = None, system: str | None = None) -> None:
        self.id: str = id or uuid.uuid4().hex
        """The conversation id (the store key)."""
        self.version = 0
        """The store's version of this copy (0: never saved); checked on every save."""
        self.system = system
        """The system prompt sent with every request."""
        self.messages: list[Message] = []
        """The history, in the model adapter's message format."""
        self.shown: list[str] | None = None
        """Tool names the model is shown (None: the tool set's own list)."""
        self.opened: list[str] = []
        """Toolboxes opened so far; their members are shown."""
        self.batch: list[CallRecord] = []
        """The calls of the last assistant turn that are not all answered yet."""
        self.history: list[CallRecord] = []
        """Every earlier call, answered (the journal)."""
        self.status: RunStatus = "new"
        """Why the last run stopped."""
        self.text = ""
        """The model's last text."""
        self.rounds = 0
        """Model requests made in this conversation, over every run."""
        self.usage = Usage()
        """Tokens used over every run."""
        self._aliases: AliasSession | None = None

    @property
    def aliases(self) -> AliasSession:
        """The conversation's id aliases (`link-1` for a UUID), passed to every call.

        In this conversation's own memory (and its JSON) unless you set a session
        on a shared store: `conversation.aliases = AliasSession(id, store=...)`.
        """
        if self._aliases is None:
            self._aliases = AliasSession(self.id)
        return self._aliases

    @aliases.setter
    def aliases(self, session: AliasSession) -> None:
        self._aliases = session

    def __repr__(self) -> str:
        return (
            f"Conversation(id={self.id!r}, status={self.status!r}, "
            f"messages={len(self.messages)}, pending={len(self.pending)})"
        )

    # -- decisions ------------------------------------------------------------------

    @property
    def pending(self) -> tuple[CallRecord, ...]:
        """The calls waiting for `approve`, `deny` or `complete`."""
        return tuple(r for r in self.batch if r.pending)

    @property
    def calls(self) -> tuple[CallRecord, ...]:
        """Every call of the conversation, in order."""
        return (*self.history, *self.batch)

    def _waiting(self, call_id: str, *, decided: bool = False) -> CallRecord:
        for record in self.batch:
            if record.id == call_id:
                if record.outcome is not None:
                    msg = f"Call {call_id!r} ({record.name}) is already answered."
                    raise ConversationError(msg)
                if decided:
                    return record
                if record.decision is not None and record.decision.status != "pending":
                    if record.decided_by == "host":
                        return record
                    msg = (
                        f"Call {call_id!r} ({record.name}) was already decided "
                        f"({record.decision.status}); a recorded decision is never changed."
                    )
                    raise ConversationError(msg)
                return record
        waiting = ", ".join(repr(r.id) for r in self.pending) or "none"
        msg = f"No call {call_id!r} awaits a decision in this conversation (pending: {waiting})."
        raise ConversationError(msg)

    def approve(self, call_id: str) -> None:
        """Approve a pending call: it runs on resume, once, with exactly its recorded arguments."""
        record = self._waiting(call_id)
        if record.decided_by == "host" and record.decision and record.decision.status != "allowed":
            msg = f"Call {call_id!r} ({record.name}) was already denied by the host."
            raise ConversationError(msg)
        record.decision = Decision.allow("approved by the host")
        record.decided_by = "host"
        record.fingerprint = fingerprint(record.name, record.arguments)

    def deny(self, call_id: str, reason: str) -> None:
        """Deny a pending call: the model gets `Tool 'x' was denied: REASON`."""
        record = self._waiting(call_id)
        if record.decided_by == "host" and record.decision and record.decision.status != "denied":
            msg = f"Call {call_id!r} ({record.name}) was already approved by the host."
            raise ConversationError(msg)
        record.decision = Decision.deny(reason)
        record.decided_by = "host"
        record.outcome = denied_outcome(record, reason)

    def complete(self, call_id: str, result: Any) -> None:
        """Record the result of a call that ran elsewhere (a deferred tool, or manual mode).

        `result` may be a `ToolOutcome`, a `ToolResult`, a string, or any JSON value.
        Any unanswered call of the last turn can be completed, so a call a crash
        interrupted can be answered with what the host found out it did.
        """
        record = self._waiting(call_id, decided=True)
        record.decision = Decision.allow("completed by the host")
        record.decided_by = "host"
        record.started = True
        record.outcome = outcome_of_result(record, result)

    # -- JSON -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The whole conversation as JSON-ready data."""
        aliases = self._aliases.to_json() if self._aliases is not None else None
        return {
            "format": FORMAT,
            "id": self.id,
            "version": self.version,
            "system": self.system,
            "status": self.status,
            "text": self.text,
            "rounds": self.rounds,
            "usage": [self.usage.input_tokens, self.usage.output_tokens],
            "messages": self.messages,
            "shown": self.shown,
            "opened": self.opened,
            "batch": [_record_to_dict(r) for r in self.batch],
            "history": [_record_to_dict(r) for r in self.history],
            "aliases": aliases,
        }

    def to_json(self) -> str:
        """The whole conversation as JSON text (`Conversation.from_json` reads it back)."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(
        cls, data: str | bytes | Mapping[str, Any], *, alias_store: AliasStore | None = None
    ) -> Conversation:
        """Read a conversation saved by `to_json()`.

        `alias_store` is the shared store its alias session lives in, if not in memory.

        Raises:
            ConversationError: The text is not a saved conversation of this format.
        """
        try:
            raw = json.loads(data) if isinstance(data, (str, bytes, bytearray)) else data
        except ValueError as exc:
            msg = f"Not a saved conversation: the text is not JSON ({exc})."
            raise ConversationError(msg) from None
        if not isinstance(raw, Mapping) or raw.get("format") != FORMAT:
            found = raw.get("format") if isinstance(raw, Mapping) else type(raw).__name__
            msg = f"Not a saved conversation of format {FORMAT!r} (found {found!r})."
            raise ConversationError(msg)
        try:
            made = cls(id=str(raw["id"]), system=raw.get("system"))
            made.version = int(raw["version"])
            made.status = raw["status"]
            made.text = str(raw.get("text", ""))
            made.rounds = int(raw.get("rounds", 0))
            made.usage = Usage(*raw.get("usage", (0, 0)))
            made.messages = list(raw["messages"])
            shown = raw.get("shown")
            made.shown = list(shown) if shown is not None else None
            made.opened = list(raw.get("opened", ()))
            made.batch = [_record_from_dict(r) for r in raw.get("batch", ())]
            made.history = [_record_from_dict(r) for r in raw.get("history", ())]
        except (KeyError, TypeError, ValueError) as exc:
            msg = f"Saved conversation is incomplete or damaged: {type(exc).__name__}: {exc}."
            raise ConversationError(msg) from None
        aliases = raw.get("aliases")
        if aliases is not None:
            try:
                made._aliases = AliasSession.from_json(aliases, store=alias_store)
            except ValueError as exc:
                msg = f"Saved conversation has a damaged alias session: {exc}"
                raise ConversationError(msg) from None
        return made


# -- outcomes -----------------------------------------------------------------------


def denied_outcome(record: CallRecord, reason: str | None) -> ToolOutcome:
    """`Tool 'x' was denied: REASON`, kind `not_allowed`."""
    text = f"Tool '{record.name}' was denied: {reason or 'the policy does not allow it'}"
    return ToolOutcome.failure("not_allowed", text, tool_name=record.name, call_id=record.id)


def outcome_of_result(record: CallRecord, result: Any) -> ToolOutcome:
    """The outcome for a result the host recorded."""
    if isinstance(result, ToolOutcome):
        return ToolOutcome(
            call_id=record.id,
            tool_name=record.name,
            is_error=result.is_error,
            content=result.content,
            text=result.text,
            value=result.value,
            structured_value=result.structured,
            error=result.error,
            costs=result.costs,
        )
    if isinstance(result, ToolResult):
        parts = tuple(result.content)
        text = "\n".join(p.text for p in parts if isinstance(p, (TextPart, JsonPart)))
        if result.is_error:
            return ToolOutcome(
                call_id=record.id,
                tool_name=record.name,
                is_error=True,
                content=parts,
                text=text,
                error=_failure("tool_error", text),
            )
        return ToolOutcome(
            call_id=record.id,
            tool_name=record.name,
            content=parts,
            text=text,
            value=result,
            structured_value=result.structured,
        )
    if isinstance(result, str):
        return ToolOutcome(
            call_id=record.id,
            tool_name=record.name,
            content=(TextPart(result),),
            text=result,
            value=result,
        )
    try:
        part = JsonPart.of(result)
    except Exception:
        msg = f"The result for call {record.id!r} cannot be converted to JSON."
        raise ConversationError(msg) from None
    return ToolOutcome(
        call_id=record.id,
        tool_name=record.name,
        content=(part,),
        text=part.text,
        value=result,
        structured_value=part.value,
    )


def _failure(kind: ErrorKind, message: str) -> ToolFailure:
    return ToolFailure(kind, message)


def _part_to_dict(part: ContentPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"text": part.text}
    if isinstance(part, JsonPart):
        return {"json": part.text}
    if isinstance(part, AudioPart):
        return {"audio": part.base64, "mime_type": part.mime_type}
    if isinstance(part, ResourcePart):
        contents = part.contents
        kept = (
            {"resource_text": contents}
            if isinstance(contents, str)
            else {"resource_blob": base64.b64encode(contents).decode("ascii")}
        )
        return {"resource": part.uri, "mime_type": part.mime_type, **kept}
    if isinstance(part, ResourceLinkPart):
        return {"link": dataclasses.asdict(part)}
    return {"image": part.base64, "mime_type": part.mime_type}


def _part_from_dict(data: Mapping[str, Any]) -> ContentPart:
    if "text" in data:
        return TextPart(data["text"])
    if "json" in data:
        return JsonPart(data["json"])
    if "audio" in data:
        return AudioPart(base64.b64decode(data["audio"]), data.get("mime_type", "audio/wav"))
    if "resource" in data:
        text = data.get("resource_text")
        contents = text if isinstance(text, str) else base64.b64decode(data["resource_blob"])
        return ResourcePart(data["resource"], contents, data.get("mime_type"))
    if "link" in data:
        return ResourceLinkPart(**data["link"])
    return ImagePart(base64.b64decode(data["image"]), data.get("mime_type", "image/png"))


def saved_value(outcome: ToolOutcome) -> Any:
    """The outcome's Python value, or for a reloaded outcome its JSON value."""
    if outcome.value is not None:
        return outcome.value
    return next((p.value for p in outcome.content if isinstance(p, JsonPart)), None)


def outcome_to_dict(outcome: ToolOutcome) -> dict[str, Any]:
    """An outcome as JSON-ready data (the Python `value` is kept only as its JSON part)."""
    out: dict[str, Any] = {
        "tool_name": outcome.tool_name,
        "text": outcome.text,
        "content": [_part_to_dict(p) for p in outcome.content],
    }
    if outcome.is_error and outcome.error is not None:
        out["error"] = [outcome.error.kind, outcome.error.message]
    else:
        structured = outcome.structured
        if structured is not None and not any(isinstance(p, JsonPart) for p in outcome.content):
            out["structured"] = structured
    return out


def outcome_from_dict(data: Mapping[str, Any], call_id: str) -> ToolOutcome:
    """An outcome read back from `outcome_to_dict`."""
    content = tuple(_part_from_dict(p) for p in data.get("content", ()))
    error = data.get("error")
    if error is not None:
        return ToolOutcome(
            call_id=call_id,
            tool_name=data["tool_name"],
            is_error=True,
            content=content,
            text=data["text"],
            error=_failure(error[0], error[1]),
        )
    # A JSON part is parsed only when asked for (`saved_value`): loading stays cheap.
    structured = data.get("structured")
    return ToolOutcome(
        call_id=call_id,
        tool_name=data["tool_name"],
        content=content,
        text=data["text"],
        value=structured,
        structured_value=structured,
    )


def _jsonable(value: Any) -> Any:
    # Provider data may hold bytes (Gemini thought signatures).
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _unjsonable(value: Any) -> Any:
    if isinstance(value, dict):
        if len(value) == 1 and "$bytes" in value:
            return base64.b64decode(value["$bytes"])
        return {k: _unjsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unjsonable(v) for v in value]
    return value


def _record_to_dict(record: CallRecord) -> dict[str, Any]:
    arguments = record.arguments
    if isinstance(arguments, (bytes, bytearray)):
        arguments = bytes(arguments).decode("utf-8", "replace")
    out: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "arguments": arguments if isinstance(arguments, str) else {"$object": dict(arguments)},
        "round": record.round,
    }
    if record.provider_data:
        out["provider_data"] = _jsonable(record.provider_data)
    if record.decision is not None:
        out["decision"] = [record.decision.status, record.decision.reason, record.decided_by]
    if record.fingerprint is not None:
        out["fingerprint"] = record.fingerprint
    if record.deferred:
        out["deferred"] = True
    if record.started:
        out["started"] = True
    if record.outcome is not None:
        out["outcome"] = outcome_to_dict(record.outcome)
    return out


def _record_from_dict(data: Mapping[str, Any]) -> CallRecord:
    arguments = data["arguments"]
    if isinstance(arguments, dict):
        arguments = arguments["$object"]
    record = CallRecord(
        id=data["id"],
        name=data["name"],
        arguments=arguments,
        round=int(data.get("round", 0)),
        provider_data=_unjsonable(data.get("provider_data", {})),
        fingerprint=data.get("fingerprint"),
        deferred=bool(data.get("deferred", False)),
        started=bool(data.get("started", False)),
    )
    decision = data.get("decision")
    if decision is not None:
        status, reason, by = decision
        if status not in ("allowed", "denied", "pending", "failed"):
            msg = f"unknown decision {status!r}"
            raise ValueError(msg)
        record.decision = Decision(status, reason)
        record.decided_by = by
    if "outcome" in data:
        record.outcome = outcome_from_dict(data["outcome"], record.id)
    return record
