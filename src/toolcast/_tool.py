"""`Tool`: a `ToolSpec` plus the code that runs it, turning every failure into a result.

The per-call path is kept short on purpose: parse + validate (pydantic-core),
bind, call, serialise. Validators compile on the first call, not at definition,
so large catalogs build fast.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeAlias

from pydantic_core import CoreConfig, SchemaValidator

from toolcast._arguments import ArgumentsError, Limits, Parser, fail_fast, reads_parsed
from toolcast._binding import bound_call, is_plain
from toolcast._context import ToolContext
from toolcast._define._decorator import ToolOptions, options_of, spec_of
from toolcast._define._function import Analysis, analyse, input_node
from toolcast._frozen import FrozenDict
from toolcast._json import JsonSchema
from toolcast._outcome import ToolOutcome, with_costs
from toolcast._receiver import receiver_later
from toolcast._result import (
    SCHEMA_DIALECT,
    cap_result,
    deprecation_noted,
    dict_outcome,
    failure_of,
    outcome_of,
)
from toolcast._running import TIMEOUTS, RaisedTimeout, in_thread, within
from toolcast._spec import Arguments, ToolCall, ToolSpec, unpack_call
from toolcast.aliases._apply import (
    AliasPlans,
    alias_outcome,
    drive,
    drive_sync,
    plans_of,
    resolve_arguments,
    restored,
)
from toolcast.aliases._declare import has_marks, model_facing, strip_marks
from toolcast.aliases._required import RAW_IDS, RawIds, is_aliased, unaliased_message
from toolcast.aliases._session import AliasSession
from toolcast.errors import DefinitionProblem, ToolDefinitionError

__all__ = ("TargetResolver", "Tool")

TargetResolver: TypeAlias = "Callable[[Tool, ToolCall], Any]"
"""Returns the instance a method tool runs on, for one call (`(tool, call) -> self`)."""

_MISSING: Any = object()
_DEFAULT_LIMITS = Limits()
"""The default bounds, one frozen instance shared by every tool (not one per tool)."""
_WALK_DROPPED: JsonSchema = FrozenDict()
"""What a built tool's analysis keeps of its walked schema: nothing, one shared dict."""
_RECEIVER: Any = object()  # the key invoke hands the resolved instance under


