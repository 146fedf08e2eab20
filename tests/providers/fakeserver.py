"""A tiny recording HTTP server on 127.0.0.1 for driving real SDK clients in tests.

Queue canned responses per path (JSON bodies or server-sent-event streams), point
a client's base URL at `server.url`, and read back `server.requests` to see
exactly what the client sent. It listens on an ephemeral port of 127.0.0.1 only
and runs in a daemon thread; nothing leaves the machine.

Example:
    >>> with FakeServer() as server:
    ...     server.queue("/v1/chat/completions", {"id": "x", ...})
    ...     client = openai.OpenAI(base_url=server.url + "/v1", api_key="test")
    ...     client.chat.completions.create(...)
    ...     server.requests[0].json["tools"]
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

__all__ = ("Canned", "FakeServer", "Recorded")


@dataclass(frozen=True)
class Canned:
    """One canned answer."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body parsed as JSON (None when empty)."""
        return json.loads(self.body) if self.body else None


class FakeServer:
    """Answers each path from its own queue of canned responses, in order."""

    def __init__(self) -> None:
        self._queues: dict[str, deque[Canned]] = {}
        self._lock = threading.Lock()
        self.requests: list[Recorded] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # -- lifecycle ------------------------------------------------------------------

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`, without a trailing slash."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- canned answers -------------------------------------------------------------

    def queue(
        self,
        path: str,
        body: Any,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Answer the next request to `path` with `body` as JSON (bytes as is)."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self._push(path, Canned(status, raw, "application/json", dict(headers or {})))

    def queue_stream(
        self,
        path: str,
        events: Iterable[Any],
        *,
        named: bool = False,
        done: bool = True,
    ) -> None:
        """Answer the next request to `path` with a server-sent-event stream.

        Each event is a JSON `data:` line; with `named`, an `event: <type>` line
        comes first (the Responses API style); with `done`, `data: [DONE]` ends it
        (the Chat Completions style).
        """
        lines = []
        for event in events:
            if named:
                lines.append(f"event: {event['type']}\n")
            lines.append(f"data: {json.dumps(event)}\n\n")
        if done:
            lines.append("data: [DONE]\n\n")
        self._push(path, Canned(200, "".join(lines).encode(), "text/event-stream"))

    def _push(self, path: str, canned: Canned) -> None:
        with self._lock:
            self._queues.setdefault(path, deque()).append(canned)

    def _next(self, method: str, path: str) -> Canned:
        with self._lock:
            pending = self._queues.get(path)
            if pending:
                return pending.popleft()
        message = {"error": {"message": f"no canned response for {method} {path}"}}
        return Canned(500, json.dumps(message).encode())

    def pending(self) -> dict[str, int]:
        """How many canned answers are still queued, per path."""
        with self._lock:
            return {path: len(q) for path, q in self._queues.items() if q}

    def bodies(self, path: str | None = None) -> list[Any]:
        """The JSON bodies received (for one path, or all), in arrival order."""
        return [r.json for r in self.requests if path is None or r.path == path]

    # -- HTTP -----------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with server._lock:
                    server.requests.append(
                        Recorded(
                            self.command,
                            parts.path,
                            parts.query,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                        )
                    )
                canned = server._next(self.command, parts.path)
                self.send_response(canned.status)
                self.send_header("Content-Type", canned.content_type)
                self.send_header("Content-Length", str(len(canned.body)))
                for key, value in canned.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(canned.body)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

        return Handler
