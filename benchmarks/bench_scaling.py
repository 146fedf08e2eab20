"""Scaling curves: how per-call, definition and projection costs grow.

- *dispatch by argument size*: one process, the same tool (a `str` and a list of
  pydantic `Item`s) called with argument text of about 100 B, 10 KB and 1 MB; the
  raw baseline, toolcast, pydantic alone and pydantic-ai in interleaved rounds;
- *definition by tool count*: 10 to 5,000 freshly generated corpus functions, a
  fresh process per (count, library): toolcast `Tool.from_function` per function
  against `pydantic.TypeAdapter(fn)` per function (cold, like a program start);
- *projection by tool count*: 10 and 1,000 tools projected to OpenAI Chat in a
  fresh process, cold and warm, against the fresh deep-copied dict baseline.

The render writes a plot of the three curves (`docs/benchmarks-scaling.png`; a
quick run writes `.benchmarks/benchmarks-scaling-quick.png`) when matplotlib is
installed (the `bench` extra).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from benchmarks import Job, Measured, Subject, interleave, median

__all__ = ("behind", "jobs", "render", "work_define", "work_project", "work_sizes")

ROOT = Path(__file__).resolve().parent.parent
PLOT = ROOT / "docs" / "benchmarks-scaling.png"
QUICK_PLOT = ROOT / ".benchmarks" / "benchmarks-scaling-quick.png"
SIZES = (100, 10_000, 1_000_000)
"""Target argument sizes in bytes (the text is built to be just under each)."""
COUNTS = (10, 100, 1_000, 5_000)
PROJECT_COUNTS = (10, 1_000)


class Item(BaseModel):
    """One pack of an order."""

    sku: str
    qty: int
    tags: list[str] = []


async def ingest(source: str, rows: list[Item]) -> dict[str, Any]:
    """Record a batch of packs.

    Args:
        source: Where the batch comes from.
        rows: The packs.
    """
    return {"source": source, "rows": len(rows), "units": sum(r.qty for r in rows)}


def ingest_sync(source: str, rows: list[Item]) -> dict[str, Any]:
    """Record a batch of packs.

    Args:
        source: Where the batch comes from.
        rows: The packs.
    """
    return {"source": source, "rows": len(rows), "units": sum(r.qty for r in rows)}


async def _raw(source: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"source": source, "rows": len(rows), "units": sum(r["qty"] for r in rows)}


def arguments(size: int) -> str:
    """Argument text of about `size` bytes (never over it, at least one row)."""
    row = '{"sku": "A-100", "qty": 2, "tags": ["blue", "large"]}'
    head = '{"source": "scan", "rows": ['
    count = max(1, (size - len(head) - 2) // (len(row) + 2))
    return head + ", ".join([row] * count) + "]}"


def work_sizes(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: dispatch at each argument size, every subject in one process."""
    import asyncio

    from benchmarks.peers import PEERS, NotInstalled, ToolFunctions
    from toolcast import Tool

    tool = Tool.from_function(ingest)
    invoke = tool.invoke
    loads, dumps = json.loads, json.dumps

    async def raw(text: str) -> str:
        return dumps(await _raw(**loads(text)))

    async def ours(text: str) -> str:
        return (await invoke(text)).text

    subjects = [Subject("raw baseline", raw), Subject("toolcast", ours)]
    functions = ToolFunctions(ingest, ingest_sync)
    for key in params["peers"]:
        peer = next(p for p in PEERS if p.key == key)
        try:
            subjects.append(peer.build("async", functions))
        except NotInstalled:
            continue
    out: dict[str, Any] = {"status": "ok", "sizes": []}

    async def main() -> None:
        for size in params["sizes"]:
            text = arguments(size)
            expected = loads(await raw(text))
            for subject in subjects:
                got = await subject.call(text)
                if loads(got) != expected:
                    msg = f"{subject.name} returned {got[:200]!r}"
                    raise AssertionError(msg)
            measured: list[Measured] = await interleave(
                subjects,
                text,
                rounds=params["rounds"],
                batch_seconds=params["batch_seconds"],
                warmup_seconds=params["batch_seconds"],
                reference=1,
            )
            out["sizes"].append(
                {"bytes": len(text.encode()), "rows": [m.as_dict() for m in measured]}
            )

    asyncio.run(main())
    return out


