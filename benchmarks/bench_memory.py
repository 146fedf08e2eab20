"""Memory: peak RSS of a process holding the 5,000-tool catalog.

The 100 modules of 50 tools come from `benchmarks/bench_catalog.py` (the catalog
benchmark's own generator). One fresh process per library and measurement:

1. imports done, modules generated (the functions exist): the *baseline* RSS;
2. toolcast: `Catalog.from_modules(...)` (schemas built, validators lazy), then
   every validator compiled (one call per tool), then every tool projected to
   OpenAI Chat; pydantic: one `TypeAdapter` per function (validators compiled),
   then `json_schema()` for each.

Peak RSS is the kernel's high-water mark (`VmHWM`); current RSS is read from
`/proc/self/statm`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import resource
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks import Figure, Job, median

__all__ = ("behind", "figures", "jobs", "render", "work", "work_where")


def _rss_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mib() -> float:
    """The high-water mark: `VmHWM`, or `ru_maxrss` where /proc has none."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _functions(modules: list[Any]) -> list[Any]:
    import inspect

    out = []
    for module in modules:
        for value in list(vars(module).values()):
            if getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(value):
                out.append(value)
            elif inspect.isclass(value):
                instance = value()
                out += [
                    getattr(instance, name)
                    for name, member in vars(value).items()
                    if inspect.isfunction(member)
                ]
    return out


