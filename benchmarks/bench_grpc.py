"""gRPC tools: per-call overhead on a loopback server, and tools built per RPC.

- `call`: validated arguments -> RPC -> JSON text through a `links_get`-like
  auto_execute tool with a per-conversation alias session (the id goes in as
  `item-1` and comes back aliased), as a ratio to a hand-written call through the
  generated stub + `MessageToDict` + `json.dumps` with the UUID itself,
  alternating call by call in the same run (goal ≤ 1.3x); `call_plain` the same
  without aliases. Times are wall clock (the RPC's work happens in grpc's threads).
- `build`: `tools_from_descriptors` on a descriptor set of 200 annotated RPCs, ms per tool.
Runs only when grpcio and grpcio-tools are installed.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks import Figure, Job

__all__ = ("figures", "jobs", "render", "work_build", "work_call")

TARGET = 1.3
_PROTO = """syntax = "proto3";
package bench.v1;
import "ai/tools/v1/annotations.proto";
message GetRequest { string id = 1; int32 size = 2; }
message Item { string id = 1; string title = 2; int64 count = 3; repeated string tags = 4; }
message GetAliasedRequest {
  string id = 1 [(ai.tools.v1.tool_field).alias_prefix = "item"];
  int32 size = 2;
}
message AliasedItem {
  string id = 1 [(ai.tools.v1.tool_field).alias_prefix = "item"];
  string title = 2; int64 count = 3; repeated string tags = 4;
}
service Bench {
  rpc Get(GetRequest) returns (Item) {
    option (ai.tools.v1.rpc_tool) = {name: "bench_get" auto_execute: true};
  }
  rpc GetAliased(GetAliasedRequest) returns (AliasedItem) {
    option (ai.tools.v1.rpc_tool) = {name: "bench_get_aliased" auto_execute: true};
  }
%s}
"""


def _compile(rpcs: int) -> tuple[Path, bytes]:
    from toolcast.grpc import include_path

    root = Path(tempfile.mkdtemp(prefix="bench_grpc_"))
    extra = "".join(
        f"  rpc Get{i}(GetRequest) returns (Item) {{ option (ai.tools.v1.rpc_tool) = "
        f'{{name: "bench_get_{i}" auto_execute: true}}; }}\n'
        for i in range(rpcs)
    )
    (root / "bench.proto").write_text(_PROTO % extra)
    command = [sys.executable, "-m", "grpc_tools.protoc", f"-I{root}", f"-I{include_path()}"]
    out = root / "set.binpb"
    subprocess.run(
        [*command, f"--python_out={root}", f"--grpc_python_out={root}",
         f"--descriptor_set_out={out}", "--include_imports", str(root / "bench.proto"),
         f"{include_path()}/ai/tools/v1/annotations.proto"],
        check=True,
    )  # fmt: skip
    return root, out.read_bytes()


def work_call(params: Mapping[str, Any]) -> dict[str, Any]:
    """Median µs per call of both paths, and their per-round ratio."""
    import grpc
    from google.protobuf import json_format

    from toolcast.grpc import tools_from_descriptors

    root, data = _compile(0)
    sys.path.insert(0, str(root))
    pb2 = importlib.import_module("bench_pb2")
    pb2_grpc = importlib.import_module("bench_pb2_grpc")
    calls = int(params["calls"])
    aliased = bool(params.get("aliased", True))

    class Servicer(pb2_grpc.BenchServicer):  # type: ignore[misc, name-defined]
        async def Get(self, request: Any, context: Any) -> Any:
            return pb2.Item(id=request.id, title="t", count=1 << 40, tags=["a", "b"])

        async def GetAliased(self, request: Any, context: Any) -> Any:
            return pb2.AliasedItem(id=request.id, title="t", count=1 << 40, tags=["a", "b"])

    async def main() -> dict[str, Any]:
        server = grpc.aio.server()
        pb2_grpc.add_BenchServicer_to_server(Servicer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        from toolcast.aliases import AliasSession

        tools = {t.name: t for t in tools_from_descriptors(data, channel=channel)}
        stub = pb2_grpc.BenchStub(channel)
        uuid = "0b8f3c2e-5d41-4a7b-9c1e-2f6a8d9e0b11"
        session = AliasSession("bench")
        alias = await session.register("item", uuid)
        if aliased:
            tool, args, session_for = (
                tools["bench_get_aliased"],
                f'{{"id": "{alias}", "size": 3}}',
                session,
            )
            method, request_cls = stub.GetAliased, pb2.GetAliasedRequest
        else:
            tool, args, session_for = tools["bench_get"], '{"id": "abc", "size": 3}', None
            method, request_cls = stub.Get, pb2.GetRequest
        hand_args = args.replace(alias, uuid)

        async def toolcast_path() -> None:
            outcome = await tool.invoke(args, aliases=session_for)
            assert not outcome.is_error, outcome.text

        async def hand_path() -> None:
            request = request_cls(**json.loads(hand_args))
            response = await method(request, timeout=30.0)
            json.dumps(json_format.MessageToDict(response, preserving_proto_field_name=True))

        for path in (toolcast_path, hand_path):
            for _ in range(50):
                await path()
        ratios, ours, theirs = [], [], []
        clock = time.perf_counter
        for _ in range(int(params["rounds"])):
            # Call by call, alternating, so load on a shared machine hits both alike.
            mine = hand = 0.0
            for _ in range(calls):
                start = clock()
                await toolcast_path()
                middle = clock()
                await hand_path()
                mine += middle - start
                hand += clock() - middle
            ours.append(mine / calls * 1e6)
            theirs.append(hand / calls * 1e6)
            ratios.append(mine / hand)
        await channel.close()
        await server.stop(None)
        return {
            "status": "ok",
            "toolcast_us": statistics.median(ours),
            "hand_us": statistics.median(theirs),
            "ratio": statistics.median(ratios),
        }

    return asyncio.run(main())


def work_build(params: Mapping[str, Any]) -> dict[str, Any]:
    """ms per tool to build tools for `rpcs` RPCs from a descriptor set."""
    from toolcast.grpc import tools_from_descriptors

    rpcs = int(params["rpcs"])
    _, data = _compile(rpcs - 1)
    timings = []
    for _ in range(int(params["rounds"])):
        start = time.perf_counter()
        tools = tools_from_descriptors(data)
        timings.append((time.perf_counter() - start) * 1e3 / len(tools))
    return {"status": "ok", "ms_per_tool": statistics.median(timings), "tools": rpcs}


def jobs(quick: bool) -> list[Job]:
    """Skipped (no jobs) when grpcio or grpcio-tools is missing."""
    import importlib.util

    if importlib.util.find_spec("grpc") is None or importlib.util.find_spec("grpc_tools") is None:
        return []
    rounds, calls = (3, 100) if quick else (15, 300)
    return [
        Job("grpc/call", "benchmarks.bench_grpc:work_call", {"rounds": rounds, "calls": calls}),
        Job(
            "grpc/call_plain",
            "benchmarks.bench_grpc:work_call",
            {"rounds": rounds, "calls": calls, "aliased": False},
        ),
        Job("grpc/build", "benchmarks.bench_grpc:work_build", {"rpcs": 200, "rounds": 3}),
    ]


def figures(results: Mapping[str, Any], quick: bool) -> list[Figure]:
    """The per-call ratio against the issue's goal."""
    del quick
    call = results.get("grpc/call", {})
    if call.get("status") != "ok":
        return []
    label = "gRPC tool call, alias session (x stub + MessageToDict + json.dumps)"
    return [Figure(label, call["ratio"], TARGET)]


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown for docs/benchmarks.md."""
    del quick
    call, build = results.get("grpc/call", {}), results.get("grpc/build", {})
    lines = ["## gRPC tools", ""]
    if call.get("status") == "ok":
        lines += [
            "| path | µs per call (*wall*) |",
            "|---|---:|",
            f"| toolcast: validate → ParseDict → RPC → MessageToDict → JSON text | "
            f"{call['toolcast_us']:.0f} |",
            f"| hand-written: stub → MessageToDict → json.dumps | {call['hand_us']:.0f} |",
            "",
            f"Ratio with an alias session (median of interleaved rounds): {call['ratio']:.2f}x "
            f"(goal ≤ {TARGET:g}x).",
            "",
        ]
        plain = results.get("grpc/call_plain", {})
        if plain.get("status") == "ok":
            lines += [f"Without aliases: {plain['ratio']:.2f}x.", ""]
    else:
        lines.append(f"Call overhead not measured: {call.get('status', 'not run')}.")
    if build.get("status") == "ok":
        lines.append(
            f"Building tools for {build['tools']} RPCs from a descriptor set (*wall*): "
            f"{build['ms_per_tool']:.3f} ms per tool."
        )
    return "\n".join(lines) + "\n"
