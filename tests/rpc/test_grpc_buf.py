"""`buf generate` (the buf-bin wheel) runs protoc-gen-toolcast like protoc does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PLUGIN, PROTO, protoc
from toolcast.grpc import include_path

BUF = shutil.which("buf", path=str(Path(sys.executable).parent)) or shutil.which("buf")

pytestmark = pytest.mark.skipif(BUF is None, reason="buf-bin is not installed")

BUF_YAML = """version: v2
modules:
  - path: proto
  - path: annotations
"""
BUF_GEN_YAML = """version: v2
inputs:
  - directory: .
plugins:
  - local: protoc-gen-toolcast
    out: gen
    strategy: all
"""


def test_buf_generate_writes_what_protoc_writes(tmp_path: Path) -> None:
    assert BUF is not None
    for package in ("links", "workflow", "google"):
        shutil.copytree(PROTO / package, tmp_path / "proto" / package)
    shutil.copytree(Path(include_path()) / "ai", tmp_path / "annotations" / "ai")
    (tmp_path / "buf.yaml").write_text(BUF_YAML)
    (tmp_path / "buf.gen.yaml").write_text(BUF_GEN_YAML)
    env = {**os.environ, "PATH": os.pathsep.join([str(PLUGIN.parent), os.environ["PATH"]])}
    paths = ["--path", "proto/links", "--path", "proto/workflow"]
    done = subprocess.run(
        [BUF, "generate", *paths],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    by_buf = (tmp_path / "gen" / "toolcast_tools.py").read_text()
    out = tmp_path / "protoc"
    out.mkdir()
    files = ["links/v1/links.proto", "workflow/v1/workflow.proto"]
    result = protoc(f"--plugin=protoc-gen-toolcast={PLUGIN}", f"--toolcast_out={out}", *files)
    assert result.returncode == 0, result.stderr
    by_protoc = (out / "toolcast_tools.py").read_text()
    assert by_buf == by_protoc
