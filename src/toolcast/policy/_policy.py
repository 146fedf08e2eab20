"""`Policy`: allow, deny and defer rules, an evaluator that sees the arguments, a default.

Rules name tools by model-visible name, alias, glob (`delete_*`),
`category:NAME` (`NAME` may be a glob too) or `hint:NAME`, an MCP tool
annotation that is true (`hint:destructiveHint`; see `_hint_is_true`).
The order is fixed: deny wins, then defer, then allow, then the evaluator,
then the default. A tool marked `requires_approval` is never allowed by a
rule or the evaluator alone: an allowed call of such a tool becomes pending
until an approval is recorded for it.
"""

from __future__ import annotations

import difflib
import fnmatch
import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Literal, TypeAlias

from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.policy._decision import Decision

__all__ = ("Approver", "DefaultDecision", "Evaluator", "Policy", "matches")

Verdict: TypeAlias = "Decision | bool | None"
Evaluator: TypeAlias = (
    "Callable[[ToolSpec, ToolCall, Mapping[str, Any]], Verdict | Awaitable[Verdict]]"
)
"""`(spec, call, arguments) -> Decision | bool | None`, sync or async. `arguments`
are the validated, typed values the tool would receive. True allows, False
denies, None leaves the call to the policy's default."""

Approver: TypeAlias = Evaluator
"""Asked (inline, by the loop) about a call that would otherwise be pending."""

DefaultDecision: TypeAlias = Literal["pending", "allow"]
"""What happens to a call no rule or evaluator decided."""

_NO_RULE = "No policy rule matched."
_PENDING = "Policy evaluation is pending."
_DENIED = "the policy does not allow it"
_DEFERRED = "deferred: the host runs it and records the result"
_MAX_ERROR_TEXT = 300


class _Rules:
    """One list of patterns, compiled once: exact names, globs, categories."""

    __slots__ = ("categories", "globs", "hints", "names", "patterns")

    def __init__(self, patterns: Iterable[str], kind: str) -> None:
        self.patterns: tuple[str, ...] = (
            (patterns,) if isinstance(patterns, str) else tuple(patterns)
        )
        names: set[str] = set()
        globs: list[re.Pattern[str]] = []
        categories: list[re.Pattern[str]] = []
        hints: list[str] = []
        for pattern in self.patterns:
            if not isinstance(pattern, str) or not pattern.strip():  # type: ignore[redundant-expr,unused-ignore]
                msg = f"Policy {kind} rules must be non-empty strings, got {pattern!r}."
                raise ValueError(msg)
            if pattern.startswith("category:"):
                categories.append(re.compile(fnmatch.translate(pattern[9:].strip())))
            elif pattern.startswith("hint:"):
                hint = pattern[5:].strip()
                if hint not in _HINTS:
                    known = ", ".join(_HINTS)
                    msg = f"Policy {kind} rule {pattern!r}: use hint: with one of {known}."
                    raise ValueError(msg)
                hints.append(hint)
            elif any(c in pattern for c in "*?["):
                globs.append(re.compile(fnmatch.translate(pattern)))
            else:
                names.add(pattern)
        self.names = frozenset(names)
        self.globs = tuple(globs)
        self.categories = tuple(categories)
        self.hints = tuple(hints)

    def match(self, spec: ToolSpec, called: str) -> bool:
        if self.hints and any(_hint_is_true(spec, hint) for hint in self.hints):
            return True
        candidates = (spec.name, called, *spec.aliases)
        if not self.names.isdisjoint(candidates):
            return True
        if any(g.match(c) for g in self.globs for c in candidates):
            return True
        return any(p.match(c) for p in self.categories for c in spec.categories)


_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
# The MCP spec's defaults for an unstated hint (tools spec, "Tool annotations").
_HINT_DEFAULTS = {"readOnlyHint": False, "idempotentHint": False, "openWorldHint": True}


def _hint_is_true(spec: ToolSpec, hint: str) -> bool:
    """Whether the tool's MCP annotation `hint` holds.

    A stated hint counts as stated, and `idempotent=True` states `idempotentHint`.
    A tool imported from a remote MCP server (`extra["mcp_remote"]`) that states
    nothing gets the spec's defaults, so a
    remote tool that does not say it is read-only counts as destructive; a local
    tool without annotations matches no hint rule.
    """
    given = spec.extra.get("mcp_annotations") or {}
    value = given.get(hint)
    if isinstance(value, bool):
        return value
    if hint == "idempotentHint" and spec.idempotent:
        return True  # `@tool(idempotent=True)` is what the server sends as this hint
    if "mcp_remote" not in spec.extra:
        return False
    if hint == "destructiveHint":
        return given.get("readOnlyHint") is not True
    return _HINT_DEFAULTS[hint]


def matches(pattern: str, spec: ToolSpec, called: str | None = None) -> bool:
    """True when one rule `pattern` names the tool `spec` (called as `called`)."""
    return _Rules([pattern], "allow").match(spec, called or spec.name)


def _verdict(value: Any, source: str) -> Decision | None:
    if value is None or isinstance(value, Decision):
        return value
    if value is True:
        return Decision.allow()
    if value is False:
        return Decision.deny(f"the {source} refused it")
    return Decision.failed(
        f"Tool policy evaluation failed: the {source} returned {type(value).__name__}, "
        "not a Decision, a bool or None."
    )


