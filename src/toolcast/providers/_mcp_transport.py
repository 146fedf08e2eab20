"""Running an MCP `Server` over stdio or streamable HTTP until told to stop.

Both transports stop cleanly on SIGINT and SIGTERM when `handle_signals` is on
(the `toolcast serve` command turns it on): running calls are cancelled, open
HTTP sessions are closed, and the coroutine returns. HTTP binds 127.0.0.1 by
default and keeps the SDK's DNS-rebinding protection (Host and Origin checks)
on for loopback hosts; a request body over `max_request_bytes` gets HTTP 413.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import queue
import signal
import socket
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any

from toolcast.providers._mcp_calls import INSTALL_HINT

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ("MAX_LINE_BYTES", "serve_http", "serve_stdio")

MAX_LINE_BYTES = 4 << 20
"""Largest JSON-RPC message accepted on stdio (the HTTP transport's default body limit)."""

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_SKIPPED = "<toolcast: oversized message skipped>"


async def serve_stdio(server: Server[Any], *, handle_signals: bool = False) -> None:
    """Serve `server` over this process's stdin and stdout until EOF (or a signal).

    A line longer than `MAX_LINE_BYTES` is skipped and answered as a parse error
    without reading it into memory; fd 0 and fd 1 are diverted while serving, so a
    tool that prints or reads stdin cannot corrupt the protocol.
    """
    try:
        import anyio
        from mcp.server.runner import serve_dual_era_loop
        from mcp.server.stdio import stdio_server
    except ImportError:
        raise ImportError(INSTALL_HINT) from None

    # The outer scope covers the SDK's stdin/stdout tasks too, so a signal (or the
    # end of the session) stops them instead of waiting for the client's next line.
    async with anyio.create_task_group() as outer:
        if handle_signals:
            outer.start_soon(_stop_on_signal, outer.cancel_scope.cancel)
        async with (
            _stdin_lines() as lines,
            stdio_server(stdin=lines) as (raw_read, write),  # type: ignore[arg-type]
            server.lifespan(server) as state,
            anyio.create_task_group() as group,
        ):
            relay, read = anyio.create_memory_object_stream[Any](0)
            group.start_soon(_answer_parse_errors, raw_read, relay, write)
            # The client's first request picks the era: `initialize` or a 2026 envelope.
            await serve_dual_era_loop(
                server,
                read,
                write,
                lifespan_state=state,
                init_options=server.create_initialization_options(),
            )
            outer.cancel_scope.cancel()


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
    max_sessions: int | None = 10_000,
    session_idle_timeout: float | None = 1800.0,
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
        max_sessions: Most handshake-era sessions open at once (None: no limit); a
            client past it is refused until one ends or idles out.
        session_idle_timeout: Seconds after which an idle handshake-era session is
            closed (None: never). 2026-07-28 requests have no session.
    """
    try:
        import anyio
        import uvicorn
        from mcp.server.transport_security import TransportSecuritySettings
    except ImportError:
        raise ImportError(INSTALL_HINT) from None

    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if host not in _LOOPBACK:
        hosts.append(f"{host}:*")
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*hosts, *allowed_hosts],
        allowed_origins=[*origins, *allowed_origins],
    )
    options: dict[str, Any] = {
        "max_sessions": max_sessions,
        "session_idle_timeout": session_idle_timeout,
    }
    if max_request_bytes is not None:
        options["max_request_body_size"] = max_request_bytes
    app = server.streamable_http_app(
        streamable_http_path=path, transport_security=security, host=host, **options
    )
    sock = listening_socket(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=3)

    class QuietServer(uvicorn.Server):
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


def listening_socket(host: str, port: int) -> socket.socket:
    """A non-blocking TCP socket listening on `(host, port)`.

    Created with `IPPROTO_TCP` on purpose: asyncio sets `TCP_NODELAY` on an
    accepted connection only when the socket says it is TCP, and without it every
    response (headers, then body) waits on Nagle and the client's delayed ACK,
    about 40 ms per call on Linux.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


async def _announce(web: Any, on_ready: Callable[[str], object], url: str) -> None:
    import anyio

    while not web.started:
        await anyio.sleep(0.01)
    on_ready(url)


async def _answer_parse_errors(source: Any, relay: Any, write: Any) -> None:
    """Pass messages on; answer a line that is not JSON-RPC with a parse error.

    JSON-RPC 2.0 asks for `{"id": null, "error": {"code": -32700}}`; the SDK's
    loop would drop such lines without a word.
    """
    import mcp.types as mcp_types
    from mcp.shared.message import SessionMessage

    async with relay:
        async for item in source:
            if not isinstance(item, Exception):
                await relay.send(item)
                continue
            if _SKIPPED in str(item):
                message = (
                    f"Parse error: the message is over {MAX_LINE_BYTES} bytes; it was skipped."
                )
            else:
                message = "Parse error: the line is not a JSON-RPC 2.0 message."
            error = mcp_types.JSONRPCError(
                jsonrpc="2.0",
                id=None,
                error=mcp_types.ErrorData(code=mcp_types.PARSE_ERROR, message=message),
            )
            await write.send(SessionMessage(error))


def _settle(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


async def _stop_on_signal(stop: Callable[[], object]) -> None:
    import anyio

    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
        async for _ in received:
            stop()
            return


class _Lines:
    """stdin as text lines, read by a daemon thread that a shutdown can leave behind.

    anyio's file wrapper reads in a worker thread that can be neither cancelled
    nor left behind at exit, so SIGTERM would wait for the client's next line.
    """

    def __init__(self, raw: io.BufferedReader) -> None:
        self._raw = raw
        self._wanted: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]]
        self._wanted = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="toolcast-stdin", daemon=True)
            self._thread.start()
        loop = asyncio.get_running_loop()
        while True:
            future: asyncio.Future[Any] = loop.create_future()
            self._wanted.put((loop, future))
            line = await future
            if line is None:
                return
            yield line

    def _serve(self) -> None:
        while True:
            loop, future = self._wanted.get()
            try:
                line: Any = self._read_line()
            except (OSError, ValueError):
                line = None
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody listens
                loop.call_soon_threadsafe(_settle, future, line)
            if line is None:
                return

    def _read_line(self) -> str | None:
        data = self._raw.readline(MAX_LINE_BYTES + 1)
        if not data:
            return None
        if len(data) > MAX_LINE_BYTES and not data.endswith(b"\n"):
            while data and not data.endswith(b"\n"):  # skip the rest, never keep it
                data = self._raw.readline(1 << 16)
            # Not JSON: the transport answers it with a parse error.
            return f"{_SKIPPED}\n"
        return data.decode("utf-8", errors="replace")


@contextlib.asynccontextmanager
async def _stdin_lines() -> AsyncIterator[_Lines]:
    # Read from a private copy of fd 0 and point fd 0 at the null device, so a
    # tool reading stdin sees EOF instead of eating protocol bytes.
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # closefd=False: the reader thread left behind at shutdown may still block on it.
    raw = open(private, "rb", buffering=0, closefd=False)  # noqa: SIM115
    try:
        yield _Lines(io.BufferedReader(raw))
    finally:
        with contextlib.suppress(OSError):
            os.dup2(private, 0)
