"""`run`: drive a model until it answers, under a policy, journalling every call.

One round: request, read the calls (the adapter's `ModelTurn.calls`), evaluate
the policy for the whole batch, run the allowed calls (parallel-safe ones
concurrently, the others one at a time, in call order), append the assistant
turn once and every result correlated by call id, repeat. With a store, every
step is saved before the next one, so a resumed run never re-evaluates a
recorded decision and never re-runs a call whose outcome (or start) is journalled.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from toolcast._catalog._toolset import ToolSet, UnknownToolError
from toolcast._context import ToolContext
from toolcast._cost import Cost, total_costs
from toolcast._outcome import ErrorKind, ToolOutcome, refused_call
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.loop._conversation import (
    CallRecord,
    Conversation,
    RunStatus,
    denied_outcome,
    fingerprint,
    saved_value,
)
from toolcast.loop._eager import run_concurrently
from toolcast.loop._errors import ConversationError, UndecidedCallsError
from toolcast.loop._events import EventHook, LoopEvent, tool_span, tracer
from toolcast.loop._guards import TOKEN_LIMIT, cut_off, out_of_retries, repeats
from toolcast.loop._model import Message, Model, ModelRequest, ToolChoiceMode, Usage
from toolcast.loop._store import ConversationStore
from toolcast.policy._decision import Decision
from toolcast.policy._policy import Approver, Policy, call_evaluator

__all__ = ("RunResult", "run")

_MANUAL = "Automatic tool execution is off (max_rounds=0): the host runs this call."
_INTERRUPTED = (
    "Tool '{name}' was interrupted before it finished and was not run again; "
    "it may or may not have taken effect."
)
_CHANGED = "Tool '{name}' was not run: its arguments changed after they were approved."
_POLICY_FAILED = "Tool '{name}' was not run: its policy check failed."


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    """How a run ended, and everything it produced."""

    status: RunStatus
    """done (final text), pending (calls wait for the host), max_rounds (the last
    batch ran, no further request), ended (an `ends_loop` tool ran), repeated (the
    repeat guard stopped it)."""
    text: str
    """The model's last text."""
    output: Any
    """`ended`: the `ends_loop` tool's return value; else None."""
    calls: tuple[CallRecord, ...]
    """The calls this run handled, in order, with their decisions and outcomes."""
    rounds: int
    """Model requests this run made."""
    usage: Usage
    """Tokens this run used, summed over its requests."""
    messages: tuple[Message, ...]
    """The whole history, in the model's message format."""
    pending: tuple[CallRecord, ...]
    """`pending`: the calls waiting for `approve`, `deny` or `complete`."""
    conversation: Conversation
    """The conversation, to save and resume."""
    costs: tuple[Cost, ...] = ()
    """The cost lines of the calls this run handled (`ToolContext.add_cost`), in order."""

    @property
    def total_costs(self) -> Mapping[str, float]:
        """`costs` summed per unit, e.g. `{"usd": 0.004}`."""
        return total_costs(self.costs)


