"""Definition: 200 varied tools built and projected to OpenAI Chat, cold and warm.

- *cold*: a fresh process per measurement, toolcast and pydantic alternating;
  nothing is imported before the clock starts except the corpus (whose import,
  which defines the 200 functions and pydantic models, is not timed);
- *warm*: one process, everything already used once, interleaved rounds;
- *import plus first tool*: a fresh process per library and measurement.

Two kinds of work, each against the peer doing the same work:

- *spec only*: toolcast's `Tool.from_function(fn)` (spec and schemas; the validator
  compiles lazily, on the first call) against `pydantic.TypeAdapter(fn)` with its
  default config. pydantic has no public spec-only path: `TypeAdapter(fn)` builds
  the core schema and compiles validator and serializer, and with
  `defer_build=True` `json_schema()` compiles the validator anyway. So the peer
  does more than toolcast here, and says so in the row.
- *spec + compiled validator*: `Tool.from_function(fn)` with its validator forced
  to compile (`Tool._get_parser`, what the first call runs) against
  `TypeAdapter(fn)` + `.json_schema()` (default config).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from benchmarks import Figure, Job, Subject, median

__all__ = ("figures", "jobs", "render", "work_cold", "work_first", "work_warm")

TARGET = 0.5
"""Issue 26's aim: spec-only definition, cold, ≤ 0.5x `TypeAdapter(fn)`."""
COMPILED_TARGET = 0.8
"""Issue 26's aim: spec + compiled validator ≤ 0.8x `TypeAdapter(fn)` + `json_schema()`."""
IMPORT_TARGET_MS = 80.0
FIRST_TOOL_TARGET_MS = 150.0
"""Issue 15's aims: `import toolcast` ≤ 80 ms, and with the first tool ≤ 150 ms."""
CHUNK = 100
"""Tools per `format_tools` call: OpenAI Chat takes at most 128 per request."""


def _project(format_tools: Callable[..., Any], tools: Sequence[Any]) -> None:
    for start in range(0, len(tools), CHUNK):
        format_tools(tools[start : start + CHUNK])


