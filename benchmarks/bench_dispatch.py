"""Per-call dispatch: raw JSON argument text in, result text out.

One subprocess per (library, kind). Each measures, interleaved in the same
rounds, a raw baseline and the library's own path for the same 3-parameter tool
(a `str`, an `int` and a nested pydantic model):

- `async`: baseline `json.loads` + `await fn(**args)` + `json.dumps`;
- `nonblocking`: baseline `json.loads` + `fn(**args)` + `json.dumps`, called
  directly (the library's path is awaited: its coroutine is part of its cost);
- `blocking`: baseline the same work with the call in `asyncio.to_thread` (a
  bare thread hop, the least any library can do for a tool that may block).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from benchmarks import Job, Subject, interleave
from benchmarks.peers import PEERS, NotInstalled, ToolFunctions

__all__ = ("ARGUMENTS", "headline", "jobs", "render", "work")

KINDS = ("async", "nonblocking", "blocking")
KIND_TITLES = {
    "async": "async tool",
    "nonblocking": "sync tool marked non-blocking",
    "blocking": "blocking sync tool",
}
TARGETS = {"async": 2.0, "nonblocking": 2.5, "blocking": 1.2}
"""Issue 2's ceilings for toolcast, as a ratio to the baseline of each kind."""

ARGUMENTS = (
    '{"customer": "Ada Lovelace", "count": 3, '
    '"item": {"sku": "A-100", "qty": 2, "tags": ["blue", "large"]}}'
)
EXPECTED = {"customer": "Ada Lovelace", "units": 6, "sku": "A-100"}


class Item(BaseModel):
    """One pack of an order."""

    sku: str
    qty: int
    tags: list[str] = []


@dataclass
class ItemRecord:
    """One pack of an order (a dataclass)."""

    sku: str
    qty: int
    tags: list[str]


async def place_order(customer: str, count: int, item: Item) -> dict[str, Any]:
    """Place an order for a customer.

    Args:
        customer: Who orders.
        count: How many packs.
        item: What one pack holds.
    """
    return {"customer": customer, "units": count * item.qty, "sku": item.sku}


def place_order_sync(customer: str, count: int, item: Item) -> dict[str, Any]:
    """Place an order for a customer.

    Args:
        customer: Who orders.
        count: How many packs.
        item: What one pack holds.
    """
    return {"customer": customer, "units": count * item.qty, "sku": item.sku}


async def place_order_dc(customer: str, count: int, item: ItemRecord) -> dict[str, Any]:
    """Place an order for a customer (the nested value is a dataclass)."""
    return {"customer": customer, "units": count * item.qty, "sku": item.sku}


def place_order_dc_sync(customer: str, count: int, item: ItemRecord) -> dict[str, Any]:
    """Place an order for a customer (the nested value is a dataclass)."""
    return {"customer": customer, "units": count * item.qty, "sku": item.sku}


async def _raw_async_fn(customer: str, count: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"customer": customer, "units": count * item["qty"], "sku": item["sku"]}


def _raw_fn(customer: str, count: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"customer": customer, "units": count * item["qty"], "sku": item["sku"]}


FUNCTIONS = ToolFunctions(place_order, place_order_sync)


def _baselines(kind: str) -> list[Subject]:
    loads, dumps = json.loads, json.dumps
    if kind == "async":

        async def raw_async(text: str) -> str:
            return dumps(await _raw_async_fn(**loads(text)))

        return [Subject("raw baseline", raw_async)]

    def raw(text: str) -> str:
        return dumps(_raw_fn(**loads(text)))

    if kind == "nonblocking":
        return [Subject("raw baseline", raw)]

    async def raw_hop(text: str) -> str:
        return dumps(await asyncio.to_thread(_raw_fn, **loads(text)))

    return [
        Subject("raw baseline + `asyncio.to_thread` hop", raw_hop),
        Subject("raw baseline, no hop (for scale)", raw),
    ]


def _toolcast(kind: str) -> list[Subject]:
    from toolcast import Tool

    if kind == "async":
        model = Tool.from_function(place_order)
        dataclass_ = Tool.from_function(place_order_dc)
    else:
        blocking = kind == "blocking"
        model = Tool.from_function(place_order_sync, blocking=blocking)
        dataclass_ = Tool.from_function(place_order_dc_sync, blocking=blocking)

    def subject(tool: Any, label: str, note: str = "") -> Subject:
        invoke = tool.invoke

        async def call(text: str) -> str:
            return (await invoke(text)).text  # type: ignore[no-any-return]

        return Subject(label, call, note)

    subjects = [
        subject(model, "toolcast"),
        subject(dataclass_, "toolcast, dataclass item", "nested value is a dataclass"),
    ]
    if kind == "nonblocking":
        invoke_sync = model.invoke_sync

        def call_sync(text: str) -> str:
            return invoke_sync(text).text  # type: ignore[no-any-return]

        subjects.append(Subject("toolcast `invoke_sync`", call_sync, "no coroutine at all"))
    return subjects


def _same_result(text: str) -> bool:
    import ast

    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)  # openai-agents stringifies with str()
        except (ValueError, SyntaxError):
            return False
    return value == EXPECTED


