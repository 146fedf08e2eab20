"""The instance a method tool runs on: what a target resolver returned, awaited if async.

`invoke` awaits an async resolver (`async def resolve(tool, call) -> obj`, or one
returning an awaitable) before the call; `invoke_sync` runs it to completion when
no event loop is running, and refuses it inside one.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from typing import Any

__all__ = ("HostError", "receiver_later", "receiver_now")


class HostError(RuntimeError):
    """The host, not the model, got something wrong (a missing injected value)."""


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def receiver_now(resolved: Any) -> Any:
    """`resolved`, run to completion first when it is awaitable (synchronous callers)."""
    if not inspect.isawaitable(resolved):
        return resolved
    import asyncio  # loaded on first use: it is a large share of `import toolcast`

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(resolved))
    if inspect.iscoroutine(resolved):
        resolved.close()  # never awaited: close it so Python does not warn
    msg = "the target resolver is async: use 'await tool.invoke(...)' inside an event loop"
    raise HostError(msg)


async def receiver_later(resolved: Any) -> Any:
    """`resolved`, awaited when it is awaitable."""
    return await resolved if inspect.isawaitable(resolved) else resolved
