"""Helpers for tests/serving: `toolcast serve` as a real subprocess, recording clients.

Not a conftest, and the folder is not named `mcp`: on sys.path that name would shadow the SDK.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
TOOLS = HERE / "shop_tools.py"
REPO = HERE.parents[1]


def serve_command(*extra: str, target: str = str(TOOLS)) -> list[str]:
    """The `toolcast serve` command line for the test tools."""
    return [sys.executable, "-m", "toolcast", "serve", target, *extra]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(HERE)])
    env.pop("COVERAGE_PROCESS_START", None)
    return env


@dataclass
class HttpServer:
    """A `toolcast serve --http` process and its endpoint."""

    process: subprocess.Popen[str]
    url: str

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            raise


def start_http(*extra: str, target: str = str(TOOLS)) -> HttpServer:
    """Start `toolcast serve --http --port 0` and wait for its URL on stderr."""
    process = subprocess.Popen(
        serve_command("--http", "--port", "0", *extra, target=target),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        env=child_env(),
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    if " on http://" not in line:
        process.kill()
        rest = process.stderr.read()
        pytest.fail(f"toolcast serve did not start: {line}{rest}")
    return HttpServer(process, line.rsplit(" ", 1)[-1].strip())


class Recorder:
    """An MCP client `message_handler` that keeps what the server pushed."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def __call__(self, message: Any) -> None:
        self.messages.append(getattr(message, "root", message))

    def kinds(self) -> list[str]:
        return [type(m).__name__ for m in self.messages]


class Answer:
    """An elicitation callback giving scripted answers in turn, recording each question."""

    def __init__(self, *actions: str) -> None:
        self.actions = list(actions)
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: Any) -> Any:
        import mcp.types as mcp_types

        self.asked.append(params.message)
        action = self.actions.pop(0)
        content = {} if action == "accept" else None
        return mcp_types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]