async def run(
    model: Model,
    prompt: str | None = None,
    *,
    tools: ToolSet,
    conversation: Conversation | None = None,
    policy: Policy | None = None,
    max_rounds: int = 8,
    approver: Approver | None = None,
    system: str | None = None,
    tool_choice: ToolChoiceMode = "auto",
    keep_tool_choice: bool = False,
    options: Mapping[str, Any] | None = None,
    store: ConversationStore | None = None,
    context: ToolContext | None = None,
    on_event: EventHook | None = None,
    max_concurrency: int = 8,
    repeat_limit: int | None = None,
    retry_budget: int | None = None,
) -> RunResult:
    """Run the model with `tools` until it answers, a call waits, or the rounds run out.

    Args:
        model: A `Model` adapter (a provider module's `Model`, or `ScriptedModel`).
        prompt: The user's text; optional when resuming `conversation`.
        tools: The tool set the model may call (`catalog.select(...)`).
        conversation: A conversation to continue; a new one when None.
        policy: Who may run what; `Policy()` (everything pending) when None.
        max_rounds: Model requests at most (8); 0 is manual mode: the calls of one
            request are returned pending, none evaluated or run.
        approver: Asked inline, `(spec, call, arguments) -> Decision`, about calls
            that would be pending (not deferred ones).
        system: The system prompt (kept in the conversation).
        tool_choice: `auto`, `required`, `none`, or a tool name, for the first
            request; later requests use `auto` unless `keep_tool_choice`.
        keep_tool_choice: Send `tool_choice` with every request.
        options: Extra keyword arguments for the client call.
        store: Saves the conversation at every step (the journal).
        context: Host state for the tools (`ToolContext.state`).
        on_event: Called with each `LoopEvent`.
        max_concurrency: Parallel-safe calls of one batch running at once.
        repeat_limit: Stop (status `repeated`) when the same call, same tool and
            same arguments, comes in this many rounds in a row; that call is
            answered "not run" and the others of its batch run. None: no guard.
        retry_budget: Failed calls (bad arguments, errors, timeouts) a tool may
            have in the conversation; later calls of it are answered "not run",
            telling the model to stop. None: no budget.

    Raises:
        ValueError: `max_rounds` is negative, or a named `tool_choice` is not shown.
        UndecidedCallsError: Resuming while some pending calls have no decision.
    """
    if max_rounds < 0:
        msg = f"max_rounds cannot be negative (got {max_rounds}); use 0 for manual mode."
        raise ValueError(msg)
    if not isinstance(tools, ToolSet):
        kind = type(tools).__name__  # type: ignore[unreachable]  # a host mistake, at run time
        msg = f"run() takes tools=catalog.select(...), a ToolSet; got {kind}."
        raise TypeError(msg)
    if max_concurrency < 1:
        msg = f"max_concurrency must be at least 1 (got {max_concurrency})."
        raise ValueError(msg)
    for name, limit in (("repeat_limit", repeat_limit), ("retry_budget", retry_budget)):
        if limit is not None and limit < 1:
            msg = f"{name} must be at least 1, or None for no limit (got {limit})."
            raise ValueError(msg)
    policy = policy or Policy()
    policy.check(tools)  # a rule naming no tool of the set is a mistake: say it now
    return await _Run(
        model,
        prompt,
        tools=tools,
        conversation=conversation,
        policy=policy,
        max_rounds=max_rounds,
        approver=approver,
        system=system,
        tool_choice=tool_choice,
        keep_tool_choice=keep_tool_choice,
        options=options or {},
        store=store,
        context=context,
        on_event=on_event,
        max_concurrency=max_concurrency,
        repeat_limit=repeat_limit,
        retry_budget=retry_budget,
    ).go()


