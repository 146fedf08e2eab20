"""`toolcast serve --http` answers without waiting on Nagle: TCP_NODELAY on every connection.

Claims: a connection accepted on the socket `serve_http` listens on has `TCP_NODELAY`
set; and a round trip measured with a raw HTTP client costs the same whether or not
the client delays its ACKs. Without TCP_NODELAY the server's second write of each
response (headers, then body) waits for the client's delayed ACK (~40 ms on Linux),
so a plain client is an order of magnitude slower than one that ACKs at once; the
claim is a ratio of the two medians, never a wall-clock limit.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import sys
import time

import pytest
from mcp_serve_helpers import HttpServer, start_http
from raw_http import RawClient

from toolcast.providers._mcp_transport import listening_socket

_CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "add", "arguments": {"a": 20, "b": 22}},
}


async def test_accepted_connections_have_tcp_nodelay() -> None:
    sock = listening_socket("127.0.0.1", 0)
    accepted: asyncio.Queue[int] = asyncio.Queue()

    def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("socket")
        accepted.put_nowait(peer.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(connected, sock=sock)
    try:
        port = sock.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(accepted.get(), 10) != 0
        writer.close()
    finally:
        server.close()
        await server.wait_closed()


def _session(client: RawClient, version: str = "2025-11-25") -> dict[str, str]:
    init = client.post(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }
    )
    assert init.status == 200, init.body
    headers = {"Mcp-Session-Id": init.headers["mcp-session-id"], "MCP-Protocol-Version": version}
    assert (
        client.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers).status
        == 202
    )
    return headers


def _median_ms(client: RawClient, headers: dict[str, str], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        answer = client.post(_CALL, headers)
        times.append(time.perf_counter() - start)
        assert answer.message()["result"]["structuredContent"] == {"result": 42}
    return statistics.median(times) * 1000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="TCP_QUICKACK is Linux's")
def test_a_call_does_not_wait_on_the_clients_delayed_ack() -> None:
    server: HttpServer = start_http()
    plain, quick = RawClient(server.url), RawClient(server.url, quickack=True)
    try:
        plain_headers, quick_headers = _session(plain), _session(quick)
        _median_ms(plain, plain_headers, 3)  # warm both paths up
        _median_ms(quick, quick_headers, 3)
        # Interleaved rounds, so a busy machine slows both alike.
        plain_ms, quick_ms = [], []
        for _ in range(5):
            plain_ms.append(_median_ms(plain, plain_headers, 5))
            quick_ms.append(_median_ms(quick, quick_headers, 5))
        ratio = statistics.median(plain_ms) / statistics.median(quick_ms)
        # With Nagle in the way the plain client pays ~40 ms a call against a few ms:
        # a ratio of 5 to 20. Without it both are the same call.
        assert ratio < 2.5, (plain_ms, quick_ms)
    finally:
        plain.close()
        quick.close()
        server.stop()
