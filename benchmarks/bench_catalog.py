"""Catalog scale: 5,000 tools across 100 generated modules.

Run `python benchmarks/bench_catalog.py` for the full figures, or call
`run(quick=True)` for a small smoke run (the test suite does). What it shows:

- build time per tool, from modules (schemas included) and from ready Tools (the
  catalog's own bookkeeping), at 1/5 and full size: equal per-tool times mean
  linear work;
- a cached rebuild (the same modules again);
- `select(...)` by categories and by names;
- `ToolSet.resolve` per call, for known and unknown names, at both sizes;
- that no validator was compiled while building (they compile on first call).
"""

from __future__ import annotations

import contextlib
import gc
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from toolcast._catalog._catalog import Catalog, UnknownToolError
from toolcast._catalog._discovery import FactoryResolver

TOOLS_PER_MODULE = 50
MEMBERS_PER_TOOLBOX = 10
CATEGORIES = [f"cat{i}" for i in range(20)]

_TEMPLATE_FN = '''
@tool(categories=[{cats}], aliases=["{name}_old"])
def {name}(query: str, limit: int = 10, tags: list[str] | None = None) -> list[str]:
    """Tool {name}: finds things.

    Args:
        query: What to look for.
        limit: At most this many.
        tags: Only these tags.
    """
    return [query] * limit
'''

_TEMPLATE_METHOD = '''
    @tool(categories=[{cats}])
    def {name}(self, item_id: str, verbose: bool = False) -> str:
        """Member {name}."""
        return item_id
'''


def _source(prefix: str, index: int) -> str:
    lines = [
        "from __future__ import annotations",
        "from toolcast._define._decorator import tool",
        "from toolcast._catalog._toolbox import toolbox",
    ]
    plain = TOOLS_PER_MODULE - MEMBERS_PER_TOOLBOX
    for j in range(plain):
        cats = ", ".join(f'"{CATEGORIES[(index + j + k) % 20]}"' for k in range(2))
        lines.append(_TEMPLATE_FN.format(name=f"{prefix}{index}_tool_{j}", cats=cats))
    lines.append(f'\n@toolbox("{prefix}{index}_box", "Toolbox {index}.")')
    lines.append(f"class Box{index}:")
    for j in range(MEMBERS_PER_TOOLBOX):
        cats = f'"{CATEGORIES[(index + j) % 20]}"'
        lines.append(_TEMPLATE_METHOD.format(name=f"{prefix}{index}_member_{j}", cats=cats))
    return "\n".join(lines)


def generate(count: int, prefix: str) -> list[types.ModuleType]:
    """Make `count` tool modules (registered in sys.modules) of 50 tools each."""
    modules = []
    for index in range(count):
        name = f"toolcast_bench.{prefix}{index}"
        module = types.ModuleType(name)
        sys.modules[name] = module
        exec(compile(_source(prefix, index), name, "exec"), module.__dict__)
        modules.append(module)
    return modules


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()  # start each measurement from the same heap state
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def _best(fn: Callable[[], Any], repeat: int = 5) -> float:
    # The fastest of a few runs: the least disturbed by other processes.
    return min(_timed(fn)[0] for _ in range(repeat))


def _per_name(resolve: Callable[[str], Any], names: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for name in names:
            resolve(name)
        best = min(best, time.perf_counter() - start)
    return best / len(names)


def _compiled_validators(catalog: Catalog) -> int:
    # Private look into the core: a compiled parser replaces the lazy factory.
    return sum(
        1
        for tool in catalog.all(include_deprecated=True)
        if type(getattr(tool, "_parser", None)).__name__ == "Parser"
    )


def measure(modules_count: int, prefix: str, *, resolve_rounds: int) -> dict[str, float]:
    """Figures for one catalog size."""
    modules = generate(modules_count, prefix)
    resolver = FactoryResolver(lambda cls: cls())
    build, catalog = _timed(lambda: Catalog.from_modules(*modules, resolver=resolver, cache=False))
    tools = catalog.all(include_deprecated=True)
    count = len(tools)
    # The catalog's own work, without schema building: add ready Tool objects.
    bookkeeping = _best(lambda: Catalog(tools), 3)
    Catalog.from_modules(*modules, resolver=resolver)
    cached = _best(lambda: Catalog.from_modules(*modules, resolver=resolver))
    assert Catalog.from_modules(*modules, resolver=resolver) is Catalog.from_modules(
        *modules, resolver=resolver
    )
    toolset = catalog.select(categories=CATEGORIES[:3])
    select_cats = _best(lambda: catalog.select(categories=CATEGORIES[:3]))
    names = [t.name for t in tools[:: max(1, count // 200)]]
    select_names = _best(lambda: catalog.select(names=names))
    everything = catalog.select(include_selectors=True)
    # The same number of lookups at every size, spread over the whole set.
    every = [t.name for t in everything.all()]
    sample = [every[(i * 7919) % len(every)] for i in range(1000)]

    def resolve_unknown(name: str) -> None:
        with contextlib.suppress(UnknownToolError):
            toolset.resolve(name)

    return {
        "tools": count,
        "toolboxes": len(catalog.toolboxes()),
        "build_s": build,
        "build_us_per_tool": build / count * 1e6,
        "bookkeeping_us_per_tool": bookkeeping / count * 1e6,
        "cached_rebuild_ms": cached * 1e3,
        "select_categories_ms": select_cats * 1e3,
        "selected_by_categories": len(toolset),
        "select_names_ms": select_names * 1e3,
        "resolve_ns": _per_name(everything.resolve, sample, resolve_rounds) * 1e9,
        "resolve_unknown_us": _per_name(resolve_unknown, ["no_such_tool"] * 100, resolve_rounds)
        * 1e6,
        "validators_compiled": _compiled_validators(catalog),
    }


def run(*, quick: bool = False) -> dict[str, dict[str, float]]:
    """Measure a small and a full-size catalog; print and return the figures."""
    small_modules, full_modules = (2, 6) if quick else (20, 100)
    rounds = 2 if quick else 50
    tag = f"{'q' if quick else 'f'}{time.monotonic_ns() % 10**6}_"
    small = measure(small_modules, f"s{tag}", resolve_rounds=rounds)
    full = measure(full_modules, f"l{tag}", resolve_rounds=rounds)
    print(f"{'':28}{'small':>12}{'full':>12}{'full/small':>12}")
    for key in full:
        ratio = full[key] / small[key] if small[key] else float("nan")
        print(f"{key:28}{small[key]:12.3f}{full[key]:12.3f}{ratio:12.2f}")
    print(
        "Per-tool and per-call ratios near 1.0 mean linear work; "
        f"{full['tools']:.0f} tools built in {full['build_s']:.2f} s."
    )
    return {"small": small, "full": full}


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