class _Run:
    """One call of `run`: its settings and what it has done so far."""

    def __init__(
        self,
        model: Model,
        prompt: str | None,
        *,
        tools: ToolSet,
        conversation: Conversation | None,
        policy: Policy,
        max_rounds: int,
        approver: Approver | None,
        system: str | None,
        tool_choice: ToolChoiceMode,
        keep_tool_choice: bool,
        options: Mapping[str, Any],
        store: ConversationStore | None,
        context: ToolContext | None,
        on_event: EventHook | None,
        max_concurrency: int,
        repeat_limit: int | None = None,
        retry_budget: int | None = None,
    ) -> None:
        import asyncio  # deferred: defining and calling tools never needs the event loop machinery

        self.model = model
        self.prompt = prompt
        self.tools = tools
        self.conv = conversation if conversation is not None else Conversation(system=system)
        if system is not None:
            self.conv.system = system
        self.policy = policy
        self.max_rounds = max_rounds
        self.approver = approver
        self.tool_choice = tool_choice
        self.keep_tool_choice = keep_tool_choice
        self.options = options
        self.store = store
        self.context = context
        self.on_event = on_event
        self.max_concurrency = max_concurrency
        self.repeat_limit = repeat_limit
        self.retry_budget = retry_budget
        self.semaphore = asyncio.Semaphore(max_concurrency)
        self.lock = asyncio.Lock()
        # toolcast.temporal's tool set opens its spans in the activity, not here.
        self.tracer = None if getattr(tools, "_traced_elsewhere", False) else tracer()
        self.rounds = 0
        self.usage = Usage()
        self.handled: list[CallRecord] = []
        self.output: Any = None
        self._specs: tuple[ToolSpec, ...] = ()
        self._specs_for: list[str] | None = None
        self.aliases = self.conv.aliases

    # -- plumbing -------------------------------------------------------------------
    async def emit(self, event: LoopEvent) -> None:
        assert self.on_event is not None
        made = self.on_event(event)
        if inspect.isawaitable(made):
            await made

    async def save(self) -> None:
        if self.store is not None:
            async with self.lock:
                await self.store.save(self.conv)

    def shown(self) -> list[str]:
        conv = self.conv
        if conv.shown is None:
            conv.shown = list(self.tools.names())
        return conv.shown

    def specs(self) -> tuple[ToolSpec, ...]:
        shown = self.shown()
        if self._specs_for != shown:
            found = (self.tools.get(name) for name in shown)
            self._specs = tuple(t.spec for t in found if t is not None)
            self._specs_for = list(shown)
        return self._specs

    def result(self, status: RunStatus) -> RunResult:
        conv = self.conv
        conv.status = status
        return RunResult(
            status=status,
            text=conv.text,
            output=self.output,
            calls=tuple(self.handled),
            rounds=self.rounds,
            usage=self.usage,
            messages=tuple(conv.messages),
            pending=conv.pending,
            conversation=conv,
            costs=tuple(c for r in self.handled if r.outcome for c in r.outcome.costs),
        )

    async def finish(self, status: RunStatus) -> RunResult:
        done = self.result(status)
        await self.save()
        if self.on_event is not None:
            if status == "pending":
                for record in done.pending:
                    await self.emit(self.event("pending", call=record))
            await self.emit(self.event("done", status=status, usage=self.usage))
        return done

    def event(self, kind: Any, **fields: Any) -> LoopEvent:
        return LoopEvent(kind=kind, conversation_id=self.conv.id, round=self.conv.rounds, **fields)

    # -- the loop -------------------------------------------------------------------

    async def go(self) -> RunResult:
        import asyncio  # deferred: defining and calling tools never needs the event loop machinery

        conv = self.conv
        self.check_tool_choice()
        if conv.batch:
            undecided = [r.id for r in conv.batch if r.pending]
            if undecided:
                raise UndecidedCallsError(undecided)
            if self.prompt is not None:
                msg = "Cannot add a prompt while the last turn's calls are unanswered."
                raise ConversationError(msg)
            self.handled.extend(conv.batch)
            try:
                ended = await self.answer_batch()
            except asyncio.CancelledError:
                await self.cancelled()
                raise
            if ended is not None:
                return ended
        elif self.prompt is not None:
            conv.messages.extend(self.model.user_message(self.prompt))
        elif not conv.messages:
            msg = "run() needs a prompt, or a conversation to continue."
            raise ConversationError(msg)
        try:
            return await self.loop()
        except asyncio.CancelledError:
            await self.cancelled()
            raise

    async def cancelled(self) -> None:
        # The journal (every outcome so far) is written before the cancellation goes on.
        self.conv.status = "cancelled"
        await self.save()
        if self.on_event is not None:
            await self.emit(self.event("done", status="cancelled", usage=self.usage))

    def check_tool_choice(self) -> None:
        choice = self.tool_choice
        if choice in ("auto", "required", "none"):
            return
        if choice not in self.shown():
            msg = f"tool_choice {choice!r} is not a tool the model is shown: {self.shown()!r}."
            raise ValueError(msg)

    async def loop(self) -> RunResult:
        conv, model = self.conv, self.model
        while True:
            choice = self.tool_choice if self.rounds == 0 or self.keep_tool_choice else "auto"
            specs = self.specs()
            request = ModelRequest(
                messages=tuple(conv.messages),
                tools=specs,
                system=conv.system,
                tool_choice=choice,
                parallel_calls=all(s.parallel_safe for s in specs),
                options=self.options,
            )
            if self.on_event is not None:
                await self.emit(self.event("request", request=request))
            turn = await model.complete(request)
            self.rounds += 1
            conv.rounds += 1
            self.usage += turn.usage
            conv.usage += turn.usage
            conv.messages.append(turn.message)
            conv.text = turn.text
            if self.on_event is not None:
                await self.emit(self.event("usage", turn=turn, usage=turn.usage))
            if not turn.calls:
                return await self.finish("done")
            round_ = conv.rounds
            batch = [
                CallRecord(c.id, c.name, c.arguments, round_, c.provider_data) for c in turn.calls
            ]
            conv.batch = batch
            self.handled.extend(batch)
            if self.on_event is not None:
                for record in batch:
                    await self.emit(self.event("call", call=record))
            if self.max_rounds == 0:
                for record in batch:
                    record.decision = Decision.pending(_MANUAL)
                    record.decided_by = "policy"
                return await self.finish("pending")
            for record, message in cut_off(batch) if turn.finish_reason in TOKEN_LIMIT else ():
                self.refuse(record, "invalid_arguments", message)
            repeated = repeats(batch, conv.history, self.repeat_limit)
            for record, message in repeated:
                self.refuse(record, "not_run", message)
            await self.evaluate(batch)
            if self.store is not None:
                await self.save()
            ended = await self.answer_batch()
            if ended is not None:
                return ended
            if repeated:
                return await self.finish("repeated")
            if self.rounds >= self.max_rounds:
                return await self.finish("max_rounds")

    def refuse(self, record: CallRecord, kind: ErrorKind, message: str) -> None:
        record.decided_by = "policy"
        record.decision = Decision.failed(message)
        record.outcome = ToolOutcome.failure(
            kind, message, tool_name=record.name, call_id=record.id
        )

    # -- one batch ------------------------------------------------------------------

    async def evaluate(self, batch: Sequence[CallRecord]) -> None:
        """Decide every call of the batch (all of them, whatever the others get)."""
        tools, shown = self.tools, self.shown()
        for record in batch:
            if record.decision is not None or record.outcome is not None:
                continue  # recorded: never evaluated again
            record.decided_by = "policy"
            refused = refused_call(record.id, record.name, record.provider_data)
            tool = tools.get(record.name)
            if refused is not None or tool is None or tool.name not in shown:
                # A member of an unopened toolbox is as unknown as a name that never existed.
                outcome = refused or UnknownToolError(record.name, shown).outcome(call_id=record.id)
                record.decision = Decision.failed(outcome.text)
                record.outcome = outcome
            elif spent := out_of_retries(  # chained, not copied: read only with a budget
                tool.name, chain(self.conv.history, self.conv.batch), self.retry_budget
            ):
                self.refuse(record, "not_run", spent)
            else:
                await self.decide(record, tool)
            if self.on_event is not None:
                await self.emit(self.event("decision", call=record, decision=record.decision))

    async def decide(self, record: CallRecord, tool: Tool) -> None:
        spec, policy = tool.spec, self.policy
        decision = policy.by_rules(spec, record.name)
        if decision is not None and decision.status == "denied":
            record.decision = decision
            record.outcome = denied_outcome(record, decision.reason)
            return
        arguments: Any = {}
        asks = decision is None and policy.evaluator is not None
        if asks or spec.requires_approval or (decision is None and self.approver is not None):
            # The evaluator and the approver see the validated, typed arguments.
            try:
                arguments = await tool.validate_call(
                    record.arguments,
                    null_means_default=bool(record.provider_data.get("null_means_default")),
                    aliases=self.aliases,
                )
            except ValueError as exc:
                record.decision = Decision.failed("invalid arguments")
                record.outcome = ToolOutcome.failure(
                    "invalid_arguments", str(exc), tool_name=record.name, call_id=record.id
                )
                return
        if decision is None or spec.requires_approval:
            decision = await policy.evaluate(spec, record.call, arguments)
        deferred = record.deferred = policy.is_deferred(decision)
        if decision.status == "pending" and not deferred and self.approver is not None:
            asked = await call_evaluator(self.approver, spec, record.call, arguments, "approver")
            if asked is not None and asked.status != "pending":
                decision = asked
                record.decided_by = "approver"
                if asked.allowed:
                    record.fingerprint = fingerprint(record.name, record.arguments)
        record.decision = decision
        if decision.status == "denied":
            record.outcome = denied_outcome(record, decision.reason)
        elif decision.status == "failed":
            record.outcome = ToolOutcome.failure(
                "not_allowed",
                _POLICY_FAILED.format(name=record.name),
                tool_name=record.name,
                call_id=record.id,
            )

    async def answer_batch(self) -> RunResult | None:
        """Run the batch's allowed calls; send every answer once none is pending.

        Returns the run's result when it stops here (pending, ended), else None.
        """
        conv = self.conv
        batch = conv.batch
        if any(r.decision is None for r in batch):
            await self.evaluate(batch)  # calls a crash left undecided (never recorded ones)
        runnable = [
            r for r in batch if r.outcome is None and r.decision is not None and r.decision.allowed
        ]
        group: list[CallRecord] = []
        for record in runnable:
            if self.parallel_safe(record):
                group.append(record)
                continue
            if group:
                await self.run_group(group)
                group = []
            await self.run_group([record])
        if group:
            await self.run_group(group)
        if any(r.outcome is None for r in batch):
            return await self.finish("pending")
        outcomes = [r.outcome for r in batch]
        conv.messages.extend(self.model.result_messages(outcomes))  # type: ignore[arg-type]
        self.open_toolboxes(batch)
        conv.history.extend(batch)
        conv.batch = []
        ended = self.ended(batch)
        if ended:
            return await self.finish("ended")
        if self.store is not None:
            await self.save()
        return None

    def parallel_safe(self, record: CallRecord) -> bool:
        tool = self.tools.get(record.name)
        return tool is not None and tool.spec.parallel_safe

    def ended(self, batch: Sequence[CallRecord]) -> bool:
        for record in batch:
            tool, outcome = self.tools.get(record.name), record.outcome
            if tool is not None and tool.spec.ends_loop and outcome and not outcome.is_error:
                self.output = saved_value(outcome)
                return True
        return False

    def open_toolboxes(self, batch: Sequence[CallRecord]) -> None:
        tools = self.tools
        opened = [
            r.name
            for r in batch
            if tools.is_selector(r.name) and r.outcome is not None and not r.outcome.is_error
        ]
        if opened:
            conv = self.conv
            conv.opened.extend(name for name in opened if name not in conv.opened)
            conv.shown = [t.name for t in tools.next_tools(self.shown(), opened)]

    async def run_group(self, group: Sequence[CallRecord]) -> None:
        """Run the calls (concurrently when they may wait), each start journalled first."""
        inline: list[CallRecord] = []
        waiting: list[CallRecord] = []
        for record in group:
            if record.started:  # started in an earlier process and never journalled as done
                record.outcome = ToolOutcome.failure(
                    "not_run",
                    _INTERRUPTED.format(name=record.name),
                    tool_name=record.name,
                    call_id=record.id,
                )
            elif record.decided_by != "policy" and record.fingerprint != fingerprint(
                record.name, record.arguments
            ):
                record.outcome = ToolOutcome.failure(
                    "not_allowed",
                    _CHANGED.format(name=record.name),
                    tool_name=record.name,
                    call_id=record.id,
                )
            else:
                tool = self.tools.get(record.name)
                if tool is None or tool.spec.is_async or tool.spec.blocking:
                    waiting.append(record)
                else:  # a sync tool marked non-blocking runs on the loop anyway: no task
                    inline.append(record)
        store = self.store
        for record in inline:
            if store is None:
                record.started = True
            else:
                await self.start([record])
            await self.run_one(record)
        if not waiting:
            return
        await self.start(waiting)  # they start together, so their starts are journalled together
        if len(waiting) == 1:
            await self.run_one(waiting[0])
        elif len(waiting) <= self.max_concurrency:
            await run_concurrently([self.run_one(r) for r in waiting])
        else:
            await run_concurrently([self.run_bounded(r) for r in waiting])

    async def start(self, records: Sequence[CallRecord]) -> None:
        """Mark calls started, and journal it before any of them runs."""
        for record in records:
            record.started = True
        if self.store is not None:
            try:
                await self.save()
            except BaseException:
                for record in records:  # the start was not journalled: the call never began
                    record.started = False
                raise

    async def run_bounded(self, record: CallRecord) -> None:
        async with self.semaphore:
            await self.run_one(record)

    async def run_one(self, record: CallRecord) -> None:
        call = ToolCall(record.id, record.name, record.arguments, record.provider_data)
        if self.tracer is None:  # no span to open: the lookup and the no-op context go too
            outcome = await self.tools.invoke(call, context=self.context, aliases=self.aliases)
        else:
            spec = tool.spec if (tool := self.tools.get(record.name)) else None
            with tool_span(self.tracer, spec, record.name, record.id) as span:
                outcome = await self.tools.invoke(call, context=self.context, aliases=self.aliases)
                span.record(outcome)
        record.outcome = outcome
        if self.store is not None:
            await self.save()  # journalled before the result is sent
        if self.on_event is not None:
            await self.emit(self.event("result", call=record, outcome=outcome))
