"""`toolcast inspect`, `call --grpc` and `lock` on gRPC targets."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from conftest import Compiled, Running
from toolcast._cli._main import main


def test_inspect_a_descriptor_set(compiled: Compiled, tmp_path: Path, capsys: object) -> None:
    path = tmp_path / "links.binpb"
    path.write_bytes(compiled.with_comments)
    assert main(["inspect", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    names = [tool["name"] for tool in document["tools"]]
    assert "links_create" in names
    assert names == sorted(names)


def test_inspect_a_pb2_module(compiled: Compiled, capsys: object) -> None:
    assert main(["inspect", "workflow.v1.workflow_pb2", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert next(t["name"] for t in document["tools"]) == "workflow_steps_add"


async def test_call_against_a_real_server(compiled: Compiled, server: Running) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(compiled.root), *sys.path])}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "toolcast",
        "call",
        "gen_tools",
        "themes_create",
        '{"name": "dark", "canvas_color": "#000", "container_enabled": true}',
        "--grpc",
        server.address,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    theme = json.loads(out)
    assert theme["name"] == "dark"
    assert theme["container_enabled"] is True
    assert server.state.requests[-1][0] == "CreateTheme"


def test_lock_a_grpc_catalog(compiled: Compiled, tmp_path: Path) -> None:
    module = tmp_path / "grpc_catalog_mod.py"
    module.write_text(
        "from toolcast import Catalog\n"
        "from toolcast.grpc import tools_from_descriptors\n"
        "import workflow.v1.workflow_pb2 as pb2\n"
        "catalog = Catalog(tools_from_descriptors(pb2))\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        lock = tmp_path / "tools.lock.json"
        assert main(["lock", "grpc_catalog_mod:catalog", "-o", str(lock)]) == 0
        assert main(["check", "grpc_catalog_mod:catalog", str(lock)]) == 0
    finally:
        sys.path.remove(str(tmp_path))
    names = json.dumps(json.loads(lock.read_text()))
    assert "workflow_steps_watch" in names


def test_lock_a_descriptor_set_and_a_generated_module(compiled: Compiled, tmp_path: Path) -> None:
    path = tmp_path / "workflow.binpb"
    path.write_bytes(compiled.workflow_set)
    from_set, from_module = tmp_path / "a.lock.json", tmp_path / "b.lock.json"
    assert main(["lock", str(path), "-o", str(from_set)]) == 0
    assert main(["lock", "gen_workflow", "-o", str(from_module)]) == 0
    assert main(["check", "workflow.v1.workflow_pb2", str(from_set)]) == 0
    tools_a = json.loads(from_set.read_text())["tools"]
    tools_b = json.loads(from_module.read_text())["tools"]
    assert tools_a == tools_b
