"""The gate every framework call goes through: the set's boundary, the policy, approvals, aliases.

Each integration turns a framework's tool call into a `ToolCall` and asks the
`Gate`; the gate answers with a `Verdict` (run it, refused with a model-facing
outcome, waiting for approval, deferred to the host) exactly as `toolcast.run`
would decide it, and runs the allowed calls through `ToolSet.invoke`. What one
framework run or conversation has seen (its alias session, the toolboxes it
opened, the calls paused for approval and their fingerprints) is a `Thread`,
kept per key the framework gives (its run context, its conversation id, its
thread id).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal

from toolcast._catalog._toolset import ToolSet, UnknownToolError
from toolcast._context import ToolContext
from toolcast._outcome import ToolOutcome, refused_call
from toolcast._spec import ToolCall
from toolcast._tool import Tool
from toolcast.aliases import AliasSession, AliasStore
from toolcast.loop._conversation import fingerprint
from toolcast.policy import Decision, Policy
from toolcast.policy._policy import Approver, call_evaluator

__all__ = ("CHANGED", "Gate", "Thread", "Verdict", "install_hint")

CHANGED = "Tool '{name}' was not run: its arguments changed after they were approved."
_POLICY_FAILED = "Tool '{name}' was not run: its policy check failed."
_UNMATCHED = (
    "Tool '{name}' was not run: no approval request of this conversation matches call '{id}'."
)

VerdictStatus = Literal["run", "refused", "pending", "deferred"]


def install_hint(extra: str, module: str) -> ImportError:
    """The ImportError for a missing framework, naming the extra to install."""
    return ImportError(
        f"toolcast.integrations.{module} needs its framework: pip install 'toolcast[{extra}]'"
    )


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the gate says about one call before it runs."""

    status: VerdictStatus
    """run (allowed), refused (`outcome` says why), pending (an approval is needed),
    deferred (the host runs it elsewhere)."""
    outcome: ToolOutcome | None = None
    """`refused`: the error outcome for the model."""
    reason: str | None = None
    """`pending` / `deferred`: why, for the host."""
    fingerprint: str | None = None
    """`pending`: the fingerprint an approval must match (tool name + canonical arguments)."""


@dataclass(slots=True, eq=False)
class Thread:
    """One framework run or conversation: its aliases, its shown tools, its paused calls."""

    aliases: AliasSession
    shown: list[str]
    asked: dict[str, str] = field(default_factory=dict)
    """Call id -> fingerprint of a call paused for approval."""
    decided: dict[str, Verdict] = field(default_factory=dict)
    """Call id -> a verdict made before the framework ran the call (decided once)."""


