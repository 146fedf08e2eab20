"""MCP over streamable HTTP on loopback: calls per second and latency for a trivial tool.

One worker starts three servers, each in its own process on 127.0.0.1 (a free
port): `toolcast` (`providers.mcp.serve_http`, what `toolcast serve --http`
runs), `FastMCP` (`run(transport="http")`) and the bare MCP SDK low-level
`Server` (`streamable_http_app()` under uvicorn). The official `mcp.Client`
drives each in turn, rounds interleaved so load drifts hit all three alike:
one client making calls back to back, then 8 clients at once. Every client
speaks the handshake era (`mode="legacy"`), the one toolcast serves, so the
three run the same protocol and give the same answer (text plus `structuredContent`
against the tool's `outputSchema`, which the client validates, as toolcast and
FastMCP do for an `-> int` tool). The tool adds two integers and runs inline on
every server (toolcast: `blocking=False`; FastMCP: `run_in_thread=False`; the
bare SDK's handler calls it directly); each call's latency
is timed, and calls per second is calls / wall time. The client shares the
machine with the server, so the figures are the pair's, not the server's alone.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks import Figure, Job

__all__ = ("figures", "jobs", "render", "work")

SERVERS = ("toolcast", "fastmcp", "mcp_sdk")
TITLES = {
    "toolcast": "toolcast (`providers.mcp.serve_http`, tool marked non-blocking: inline)",
    "fastmcp": "FastMCP (`run(transport='http')`, `run_in_thread=False`: inline)",
    "mcp_sdk": "MCP SDK low-level `Server`",
}
CLIENTS = (1, 8)
SDK_TARGET = 1.2
"""Aim (issue 28): within 1.2x of the bare SDK server's time per call, and ahead of FastMCP."""
ROOT = Path(__file__).resolve().parents[1]


# -- the servers (run as `python -m benchmarks.bench_mcp KIND PORT`) -------------------


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _serve_toolcast(port: int) -> None:
    import anyio

    from toolcast import Tool
    from toolcast.providers import mcp

    # A pure function: marked non-blocking, so it runs inline as the SDK's handler does.
    tool = Tool.from_function(add, blocking=False)
    anyio.run(lambda: mcp.serve_http([tool], port=port))


def _serve_fastmcp(port: int) -> None:
    from fastmcp import FastMCP

    server = FastMCP("bench")
    server.tool(add, run_in_thread=False)  # inline, its fastest documented option
    server.run(
        transport="http", host="127.0.0.1", port=port, show_banner=False, log_level="warning"
    )


def _serve_sdk(port: int) -> None:
    import mcp.types as mcp_types
    import uvicorn
    from mcp.server.lowlevel import Server

    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }

    # The same answer toolcast and FastMCP give an `-> int` tool: text plus
    # `structuredContent` against an `outputSchema`, which the client validates.
    output = {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
        "additionalProperties": False,
    }
    listed = mcp_types.Tool(
        name="add", description="Add two integers.", input_schema=schema, output_schema=output
    )

    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=[listed])

    async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        args = params.arguments or {}
        total = int(args["a"]) + int(args["b"])
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=str(total))],
            structured_content={"result": total},
        )

    server = Server("bench", on_list_tools=list_tools, on_call_tool=call_tool)
    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


# -- the worker ------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(kind: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_mcp", kind, str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                msg = f"the {kind} server did not start"
                raise RuntimeError(msg) from None
            time.sleep(0.1)


_TS = ROOT / "tests" / "serving" / "ts"