class Tool:
    """A tool a model can call: `spec` describes it, `invoke` runs it.

    Build one with `Tool.from_function(fn)` or `Tool.from_schema(...)`.
    """

    __slots__ = (
        "_alias_plans",
        "_aliased",
        "_analysis",
        "_bare",
        "_call",
        "_dict_out",
        "_direct",
        "_envelope",
        "_exact",
        "_instance",
        "_lenient",
        "_limits",
        "_max_chars",
        "_options",
        "_parser",
        "_resolver",
        "function",
        "spec",
    )

    spec: ToolSpec
    function: Callable[..., Any]

    def __init__(
        self,
        spec: ToolSpec,
        function: Callable[..., Any],
        *,
        analysis: Analysis | None = None,
        parser: Callable[[], Parser] | None = None,
        instance: Any = _MISSING,
        resolver: TargetResolver | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.spec = spec
        self.function = function
        self._analysis = analysis
        self._instance = instance
        self._resolver = resolver
        self._limits = limits or _DEFAULT_LIMITS
        self._parser: Parser | Callable[[], Parser] | None = parser
        self._lenient: Parser | Callable[[], Parser] | None = None
        self._options: ToolOptions | None = None
        self._alias_plans: AliasPlans | None = None
        self._aliased = is_aliased(spec)  # then `aliases=` is required (RAW_IDS: none)
        self._call = self._plain_call()
        # A function that takes the arguments as they are, called without the
        # `_call` layer (about 50 ns a call, a tenth of the gap to a bare call).
        self._direct: Callable[..., Any] | None = None
        if analysis is not None and is_plain(analysis.plan):
            self._direct = function
        envelope = None
        if spec.envelope:
            envelope = {"$schema": SCHEMA_DIALECT, **(spec.output_schema or {})}
        self._envelope = envelope
        # Per-call facts, decided once: every call reads them.
        self._bare = not self._needs_context()
        self._exact = analysis is not None and analysis.exact_output
        # A dict result needs none of `outcome_of`'s checks when nothing wraps, rewrites
        # or annotates it: `dict_outcome` (0.2 µs of a 4 µs call).
        self._dict_out = envelope is None and not self._exact and spec.deprecated is None
        self._max_chars = self._limits.max_result_chars

    # -- construction ---------------------------------------------------------------

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        instance: Any = _MISSING,
        resolver: TargetResolver | None = None,
        limits: Limits | None = None,
        **overrides: Any,
    ) -> Tool:
        """Make a tool from a function, bound method or unbound method.

        Args:
            fn: The callable; `@tool` options on it are used, `overrides` win.
            instance: For an unbound method: the object it runs on.
            resolver: For an unbound method: `(tool, call) -> instance`, asked per call.
            limits: Bounds on argument size and depth.
            **overrides: Any `@tool` option (`name=`, `description=`, `timeout=`, ...).
        """
        options = options_of(fn) or ToolOptions()
        if overrides:
            options = options.merged(overrides)
        has_receiver = instance is not _MISSING or resolver is not None
        analysis = analyse(fn, options, bound=inspect.ismethod(fn), has_receiver=has_receiver)
        if options.envelope is None and analysis.envelope:  # the result type asks (`@envelope`)
            options = dataclasses.replace(options, envelope=True)
        spec = spec_of(
            analysis.name,
            analysis.description,
            analysis.input_schema,
            analysis.output_schema,
            options,
            is_async=analysis.is_async,
        )
        limits = limits or _DEFAULT_LIMITS
        # The spec holds frozen copies; the walk itself is not kept (most of a tool's
        # memory in a large catalog): the first call walks again (`_make_parser`).
        analysis = dataclasses.replace(
            analysis, input_schema=_WALK_DROPPED, output_schema=None, node=None
        )
        made = cls(spec, fn, analysis=analysis, instance=instance, resolver=resolver, limits=limits)
        made._options = options
        return made

    @classmethod
    def from_schema(
        cls,
        name: str,
        description: str,
        input_schema: JsonSchema,
        handler: Callable[..., Any],
        *,
        output_schema: JsonSchema | None = None,
        limits: Limits | None = None,
        **metadata: Any,
    ) -> Tool:
        """Make a tool from a hand-written JSON Schema and a handler.

        The handler receives the validated argument object (a dict), and the
        `ToolContext` as a second argument if it takes two parameters.
        """
        from toolcast._define._jsonschema import compile_schema

        # `x-toolcast-alias` marks: the model sees `link-1`, the validator the UUID.
        marked = has_marks(input_schema) or has_marks(output_schema)
        compiled = compile_schema(name, strip_marks(input_schema) if marked else input_schema)
        options = ToolOptions().merged(metadata)
        is_async = inspect.iscoroutinefunction(handler)
        takes_context = len(inspect.signature(handler).parameters) >= 2
        shown_input, shown_output = dict(input_schema), output_schema
        if marked:
            problems: list[DefinitionProblem] = []
            shown_input = model_facing(input_schema, problems)
            if output_schema is not None:
                shown_output = model_facing(output_schema, problems)
            if problems:
                raise ToolDefinitionError(name, problems)
        spec = spec_of(
            name,
            description,
            shown_input,
            dict(shown_output) if shown_output is not None else None,
            options,
            is_async=is_async,
        )
        limits = limits or _DEFAULT_LIMITS

        def make_parser(lenient: bool = False) -> Parser:
            return Parser(
                name,
                compiled.lenient_validator() if lenient else compiled.validator(),
                spec.input_schema,
                limits=limits,
                static_depth=compiled.depth,
            )

        tool = cls(spec, handler, parser=make_parser, limits=limits)
        # Strict projections' calls: a null for an optional property is "not given".
        tool._lenient = functools.partial(make_parser, True)
        tool._options = options
        if takes_context:
            tool._call = lambda args, ctx: handler(args, ctx)
        else:
            tool._call = lambda args, ctx: handler(args)
        return tool

    # -- description ----------------------------------------------------------------

    @property
    def name(self) -> str:
        """The model-visible name."""
        return self.spec.name

    def __repr__(self) -> str:
        return f"Tool(name={self.spec.name!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> Tool:
        """The tool itself: its spec is read-only and its validator holds no state."""
        return self

    # -- validation -----------------------------------------------------------------

    def _make_parser(self, *, lenient: bool) -> Parser:
        # No pydantic-core schema is kept from definition: walk again (the first call
        # pays once). The validator holds the schema it compiled (pydantic-core keeps it
        # to pickle); the fail-fast variant walks again only if it is ever needed.
        analysis = self._analysis
        assert analysis is not None
        options = self._options or ToolOptions()
        walk = functools.partial(input_node, self.function, options, lenient=lenient)
        node = walk()
        config = CoreConfig(val_json_bytes="base64")
        if analysis.needs_python_regex:
            config["regex_engine"] = "python-re"
        validator = SchemaValidator(node.core, config)
        from_parsed = reads_parsed(node.core)
        # pydantic-core keeps the schema it compiled, only to pickle or deep-copy the
        # validator (a Tool is never copied: `__deepcopy__`). Emptying the tool's own
        # top-level dict lets the rest go (1.5 KiB a tool; shared class schemas stay).
        if isinstance(node.core, dict):
            node.core.clear()
        return Parser(
            self.spec.name,
            validator,
            self.spec.input_schema,
            limits=self._limits,
            static_depth=node.depth,
            guards=node.guards,
            bounded=lambda: SchemaValidator(fail_fast(walk().core), config),
            timed=analysis.needs_python_regex,
            from_parsed=from_parsed,
        )

    def _get_parser(self, lenient: bool) -> Parser:
        if lenient:
            made = self._lenient
            if isinstance(made, Parser):
                return made
            # A hand-written schema's comes from `from_schema`; a function's is walked.
            made = made() if made is not None else self._make_parser(lenient=True)
            self._lenient = made
            return made
        parser = self._parser
        if isinstance(parser, Parser):
            return parser
        parser = parser() if parser is not None else self._make_parser(lenient=False)
        self._parser = parser
        return parser

    def validate(self, arguments: Arguments, *, null_means_default: bool = False) -> Any:
        """Validate arguments without running the tool; raise ValueError with the message."""
        try:
            return self._get_parser(null_means_default).parse(arguments)
        except ArgumentsError as exc:
            raise ValueError(exc.message) from None

    async def validate_call(
        self, arguments: Arguments, *, null_means_default: bool = False, aliases: Any = None
    ) -> Any:
        """`validate`, with the conversation's aliases resolved first, as `invoke` does."""
        plans = self._plans(aliases)
        if plans is not None:
            got = await drive(self._resolving(plans, arguments, None), aliases)
            if isinstance(got, ToolOutcome):
                raise ValueError(got.text)
            try:
                return self.validate(got[0], null_means_default=null_means_default)
            except ValueError as exc:  # quote the aliases the model sent, not their UUIDs
                failed = ToolOutcome.failure("invalid_arguments", str(exc), tool_name=self.name)
                raise ValueError(restored(failed, got[1]).text) from None
        return self.validate(arguments, null_means_default=null_means_default)

    # -- calling --------------------------------------------------------------------

    def _plain_call(self) -> Callable[[Any, ToolContext | None], Any]:
        analysis = self._analysis
        if analysis is None:
            fn = self.function
            return lambda args, ctx: fn(args)
        return bound_call(self.function, analysis.plan, self._receiver)

    def _receiver(self, ctx: ToolContext | None, args: dict[str, Any]) -> Any:
        if _RECEIVER in args:  # resolved (and awaited) by `invoke` already
            return args.pop(_RECEIVER)
        if self._instance is not _MISSING:
            return self._instance
        assert self._resolver is not None
        call_id = ctx.call_id if ctx is not None else None
        return self._resolver(self, ToolCall(call_id or "", self.spec.name, dict(args)))

    def _plan_needs_receiver(self) -> bool:
        return self._analysis is not None and self._analysis.plan.needs_receiver

    def _needs_context(self) -> bool:
        # Only the tool can read a context (its ToolContext parameter, Injected values,
        # a resolver): a cancel signal nobody reads is not worth a threading.Event per call.
        plan = self._analysis.plan if self._analysis else None
        return bool(plan is None or plan.context_param or plan.injected or plan.needs_receiver)

    def _context(self, context: ToolContext | None, call_id: str | None) -> ToolContext | None:
        if context is None:
            if self._bare:
                return None
            return ToolContext(call_id=call_id, tool_name=self.spec.name)
        return context.bind(call_id=call_id, tool_name=self.spec.name)

    async def invoke(
        self,
        arguments: Arguments | ToolCall,
        *,
        context: ToolContext | None = None,
        call_id: str | None = None,
        null_means_default: bool | None = None,
        aliases: AliasSession | RawIds | None = None,
    ) -> ToolOutcome:
        """Validate the arguments, run the tool, and return the outcome (docs/invoking.md).

        Never raises for the model's input or the tool's failures (host mistakes
        raise TypeError); cancellation of the caller propagates.

        Args:
            arguments: A `ToolCall` (its id and provider options are used), or the
                arguments alone: JSON text or bytes as sent, or a parsed mapping.
            context: Host state and a cancel signal for this call.
            call_id: The model's call id, copied to the outcome (default: the call's).
            null_means_default: `null` for a parameter with a default means the default
                (strict projections; default: what the call carries).
            aliases: The conversation's `AliasSession` (docs/aliases.md); required
                when the tool aliases ids (`RAW_IDS`: send the raw ids deliberately).

        Raises:
            TypeError: the tool aliases ids and `aliases` is None.
        """
        if type(arguments) is str:  # the usual call, without a function call for it
            raw, lenient = arguments, bool(null_means_default)
        else:
            raw, call_id, lenient = unpack_call(arguments, call_id, null_means_default)
        if call_id is None and context is not None:
            call_id = context.call_id
        if aliases is not None or self._aliased:
            plans = self._plans(aliases)
            if plans is not None:
                return await self._invoke_aliased(plans, aliases, raw, context, call_id, lenient)
        # The plain path is written out here rather than awaited from a helper: one
        # coroutine layer costs about as much as a small tool's own call.
        parser = self._lenient if lenient else self._parser
        if type(parser) is not Parser:
            parser = self._get_parser(lenient)
        try:
            args = parser.parse(raw)
        except ArgumentsError as exc:
            return self._refused(exc, call_id)
        ctx = None if context is None and self._bare else self._context(context, call_id)
        spec = self.spec
        try:
            if self._resolver is not None and self._plan_needs_receiver():  # may be async
                args[_RECEIVER] = await receiver_later(self._receiver(ctx, args))
            direct = self._direct
            if spec.is_async:
                awaitable = direct(**args) if direct is not None else self._call(args, ctx)
                if spec.timeout is None:
                    value = await awaitable
                else:
                    clock = None if ctx is None else ctx.clock
                    value = await within(awaitable, spec.timeout, clock)
            elif spec.blocking:
                clock = None if ctx is None else ctx.clock
                value = await in_thread(self._call, (args, ctx), spec.timeout, clock)
            else:
                value = direct(**args) if direct is not None else self._call(args, ctx)
        except TIMEOUTS:
            if ctx is not None:
                ctx.cancel_event.set()
            message = f"Tool '{spec.name}' timed out after {spec.timeout:g} s."
            outcome = ToolOutcome.failure("timeout", message, tool_name=spec.name, call_id=call_id)
        except RaisedTimeout as raised:
            outcome = failure_of(spec.name, raised.original, call_id)
        except Exception as exc:
            outcome = failure_of(spec.name, exc, call_id)
        except BaseException:
            # Cancelled (asyncio.CancelledError, not named so asyncio loads lazily)
            # or interrupted: the call is abandoned, so tell cooperative code.
            if ctx is not None:
                ctx.cancel_event.set()
            raise
        else:
            outcome = self._succeeded(value, call_id)
        return outcome if ctx is None else with_costs(outcome, ctx.costs)

    async def _invoke_aliased(
        self,
        plans: AliasPlans,
        aliases: Any,
        raw: Arguments,
        context: ToolContext | None,
        call_id: str | None,
        lenient: bool,
    ) -> ToolOutcome:
        """`invoke` with aliases: resolve them in the arguments, run, alias the result."""
        got = await drive(self._resolving(plans, raw, call_id), aliases)
        if isinstance(got, ToolOutcome):
            return got
        # `got[0]` may be ParsedArguments, internal, so not part of `invoke`'s signature.
        resolved: Any = got[0]
        ran = await self.invoke(
            resolved, context=context, call_id=call_id, null_means_default=lenient, aliases=RAW_IDS
        )
        return await drive(self._aliasing(plans, restored(ran, got[1])), aliases)  # type: ignore[no-any-return]

    def invoke_sync(
        self,
        arguments: Arguments | ToolCall,
        *,
        context: ToolContext | None = None,
        call_id: str | None = None,
        null_means_default: bool | None = None,
        aliases: AliasSession | RawIds | None = None,
    ) -> ToolOutcome:
        """Like `invoke`, for synchronous hosts (same arguments).

        Sync tools run inline (no timeout); async tools run in a fresh event loop,
        refused inside a running loop. An alias session must be in memory.
        """
        plain = aliases is None and not self._aliased
        if type(arguments) is str and plain and not self.spec.is_async:
            # The usual call: text in, nothing to unpack or resolve first.
            return self._run_sync(arguments, context, call_id, bool(null_means_default))
        if self.spec.is_async:
            import asyncio

            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return asyncio.run(
                    self.invoke(
                        arguments,
                        context=context,
                        call_id=call_id,
                        null_means_default=null_means_default,
                        aliases=aliases,
                    )
                )
            msg = (
                f"Tool '{self.spec.name}' is async: use 'await tool.invoke(...)' "
                "inside an event loop."
            )
            raise RuntimeError(msg)
        raw, call_id, lenient = unpack_call(arguments, call_id, null_means_default)
        if call_id is None and context is not None:
            call_id = context.call_id
        plans = self._plans(aliases)
        if plans is None:
            return self._run_sync(raw, context, call_id, lenient)
        assert isinstance(aliases, AliasSession)  # `_plans` checked it
        got = drive_sync(self._resolving(plans, raw, call_id), aliases)
        if isinstance(got, ToolOutcome):
            return got
        outcome = restored(self._run_sync(got[0], context, call_id, lenient), got[1])
        return drive_sync(self._aliasing(plans, outcome), aliases)  # type: ignore[no-any-return]

    def _run_sync(
        self,
        arguments: Arguments,
        context: ToolContext | None,
        call_id: str | None,
        null_means_default: bool,
    ) -> ToolOutcome:
        if call_id is None and context is not None:
            call_id = context.call_id
        try:
            args = self._parse(arguments, null_means_default)
        except ArgumentsError as exc:
            return self._refused(exc, call_id)
        ctx = None if context is None and self._bare else self._context(context, call_id)
        direct = self._direct
        try:
            value = direct(**args) if direct is not None else self._call(args, ctx)
        except Exception as exc:
            outcome = failure_of(self.spec.name, exc, call_id)
        else:
            outcome = self._succeeded(value, call_id)
        return outcome if ctx is None else with_costs(outcome, ctx.costs)

    def _plans(self, aliases: AliasSession | RawIds | None) -> AliasPlans | None:
        """This tool's alias plans when a session is given and the tool marks ids."""
        if aliases is None:
            if self._aliased:
                raise TypeError(unaliased_message(self.spec))
            return None
        if aliases is RAW_IDS:
            return None
        if self._alias_plans is None or not isinstance(aliases, AliasSession):
            resolve = (self._options or ToolOptions()).resolve_aliases
            self._alias_plans = plans_of(self.spec, aliases, resolve=resolve)
        return self._alias_plans if self._alias_plans.any else None

    def _resolving(self, plans: AliasPlans, arguments: Arguments, call_id: str | None) -> Any:
        name, limit = self.spec.name, self._limits.max_bytes
        return resolve_arguments(plans, arguments, tool=name, call_id=call_id, max_bytes=limit)

    def _aliasing(self, plans: AliasPlans, outcome: ToolOutcome) -> Any:
        exact = self._analysis is not None and self._analysis.exact_output
        return alias_outcome(outcome, plans, exact=exact)

    def _parse(self, arguments: Arguments, lenient: bool) -> Any:
        """The validated argument object; raises ArgumentsError."""
        parser = self._lenient if lenient else self._parser
        if type(parser) is not Parser:
            parser = self._get_parser(lenient)
        return parser.parse(arguments)

    def _refused(self, exc: ArgumentsError, call_id: str | None) -> ToolOutcome:
        return ToolOutcome.failure(
            "invalid_arguments", exc.message, tool_name=self.spec.name, call_id=call_id
        )

    def _succeeded(self, value: Any, call_id: str | None) -> ToolOutcome:
        if type(value) is dict and self._dict_out:
            try:
                outcome = dict_outcome(self.spec.name, value, call_id)
            except Exception as exc:
                return self._unconvertible(exc, call_id)
            if len(outcome.text) <= self._max_chars:
                return outcome
            return cap_result(outcome, self._max_chars)
        try:
            outcome = outcome_of(self.spec, value, call_id, self._envelope, exact=self._exact)
        except Exception as exc:
            return self._unconvertible(exc, call_id)
        if len(outcome.text) > self._max_chars:
            outcome = cap_result(outcome, self._max_chars)
        return outcome if self.spec.deprecated is None else deprecation_noted(self.spec, outcome)

    def _unconvertible(self, exc: Exception, call_id: str | None) -> ToolOutcome:
        # The serialiser's own words name pydantic types; the host's log gets them.
        message = f"Tool '{self.spec.name}' failed: its result could not be converted to JSON."
        return ToolOutcome.failure(
            "exception", message, tool_name=self.spec.name, call_id=call_id, exception=exc
        )
