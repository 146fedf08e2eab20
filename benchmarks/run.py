"""Run every benchmark and write `docs/benchmarks.md`.

    python -m benchmarks.run            # full run (minutes), rewrites docs/benchmarks.md
    python -m benchmarks.run --quick    # seconds; proves the code works, writes .benchmarks/

Each job runs in a fresh subprocess (`--worker module:function`), one at a time.
Cold figures (definition, import, memory) get a process per library and
measurement, so imports, caches and memory of one library never touch another's;
per-call dispatch puts every library in one process per kind of tool, timed in
interleaved rounds, so the ratios share one baseline. Sections are benchmark
modules exposing `jobs(quick) -> list[Job]` and
`render(results, quick) -> str`, and optionally `headline(...)` (summary rows) and
`behind(...)` (where toolcast is not ahead, and why). The catalog section runs the
catalog's own `benchmarks/bench_catalog.py` (`run(quick=...)`) through an adapter
here, one process per measurement.

This module imports only the standard library at the top, so a worker's cold
measurements start from a nearly bare interpreter.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python benchmarks/run.py` works too
    sys.path.insert(0, str(ROOT))

MARKER = "@@toolcast-bench@@ "
SECTIONS = (
    "benchmarks.bench_dispatch",
    "benchmarks.bench_definition",
    "benchmarks.bench_scaling",
    "benchmarks.bench_projection",
    "benchmarks.bench_catalog",
    "benchmarks.bench_memory",
    "benchmarks.bench_loop",
    "benchmarks.bench_grpc",
    "benchmarks.bench_aliases",
    "benchmarks.bench_mcp",
    "benchmarks.bench_frameworks",
    "benchmarks.bench_temporal",
)
DOC = ROOT / "docs" / "benchmarks.md"
RAW = ROOT / "docs" / "benchmarks.json"
"""The raw results of the published page, committed next to it."""
RUNS = 3
"""Runs per invocation: the summary's figures are their medians."""
QUICK_DOC = ROOT / ".benchmarks" / "benchmarks-quick.md"


# -- worker side -----------------------------------------------------------------------


def _work(worker: str, params: str) -> int:
    module_name, _, function_name = worker.partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    result = function(json.loads(params))
    sys.stdout.write(MARKER + json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


# -- parent side -----------------------------------------------------------------------


def _run_job(job: Any) -> dict[str, Any]:
    import subprocess

    command = [
        sys.executable,
        "-m",
        "benchmarks.run",
        "--worker",
        job.worker,
        "--params",
        json.dumps(job.params),
    ]
    try:
        done = subprocess.run(
            command,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=job.timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"status": f"failed: timed out after {job.timeout:g} s"}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER) :])  # type: ignore[no-any-return]
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"status": f"failed: {tail[:200]}"}


def _machine() -> dict[str, str]:
    import os
    import platform

    cpu = platform.processor() or platform.machine()
    memory = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
    }


def _load() -> str:
    import os

    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "n/a"


def _versions() -> dict[str, str]:
    from benchmarks.peers import version_of

    names = [
        "toolcast",
        "pydantic",
        "pydantic-core",
        "jiter",
        "openai-agents",
        "pydantic-ai-slim",
        "fastmcp",
        "langchain-core",
        "mcp",
    ]
    return {name: version_of(name) or "not installed" for name in names}


def _sections() -> list[Any]:
    """Each section's module (or adapter); a missing one is reported by name."""
    import importlib.util

    modules: list[Any] = []
    for name in SECTIONS:
        if importlib.util.find_spec(name) is None:
            modules.append(name)
        elif name == "benchmarks.bench_catalog":
            modules.append(_CatalogSection())
        else:
            modules.append(importlib.import_module(name))
    return modules


# -- the catalog section: `benchmarks/bench_catalog.py`'s own `run()`, one process each


def catalog_worker(params: dict[str, Any]) -> dict[str, Any]:
    """Worker: `bench_catalog.run(quick=...)`, plus a plain-dict lookup for scale."""
    import contextlib
    import itertools

    from benchmarks import bench_catalog

    # bench_catalog reads `time.perf_counter`; give it CPU time like every other
    # single-threaded figure here, so other processes on the machine don't count.
    bench_catalog.time = _CpuTime()  # type: ignore[assignment,attr-defined]
    with contextlib.redirect_stdout(sys.stderr):
        figures = bench_catalog.run(quick=params["quick"])
    count = int(figures["full"]["tools"])
    table = {f"tool_{i}": object() for i in range(count)}
    names = list(table)
    position = itertools.count()
    rounds = params["rounds"]
    start = time.process_time()
    for _ in range(rounds):
        table[names[next(position) % count]]
    figures["dict_lookup_ns"] = (time.process_time() - start) / rounds * 1e9
    return {"status": "ok", **figures}