def _typescript(url: str, clients: int, calls: int) -> dict[str, float] | None:
    """One run of the TypeScript SDK client (`tests/serving/ts/bench.mjs`), or None without it."""
    import json
    import shutil

    node = shutil.which("node")
    if node is None or not (_TS / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return None
    done = subprocess.run(
        [node, str(_TS / "bench.mjs"), url, str(clients), str(calls)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


async def _measure(
    url: str, clients: int, calls: int, mode: str = "legacy"
) -> tuple[float, list[float]]:
    """(calls per second, latencies in ms) for `calls` calls spread over `clients`."""
    from mcp import Client

    latencies: list[float] = []
    opened = [Client(url, mode=mode) for _ in range(clients)]
    for client in opened:
        await client.__aenter__()
    try:
        for client in opened:  # warm up each session (and let the client see the tool list)
            await client.list_tools()
            for _ in range(5):
                await client.call_tool("add", {"a": 1, "b": 2})
        per_client = calls // clients

        async def drive(client: Any) -> None:
            for n in range(per_client):
                t0 = time.perf_counter()
                result = await client.call_tool("add", {"a": n, "b": 1})
                latencies.append((time.perf_counter() - t0) * 1000)
                if result.is_error:
                    msg = f"the call failed: {result.content}"
                    raise AssertionError(msg)

        started = time.perf_counter()
        await asyncio.gather(*(drive(c) for c in opened))
        elapsed = time.perf_counter() - started
    finally:
        for client in reversed(opened):
            await client.__aexit__(None, None, None)
    return per_client * clients / elapsed, latencies


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def work(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: every server, every client count, interleaved rounds."""
    try:
        import fastmcp  # noqa: F401
        import mcp  # noqa: F401
    except ImportError:
        return {"status": "not installed"}
    started = {kind: _start(kind) for kind in SERVERS}
    rates: dict[str, list[float]] = {f"{k}/{c}": [] for k in SERVERS for c in CLIENTS}
    latencies: dict[str, list[float]] = {key: [] for key in rates}
    try:
        for round_ in range(params["rounds"]):
            order = SERVERS[round_ % 3 :] + SERVERS[: round_ % 3]
            for clients in CLIENTS:
                for kind in order:
                    rate, times = asyncio.run(_measure(started[kind][1], clients, params["calls"]))
                    rates[f"{kind}/{clients}"].append(rate)
                    latencies[f"{kind}/{clients}"].extend(times)
    finally:
        for process, _ in started.values():
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
    rows = {
        key: {
            "calls_per_s": statistics.median(rates[key]),
            "p50_ms": _percentile(latencies[key], 0.50),
            "p99_ms": _percentile(latencies[key], 0.99),
            "calls": len(latencies[key]),
        }
        for key in rates
    }
    return {
        "status": "ok",
        "rows": rows,
        "rounds": params["rounds"],
        "more": _more_clients(params["calls"]),
    }


def _more_clients(calls: int) -> dict[str, Any]:
    """One round each: the Python client on 2026-07-28 and the TypeScript SDK client."""
    started = {kind: _start(kind) for kind in SERVERS}
    rows: dict[str, Any] = {}
    try:
        for clients in CLIENTS:
            for kind in SERVERS:
                url = started[kind][1]
                if kind != "fastmcp":  # FastMCP 4.1.6 serves the handshake era only
                    rate, times = asyncio.run(_measure(url, clients, calls, mode="2026-07-28"))
                    rows[f"{kind}/{clients}/python-2026"] = {
                        "calls_per_s": rate,
                        "p50_ms": _percentile(times, 0.50),
                        "p99_ms": _percentile(times, 0.99),
                    }
                ts = _typescript(url, clients, calls)
                if ts is not None:
                    rows[f"{kind}/{clients}/typescript"] = ts
    finally:
        for process, _ in started.values():
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
    return rows


def jobs(quick: bool) -> list[Job]:
    """One job: the three servers must be measured in the same run."""
    rounds, calls = (1, 80) if quick else (5, 800)
    return [Job("mcp/http", "benchmarks.bench_mcp:work", {"rounds": rounds, "calls": calls}, 900.0)]


def figures(results: Mapping[str, Any], quick: bool) -> list[Figure]:
    """Per client count and client: toolcast's time per call x FastMCP's and x the bare SDK's.

    Time per call is 1 / calls per second, so each ratio is the peer's rate over
    toolcast's (below 1: toolcast is faster).
    """
    del quick
    result = results.get("mcp/http", {})
    if result.get("status") != "ok":
        return []
    rows, more = result["rows"], result.get("more") or {}
    out: list[Figure] = []
    for clients in CLIENTS:
        ours = rows[f"toolcast/{clients}"]["calls_per_s"]
        what = f"MCP over HTTP, {clients} client{'s' if clients > 1 else ''}, handshake era"
        out.append(
            Figure(
                f"{what}: toolcast's time per call x FastMCP's",
                rows[f"fastmcp/{clients}"]["calls_per_s"] / ours,
                1.0,
                target_text="< 1x (ahead)",
            )
        )
        out.append(
            Figure(
                f"{what}: toolcast's time per call x the bare SDK server's",
                rows[f"mcp_sdk/{clients}"]["calls_per_s"] / ours,
                SDK_TARGET,
            )
        )
        for client in ("python-2026", "typescript"):
            mine, sdk = (
                more.get(f"toolcast/{clients}/{client}"),
                more.get(f"mcp_sdk/{clients}/{client}"),
            )
            if mine and sdk:
                out.append(
                    Figure(
                        f"MCP over HTTP, {clients} client{'s' if clients > 1 else ''}, "
                        f"{client} client: toolcast's time per call x the bare SDK server's "
                        "(one round)",
                        sdk["calls_per_s"] / mine["calls_per_s"],
                        SDK_TARGET,
                    )
                )
            fast = more.get(f"fastmcp/{clients}/{client}")
            if mine and fast:
                out.append(
                    Figure(
                        f"MCP over HTTP, {clients} client{'s' if clients > 1 else ''}, "
                        f"{client} client: toolcast's time per call x FastMCP's (one round)",
                        fast["calls_per_s"] / mine["calls_per_s"],
                        1.0,
                        target_text="< 1x (ahead)",
                    )
                )
    return out


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown for docs/benchmarks.md."""
    del quick
    result = results.get("mcp/http", {})
    lines = ["## MCP over streamable HTTP", ""]
    if result.get("status") != "ok":
        lines.append(f"Not measured: {result.get('status', 'not run')}.")
        return "\n".join(lines) + "\n"
    lines += [
        "A trivial `add` tool on loopback, driven by the official `mcp.Client` "
        f"(handshake era); median of {result['rounds']} interleaved rounds for calls "
        "per second, latency percentiles over every call (*wall*).",
        "",
        "| server | clients | calls/s | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for clients in CLIENTS:
        for kind in SERVERS:
            row = result["rows"][f"{kind}/{clients}"]
            lines.append(
                f"| {TITLES[kind]} | {clients} | {row['calls_per_s']:.0f} | "
                f"{row['p50_ms']:.2f} | {row['p99_ms']:.2f} |"
            )
    more = result.get("more") or {}
    if more:
        lines += [
            "",
            "One round each with the official Python client on 2026-07-28 (FastMCP "
            "serves only the handshake era) and the TypeScript SDK client "
            "(`@modelcontextprotocol/sdk` 1.32.2, handshake era).",
            "",
            "| server | client | clients | calls/s | p50 ms | p99 ms |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for key, row in more.items():
            kind, clients, client = key.split("/")
            lines.append(
                f"| {TITLES[kind]} | {client} | {clients} | {row['calls_per_s']:.0f} | "
                f"{row['p50_ms']:.2f} | {row['p99_ms']:.2f} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    kind, port = sys.argv[1], int(sys.argv[2])
    {"toolcast": _serve_toolcast, "fastmcp": _serve_fastmcp, "mcp_sdk": _serve_sdk}[kind](port)
