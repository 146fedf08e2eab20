"""How validated arguments become the function's call: keywords, positionals, host values.

Built once per tool (`Tool` keeps the result), so a call whose validated arguments
are all the function takes, by keyword, is one `fn(**args)` and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolcast._context import ToolContext
from toolcast._define._function import CallPlan
from toolcast._define._schema import MISSING
from toolcast._receiver import HostError, receiver_now

__all__ = ("bound_call", "is_plain")

Receiver = Callable[[ToolContext | None, dict[str, Any]], Any]
"""Returns the instance a method runs on (the resolver sees the model's arguments)."""


def is_plain(plan: CallPlan) -> bool:
    """Whether the validated arguments are all the call takes, by keyword."""
    return not (
        plan.positional
        or plan.context_param
        or plan.injected
        or plan.needs_receiver
        or plan.field_defaults
    )


def bound_call(
    fn: Callable[..., Any], plan: CallPlan, receiver_of: Receiver
) -> Callable[[Any, ToolContext | None], Any]:
    """`call(args, ctx)`: `fn` called with the validated `args` as `plan` says."""
    if is_plain(plan):
        return lambda args, ctx: fn(**args)
    fills = plan.field_defaults

    def call(args: dict[str, Any], ctx: ToolContext | None) -> Any:
        # The resolver sees the model's arguments only, before host values join them.
        receiver = receiver_now(receiver_of(ctx, args)) if plan.needs_receiver else None
        for name, info in fills:
            if name not in args:
                data = dict(args)
                args[name] = info.get_default(call_default_factory=True, validated_data=data)
        if plan.context_param is not None:
            args[plan.context_param] = ctx
        for param, key, fallback in plan.injected:
            assert ctx is not None
            if key in ctx.state:
                args[param] = ctx.state[key]
            elif fallback is not MISSING:
                args[param] = fallback
            else:
                msg = f"the host did not provide {key!r} in ToolContext.state"
                raise HostError(msg)
        positional = [
            args.pop(name) if name in args else default for name, default in plan.positional
        ]
        if plan.needs_receiver:
            positional.insert(0, receiver)
        return fn(*positional, **args)

    return call
