"""Projection of the 200-tool corpus to each provider target, cold and warm.

One fresh process per target and measurement. The tools are built first (not
timed); then the provider module is imported (timed on its own), `format_tools`
runs once over the set (*cold*: every schema converted), and then again in
interleaved rounds (*warm*: projections come from the per-(tool, target,
options) cache). Sets are passed in requests of at most 100 tools (OpenAI Chat
takes at most 128).

The baseline, timed in the same rounds, is the least any projection can do:
a fresh `{"name", "description", "parameters"}` dict per tool with a deep copy
of the schema (`copy.deepcopy`), so callers may mutate what they get.
"""

from __future__ import annotations

import copy
import importlib
import time
import warnings
from collections.abc import Mapping
from typing import Any

from benchmarks import Job, Subject, median

__all__ = ("TARGETS", "jobs", "render", "work")

TARGETS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("openai_chat", "openai_chat", {}),
    ("openai_responses", "openai_responses", {}),
    ("openai_realtime", "openai_realtime", {}),
    ("anthropic", "anthropic", {}),
    ("gemini", "gemini", {}),
    ("gemini_openapi", "gemini", {"variant": "openapi"}),
    ("bedrock", "bedrock", {}),
    ("mistral", "mistral", {}),
    ("ollama", "ollama", {}),
    ("mcp", "mcp", {}),
    ("hermes", "hermes", {}),
)
"""(row key, `toolcast.providers` module, `format_tools` options)."""
CHUNK = 100


def _one(
    tools: list[Any], module_name: str, options: dict[str, Any], params: Mapping[str, Any]
) -> dict[str, Any]:
    import asyncio

    from benchmarks import interleave

    size = len(tools)
    chunks = [tools[i : i + CHUNK] for i in range(0, size, CHUNK)]
    perf = time.process_time  # CPU time: see benchmarks/__init__.py
    t0 = perf()
    try:
        module = importlib.import_module(f"toolcast.providers.{module_name}")
    except ImportError as exc:
        return {"status": f"not available ({exc})"}
    import_ms = (perf() - t0) * 1e3
    format_tools = module.format_tools

    def project(_: object) -> None:
        for chunk in chunks:
            format_tools(chunk, **options)

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            t0 = perf()
            project(None)
            cold_s = perf() - t0
        except Exception as exc:
            return {"status": f"failed: {type(exc).__name__}: {str(exc)[:160]}"}
        caught = sorted({str(w.message)[:200] for w in seen})

    specs = [t.spec for t in tools]
    first, again = format_tools(tools[:1], **options), format_tools(tools[:1], **options)
    shares_cache = bool(first) and _shares(first[0], again[0])

    def baseline(_: object) -> None:
        for start in range(0, size, CHUNK):
            [
                {
                    "name": s.name,
                    "description": s.description,
                    "parameters": copy.deepcopy(s.input_schema),
                }
                for s in specs[start : start + CHUNK]
            ]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base, warm = asyncio.run(
            interleave(
                [Subject("baseline", baseline), Subject("warm", project)],
                None,
                rounds=params["rounds"],
                batch_seconds=params["batch_seconds"],
            )
        )
    return {
        "status": "ok",
        "import_ms": import_ms,
        "cold_us": cold_s / size * 1e6,
        "warm_us": warm.us / size,
        "baseline_us": base.us / size,
        "warm_ratio": warm.ratio,
        "warnings": caught,
        "shares_cache": shares_cache,
    }


def _shares(a: Any, b: Any) -> bool:
    """True when two results of the same call hold the very same *mutable* dict or list.

    Read-only containers (toolcast's frozen subclasses) may be shared safely.
    """
    if type(a) is dict and type(b) is dict:
        return any(
            (type(a[k]) in (dict, list) and a[k] is b.get(k)) or _shares(a[k], b.get(k)) for k in a
        )
    if isinstance(a, list) and isinstance(b, list):
        return any(_shares(x, y) for x, y in zip(a, b, strict=False))
    return False