class _CpuTime:
    """A stand-in for the `time` module whose `perf_counter` is CPU time."""

    perf_counter = staticmethod(time.process_time)
    monotonic_ns = staticmethod(time.monotonic_ns)

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


class _CatalogSection:
    """Adapter: runs `benchmarks/bench_catalog.py` (the catalog engineer's) per process."""

    __name__ = "benchmarks.bench_catalog"

    _ROWS = (
        ("tools", "tools", "{:,.0f}"),
        ("build_us_per_tool", "build from modules, µs per tool", "{:.0f}"),
        ("bookkeeping_us_per_tool", "catalog bookkeeping only, µs per tool", "{:.1f}"),
        ("cached_rebuild_ms", "same modules again (cached), ms", "{:.3f}"),
        ("select_categories_ms", "`select(categories=3 of 20)`, ms", "{:.2f}"),
        ("select_names_ms", "`select(names=200 names)`, ms", "{:.2f}"),
        ("resolve_ns", "`ToolSet.resolve(name)`, ns per call", "{:.0f}"),
        ("resolve_unknown_us", "`resolve` of an unknown name (error built), µs", "{:.1f}"),
        ("validators_compiled", "validators compiled while building", "{:.0f}"),
    )

    def jobs(self, quick: bool) -> list[Any]:
        from benchmarks import Job

        reps, rounds = (1, 2_000) if quick else (3, 200_000)
        return [
            Job(
                f"catalog/{rep}",
                "benchmarks.run:catalog_worker",
                {"quick": quick, "rounds": rounds},
                timeout=600,
            )
            for rep in range(reps)
        ]

    def _runs(self, results: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            v for k, v in results.items() if k.startswith("catalog/") and v.get("status") == "ok"
        ]

    def figures(self, results: dict[str, Any], quick: bool) -> list[Any]:
        from benchmarks import Figure, median

        del quick
        runs = self._runs(results)
        if not runs:
            return []
        build = median([r["full"]["build_us_per_tool"] for r in runs])
        linear = median(
            [r["full"]["build_us_per_tool"] / r["small"]["build_us_per_tool"] for r in runs]
        )
        return [
            Figure(
                f"catalog, build per tool at {runs[0]['full']['tools']:,.0f} tools "
                "(x per tool at 1/5 size)",
                linear,
                1.5,
                target_text="linear (≈ 1x)",
                detail=f"{build:.0f} µs per tool",
            )
        ]

    def render(self, results: dict[str, Any], quick: bool) -> str:
        from benchmarks import median

        del quick
        runs = self._runs(results)
        lines = [
            "## Catalog at scale",
            "",
            "`benchmarks/bench_catalog.py` (generated modules of 50 tools: 40 functions "
            "and a toolbox of 10 methods; 20 categories), run in a fresh process per "
            "measurement, medians. *full / small* near 1 for per-tool and per-call "
            "figures means the work grows linearly.",
            "",
        ]
        if not runs:
            failed = [v for k, v in results.items() if k.startswith("catalog/")]
            status = failed[0].get("status") if failed else "not run"
            return "\n".join([*lines, f"Not measured: {status}."])
        lines += [
            "| figure | small | full | full / small |",
            "|---|---:|---:|---:|",
        ]
        for key, label, fmt in self._ROWS:
            small = median([r["small"][key] for r in runs])
            full = median([r["full"][key] for r in runs])
            ratio = f"{full / small:.2f}" if small else "-"
            lines.append(f"| {label} | {fmt.format(small)} | {fmt.format(full)} | {ratio} |")
        lookup = median([r["dict_lookup_ns"] for r in runs])
        resolve = median([r["full"]["resolve_ns"] for r in runs])
        lines += [
            "",
            f"For scale: a plain `dict` lookup with the same access pattern takes "
            f"{lookup:.0f} ns, so `ToolSet.resolve` costs {resolve / lookup:.1f}x a dict lookup.",
        ]
        return "\n".join(lines)


def _command(quick: bool, only: Sequence[str], runs: int) -> str:
    command = "python -m benchmarks.run"
    if quick:
        command += " --quick"
    if only:
        command += " --only " + ",".join(only)
    if runs != (1 if quick else RUNS):
        command += f" --runs {runs}"
    return command