def work_define(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: build `count` fresh tools with one library, in a fresh process (cold)."""
    perf = time.process_time  # CPU time: see benchmarks/__init__.py
    from benchmarks import corpus

    count, library = params["count"], params["library"]
    fns = corpus.many(count)
    # The import is not timed (the definition section has it); first-use costs are.
    if library == "toolcast":
        from toolcast import Tool

        t0 = perf()
        for fn in fns:
            Tool.from_function(fn)
    else:
        from pydantic import TypeAdapter

        t0 = perf()
        for fn in fns:
            TypeAdapter(fn)
    return {"status": "ok", "us_per_tool": (perf() - t0) / count * 1e6}


def work_project(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: `count` tools projected to OpenAI Chat, cold then warm, fresh process."""
    from benchmarks import corpus
    from benchmarks.bench_projection import _one
    from toolcast import Tool

    tools = [Tool.from_function(fn) for fn in corpus.many(params["count"])]
    return _one(tools, "openai_chat", {}, params)


def jobs(quick: bool) -> list[Job]:
    """One dispatch process; a process per (count, library, rep) and per projection."""
    if quick:
        counts, project_counts, reps = (10, 50), (10, 50), 1
        sizes = {
            "sizes": list(SIZES[:2]),
            "rounds": 3,
            "batch_seconds": 0.002,
            "peers": ["pydantic"],
        }
        project = {"rounds": 2, "batch_seconds": 0.002}
    else:
        counts, project_counts, reps = COUNTS, PROJECT_COUNTS, 3
        sizes = {
            "sizes": list(SIZES),
            "rounds": 15,
            "batch_seconds": 0.05,
            "peers": ["pydantic", "pydantic_ai"],
        }
        project = {"rounds": 9, "batch_seconds": 0.05}
    out = [Job("scaling/sizes", "benchmarks.bench_scaling:work_sizes", sizes, timeout=900)]
    for rep in range(reps):
        for count in counts:
            for library in ("toolcast", "pydantic"):
                out.append(
                    Job(
                        f"scaling/define/{count}/{library}/{rep}",
                        "benchmarks.bench_scaling:work_define",
                        {"count": count, "library": library},
                        timeout=300,
                    )
                )
    for count in project_counts:
        out.append(
            Job(
                f"scaling/project/{count}",
                "benchmarks.bench_scaling:work_project",
                {"count": count, **project},
                timeout=600,
            )
        )
    return out


def _define(results: Mapping[str, Any]) -> list[tuple[int, float, float, float]]:
    """(count, toolcast µs per tool, TypeAdapter µs per tool, paired median ratio)."""
    counts = sorted({int(k.split("/")[2]) for k in results if k.startswith("scaling/define/")})
    out = []
    for count in counts:
        ours, theirs, ratios = [], [], []
        rep = 0
        while f"scaling/define/{count}/toolcast/{rep}" in results:
            a = results[f"scaling/define/{count}/toolcast/{rep}"]
            b = results.get(f"scaling/define/{count}/pydantic/{rep}", {})
            rep += 1
            if a.get("status") != "ok" or b.get("status") != "ok":
                continue
            ours.append(a["us_per_tool"])
            theirs.append(b["us_per_tool"])
            ratios.append(a["us_per_tool"] / b["us_per_tool"])
        if ratios:
            out.append((count, median(ours), median(theirs), median(ratios)))
    return out


def _project(results: Mapping[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for key, value in results.items():
        if key.startswith("scaling/project/") and value.get("status") == "ok":
            out.append((int(key.rsplit("/", 1)[1]), value))
    return sorted(out, key=lambda pair: pair[0])


def _plot(
    sizes: list[dict[str, Any]],
    define: list[tuple[int, float, float, float]],
    project: list[tuple[int, dict[str, Any]]],
    path: Path,
) -> str:
    """Write the three curves as one PNG; returns why not, or ''."""
    try:
        import matplotlib as mpl

        mpl.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (`pip install -e '.[bench]'`)"
    figure, axes = plt.subplots(1, 3, figsize=(13, 3.8), layout="constrained")
    left, middle, right = axes
    if sizes:
        xs = [s["bytes"] for s in sizes]
        for index, row in enumerate(sizes[0]["rows"][1:], start=1):
            left.plot(xs, [s["rows"][index]["ratio"] for s in sizes], marker="o", label=row["name"])
        left.axhline(1.0, color="grey", linewidth=0.8, linestyle="--", label="raw baseline")
        left.set(xscale="log", xlabel="argument bytes", ylabel="x raw baseline (CPU)")
        left.set_title("Dispatch by argument size")
        left.legend(fontsize=7)
    if define:
        xs = [d[0] for d in define]
        middle.plot(xs, [d[1] for d in define], marker="o", label="toolcast Tool.from_function")
        middle.plot(xs, [d[2] for d in define], marker="o", label="pydantic TypeAdapter(fn)")
        middle.set(xscale="log", xlabel="tools", ylabel="µs per tool (CPU, cold)")
        middle.set_ylim(bottom=0)
        middle.set_title("Definition by tool count")
        middle.legend(fontsize=7)
    if project:
        xs = [p[0] for p in project]
        right.plot(xs, [p[1]["cold_us"] for p in project], marker="o", label="cold")
        right.plot(xs, [p[1]["warm_us"] for p in project], marker="o", label="warm (cached)")
        right.plot(
            xs, [p[1]["baseline_us"] for p in project], marker="o", label="baseline (deep copy)"
        )
        right.set(xscale="log", yscale="log", xlabel="tools", ylabel="µs per tool (CPU)")
        right.set_title("OpenAI Chat projection by tool count")
        right.legend(fontsize=7)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(figure)
    return ""


def behind(results: Mapping[str, Any], quick: bool) -> list[str]:
    """Bullets: where toolcast falls behind as arguments or tool counts grow, and why."""
    del quick
    out = []
    sizes = results.get("scaling/sizes", {}).get("sizes", [])
    if sizes:
        largest = sizes[-1]
        rows = largest["rows"]
        peers = [r for r in rows[2:] if r["vs"] < 1]
        if peers:
            named = ", ".join(f"{r['name']} {r['vs']:.2f}x" for r in peers)
            out.append(
                f"- **Dispatch at {largest['bytes']:,} bytes of arguments** (toolcast "
                f"{rows[1]['ratio']:.2f}x the raw baseline; toolcast's time: {named}): the "
                "tool takes a list of pydantic models, and toolcast validates each one "
                "by its own schema (JSON Schema's rules) and then has the model's own "
                "compiled validator build it in the same pydantic-core pass, which "
                "validates the fields again so the model's validators run (pydantic "
                "alone validates once). The text itself is read once: pydantic-core "
                "validates jiter's strict parse."
            )
    define = _define(results)
    small = [d for d in define if d[3] > 1]
    if small:
        counts = ", ".join(f"{c:,} tools {r:.2f}x" for c, _, _, r in small)
        out.append(
            f"- **Definition of few tools** ({counts} a `TypeAdapter` per function): a "
            "fresh process's first tools pay for toolcast's first-use work (the "
            "docstring parser's import, annotation texts compiled, classes walked once); "
            "per tool it falls as the count grows (the table in *Scaling*)."
        )
    return out


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown: the three tables, and the plot (written next to the page)."""
    lines = [
        "## Scaling",
        "",
        "How the costs grow, each against its baseline (`benchmarks/bench_scaling.py`). CPU time.",
        "",
    ]
    sizes_result = results.get("scaling/sizes", {})
    sizes: list[dict[str, Any]] = sizes_result.get("sizes", [])
    define = _define(results)
    project = _project(results)
    if not (sizes or define or project):
        return "\n".join([*lines, "Not measured."])
    path = QUICK_PLOT if quick else PLOT
    why = _plot(sizes, define, project, path)
    if why:
        lines += [f"No plot: {why}.", ""]
    elif quick:
        lines += [f"Plot (quick run): `{path.relative_to(ROOT)}`.", ""]
    else:
        lines += [f"![Scaling curves]({path.name})", ""]
    if sizes:
        names = [r["name"] for r in sizes[0]["rows"]]
        lines += [
            "### Dispatch by argument size",
            "",
            "An async tool `ingest(source: str, rows: list[Item])` (the dispatch "
            "section's `Item`); the argument text repeats one row to reach each size. "
            "One process, interleaved rounds; *x toolcast* below 1 is faster than toolcast.",
            "",
            "| argument bytes | "
            + " | ".join(f"{n} µs" for n in names)
            + " | "
            + " | ".join(f"{n} x baseline" for n in names[1:])
            + " | "
            + " | ".join(f"{n} x toolcast" for n in names[2:])
            + " |",
            "|---:|" + "---:|" * (3 * len(names) - 3),
        ]
        for size in sizes:
            rows = size["rows"]
            cells = [f"{r['us']:,.1f}" for r in rows]
            cells += [f"{r['ratio']:.2f}x" for r in rows[1:]]
            cells += [f"{r['vs']:.2f}x" for r in rows[2:]]
            lines.append(f"| {size['bytes']:,} | " + " | ".join(cells) + " |")
        lines.append("")
    if define:
        lines += [
            "### Definition by tool count",
            "",
            "Freshly generated corpus functions (`benchmarks/corpus.py`), a fresh process "
            "per count and library; the import is not timed, first-use work is (medians "
            "of paired processes).",
            "",
            "| tools | pydantic `TypeAdapter(fn)` µs per tool | toolcast `Tool.from_function` "
            "µs per tool | x `TypeAdapter(fn)` |",
            "|---:|---:|---:|---:|",
            *(f"| {c:,} | {b:.0f} | {a:.0f} | {r:.2f}x |" for c, a, b, r in define),
            "",
        ]
    if project:
        lines += [
            "### Projection by tool count",
            "",
            "Tools built from the generated corpus, projected to OpenAI Chat in requests "
            "of at most 100 tools; cold is the first projection, warm a cache hit "
            "(against a fresh name/description/deep-copied-schema dict per tool).",
            "",
            "| tools | cold µs per tool | warm µs per tool | baseline µs per tool "
            "| warm x baseline |",
            "|---:|---:|---:|---:|---:|",
            *(
                f"| {c:,} | {p['cold_us']:.0f} | {p['warm_us']:.1f} | "
                f"{p['baseline_us']:.1f} | {p['warm_ratio']:.2f}x |"
                for c, p in project
            ),
            "",
        ]
    return "\n".join(lines).rstrip()
