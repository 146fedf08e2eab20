"""The package's shape: no import cycles, no private names taken across modules.

Imports are read with `ast`, so every import counts: top-level, inside functions
and under `TYPE_CHECKING`. A cycle makes the import order fragile and the flow
unreadable; a `_private` name imported from another module is a dependency its
owner never promised.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "toolcast"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def imported(name: str) -> list[tuple[str, list[str]]]:
    """The toolcast modules `name` imports, each with the names it takes from it."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                if child in MODULES:
                    found.append((child, []))
                else:
                    found.append((base, [alias.name]))
    return [(target, names) for target, names in found if target in MODULES]


@functools.cache
def edges() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name in MODULES:
        for target, _ in imported(name):
            if target != name:
                graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def is_package_parent(importer: str, target: str) -> bool:
    # A package's __init__ re-exporting from its own children is not a cycle of
    # meaning; children importing their own package __init__ would be, and is counted.
    return importer.startswith(target + ".")


def test_no_module_imports_another_in_a_cycle() -> None:
    graph = edges()
    assert cycles(graph) == []


def test_no_module_takes_a_private_name_from_another() -> None:
    taken = [
        f"{name} takes {target}.{symbol}"
        for name in MODULES
        for target, symbols in imported(name)
        for symbol in symbols
        if symbol.startswith("_") and not symbol.startswith("__") and target != name
    ]
    assert taken == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_is_short_enough_to_read(name: str) -> None:
    lines = MODULES[name].read_text().count("\n")
    assert lines <= 600, f"{name} has {lines} lines"


@pytest.mark.parametrize("name", sorted(n for n, p in MODULES.items() if p.name == "__init__.py"))
def test_every_wing_says_what_it_does(name: str) -> None:
    doc = ast.get_docstring(ast.parse(MODULES[name].read_text()))
    assert doc, f"{name} has no docstring"
    assert "TODO" not in doc


# Which wings a wing may import: the flow of docs/design.md ("Where things live").
# `root` is the vocabulary and single-tool runtime at the top of the package; the
# facade (`toolcast`, `__main__`, `typing`) re-exports and may import anything.
MAY_IMPORT: dict[str, set[str]] = {
    "root": {"_define", "aliases"},
    "_define": {"root", "aliases"},
    "aliases": {"root"},
    "_catalog": {"root", "_define", "aliases"},
    "_lock": {"root", "_define", "_catalog"},
    "policy": {"root", "_catalog"},
    "loop": {"root", "_catalog", "aliases", "policy"},
    "testing": {"root", "loop"},
    "_constraint": {"root"},
    "providers": {"root", "_define", "_catalog", "aliases", "loop", "_constraint"},
    "grpc": {"root", "_define", "_catalog", "aliases"},
    "examples": {"root", "_define", "_catalog"},
    "_cli": {"*"},
    # toolcast as the tool layer inside agent frameworks (issue 23)
    "integrations": {"root", "_catalog", "aliases", "policy", "loop", "providers"},
    # toolcast.temporal: the loop as a Temporal workflow, reusing the loop's own pieces.
    "temporal": {"root", "_catalog", "aliases", "policy", "loop"},
}
FACADE = {"toolcast", "toolcast.__main__", "toolcast.typing"}


def wing_of(name: str) -> str:
    parts = name.split(".")
    is_package = MODULES[name].name == "__init__.py"
    if len(parts) == 2 and not is_package:
        return "testing" if parts[1] == "testing" else "root"
    return parts[1]


def test_every_wing_imports_only_the_wings_upstream_of_it() -> None:
    crossings = sorted(
        f"{name} ({wing_of(name)}) imports {target} ({wing_of(target)})"
        for name in MODULES
        if name not in FACADE
        for target in edges()[name]
        if target not in FACADE
        and wing_of(target) != wing_of(name)
        and "*" not in MAY_IMPORT.get(wing_of(name), set())
        and wing_of(target) not in MAY_IMPORT.get(wing_of(name), set())
    )
    assert crossings == []


def test_every_wing_has_an_import_rule() -> None:
    wings = {wing_of(name) for name in MODULES if name not in FACADE}
    assert wings <= set(MAY_IMPORT)
