"""A small round-robin HTTP/1.1 proxy on 127.0.0.1, for the replica test.

Each request goes to the next backend in turn on a fresh backend connection
(`Connection: close`), so consecutive requests of one client land on different
replicas even when the client keeps its connection alive; the response is piped
back until the backend closes, and then the client connection is closed too.
`served` records the backend index of every request, in order.
"""

from __future__ import annotations

import asyncio
import itertools


def backends_of(urls: list[str]) -> list[tuple[str, int]]:
    """`(host, port)` of each `http://host:port/path` URL."""
    backends = []
    for url in urls:
        hostport = url.split("//", 1)[1].split("/", 1)[0]
        host, port = hostport.rsplit(":", 1)
        backends.append((host, int(port)))
    return backends


class RoundRobinProxy:
    def __init__(self, backends: list[tuple[str, int]]) -> None:
        self.backends = backends
        self.served: list[int] = []
        self.methods: list[str] = []
        self._turn = itertools.cycle(range(len(backends)))
        self._server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> RoundRobinProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = [
                line for line in lines[1:] if line and not line.lower().startswith("connection:")
            ]
            length = next(
                (
                    int(h.split(":", 1)[1])
                    for h in headers
                    if h.lower().startswith("content-length:")
                ),
                0,
            )
            body = await reader.readexactly(length)
            index = next(self._turn)
            self.served.append(index)
            self.methods.append(_method_of(body))
            host, port = self.backends[index]
            up_reader, up_writer = await asyncio.open_connection(host, port)
            request = "\r\n".join([lines[0], *headers, "Connection: close", "", ""]).encode()
            up_writer.write(request + body)
            await up_writer.drain()
            while chunk := await up_reader.read(1 << 16):
                writer.write(chunk)
                await writer.drain()
            up_writer.close()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def _method_of(body: bytes) -> str:
    import json

    try:
        return str(json.loads(body).get("method", ""))
    except (ValueError, AttributeError):
        return ""
