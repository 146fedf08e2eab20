"""`ToolContext` and `Injected`: values the runtime passes in, never shown to the model."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolcast._clock import SYSTEM_CLOCK, Clock
from toolcast._cost import Cost

ProgressHook = Callable[[float, "float | None", "str | None"], None]
"""`(progress, total, message) -> None`: where a call's progress reports go."""

LogHook = Callable[[str, Any], None]
"""`(level, data) -> None`: where a call's log entries go."""

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""The log levels `ToolContext.log` takes, lowest first (RFC 5424, as MCP uses them)."""

__all__ = ("Injected", "ToolContext")


@dataclass(frozen=True, slots=True)
class Injected:
    """Marks a parameter the host fills from `ToolContext.state[key]`.

    Example:
        >>> def f(q: str, db: Annotated[Database, Injected("db")]) -> str: ...
    """

    key: str
    """The key looked up in the context's state."""


@dataclass(slots=True, kw_only=True)
class ToolContext:
    """Per-call information for a tool that asks for it by annotation."""

    call_id: str | None = None
    """The id of the model's call."""
    tool_name: str = ""
    """The name the tool was called by."""
    state: Mapping[str, Any] = field(default_factory=dict)
    """Host-provided values (request, user, clients); `Injected` reads from here."""
    cancel_event: threading.Event = field(default_factory=threading.Event)
    """Set when the call is cancelled or timed out; sync code may poll it."""
    progress_hook: ProgressHook | None = None
    """Set by the host (e.g. the MCP server) to forward `report_progress`; must be thread-safe."""
    clock: Clock = SYSTEM_CLOCK
    """The clock the call's timeout runs on; sleep on it (`await ctx.clock.sleep(s)`)."""
    costs: list[Cost] = field(default_factory=list)
    """The cost lines recorded so far in this call (`add_cost`); the outcome gets them."""
    log_hook: LogHook | None = None
    """Set by the host (e.g. the MCP server) to forward `log`; must be thread-safe."""

    @property
    def cancelled(self) -> bool:
        """True once the caller gave up on this call (cancellation or timeout)."""
        return self.cancel_event.is_set()

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell the host how far the call got; a no-op when nobody listens.

        Callable from async tools and from sync tools running in a thread.
        """
        if self.progress_hook is not None:
            self.progress_hook(progress, total, message)

    def log(self, level: str, data: Any) -> None:
        """Send a log entry to the host (MCP: `notifications/message`); a no-op when nobody listens.

        Callable from async tools and from sync tools running in a thread.

        Args:
            level: One of `LOG_LEVELS` (`"debug"` ... `"emergency"`).
            data: A message, or any JSON-ready value.

        Raises:
            ValueError: `level` is not one of `LOG_LEVELS`.
        """
        if level not in LOG_LEVELS:
            msg = f"Unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}."
            raise ValueError(msg)
        if self.log_hook is not None:
            self.log_hook(level, data)

    def add_cost(self, amount: float, unit: str = "usd", label: str | None = None) -> Cost:
        """Record what this call spent; the line is on the outcome however the call ends.

        Thread-safe (a sync tool in a worker thread may call it). Lines recorded
        after a timeout has answered the model are not on that outcome.

        Raises:
            TypeError, ValueError: `amount` is not a finite number, or `unit` is empty.
        """
        line = Cost(amount, unit, label)
        self.costs.append(line)
        return line

    def bind(self, *, call_id: str | None, tool_name: str) -> ToolContext:
        """A copy for one call: same state, hook and clock; its own cancel signal and costs."""
        return ToolContext(
            call_id=call_id,
            tool_name=tool_name,
            state=self.state,
            progress_hook=self.progress_hook,
            clock=self.clock,
            log_hook=self.log_hook,
        )