def work(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: the given targets in turn (one per process in a full run)."""
    from benchmarks import corpus
    from toolcast import Tool

    tools = [Tool.from_function(fn) for fn in corpus.functions(params["size"])]
    return {
        "status": "ok",
        "targets": {
            key: _one(tools, module, options, params) for key, module, options in params["targets"]
        },
    }


def jobs(quick: bool) -> list[Job]:
    """One job per (target, repetition); a quick run does every target in one job."""
    if quick:
        params = {"targets": TARGETS, "size": 20, "rounds": 2, "batch_seconds": 0.002}
        return [Job("projection/all/0", "benchmarks.bench_projection:work", params)]
    return [
        Job(
            f"projection/{key}/{rep}",
            "benchmarks.bench_projection:work",
            {"targets": [(key, module, options)], "size": 200, "rounds": 7, "batch_seconds": 0.02},
            timeout=120,
        )
        for rep in range(3)
        for key, module, options in TARGETS
    ]


def _runs(results: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    runs = []
    for job_key, value in results.items():
        if not job_key.startswith("projection/"):
            continue
        if value.get("status") != "ok":
            if job_key.split("/")[1] in (key, "all"):
                runs.append(value)
            continue
        if key in value["targets"]:
            runs.append(value["targets"][key])
    return runs


def behind(results: Mapping[str, Any], quick: bool) -> list[str]:
    """Bullets: targets whose cached (warm) projection costs more than the baseline."""
    del quick
    slow, sharing = [], []
    for key, module, options in TARGETS:
        ok = [r for r in _runs(results, key) if r.get("status") == "ok"]
        if not ok:
            continue
        if ok[0].get("shares_cache"):
            sharing.append(module)
        ratio = median([r["warm_ratio"] for r in ok])
        if ratio > 1:
            label = module + ("" if not options else f" ({', '.join(map(str, options.values()))})")
            slow.append(f"{label} {ratio:.2f}x")
    out = []
    if sharing:
        out.append(
            f"- **Cheap for a reason** ({', '.join(sharing)}): two calls of `format_tools` "
            "return definitions that share nested dicts with the projection cache, so they "
            "cost almost nothing warm, and a caller that edits a returned definition "
            "changes what later calls return."
        )
    if not slow:
        return out
    text = (
        f"- **Warm projection** ({', '.join(slow)} the baseline): a cache hit still "
        "costs more than building a fresh dict with a deep-copied schema, because the "
        "target hands out a fresh copy of the whole cached definition (so a caller may "
        "edit it without changing the next request), where the baseline copies only "
        "the schema. The cache keeps each definition as compact JSON and parses a fresh "
        "copy, which is faster than the baseline's deep copy for most definitions."
    )
    return [*out, text]


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown table: one row per target."""
    size = 20 if quick else 200
    lines = [
        "## Projection to each provider target",
        "",
        f"The {size}-tool corpus, `format_tools(tools, **options)` per target in "
        f"requests of at most {CHUNK} tools. *Cold* is the first projection in a fresh "
        "process (every schema converted); *warm* is the same call again (cached per "
        "tool, target and options), as a median over interleaved rounds with the "
        "baseline: a fresh name/description/deep-copied-schema dict per tool. "
        "Medians over processes. A cold projection also writes each definition as "
        "compact JSON and checks that it reads back exactly (the form warm calls parse "
        "a fresh copy from), a visible share of the cold figure for the cheapest "
        "targets (MCP, Hermes).",
        "",
        "| target | options | module import ms | cold µs per tool | warm µs per tool "
        "| warm x baseline | baseline µs per tool |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    notes: dict[str, list[str]] = {}
    for key, module, options in TARGETS:
        runs = _runs(results, key)
        if not runs:
            continue
        ok = [r for r in runs if r.get("status") == "ok"]
        shown = ", ".join(f"`{k}={v!r}`" for k, v in options.items()) or "defaults"
        if not ok:
            lines.append(f"| {module} | {shown} | {runs[0].get('status')} | | | | |")
            continue
        if ok[0]["warnings"]:
            notes[module] = ok[0]["warnings"]
        lines.append(
            f"| {module} | {shown} | {median([r['import_ms'] for r in ok]):.0f} "
            f"| {median([r['cold_us'] for r in ok]):.0f} "
            f"| {median([r['warm_us'] for r in ok]):.1f} "
            f"| {median([r['warm_ratio'] for r in ok]):.2f}x "
            f"| {median([r['baseline_us'] for r in ok]):.1f} |"
        )
    if notes:
        lines += [
            "",
            "Warnings raised while projecting (by design, reported here as they were seen):",
            "",
        ]
        for module, messages in notes.items():
            lines += [f"- {module}: " + "; ".join(f"“{m}”" for m in messages)]
    return "\n".join(lines)