def work_cold(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: one cold measurement for `library` (toolcast or pydantic)."""
    perf = time.process_time  # CPU time: see benchmarks/__init__.py
    library, size = params["library"], params["size"]
    if library == "toolcast":
        t0 = perf()
        from toolcast import Tool

        import_s = perf() - t0
        from benchmarks import corpus

        fns = corpus.functions(size)
        t0 = perf()
        tools = [Tool.from_function(fn) for fn in fns]
        build_s = perf() - t0
        t0 = perf()
        for tool in tools:
            tool._get_parser(lenient=False)  # what the first call compiles
        compile_s = perf() - t0
        t0 = perf()
        try:
            from toolcast.providers.openai_chat import format_tools
        except ImportError as exc:
            return {
                "status": "ok",
                "import_ms": import_s * 1e3,
                "build_us": build_s / size * 1e6,
                "compile_us": compile_s / size * 1e6,
                "project": f"not available: {exc}",
            }
        provider_s = perf() - t0
        t0 = perf()
        try:
            _project(format_tools, tools)
        except Exception as exc:
            return {
                "status": "ok",
                "import_ms": import_s * 1e3,
                "build_us": build_s / size * 1e6,
                "compile_us": compile_s / size * 1e6,
                "project": f"failed: {type(exc).__name__}: {exc}",
            }
        project_s = perf() - t0
        return {
            "status": "ok",
            "import_ms": import_s * 1e3,
            "build_us": build_s / size * 1e6,
            "compile_us": compile_s / size * 1e6,
            "provider_import_ms": provider_s * 1e3,
            "project_us": project_s / size * 1e6,
        }
    t0 = perf()
    from pydantic import TypeAdapter

    import_s = perf() - t0
    from benchmarks import corpus

    functions: tuple[Any, ...] = corpus.functions(size)
    t0 = perf()
    adapters = [TypeAdapter(fn) for fn in functions]
    build_s = perf() - t0
    t0 = perf()
    for adapter in adapters:
        adapter.json_schema()
    schema_s = perf() - t0
    return {
        "status": "ok",
        "import_ms": import_s * 1e3,
        "build_us": build_s / size * 1e6,
        "schema_us": schema_s / size * 1e6,
    }


def work_warm(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: toolcast and pydantic on the same functions, interleaved rounds."""
    import asyncio

    from pydantic import TypeAdapter

    from benchmarks import corpus, interleave
    from toolcast import Tool

    fns: tuple[Any, ...] = corpus.functions(params["size"])
    format_tools: Callable[..., Any] | None
    try:
        from toolcast.providers.openai_chat import format_tools
    except ImportError:
        format_tools = None

    def adapters(_: object) -> None:
        for fn in fns:
            TypeAdapter(fn)

    def adapters_schema(_: object) -> None:
        for fn in fns:
            TypeAdapter(fn).json_schema()

    def build(_: object) -> None:
        for fn in fns:
            Tool.from_function(fn)

    def build_compiled(_: object) -> None:
        for fn in fns:
            Tool.from_function(fn)._get_parser(lenient=False)

    def build_project(_: object) -> None:
        # New Tool objects each time, so the projection cache never hits.
        assert format_tools is not None
        _project(format_tools, [Tool.from_function(fn) for fn in fns])

    subjects = [
        Subject("pydantic `TypeAdapter(fn)`", adapters),
        Subject("pydantic `TypeAdapter(fn).json_schema()`", adapters_schema),
        Subject("toolcast `Tool.from_function(fn)` (spec only)", build),
        Subject("toolcast `Tool.from_function(fn)` + compiled validator", build_compiled),
    ]
    if format_tools is not None:
        subjects.append(Subject("toolcast build + OpenAI Chat projection", build_project))
    measured = asyncio.run(
        interleave(
            subjects,
            None,
            rounds=params["rounds"],
            batch_seconds=0.0,
            warmup_seconds=0.0,
            reference=1,
        )
    )
    size = params["size"]
    rows = [m.as_dict() | {"us": m.us / size} for m in measured]
    return {"status": "ok", "rows": rows}


_FIRST_TOOL = '''
def lookup(city: str, days: int = 3) -> str:
    """Weather for a city.

    Args:
        city: The city.
        days: How many days ahead.
    """
    return city
'''


def work_first(params: Mapping[str, Any]) -> dict[str, Any]:
    """Worker: import a library and define its first tool, in a fresh process."""
    perf = time.process_time  # CPU time: see benchmarks/__init__.py
    namespace: dict[str, Any] = {}
    exec(_FIRST_TOOL, namespace)
    fn = namespace["lookup"]
    library = params["library"]
    t0 = perf()
    try:
        if library == "toolcast":
            from toolcast import Tool

            t1 = perf()
            tool = Tool.from_function(fn)
            t2 = perf()
            tool.invoke_sync('{"city": "Oslo"}')
        elif library == "pydantic":
            from pydantic import TypeAdapter

            t1 = perf()
            adapter = TypeAdapter(fn)
            adapter.json_schema()
            t2 = perf()
            adapter.validate_json('{"city": "Oslo"}')
        elif library == "openai_agents":
            from agents import function_tool

            t1 = perf()
            function_tool(fn)
            t2 = perf()
        elif library == "pydantic_ai":
            from pydantic_ai import Tool as PaiTool

            t1 = perf()
            PaiTool(fn)
            t2 = perf()
        elif library == "fastmcp":
            from fastmcp.tools.function_tool import FunctionTool

            t1 = perf()
            FunctionTool.from_function(fn)
            t2 = perf()
        elif library == "langchain":
            from langchain_core.tools import StructuredTool

            t1 = perf()
            StructuredTool.from_function(fn)
            t2 = perf()
        elif library == "mcp":
            from mcp.server.mcpserver.tools.base import Tool as McpTool

            t1 = perf()
            McpTool.from_function(fn)
            t2 = perf()
        else:
            return {"status": f"unknown library {library}"}
    except ImportError:
        return {"status": "not installed"}
    t3 = perf()
    return {
        "status": "ok",
        "import_ms": (t1 - t0) * 1e3,
        "first_tool_ms": (t2 - t1) * 1e3,
        "first_call_ms": (t3 - t2) * 1e3 if library in ("toolcast", "pydantic") else None,
    }


_FIRST_LIBRARIES = (
    "toolcast",
    "pydantic",
    "openai_agents",
    "pydantic_ai",
    "fastmcp",
    "langchain",
    "mcp",
)


def jobs(quick: bool) -> list[Job]:
    """Cold pairs, one warm process, and import-plus-first-tool per library."""
    size, reps, rounds = (20, 1, 2) if quick else (200, 4, 9)
    out = []
    for rep in range(reps):
        for library in ("toolcast", "pydantic"):
            out.append(
                Job(
                    f"definition/cold/{library}/{rep}",
                    "benchmarks.bench_definition:work_cold",
                    {"library": library, "size": size},
                    timeout=120,
                )
            )
    out.append(
        Job(
            "definition/warm",
            "benchmarks.bench_definition:work_warm",
            {"size": size, "rounds": rounds},
            timeout=300,
        )
    )
    libraries = ("toolcast", "pydantic") if quick else _FIRST_LIBRARIES
    for rep in range(reps):
        for library in libraries:
            if rep >= 2 and library not in ("toolcast", "pydantic"):
                continue
            out.append(
                Job(
                    f"definition/first/{library}/{rep}",
                    "benchmarks.bench_definition:work_first",
                    {"library": library},
                    timeout=120,
                )
            )
    return out


def _cold(results: Mapping[str, Any], library: str) -> list[dict[str, Any]]:
    prefix = f"definition/cold/{library}/"
    return [v for k, v in results.items() if k.startswith(prefix) and v.get("status") == "ok"]


class _Cold:
    """Paired cold ratios (medians over adjacent toolcast, pydantic processes)."""

    def __init__(self, results: Mapping[str, Any]) -> None:
        self.spec: list[float] = []
        """Spec only: `Tool.from_function` / `TypeAdapter(fn)`."""
        self.compiled: list[float] = []
        """Spec + compiled validator / `TypeAdapter(fn)` + `json_schema()`."""
        self.compiled_vs_adapter: list[float] = []
        """Spec + compiled validator / `TypeAdapter(fn)` alone."""
        self.projected: list[float] = []
        """Spec + OpenAI Chat projection / `TypeAdapter(fn)`."""
        rep = 0
        while f"definition/cold/toolcast/{rep}" in results:
            ours = results[f"definition/cold/toolcast/{rep}"]
            theirs = results.get(f"definition/cold/pydantic/{rep}", {})
            rep += 1
            if ours.get("status") != "ok" or theirs.get("status") != "ok":
                continue
            self.spec.append(ours["build_us"] / theirs["build_us"])
            if "compile_us" in ours:
                both = ours["build_us"] + ours["compile_us"]
                self.compiled.append(both / (theirs["build_us"] + theirs["schema_us"]))
                self.compiled_vs_adapter.append(both / theirs["build_us"])
            if "project_us" in ours:
                self.projected.append((ours["build_us"] + ours["project_us"]) / theirs["build_us"])


def _warm(results: Mapping[str, Any], prefix: str) -> dict[str, Any] | None:
    rows = results.get("definition/warm", {}).get("rows", [])
    return next((r for r in rows if r["name"].startswith(prefix)), None)


_SPEC_LABEL = "spec only"
_COMPILED_LABEL = "spec + compiled validator"
_WARM_SPEC = "toolcast `Tool.from_function(fn)` (spec"
_WARM_COMPILED = "toolcast `Tool.from_function(fn)` + compiled"


def figures(results: Mapping[str, Any], quick: bool) -> list[Figure]:
    """Summary rows for definition, from one run's results (lower is better)."""
    del quick
    out = []
    cold = _Cold(results)
    spec_peer = "x `TypeAdapter(fn)`, default config; pydantic has no spec-only path"
    compiled_peer = "x `TypeAdapter(fn)` + `.json_schema()`, default config"
    if cold.spec:
        out.append(
            Figure(f"definition, {_SPEC_LABEL}, cold ({spec_peer})", median(cold.spec), TARGET)
        )
    if cold.compiled:
        out.append(
            Figure(
                f"definition, {_COMPILED_LABEL}, cold ({compiled_peer})",
                median(cold.compiled),
                COMPILED_TARGET,
                detail=f"{median(cold.compiled_vs_adapter):.2f}x `TypeAdapter(fn)` alone",
            )
        )
    spec = _warm(results, _WARM_SPEC)
    if spec is not None:
        out.append(Figure(f"definition, {_SPEC_LABEL}, warm ({spec_peer})", spec["ratio"], TARGET))
    compiled = _warm(results, _WARM_COMPILED)
    if compiled is not None:
        out.append(
            Figure(
                f"definition, {_COMPILED_LABEL}, warm ({compiled_peer})",
                compiled["vs"],
                COMPILED_TARGET,
                detail=f"{compiled['ratio']:.2f}x `TypeAdapter(fn)` alone",
            )
        )
    first = [
        r
        for k, r in results.items()
        if k.startswith("definition/first/toolcast/") and r.get("status") == "ok"
    ]
    if first:
        imp = median([r["import_ms"] for r in first])
        both = median([r["import_ms"] + r["first_tool_ms"] for r in first])
        out += [
            Figure("`from toolcast import Tool`, ms (CPU)", imp, IMPORT_TARGET_MS, " ms", 0),
            Figure("import + first tool, ms (CPU)", both, FIRST_TOOL_TARGET_MS, " ms", 0),
        ]
    return out


def behind(results: Mapping[str, Any], quick: bool) -> list[str]:
    """Bullets: where pydantic beats toolcast at definition time, and why."""
    out = []
    cold = _Cold(results)
    spec = _warm(results, _WARM_SPEC)
    compiled = _warm(results, _WARM_COMPILED)
    spec_cold = median(cold.spec) if cold.spec else None
    compiled_cold = median(cold.compiled) if cold.compiled else None
    if spec_cold is not None and spec_cold > TARGET:
        warm = f", warm {spec['ratio']:.2f}x" if spec else ""
        ours = _cold(results, "toolcast")
        extra = ""
        if spec and ours:
            more = median([r["build_us"] for r in ours]) - spec["us"]
            extra = (
                f"Here a fresh process spent {more:.0f} µs per tool more than a warm one "
                f"({more * (20 if quick else 200) / 1e3:.0f} ms over the "
                f"{20 if quick else 200} tools). "
            )
        out.append(
            f"- **Definition, spec only** (cold {spec_cold:.2f}x{warm} a `TypeAdapter(fn)`, "
            f"aim ≤ {TARGET:g}x cold): toolcast walks every annotation of every tool "
            "itself, builds its JSON Schema and output schema at definition and reads "
            "each docstring; profiled, the cost is the annotation walk, the docstring "
            "parse, reading signatures and hints, and freezing the published schema, "
            "in that order, with no single step to cut. A class used by many tools is "
            "walked once and each docstring parsed once, so a fresh process pays for "
            "filling those caches, and for first-use imports, that a warm one shares. "
            f"{extra}Profiled (cProfile, 200 tools in a fresh process), the docstring "
            "parse is about a quarter of `Tool.from_function`; docstring_parser's import "
            "on the first docstring (it compiles every style's section regexes) measured "
            "5.5 ms of CPU on its own, a cost pydantic, which reads no docstrings, does not pay."
        )
    if compiled_cold is not None and compiled_cold > COMPILED_TARGET:
        warm = f", warm {compiled['vs']:.2f}x" if compiled else ""
        out.append(
            f"- **Definition, spec + compiled validator** (cold {compiled_cold:.2f}x{warm} "
            f"`TypeAdapter(fn)` + `.json_schema()`, aim ≤ {COMPILED_TARGET:g}x): the "
            "validator is compiled by pydantic-core from a core schema toolcast walks "
            "the annotations again to build; the `SchemaValidator` build itself is "
            "pydantic-core's, the same cost pydantic pays."
        )
    ours = [
        r["import_ms"]
        for k, r in results.items()
        if k.startswith("definition/first/toolcast/") and r.get("status") == "ok"
    ]
    theirs = [
        r["import_ms"]
        for k, r in results.items()
        if k.startswith("definition/first/pydantic/") and r.get("status") == "ok"
    ]
    if ours and (median(ours) > IMPORT_TARGET_MS or (theirs and median(ours) > median(theirs))):
        against = f" against pydantic's {median(theirs):.0f} ms" if theirs else ""
        out.append(
            f"- **Import** ({median(ours):.0f} ms{against}, aim ≤ {IMPORT_TARGET_MS:g} ms): "
            "`from toolcast import Tool` loads pydantic-core, whose package init loads "
            "its `core_schema` module (pydantic's own import pays the same), and "
            "toolcast's core modules (the definition walker, the argument parser, the "
            "catalog). asyncio, the docstring parser, `secrets`, and the run loop, "
            "policy and constrained-decoding wings load on first use. pydantic defers "
            "most of its own modules to first use, so its first `TypeAdapter` pays for "
            "them instead (compare the *import + first tool* column)."
        )
    return out


def _cold_lines(results: Mapping[str, Any]) -> list[str]:
    ours, theirs = _cold(results, "toolcast"), _cold(results, "pydantic")
    cold = _Cold(results)

    def ratio(values: list[float]) -> str:
        return f"{median(values):.2f}x ({min(values):.2f}-{max(values):.2f})" if values else ""

    lines = []
    if theirs:
        build = median([r["build_us"] for r in theirs])
        both = median([r["build_us"] + r["schema_us"] for r in theirs])
        lines += [
            f"| pydantic `TypeAdapter(fn)` (default config) | {build:.0f} | 1.00x | |",
            f"| pydantic `TypeAdapter(fn)` + `.json_schema()` | {both:.0f} | | 1.00x |",
        ]
    if not ours:
        return lines
    build = median([r["build_us"] for r in ours])
    lines.append(
        f"| toolcast `Tool.from_function(fn)` (spec only) | {build:.0f} | {ratio(cold.spec)} | |"
    )
    compiled = [r for r in ours if "compile_us" in r]
    if compiled:
        both = median([r["build_us"] + r["compile_us"] for r in compiled])
        lines.append(
            f"| toolcast spec + compiled validator | {both:.0f} "
            f"| {ratio(cold.compiled_vs_adapter)} | {ratio(cold.compiled)} |"
        )
    projected = [r for r in ours if "project_us" in r]
    if projected:
        project = median([r["project_us"] for r in projected])
        both = median([r["build_us"] + r["project_us"] for r in projected])
        lines += [
            f"| toolcast OpenAI Chat projection on top of the spec | {project:.0f} | | |",
            f"| toolcast spec + projection | {both:.0f} | {ratio(cold.projected)} | |",
        ]
    elif "project" in ours[0]:
        lines.append(f"| toolcast OpenAI Chat projection: {ours[0]['project']} | | | |")
    return lines


def render(results: Mapping[str, Any], quick: bool) -> str:
    """Markdown for the definition section."""
    size = 20 if quick else 200
    lines = [
        "## Definition",
        "",
        f"{size} varied tool functions (`benchmarks/corpus.py`: 0-8 parameters; scalars, "
        "constraints, literals, enums, unions, containers, dates, UUIDs, decimals, "
        "dataclasses, TypedDicts, pydantic models; Google, NumPy and Sphinx docstrings; "
        "sync and async). Two kinds of work, each against the peer doing the same work: "
        "*spec only* (toolcast builds the spec and schemas; its validator compiles on "
        "the first call) against `pydantic.TypeAdapter(fn)` (default config; it "
        "compiles validator and serializer but builds no JSON Schema: pydantic has no "
        "public spec-only path, and with `defer_build=True` `.json_schema()` compiles "
        "the validator too), and *spec + compiled validator* (toolcast's validator "
        "forced to compile, as the first call does) against `TypeAdapter(fn)` + "
        "`.json_schema()`. CPU time.",
        "",
        "### Cold (a fresh process per measurement; paired medians, min-max)",
        "",
        "| | µs per tool | x `TypeAdapter(fn)` | x `TypeAdapter(fn)` + `.json_schema()` |",
        "|---|---:|---:|---:|",
        *_cold_lines(results),
        "",
        "### Warm (one process, interleaved rounds)",
        "",
    ]
    warm = results.get("definition/warm", {})
    if warm.get("status") == "ok":
        lines += [
            "| | µs per tool | x `TypeAdapter(fn)` | x `TypeAdapter(fn)` + `.json_schema()` |",
            "|---|---:|---:|---:|",
        ]
        for r in warm["rows"]:
            spread = f"{r['ratio']:.2f}x ({r['ratio_lo']:.2f}-{r['ratio_hi']:.2f})"
            vs = f"{r['vs']:.2f}x ({r['vs_lo']:.2f}-{r['vs_hi']:.2f})" if "vs" in r else ""
            lines.append(f"| {r['name']} | {r['us']:.0f} | {spread} | {vs} |")
    else:
        lines.append(f"Warm: {warm.get('status', 'not run')}.")
    lines += [
        "",
        "### Import plus first tool (a fresh process each, medians)",
        "",
        "Import of the library, then its first tool from a 2-parameter function. "
        "For toolcast and pydantic also the first call (toolcast compiles the "
        "validator then). Interpreter start-up is not included.",
        "",
        "| library | import ms | first tool ms | import + first tool ms | first call ms |",
        "|---|---:|---:|---:|---:|",
    ]
    labels = {
        "toolcast": "toolcast",
        "pydantic": "pydantic (`TypeAdapter` + `json_schema`)",
        "openai_agents": "openai-agents (`function_tool`)",
        "pydantic_ai": "pydantic-ai (`Tool`)",
        "fastmcp": "fastmcp (`FunctionTool.from_function`)",
        "langchain": "langchain-core (`StructuredTool.from_function`)",
        "mcp": "mcp SDK (`Tool.from_function`)",
    }
    for library in _FIRST_LIBRARIES:
        runs = [v for k, v in results.items() if k.startswith(f"definition/first/{library}/")]
        ok = [r for r in runs if r.get("status") == "ok"]
        if not runs:
            continue
        if not ok:
            lines.append(f"| {labels[library]} | {runs[0].get('status')} | | | |")
            continue
        imp = median([r["import_ms"] for r in ok])
        first = median([r["first_tool_ms"] for r in ok])
        both = median([r["import_ms"] + r["first_tool_ms"] for r in ok])
        call = [r["first_call_ms"] for r in ok if r.get("first_call_ms") is not None]
        call_text = f"{median(call):.2f}" if call else "-"
        lines.append(f"| {labels[library]} | {imp:.0f} | {first:.2f} | {both:.0f} | {call_text} |")
    return "\n".join(lines)