def work(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: one library, one kind. Returns the measured rows."""
    kind, library = params["kind"], params["library"]
    try:
        if library == "toolcast":
            subjects = _toolcast(kind)
        else:
            peer = next(p for p in PEERS if p.key == library)
            subjects = [peer.build(kind, FUNCTIONS)]
    except NotInstalled:
        return {"status": "not installed"}
    baselines = _baselines(kind)

    async def main() -> list[dict[str, Any]]:
        for subject in subjects:
            out = subject.call(ARGUMENTS)
            text = await out if asyncio.iscoroutine(out) else out
            if not _same_result(text):
                msg = f"{subject.name} returned {text!r}"
                raise AssertionError(msg)
        measured = await interleave(
            [*baselines, *subjects],
            ARGUMENTS,
            rounds=params["rounds"],
            batch_seconds=params["batch_seconds"],
            clock="wall" if kind == "blocking" else "cpu",
        )
        return [m.as_dict() for m in measured]

    return {"status": "ok", "rows": asyncio.run(main())}


def jobs(quick: bool) -> list[Job]:
    """One job per (kind, library); quick runs only toolcast and the floor."""
    rounds, batch = (3, 0.002) if quick else (21, 0.03)
    libraries = ["toolcast", *(p.key for p in PEERS)]
    if quick:
        libraries = ["toolcast", "pydantic"]
    return [
        Job(
            f"dispatch/{kind}/{library}",
            "benchmarks.bench_dispatch:work",
            {"kind": kind, "library": library, "rounds": rounds, "batch_seconds": batch},
            timeout=120,
        )
        for kind in KINDS
        for library in libraries
    ]


def _fmt_ratio(row: Mapping[str, Any]) -> str:
    return f"{row['ratio']:.2f}x ({row['ratio_lo']:.2f}–{row['ratio_hi']:.2f})"


def headline(results: Mapping[str, Any], quick: bool) -> list[str]:
    """Summary rows: toolcast's median ratio per kind against issue 2's ceilings."""
    del quick
    rows = []
    for kind in KINDS:
        result = results.get(f"dispatch/{kind}/toolcast", {})
        for row in result.get("rows", []):
            if row["name"] == "toolcast":
                base = "`to_thread` hop" if kind == "blocking" else "raw"
                met = "yes" if row["ratio"] <= TARGETS[kind] else "**no**"
                rows.append(
                    f"| dispatch, {KIND_TITLES[kind]} (× {base}) | {row['ratio']:.2f}x "
                    f"| ≤ {TARGETS[kind]:g}x | {met} |"
                )
    return rows


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown: one table per kind."""
    from benchmarks.peers import PEERS

    lines = [
        "## Per-call dispatch",
        "",
        "Raw JSON argument text in, result text out, for a 3-parameter tool "
        "(`customer: str, count: int, item: Item`, where `Item` is a pydantic model "
        "with a `list[str]` field) returning a small dict. Each library runs in its "
        "own process, which also measures the raw baseline in interleaved rounds; the "
        "ratio is the median of per-round ratios (quartiles in brackets), and µs is "
        "the median time of one call in that process.",
        "",
    ]
    labels = {p.key: p.label for p in PEERS} | {"toolcast": "toolcast"}
    for kind in KINDS:
        target = TARGETS[kind]
        base = "a bare `asyncio.to_thread` hop" if kind == "blocking" else "the raw baseline"
        lines += [
            f"### {KIND_TITLES[kind].capitalize()}",
            "",
            f"Issue 2's ceiling for toolcast: {target:g}x {base}.",
            "",
            "| library | path | µs per call | × baseline | baseline µs (same process) |",
            "|---|---|---:|---:|---:|",
        ]
        for library in ["toolcast", *(p.key for p in PEERS)]:
            result = results.get(f"dispatch/{kind}/{library}")
            if result is None:
                continue
            if result.get("status") != "ok":
                lines.append(f"| {labels[library]} | {result.get('status')} | | | |")
                continue
            rows = result["rows"]
            n_base = 2 if kind == "blocking" else 1
            base_us = rows[0]["us"]
            for row in rows[n_base:]:
                path = row["name"]
                if library != "toolcast":
                    peer = next(p for p in PEERS if p.key == library)
                    path = peer.path
                    if kind == "nonblocking" and not peer.inline_sync:
                        path += " — **always hops to a worker thread** (no inline option)"
                label = row["name"] if library == "toolcast" else labels[library]
                if row["note"]:
                    path += f" ({row['note']})"
                if library == "toolcast":
                    path = {
                        "toolcast": "`await tool.invoke(text)`, `outcome.text`",
                        "toolcast, dataclass item": "the same, with a dataclass `item`",
                        "toolcast `invoke_sync`": "`tool.invoke_sync(text).text`",
                    }.get(row["name"], path)
                lines.append(
                    f"| {label} | {path} | {row['us']:.1f} | {_fmt_ratio(row)} | {base_us:.1f} |"
                )
            if kind == "blocking" and library == "toolcast":
                scale = rows[1]
                lines.append(
                    f"| (raw, no hop) | the baseline without the thread hop, for scale "
                    f"| {scale['us']:.1f} | {_fmt_ratio(scale)} | {base_us:.1f} |"
                )
        lines.append("")
    return "\n".join(lines)
