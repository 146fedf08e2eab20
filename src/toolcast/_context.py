"""`ToolContext` and `Injected`: values the runtime passes in, never shown to the model."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

ProgressHook = Callable[[float, "float | None", "str | None"], None]
"""`(progress, total, message) -> None`: where a call's progress reports go."""

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

    def bind(self, *, call_id: str | None, tool_name: str) -> ToolContext:
        """A copy for one call, sharing `state` and the progress hook, with its own cancel signal."""
        return ToolContext(
            call_id=call_id, tool_name=tool_name, state=self.state, progress_hook=self.progress_hook
        )
