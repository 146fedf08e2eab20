"""Running an MCP `Server` over stdio or streamable HTTP until told to stop.

Both transports stop cleanly on SIGINT and SIGTERM when `handle_signals` is on
(the `toolcast serve` command turns it on): running calls are cancelled, open
HTTP sessions are closed, and the coroutine returns. HTTP binds 127.0.0.1 by
default and keeps the SDK's DNS-rebinding protection (Host and Origin checks)
on for loopback hosts; a request body over `max_request_bytes` gets HTTP 413.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any

from toolcast.providers._mcp_server import INSTALL_HINT, require_sessions

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ("MAX_LINE_BYTES", "serve_http", "serve_stdio")

MAX_LINE_BYTES = 4 << 20
"""Largest JSON-RPC message accepted on stdio (the HTTP transport's default body limit)."""

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


async def serve_stdio(server: Server[Any], *, handle_signals: bool = False) -> None:
    """Serve `server` over this process's stdin and stdout until EOF (or a signal).

    A line longer than `MAX_LINE_BYTES` is skipped and answered as a parse error
    without reading it into memory; fd 0 and fd 1 are diverted while serving, so a
    tool that prints or reads stdin cannot corrupt the protocol.
    """
    try:
        import anyio
        from mcp.server.runner import serve_loop
        from mcp.server.stdio import stdio_server
    except ImportError:
        raise ImportError(INSTALL_HINT) from None

    require_sessions(server)
    async with _stdin_lines() as lines, stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
        async with server.lifespan(server) as state, anyio.create_task_group() as group:
            if handle_signals:
                group.start_soon(_stop_on_signal, group.cancel_scope.cancel)
            # The handshake-only loop: `Server.run` would let a 2026 discover probe lock
            # the connection to the stateless era before the client falls back.
            await serve_loop(
                server,
                read,
                write,
                lifespan_state=state,
                init_options=server.create_initialization_options(),
            )
            group.cancel_scope.cancel()


async def serve_http(
    server: Server[Any],
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    path: str = "/mcp",
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    max_request_bytes: int | None = None,
    handle_signals: bool = False,
    on_ready: Callable[[str], object] | None = None,
) -> None:
    """Serve `server` over streamable HTTP at `http://host:port/path` until cancelled.

    Args:
        server: The MCP server (`providers.mcp.create_server`).
        host: The interface to bind; loopback by default.
        port: The TCP port; 0 picks a free one (see `on_ready`).
        path: The MCP endpoint path.
        allowed_hosts: Extra `Host` header values to accept (`"example.com:*"`).
        allowed_origins: Extra `Origin` values to accept (`"https://app.example"`).
        max_request_bytes: Largest request body; the SDK's default (4 MiB) when None.
        handle_signals: Stop cleanly on SIGINT/SIGTERM.
        on_ready: Called with the endpoint URL once the socket is listening.
    """
    try:
        import anyio
        import uvicorn
        from mcp.server.transport_security import TransportSecuritySettings
    except ImportError:
        raise ImportError(INSTALL_HINT) from None

    require_sessions(server)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if host not in _LOOPBACK:
        hosts.append(f"{host}:*")
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*hosts, *allowed_hosts],
        allowed_origins=[*origins, *allowed_origins],
    )
    options: dict[str, Any] = {}
    if max_request_bytes is not None:
        options["max_request_body_size"] = max_request_bytes
    app = server.streamable_http_app(
        streamable_http_path=path, transport_security=security, host=host, **options
    )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=3)

    class QuietServer(uvicorn.Server):  # type: ignore[misc]
        # No signal handlers of uvicorn's own: `handle_signals` decides.
        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            yield

    web = QuietServer(config)
    try:
        async with anyio.create_task_group() as group:
            if handle_signals:
                group.start_soon(_stop_on_signal, lambda: setattr(web, "should_exit", True))
            if on_ready is not None:
                group.start_soon(_announce, web, on_ready, f"http://{shown}:{bound}{path}")
            await web.serve(sockets=[sock])
            group.cancel_scope.cancel()
    finally:
        sock.close()


async def _announce(web: Any, on_ready: Callable[[str], object], url: str) -> None:
    import anyio

    while not web.started:
        await anyio.sleep(0.01)
    on_ready(url)


async def _stop_on_signal(stop: Callable[[], object]) -> None:
    import anyio

    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
        async for _ in received:
            stop()
            return


class _Lines:
    """stdin as text lines read in a worker thread that a shutdown can abandon.

    anyio's own file wrapper cannot be cancelled while a read blocks, which would
    keep SIGTERM waiting for the client's next line.
    """

    def __init__(self, raw: io.BufferedReader) -> None:
        self._raw = raw

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        import anyio

        while True:
            line = await anyio.to_thread.run_sync(self._read_line, abandon_on_cancel=True)
            if line is None:
                return
            yield line

    def _read_line(self) -> str | None:
        data = self._raw.readline(MAX_LINE_BYTES + 1)
        if not data:
            return None
        if len(data) > MAX_LINE_BYTES and not data.endswith(b"\n"):
            while data and not data.endswith(b"\n"):  # skip the rest, never keep it
                data = self._raw.readline(1 << 16)
            # Not JSON: the transport answers it with a parse error.
            return f"<message over {MAX_LINE_BYTES} bytes skipped>\n"
        return data.decode("utf-8", errors="replace")


@contextlib.asynccontextmanager
async def _stdin_lines() -> AsyncIterator[_Lines]:
    # Read from a private copy of fd 0 and point fd 0 at the null device, so a
    # tool reading stdin sees EOF instead of eating protocol bytes.
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # closefd=False: an abandoned worker thread may still block on it.
    raw = open(private, "rb", buffering=0, closefd=False)  # noqa: SIM115
    try:
        yield _Lines(io.BufferedReader(raw))  # type: ignore[arg-type]
    finally:
        with contextlib.suppress(OSError):
            os.dup2(private, 0)
        sys.stdin = sys.__stdin__