def _render(modules: list[Any], run: dict[str, Any]) -> str:
    meta, runs = run["meta"], _runs_of(run)
    quick, only = meta["quick"], meta["only"]
    first = runs[0]
    lines = [
        "# Benchmarks",
        "",
        "<!-- Generated by `python -m benchmarks.run`; do not edit by hand. -->",
        "",
        "Every figure on this page was measured by the command below, in one invocation, on "
        "the machine below; the page is written by that command. Absolute times drift "
        "on shared machines, so each figure is also given as a ratio to a baseline "
        "measured in the same process, in interleaved rounds (medians). Times are the "
        "CPU time of the measuring process (other processes on a shared machine do not "
        "count) unless marked *wall*. Cold figures (definition, import, memory) come "
        "from a fresh process each; per-call figures put toolcast and every peer in one "
        "process, on the same function and arguments, so all are compared in the same "
        "rounds.",
        "",
        "```sh",
        "pip install -e '.[bench]'   # toolcast plus the peer libraries, pinned",
        _command(quick, only, len(runs)),
        "```",
        "",
        f"The command measures every section {_times(len(runs))}, one run after the other, "
        "so one slow spell of the machine touches one run. The summary gives each "
        "figure's median over the runs with the min-max range, and says *met* only when "
        "every run meets the target; the sections below show the first run. The raw "
        "results of this page are committed next to it "
        f"([`{RAW.name}`]({RAW.name})): `--render {RAW.relative_to(ROOT)}` writes the "
        "page again without measuring, and `--compare OLD.json` prints the change per "
        "summary row against an earlier run's raw results. `python benchmarks/run.py` "
        "works the same; `--quick` runs tiny sizes once in seconds (the test suite does, "
        "to prove the code works); `--only dispatch,definition` runs some sections. A "
        "peer library that is not installed is reported as such.",
        "",
    ]
    if quick:
        lines += [
            "> **Quick run**: tiny sizes and few rounds, to prove the code works. "
            "These figures are not meaningful.",
            "",
        ]
    lines += [
        "## Machine and versions",
        "",
        "| | |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in meta["machine"].items()),
        f"| run time | {meta['elapsed']:.0f} s |",
        "",
        "| package | version |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in meta["versions"].items()),
        "",
    ]
    summary = _summary(modules, runs, quick)
    if summary:
        lines += [summary, ""]
    behind = [
        bullet
        for module in modules
        if not isinstance(module, str) and hasattr(module, "behind")
        for bullet in module.behind(first, quick)
    ]
    if behind:
        lines += [
            "## Where toolcast is not ahead, and why",
            "",
            "Written by the benchmark from the first run's figures (the explanations are "
            "fixed text, shown only when the figures call for them).",
            "",
            *behind,
            "",
        ]
    for module in modules:
        if isinstance(module, str):
            short = module.rsplit(".", 1)[-1]
            if not only or short.removeprefix("bench_") in only:
                lines += [f"## {short}", "", f"Not available: `{module}` is not there yet.", ""]
            continue
        short = module.__name__.rsplit(".", 1)[-1].removeprefix("bench_")
        if only and short not in only:
            continue
        lines += [module.render(first, quick).rstrip(), ""]
    return "\n".join(lines).rstrip() + "\n"


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _runs_of(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Each run's results; a raw file from before `--runs` holds one run."""
    return run["runs"] if "runs" in run else [run["results"]]


def _figures(modules: list[Any], runs: list[dict[str, Any]], quick: bool) -> dict[str, list[Any]]:
    """Per summary label, that figure from each run that measured it (in run order)."""
    by_label: dict[str, list[Any]] = {}
    for module in modules:
        if isinstance(module, str) or not hasattr(module, "figures"):
            continue
        for results in runs:
            for figure in module.figures(results, quick):
                by_label.setdefault(figure.label, []).append(figure)
    return by_label


def _value(figure: Any, value: float) -> str:
    return f"{value:.{figure.digits}f}{figure.unit}"


def _summary_row(figures: list[Any], count: int) -> str:
    from benchmarks import median

    first = figures[0]
    values = sorted(f.value for f in figures)
    shown = _value(first, median(values))
    if len(values) > 1:
        shown += f" ({_value(first, values[0])}-{_value(first, values[-1])})"
    if first.detail:
        shown += f"; {first.detail}"
    if first.target is None:
        return f"| {first.label} | {shown} | - | - |"
    target = first.target_text or f"≤ {first.target:g}{first.unit}"
    meeting = sum(f.value <= first.target for f in figures)
    met = "yes" if meeting == len(figures) == count else "**no**"
    if count > 1:
        met += f" ({meeting} of {count} runs)"
    return f"| {first.label} | {shown} | {target} | {met} |"


def _summary(modules: list[Any], runs: list[dict[str, Any]], quick: bool) -> str:
    parts = [_summary_row(f, len(runs)) for f in _figures(modules, runs, quick).values()]
    for module in modules:  # a section that gives only Markdown rows: its first run's
        if not isinstance(module, str) and not hasattr(module, "figures"):
            parts.extend(getattr(module, "headline", lambda *_: [])(runs[0], quick))
    if not parts:
        return ""
    spread = "median of the runs (min-max)" if len(runs) > 1 else "one run"
    return "\n".join(
        [
            "## Summary",
            "",
            f"| figure | toolcast, {spread} | target | met |",
            "|---|---:|---:|---|",
            *parts,
        ]
    )


def _compare(modules: list[Any], new: dict[str, Any], old: dict[str, Any]) -> str:
    """Per summary row: the old run's median, the new one's, and the change."""
    from benchmarks import median

    quick = bool(new["meta"]["quick"])
    before = _figures(modules, _runs_of(old), quick)
    after = _figures(modules, _runs_of(new), quick)
    lines = [f"{'figure':<90} {'old':>12} {'new':>12} {'change':>8}"]
    for label in [*after, *(k for k in before if k not in after)]:
        olds, news = before.get(label), after.get(label)
        old_text = _value(olds[0], median([f.value for f in olds])) if olds else "-"
        new_text = _value(news[0], median([f.value for f in news])) if news else "-"
        change = "-"
        if olds and news:
            was, now = median([f.value for f in olds]), median([f.value for f in news])
            change = f"{(now - was) / was:+.0%}" if was else "-"
        lines.append(f"{label[:90]:<90} {old_text:>12} {new_text:>12} {change:>8}")
    return "\n".join(lines)


def _measure(modules: list[Any], quick: bool, only: Sequence[str], runs: int) -> dict[str, Any]:
    """Run every selected job, one subprocess at a time, `runs` times; meta and results."""
    jobs = []
    for module in modules:
        if isinstance(module, str):
            continue
        short = module.__name__.rsplit(".", 1)[-1].removeprefix("bench_")
        if not only or short in only:
            jobs.extend(module.jobs(quick))
    started = time.perf_counter()
    load_before = _load()
    measured: list[dict[str, Any]] = []
    for number in range(1, runs + 1):
        results: dict[str, Any] = {}
        for index, job in enumerate(jobs, 1):
            t0 = time.perf_counter()
            results[job.key] = _run_job(job)
            status = results[job.key].get("status", "ok")
            print(
                f"[run {number}/{runs}, {index}/{len(jobs)}] {job.key}: {status} "
                f"({time.perf_counter() - t0:.1f} s)",
                file=sys.stderr,
            )
        measured.append(results)
    machine = _machine()
    machine["load average (1 min) at start / end"] = f"{load_before} / {_load()}"
    meta = {
        "quick": quick,
        "only": list(only),
        "machine": machine,
        "versions": _versions(),
        "elapsed": time.perf_counter() - started,
    }
    return {"meta": meta, "runs": measured}


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes, seconds not minutes")
    parser.add_argument(
        "--only", default="", help="comma-separated sections: dispatch,definition,..."
    )
    parser.add_argument(
        "--runs", type=int, help=f"how many times to run every job (default {RUNS}; quick 1)"
    )
    parser.add_argument("--output", type=Path, help="Markdown file to write")
    parser.add_argument("--json", type=Path, help="where to write the raw results as JSON")
    parser.add_argument(
        "--render",
        type=Path,
        metavar="JSON",
        help="measure nothing: write the page again from a run's saved raw results",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="OLD.json",
        help="print each summary row's change against an earlier run's raw results",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--params", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return _work(args.worker, args.params)

    modules = _sections()
    if args.render:
        run = json.loads(args.render.read_text(encoding="utf-8"))
    else:
        only = [s for s in args.only.split(",") if s]
        runs = args.runs or (1 if args.quick else RUNS)
        run = _measure(modules, args.quick, only, max(1, runs))
        full_page = not args.quick and not only and args.output is None
        json_path = args.json or (
            RAW
            if full_page
            else ROOT / ".benchmarks" / ("results-quick.json" if args.quick else "results.json")
        )
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    meta = run["meta"]
    if args.compare:
        old = json.loads(args.compare.read_text(encoding="utf-8"))
        print(_compare(modules, run, old))
    if args.render and args.compare and args.output is None:
        return 0  # two saved runs compared: no page to write
    output = args.output or (QUICK_DOC if meta["quick"] else DOC)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(_render(modules, run), encoding="utf-8")
    print(f"wrote {output} ({meta['elapsed']:.0f} s of measuring)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
