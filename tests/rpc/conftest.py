"""Protos compiled once per session into a tmp dir, and a real grpc.aio server per test.

Nothing generated is committed: `grpc_tools.protoc` writes the `_pb2` modules,
the descriptor sets and the `protoc-gen-toolcast` module into a tmp directory
that goes on `sys.path` for the session.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from toolcast.grpc import include_path

try:
    import grpc
    import grpc_tools
except ImportError:  # the `grpc` extra is not installed: nothing here can run
    collect_ignore_glob = ["test_*.py"]

PROTO = Path(__file__).resolve().parent / "proto"
SERVED = ["links/v1/links.proto", "workflow/v1/workflow.proto", "kitchen/v1/kitchen.proto"]
PLUGIN = Path(sys.executable).with_name("protoc-gen-toolcast")


def protoc(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m grpc_tools.protoc` with the test protos and toolcast's annotations."""
    command = [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO}", f"-I{include_path()}"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=60)


def googleapis_path() -> str:
    """The `-I` of the .proto files googleapis-common-protos installs."""
    from importlib.metadata import distribution

    # From the distribution, not `google.api.*_pb2.__file__`: the session fixture
    # compiles its own copy of field_behavior.proto onto sys.path.
    found = distribution("googleapis-common-protos").locate_file("google/api/resource.proto")
    return str(Path(str(found)).resolve().parents[2])


def protoc_with(includes: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m grpc_tools.protoc` with `includes`, then the installed protos."""
    wkt = Path(grpc_tools.__file__).resolve().parent / "_proto"
    command = [sys.executable, "-m", "grpc_tools.protoc", *includes, f"-I{googleapis_path()}"]
    return subprocess.run([*command, f"-I{wkt}", *args], capture_output=True, text=True, timeout=60)


def check(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr


@dataclass(frozen=True)
class Compiled:
    """Where the session's generated code and descriptor sets are."""

    root: Path
    with_comments: bytes
    without_comments: bytes
    workflow_set: bytes
    modules: dict[str, ModuleType]

    def module(self, name: str) -> ModuleType:
        return self.modules[name]


@pytest.fixture(scope="session")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    root = tmp_path_factory.mktemp("grpc_gen")
    annotations = "ai/tools/v1/annotations.proto"
    everything = [*SERVED, "google/api/field_behavior.proto", annotations]
    check(protoc(f"--python_out={root}", f"--grpc_python_out={root}", *everything))
    for name, extra in (("with", ["--include_source_info"]), ("without", [])):
        out = root / f"{name}.binpb"
        check(protoc(f"--descriptor_set_out={out}", "--include_imports", *extra, *SERVED))
    workflow = root / "workflow.binpb"
    check(protoc(f"--descriptor_set_out={workflow}", "--include_imports", SERVED[1]))
    check(
        protoc(
            f"--plugin=protoc-gen-toolcast={PLUGIN}",
            f"--toolcast_out=module=gen_tools:{root}",
            *SERVED,
        )
    )
    check(
        protoc(
            f"--plugin=protoc-gen-toolcast={PLUGIN}",
            f"--toolcast_out=module=gen_workflow:{root}",
            SERVED[1],
        )
    )
    sys.path.insert(0, str(root))
    names = [
        "links.v1.links_pb2",
        "links.v1.links_pb2_grpc",
        "workflow.v1.workflow_pb2",
        "workflow.v1.workflow_pb2_grpc",
        "kitchen.v1.kitchen_pb2",
        "kitchen.v1.kitchen_pb2_grpc",
        "gen_tools",
        "gen_workflow",
    ]
    modules = {name: importlib.import_module(name) for name in names}
    return Compiled(
        root,
        (root / "with.binpb").read_bytes(),
        (root / "without.binpb").read_bytes(),
        workflow.read_bytes(),
        modules,
    )


CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass(frozen=True)
class Library:
    """The corpus' AIP-style library service, compiled: modules and a descriptor set."""

    pb2: ModuleType
    grpc: ModuleType
    descriptor_set: bytes


@pytest.fixture(scope="session")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    root = tmp_path_factory.mktemp("library_gen")
    source = "library/v1/library.proto"
    out = root / "library.binpb"
    check(
        protoc_with(
            [f"-I{CORPUS}"],
            f"--python_out={root}",
            f"--grpc_python_out={root}",
            f"--descriptor_set_out={out}",
            "--include_imports",
            "--include_source_info",
            source,
        )
    )
    sys.path.insert(0, str(root))
    pb2 = importlib.import_module("library.v1.library_pb2")
    stubs = importlib.import_module("library.v1.library_pb2_grpc")
    return Library(pb2, stubs, out.read_bytes())


@dataclass
class Running:
    """A started server and a client channel to it."""

    address: str
    channel: grpc.aio.Channel
    state: Any  # grpc_service.State


@pytest.fixture
async def server(compiled: Compiled) -> AsyncIterator[Running]:
    from grpc_service import State, serve

    state = State()
    started, port = await serve(compiled.modules, state)
    address = f"127.0.0.1:{port}"
    channel = grpc.aio.insecure_channel(address)
    try:
        yield Running(address, channel, state)
    finally:
        await channel.close()
        await started.stop(grace=None)