def work(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: RSS steps for one library."""
    library, count = params["library"], params["modules"]
    try:
        from benchmarks import bench_catalog
    except ImportError as exc:
        return {"status": f"not available ({exc})"}
    from pydantic import TypeAdapter

    from toolcast._catalog._catalog import Catalog  # as bench_catalog does (not exported yet)
    from toolcast._catalog._discovery import FactoryResolver

    modules = bench_catalog.generate(count, f"m{os.getpid()}_")
    gc.collect()
    steps = [("modules generated (baseline)", _rss_mib())]
    tools = 0
    if library == "toolcast":
        catalog = Catalog.from_modules(
            *modules, resolver=FactoryResolver(lambda cls: cls()), cache=False
        )
        every = catalog.all(include_deprecated=True)
        tools = len(every)
        gc.collect()
        steps.append(("catalog built", _rss_mib()))
        for tool in every:
            with contextlib.suppress(ValueError):  # compiles the validator
                tool.validate("{}")
        gc.collect()
        steps.append(("every validator compiled", _rss_mib()))
        try:
            from toolcast.providers.openai_chat import format_tools
        except ImportError:
            pass
        else:
            for start in range(0, tools, 100):
                format_tools(every[start : start + 100])
            gc.collect()
            steps.append(("every tool projected to OpenAI Chat (cached)", _rss_mib()))
    else:
        functions = _functions(modules)
        tools = len(functions)
        adapters = [TypeAdapter(fn) for fn in functions]
        gc.collect()
        steps.append(("a TypeAdapter per function", _rss_mib()))
        for adapter in adapters:
            adapter.json_schema()
        gc.collect()
        steps.append(("plus json_schema() each", _rss_mib()))
    return {
        "status": "ok",
        "tools": tools,
        "steps": steps,
        "peak_mib": _peak_mib(),
    }


def work_where(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: what building the catalog allocates, by source file (tracemalloc)."""
    import tracemalloc

    from benchmarks import bench_catalog
    from toolcast._catalog._catalog import Catalog
    from toolcast._catalog._discovery import FactoryResolver

    modules = bench_catalog.generate(params["modules"], f"w{os.getpid()}_")
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    catalog = Catalog.from_modules(
        *modules, resolver=FactoryResolver(lambda cls: cls()), cache=False
    )
    gc.collect()
    after = tracemalloc.take_snapshot()
    tools = len(catalog.all(include_deprecated=True))
    stats = after.compare_to(before, "filename")
    root = str(Path(__file__).resolve().parent.parent)
    rows = [
        (
            st.traceback[0].filename.replace(root + "/", "").split("site-packages/")[-1],
            st.size_diff / 1024 / tools,
        )
        for st in stats[:8]
    ]
    total = sum(st.size_diff for st in stats) / 1024 / tools
    return {"status": "ok", "tools": tools, "total_kib": total, "files": rows}


def jobs(quick: bool) -> list[Job]:
    """Alternating toolcast / pydantic processes, and one allocation breakdown."""
    modules, reps = (4, 1) if quick else (100, 2)
    return [
        *(
            Job(
                f"memory/{library}/{rep}",
                "benchmarks.bench_memory:work",
                {"library": library, "modules": modules},
                timeout=300,
            )
            for rep in range(reps)
            for library in ("toolcast", "pydantic")
        ),
        Job(
            "memory/where",
            "benchmarks.bench_memory:work_where",
            {"modules": 2 if quick else 20},
            timeout=300,
        ),
    ]


def behind(results: Mapping[str, Any], quick: bool) -> list[str]:
    """Bullet: when the toolcast catalog takes more memory than the pydantic baseline."""
    del quick
    ours, theirs = _runs(results, "toolcast"), _runs(results, "pydantic")
    if not ours or not theirs:
        return []
    peak, base = median([r["peak_mib"] for r in ours]), median([r["peak_mib"] for r in theirs])
    if peak <= base:
        return []
    where = results.get("memory/where", {})
    detail = ""
    if where.get("status") == "ok":
        parts = ", ".join(f"`{name}` {kib:.1f}" for name, kib in where["files"][:5])
        detail = (
            f" Building the catalog allocates {where['total_kib']:.1f} KiB per tool, by "
            f"file (KiB per tool): {parts}."
        )
    steps = _growth(ours)
    by_step = ", ".join(f"{name} {mib:+.0f}" for name, mib in steps)
    cache = steps[-1][1] if steps else 0.0
    gap = (
        f" The projection cache alone ({cache:.0f} MiB) is less than the gap "
        f"({peak - base:.0f} MiB), so the aim needs the kept schemas and specs smaller too."
        if cache < peak - base
        else ""
    )
    return [
        f"- **Memory** (peak {peak:.0f} MiB against {base:.0f} MiB for a `TypeAdapter` "
        f"per function, {peak - base:.0f} MiB over the aim; by step, MiB over the "
        f"previous: {by_step}): a built tool keeps its published, read-only JSON Schema "
        "(`_frozen.py`; small fragments and class schemas shared between tools), its "
        "spec (slotted) and call plan, but no pydantic-core schema: the first call walks "
        "the annotations again to compile the validator, and the compiled validator "
        "keeps no schema dict (emptied once compiled). Profiled with tracemalloc, the "
        "validator step is about 1.2 KiB per tool of Python objects (the parser and its "
        "closures); the rest of its growth is pydantic-core's native validators, the "
        "same kind of memory pydantic's figure is made of. What is left over pydantic's "
        "figure is the published JSON Schema and spec per tool, which pydantic's "
        "`TypeAdapter` does not build until asked, and the projection cache (each "
        "definition kept as compact JSON, so a request parses it rather than walking "
        "the spec again)." + gap + detail
    ]


def _growth(runs: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """Each step after the baseline with its RSS growth over the step before (medians)."""
    values = [
        median([r["steps"][index][1] for r in runs if len(r["steps"]) > index])
        for index in range(len(runs[0]["steps"]))
    ]
    names = [name for name, _ in runs[0]["steps"]]
    return [(names[i], values[i] - values[i - 1]) for i in range(1, len(values))]


def _runs(results: Mapping[str, Any], library: str) -> list[dict[str, Any]]:
    return [
        v
        for k, v in results.items()
        if k.startswith(f"memory/{library}/") and v.get("status") == "ok"
    ]


def figures(results: Mapping[str, Any], quick: bool) -> list[Figure]:
    """Summary row: peak RSS, from one run's results (lower is better)."""
    del quick
    ours = _runs(results, "toolcast")
    if not ours:
        return []
    peak = median([r["peak_mib"] for r in ours])
    label = f"memory, peak RSS with the {ours[0]['tools']:,}-tool catalog"
    theirs = _runs(results, "pydantic")
    if not theirs:
        return [Figure(label, peak, None, " MiB", 0)]
    # Issue 15's aim: no more than a `TypeAdapter` per function, measured the same way.
    base = median([r["peak_mib"] for r in theirs])
    return [
        Figure(
            label,
            peak,
            base,
            " MiB",
            0,
            target_text=f"≤ {base:.0f} MiB (a `TypeAdapter` per function, default config)",
        )
    ]


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown: RSS per step, medians over processes."""
    del quick
    lines = [
        "## Memory",
        "",
        "RSS of a fresh process at each step (MiB, medians over processes); the "
        "baseline is the process with every import done and the tool modules "
        "generated. *Per tool* is the growth over the baseline divided by the "
        "number of tools.",
        "",
        "| library | step | RSS MiB | over baseline MiB | KiB per tool |",
        "|---|---|---:|---:|---:|",
    ]
    for library, label in (("toolcast", "toolcast"), ("pydantic", "pydantic")):
        runs = _runs(results, library)
        if not runs:
            failed = [v for k, v in results.items() if k.startswith(f"memory/{library}/")]
            if failed:
                lines.append(f"| {label} | {failed[0].get('status')} | | | |")
            continue
        tools = runs[0]["tools"]
        base = median([r["steps"][0][1] for r in runs])
        for index, (step, _) in enumerate(runs[0]["steps"]):
            value = median([r["steps"][index][1] for r in runs if len(r["steps"]) > index])
            growth = value - base
            per_tool = f"{growth * 1024 / tools:.1f}" if index else "-"
            lines.append(f"| {label} | {step} | {value:.0f} | {growth:.0f} | {per_tool} |")
        peak = median([r["peak_mib"] for r in runs])
        lines.append(f"| {label} | **peak RSS** ({tools:,} tools) | **{peak:.0f}** | | |")
    return "\n".join(lines)
