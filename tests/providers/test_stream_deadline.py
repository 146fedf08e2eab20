"""Constrained requests on a `stream_to_stop` server: streamed, joined, closed at the timeout.

llama-cpp-python's server keeps generating a non-streamed request after the client
gave up; it stops a stream when the stream is closed. The adapter streams
constrained requests there and closes the stream at the client's timeout. Driven
with the official `openai` client against loopback servers: one that streams a
call in pieces (FakeServer), one that streams without end and records when the
client hangs up (the real-server version is in tests/model/test_profiles.py).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import openai
import pytest

from providers.fakeserver import FakeServer
from toolcast import Tool
from toolcast.loop import ModelRequest
from toolcast.providers import openai_chat
from toolcast.providers._deadline import deadline_of


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


REQUEST = ModelRequest(
    messages=[{"role": "user", "content": "1 + 2?"}],
    tools=(Tool.from_function(add).spec,),
    tool_choice="auto",
)


def _chunk(content: str | None, finish: str | None = None) -> dict[str, Any]:
    delta = {} if content is None else {"content": content}
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


async def test_a_streamed_constrained_reply_is_joined_into_the_call() -> None:
    text = '{"name": "add", "arguments": {"a": 1, "b": 2}}'
    with FakeServer() as server:
        events = [_chunk(None), *(_chunk(text[i : i + 7]) for i in range(0, len(text), 7))]
        server.queue_stream("/v1/chat/completions", [*events, _chunk(None, "stop")])
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="x", max_retries=0)
        model = openai_chat.Model(client, "m", profile="llama-cpp-python", constrain=True)
        turn = await model.complete(REQUEST)
        (sent,) = server.bodies("/v1/chat/completions")
    assert sent["stream"] is True
    assert "grammar" in sent
    (call,) = turn.calls
    assert (call.name, json.loads(str(call.arguments))) == ("add", {"a": 1, "b": 2})
    assert turn.finish_reason == "stop"
    assert turn.message["tool_calls"][0]["function"]["name"] == "add"


async def test_native_requests_and_other_profiles_are_not_streamed() -> None:
    reply = {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "3"},
                "finish_reason": "stop",
            }
        ],
    }
    with FakeServer() as server:
        server.queue("/v1/chat/completions", reply)
        server.queue("/v1/chat/completions", reply)
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="x", max_retries=0)
        native = openai_chat.Model(client, "m", profile="llama-cpp-python")
        other = openai_chat.Model(client, "m", profile="llama-server", constrain=True)
        assert (await native.complete(REQUEST)).text == "3"
        assert (await other.complete(REQUEST)).text == "3"
        bodies = server.bodies("/v1/chat/completions")
    assert [b.get("stream") for b in bodies] == [None, None]


class _Endless(BaseHTTPRequestHandler):
    """Streams chunks every 20 ms until the client hangs up, then sets `closed`."""

    closed = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for _ in range(3000):  # a minute at most, whatever the client does
                self.wfile.write(f"data: {json.dumps(_chunk('a'))}\n\n".encode())
                self.wfile.flush()
                threading.Event().wait(0.02)
        except OSError:  # the client closed the stream: what a server stops on
            type(self).closed.set()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def endless() -> Iterator[str]:
    _Endless.closed.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Endless)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


async def test_the_clients_timeout_closes_a_stream_that_keeps_sending(endless: str) -> None:
    # The SDK's timeout applies to each read, and this stream answers every 20 ms:
    # without the adapter's deadline it would run for a minute.
    client = openai.AsyncOpenAI(base_url=endless, api_key="x", max_retries=0, timeout=0.5)
    model = openai_chat.Model(client, "m", profile="llama-cpp-python", constrain=True)
    with pytest.raises(openai.APITimeoutError):
        await model.complete(REQUEST)
    assert await asyncio.to_thread(_Endless.closed.wait, 10), "the stream was never closed"


@pytest.mark.parametrize(
    ("client_timeout", "options", "expected"),
    [
        (30.0, {}, 30.0),
        (httpx.Timeout(5.0, read=12.0), {}, 12.0),
        (30.0, {"timeout": 2}, 2.0),
        (None, {}, None),
        (httpx.Timeout(None), {}, None),
        (30.0, {"timeout": True}, None),
    ],
)
def test_the_deadline_is_the_requests_timeout_else_the_clients(
    client_timeout: Any, options: dict[str, Any], expected: float | None
) -> None:
    class Client:
        timeout = client_timeout

    assert deadline_of(Client(), options) == expected