async def call_evaluator(
    evaluator: Evaluator, spec: ToolSpec, call: ToolCall, arguments: Mapping[str, Any], source: str
) -> Decision | None:
    """Ask a sync or async evaluator; an exception becomes a `failed` decision."""
    try:
        value = evaluator(spec, call, arguments)
        if inspect.isawaitable(value):
            value = await value
    except Exception as exc:
        detail = str(exc)[:_MAX_ERROR_TEXT]
        text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
        return Decision.failed(f"Tool policy evaluation failed: {text}")
    return _verdict(value, source)


class Policy:
    """Who may run what: deny wins, then defer, then allow, then the evaluator, then the default.

    Example:
        >>> policy = Policy(allow=["find_*", "category:search"], deny=["delete_*"])
    """

    __slots__ = ("_allow", "_cache", "_defer", "_deny", "default", "evaluator")

    def __init__(
        self,
        *,
        allow: Iterable[str] = (),
        deny: Iterable[str] = (),
        defer: Iterable[str] = (),
        evaluator: Evaluator | None = None,
        default: DefaultDecision = "pending",
    ) -> None:
        """Build a policy.

        Args:
            allow: Rules whose tools run without asking.
            deny: Rules whose tools are refused (the model is told); deny wins.
            defer: Rules whose tools run elsewhere: the loop ends pending with
                the call, and the host records its result (`Conversation.complete`).
            evaluator: Decides the calls no rule matched, seeing the validated arguments.
            default: `"pending"` (as in the original: the host decides) or `"allow"`.
        """
        if default not in ("pending", "allow"):
            msg = f"Policy default must be 'pending' or 'allow', got {default!r}."
            raise ValueError(msg)
        self._deny = _Rules(deny, "deny")
        self._defer = _Rules(defer, "defer")
        self._allow = _Rules(allow, "allow")
        self.evaluator = evaluator
        self.default: DefaultDecision = default
        # Rule verdicts depend on the tool and the name called only, not the arguments.
        self._cache: dict[tuple[int, str], tuple[ToolSpec, Decision | None]] = {}

    def __repr__(self) -> str:
        return (
            f"Policy(allow={list(self._allow.patterns)!r}, deny={list(self._deny.patterns)!r}, "
            f"defer={list(self._defer.patterns)!r}, default={self.default!r})"
        )

    def by_rules(self, spec: ToolSpec, called: str) -> Decision | None:
        """The decision the rules alone give (None: no rule matched)."""
        key = (id(spec), called)
        cached = self._cache.get(key)
        if cached is not None and cached[0] is spec:
            return cached[1]
        decision: Decision | None = None
        if self._deny.match(spec, called):
            decision = Decision.deny(_DENIED)
        elif self._defer.match(spec, called):
            decision = Decision.pending(_DEFERRED)
        elif self._allow.match(spec, called):
            decision = Decision.allow()
        if len(self._cache) < 10_000:
            self._cache[key] = (spec, decision)
        return decision

    def check(self, tools: Iterable[Tool | ToolSpec]) -> None:
        """Refuse rules that name nothing in `tools` (a `ToolSet`, or tools and specs).

        An exact name must be a tool, an alias or a toolbox of the set, and
        `category:NAME` (without a glob) a category of one of its tools: a typo there
        would silently leave a call to the default. Globs are not checked, since a
        guard such as `deny=["delete_*"]` is meant for tools that may come later.

        Raises:
            ValueError: Naming each unknown rule and the closest known names.
        """
        everything = getattr(tools, "all", None)
        found = everything() if callable(everything) else tools
        specs = [t.spec if isinstance(t, Tool) else t for t in found]
        names = {n for spec in specs for n in (spec.name, *spec.aliases)}
        boxes = getattr(tools, "toolboxes", None)
        if callable(boxes):
            names.update(box.name for box in boxes())
        categories = {c for spec in specs for c in spec.categories}
        problems = []
        for rules in (self._deny, self._defer, self._allow):
            for pattern in rules.patterns:
                is_category = pattern.startswith("category:")
                word = pattern[9:].strip() if is_category else pattern
                if any(c in word for c in "*?["):
                    continue
                known = categories if is_category else names
                if word in known:
                    continue
                what = "category" if is_category else "tool, alias or toolbox"
                close = difflib.get_close_matches(word, sorted(known), n=3)
                hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
                problems.append(f"Policy rule {pattern!r} names no known {what}.{hint}")
        if problems:
            raise ValueError(" ".join(problems))

    def needs_arguments(self, spec: ToolSpec, called: str) -> bool:
        """True when deciding this call will ask the evaluator (which needs the arguments)."""
        return self.evaluator is not None and self.by_rules(spec, called) is None

    async def evaluate(
        self, tool: Tool | ToolSpec, call: ToolCall, arguments: Mapping[str, Any]
    ) -> Decision:
        """Decide one call whose `arguments` were validated by `tool`.

        Never raises for the evaluator's failures: they give a `failed` decision.
        An allowed call of a `requires_approval` tool comes back `pending`.
        """
        spec = tool.spec if isinstance(tool, Tool) else tool
        decision = self.by_rules(spec, call.name)
        if decision is None and self.evaluator is not None:
            decision = await call_evaluator(self.evaluator, spec, call, arguments, "evaluator")
        if decision is None:
            decision = Decision.allow() if self.default == "allow" else Decision.pending(_NO_RULE)
        if decision.status == "pending" and decision.reason is None:
            decision = Decision.pending(_PENDING)
        if decision.allowed and spec.requires_approval:
            return Decision.pending(f"Tool '{spec.name}' requires approval.")
        return decision

    def is_deferred(self, decision: Decision) -> bool:
        """True for the pending decision a `defer` rule gives."""
        return decision.status == "pending" and decision.reason == _DEFERRED