class Gate:
    """One tool set under one policy, with a thread per framework run or conversation."""

    __slots__ = (
        "_paused",
        "_threads",
        "approver",
        "context",
        "max_threads",
        "policy",
        "store",
        "tools",
    )

    def __init__(
        self,
        tools: ToolSet,
        policy: Policy | None,
        *,
        approver: Approver | None = None,
        context: ToolContext | None = None,
        alias_store: AliasStore | None = None,
        max_threads: int = 1024,
    ) -> None:
        if not isinstance(tools, ToolSet):
            kind = type(tools).__name__  # type: ignore[unreachable]  # a host mistake, at run time
            msg = f"Takes a ToolSet (catalog.select(...)); got {kind}."
            raise TypeError(msg)
        if policy is not None and not isinstance(policy, Policy):
            kind = type(policy).__name__  # type: ignore[unreachable]
            msg = f"policy= takes a toolcast Policy, got {kind}."
            raise TypeError(msg)
        self.tools = tools
        self.policy = policy or Policy()
        self.approver = approver
        self.context = context
        self.store = alias_store
        self.max_threads = max_threads
        # key -> (the object the key names, kept alive so its id is never reused; the thread)
        self._threads: OrderedDict[Any, tuple[object, Thread]] = OrderedDict()
        # call id -> fingerprint of every call paused for approval, for a framework
        # whose resumed run comes back with a new run context (bounded like the threads)
        self._paused: OrderedDict[str, str] = OrderedDict()

    # -- threads --------------------------------------------------------------------

    def thread(self, key: object, conversation_id: str | None = None) -> Thread:
        """The thread of `key`: a conversation id string, or an object (by identity).

        A string key names the alias session (so a shared `alias_store` keeps it
        across processes); an object key gets a private session. The least
        recently used thread beyond `max_threads` is forgotten.
        """
        index: Any = key if isinstance(key, str) else ("object", id(key))
        threads = self._threads
        found = threads.get(index)
        if found is not None:
            threads.move_to_end(index)
            return found[1]
        name = key if isinstance(key, str) else (conversation_id or "")
        store = self.store if name else None
        made = Thread(AliasSession(name, store=store), list(self.tools.names()))
        threads[index] = (key, made)
        while len(threads) > self.max_threads:
            threads.popitem(last=False)
        return made

    def shown(self, thread: Thread) -> list[Tool]:
        """The tools the model is shown now: the set's, plus opened toolboxes' members."""
        get = self.tools.get
        return [tool for name in thread.shown if (tool := get(name)) is not None]

    def offered(self) -> list[Tool]:
        """Every tool a thread can ever be shown: the set's tools, then toolbox members."""
        seen: dict[str, Tool] = {tool.name: tool for tool in self.tools.tools()}
        for tool in self.tools.all():
            seen.setdefault(tool.name, tool)
        return list(seen.values())

    # -- deciding -------------------------------------------------------------------

    async def decide(self, thread: Thread, call: ToolCall) -> Verdict:
        """Decide one call as the loop would: boundary, rules, validation, evaluator, approver."""
        refused = refused_call(call.id, call.name, call.provider_data)
        tool = self.tools.get(call.name)
        if refused is not None or tool is None or tool.name not in thread.shown:
            # A member of an unopened toolbox is as unknown as a name that never existed.
            outcome = refused or UnknownToolError(call.name, thread.shown).outcome(call_id=call.id)
            return Verdict("refused", outcome)
        spec, policy = tool.spec, self.policy
        decision = policy.by_rules(spec, call.name)
        if decision is not None and decision.status == "denied":
            return Verdict("refused", _denied(call, decision.reason))
        if decision is not None and decision.allowed and not spec.requires_approval:
            return _RUN  # the common case: no arguments to validate before running
        arguments: Any = {}
        asks = decision is None and policy.evaluator is not None
        if asks or spec.requires_approval or (decision is None and self.approver is not None):
            try:  # the evaluator and the approver see the validated, typed arguments
                arguments = await tool.validate_call(
                    call.arguments,
                    null_means_default=bool(call.provider_data.get("null_means_default")),
                    aliases=thread.aliases,
                )
            except ValueError as exc:
                failed = ToolOutcome.failure(
                    "invalid_arguments", str(exc), tool_name=call.name, call_id=call.id
                )
                return Verdict("refused", failed)
        if decision is None or spec.requires_approval:
            decision = await policy.evaluate(spec, call, arguments)
        if policy.is_deferred(decision):
            return Verdict("deferred", reason=decision.reason)
        if decision.status == "pending" and self.approver is not None:
            asked = await call_evaluator(self.approver, spec, call, arguments, "approver")
            if asked is not None and asked.status != "pending":
                decision = asked
        return self._verdict(thread, call, decision)

    def _verdict(self, thread: Thread, call: ToolCall, decision: Decision) -> Verdict:
        if decision.allowed:
            return _RUN
        if decision.status == "denied":
            return Verdict("refused", _denied(call, decision.reason))
        if decision.status == "failed":
            text = _POLICY_FAILED.format(name=call.name)
            failed = ToolOutcome.failure("not_allowed", text, tool_name=call.name, call_id=call.id)
            return Verdict("refused", failed)
        printed = fingerprint(call.name, call.arguments)
        thread.asked[call.id] = printed
        paused = self._paused
        paused[call.id] = printed
        while len(paused) > self.max_threads:
            paused.popitem(last=False)
        return Verdict("pending", reason=decision.reason, fingerprint=printed)

    def was_paused(self, thread: Thread, call_id: str) -> bool:
        """True when this call was paused for approval (in this thread or, resumed, in another)."""
        return call_id in thread.asked or call_id in self._paused

    def forget(self, call_id: str) -> None:
        """Drop the record of a paused call (it was answered)."""
        self._paused.pop(call_id, None)

    def approved(self, thread: Thread, call: ToolCall, expected: str | None = None) -> Verdict:
        """The verdict on a call the framework says was approved: run it only if unchanged.

        `expected` is a fingerprint the host carried (for a thread this process
        has not seen); the thread's own record wins, then the gate's.
        """
        printed = self._paused.pop(call.id, None)
        printed = thread.asked.pop(call.id, None) or printed or expected
        if printed is None:
            text = _UNMATCHED.format(name=call.name, id=call.id)
            return Verdict("refused", _not_allowed(call, text))
        if printed != fingerprint(call.name, call.arguments):
            return Verdict("refused", _not_allowed(call, CHANGED.format(name=call.name)))
        return _RUN

    # -- running --------------------------------------------------------------------

    async def invoke(self, thread: Thread, call: ToolCall) -> ToolOutcome:
        """Run an allowed call in the set, with the thread's aliases; open a toolbox it selects."""
        outcome = await self.tools.invoke(call, context=self.context, aliases=thread.aliases)
        if not outcome.is_error and self.tools.is_selector(call.name):
            opened = self.tools.next_tools(thread.shown, [call.name])
            thread.shown = [tool.name for tool in opened]
        return outcome


_RUN = Verdict("run")


def _not_allowed(call: ToolCall, text: str) -> ToolOutcome:
    return ToolOutcome.failure("not_allowed", text, tool_name=call.name, call_id=call.id)


def _denied(call: ToolCall, reason: str | None) -> ToolOutcome:
    text = f"Tool '{call.name}' was denied: {reason or 'the policy does not allow it'}"
    return _not_allowed(call, text)
