"""An httpx transport for pydantic-ai against llama-cpp-python's server.

llama-cpp-python's server (0.3.36) refuses an assistant message whose `content` is
null (its request model wants a string): HTTP 500, "Input should be a valid
string". That is what pydantic-ai sends beside `tool_calls`, and OpenAI's API
allows it. `EmptyContent` rewrites that one field to "" on the way out, the way
toolcast's own `llama-cpp-python` profile sends it; nothing else is touched.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

__all__ = ("EmptyContent",)


class EmptyContent(httpx.AsyncBaseTransport):
    """Send "" for an assistant message's null `content`, which llama-cpp-python refuses."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()

    @staticmethod
    def client(**options: Any) -> httpx.AsyncClient:
        """An `httpx.AsyncClient` sending through this transport (for `OpenAIProvider`)."""
        return httpx.AsyncClient(transport=EmptyContent(), **options)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/chat/completions"):
            body = json.loads(request.content)
            for message in body.get("messages", []):
                if message.get("role") == "assistant" and message.get("content") is None:
                    message["content"] = ""
            request = httpx.Request(
                request.method,
                request.url,
                headers={k: v for k, v in request.headers.items() if k != "content-length"},
                content=json.dumps(body).encode(),
            )
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()
