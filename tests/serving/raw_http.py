"""A raw HTTP/1.1 client on one keep-alive socket, for timing MCP round trips exactly.

No HTTP library in between: each request is one `sendall`, and the response is read
to its end (Content-Length or chunked). `quickack=True` re-arms Linux's
`TCP_QUICKACK` after every read, so this side never delays an ACK: a server whose
writes wait on Nagle then answers as fast as one that sets `TCP_NODELAY`.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def message(self) -> Any:
        """The JSON-RPC message of a JSON or single-event SSE body."""
        text = self.body.decode()
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
            return json.loads(data[-1])
        return json.loads(text)


class RawClient:
    """One TCP connection to an HTTP server, requests sent one at a time."""

    def __init__(self, url: str, *, quickack: bool = False) -> None:
        parts = urlsplit(url)
        self.host = parts.netloc
        self.path = parts.path or "/"
        self._quickack = quickack and hasattr(socket, "TCP_QUICKACK")
        self._sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        # The client never holds back its own writes: only the server's side is measured.
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buffer = b""

    def close(self) -> None:
        self._sock.close()

    def post(self, body: Any, headers: dict[str, str] | None = None) -> Response:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        lines = [
            f"POST {self.path} HTTP/1.1",
            f"Host: {self.host}",
            "Accept: application/json, text/event-stream",
            "Content-Type: application/json",
            f"Content-Length: {len(data)}",
            *(f"{k}: {v}" for k, v in (headers or {}).items()),
        ]
        self._sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
        return self._response()

    def _recv(self) -> None:
        chunk = self._sock.recv(1 << 16)
        if self._quickack:
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self._buffer += chunk

    def _take(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._recv()
        taken, self._buffer = self._buffer[:size], self._buffer[size:]
        return taken

    def _line(self) -> bytes:
        while b"\r\n" not in self._buffer:
            self._recv()
        line, self._buffer = self._buffer.split(b"\r\n", 1)
        return line

    def _response(self) -> Response:
        status = int(self._line().split()[1])
        headers: dict[str, str] = {}
        while line := self._line():
            key, _, value = line.decode().partition(":")
            headers[key.strip().lower()] = value.strip()
        if "content-length" in headers:
            return Response(status, headers, self._take(int(headers["content-length"])))
        body = b""
        while size := int(self._line(), 16):
            body += self._take(size)
            self._take(2)
        self._take(2)
        return Response(status, headers, body)
