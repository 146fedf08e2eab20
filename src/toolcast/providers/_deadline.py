"""A Chat Completions request streamed and joined, closed when the client's timeout fires.

llama-cpp-python's server goes on generating a non-streamed request after the
client gave up (its timeout closed the connection), and the next request waits
behind it: a timed-out request cost 67 s here before the next one started. It
stops a stream as soon as the stream is closed. So on such a server (a profile's
`stream_to_stop`) a constrained request is streamed, its text joined, and the
stream closed at the client's timeout taken as a deadline for the whole reply:
the SDK's own timeout applies to each read, and a stream that keeps sending never
trips it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from toolcast.providers._adapter import plain

__all__ = ("deadline_of", "joined_stream")


def deadline_of(client: Any, options: Mapping[str, Any]) -> float | None:
    """The seconds a whole reply may take: the request's `timeout`, else the client's.

    An `httpx.Timeout` gives its read timeout (what bounds a non-streamed reply);
    None means no deadline.
    """
    value = options.get("timeout", getattr(client, "timeout", None))
    value = getattr(value, "read", value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


async def joined_stream(stream: Any, deadline: float | None) -> dict[str, Any]:
    """The streamed reply as one non-streamed Chat Completions response (text only).

    Raises the SDK's `APITimeoutError` (TimeoutError for other clients) when the
    deadline passes; the stream is closed either way, which stops the server.
    """
    if isinstance(stream, Mapping) or hasattr(stream, "choices"):
        return dict(plain(stream))  # a client that ignores `stream` answered in one piece
    parts: list[str] = []
    finish: Any = None
    usage: Any = None
    chunks = stream if hasattr(stream, "__aiter__") else _each(stream)
    try:
        async with asyncio.timeout(deadline):
            async for chunk in chunks:
                data = plain(chunk)
                for choice in data.get("choices") or ():
                    parts.append(str((choice.get("delta") or {}).get("content") or ""))
                    finish = choice.get("finish_reason") or finish
                usage = data.get("usage") or usage
    except TimeoutError:
        response = getattr(stream, "response", None)
        if response is None:
            raise
        import openai  # the client is the SDK's: the `openai` extra is installed

        raise openai.APITimeoutError(request=response.request) from None
    finally:
        closed = getattr(stream, "close", lambda: None)()
        if inspect.isawaitable(closed):
            await closed
    reply: dict[str, Any] = {"role": "assistant", "content": "".join(parts)}
    data = {"choices": [{"index": 0, "message": reply, "finish_reason": finish}]}
    return {**data, "usage": usage} if usage else data


async def _each(chunks: Iterable[Any]) -> AsyncIterator[Any]:
    """A sync client's stream (it blocks the event loop, as its requests do)."""
    for chunk in chunks:
        yield chunk
