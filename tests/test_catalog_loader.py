"""CatalogLoader: modules registered at start-up, the catalog built once on first use."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from toolcast import Catalog, CatalogError, CatalogLoader, ToolCall


def write_module(tmp_path: Path, name: str, body: str) -> str:
    (tmp_path / f"{name}.py").write_text(body)
    return name


TOOLS = '''
from toolcast import tool
IMPORTS = []
IMPORTS.append(1)

@tool
def ping(text: str) -> str:
    """Echo the text."""
    return text
'''


@pytest.fixture
def module_dir(tmp_path: Path):
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("loader_fixture_")]:
        del sys.modules[name]


def test_registering_a_module_imports_nothing_until_first_use(module_dir: Path) -> None:
    name = write_module(module_dir, "loader_fixture_lazy", TOOLS)
    loader = CatalogLoader().add_modules(name)
    assert name not in sys.modules
    assert loader.catalog.select().names() == ("ping",)
    assert sys.modules[name].IMPORTS == [1]


def test_the_catalog_is_built_once_however_many_threads_ask(
    module_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = write_module(module_dir, "loader_fixture_threads", TOOLS)
    builds = []
    real = Catalog.from_modules.__func__  # type: ignore[attr-defined]

    def counting(cls, *modules, **kwargs):
        builds.append(modules)
        return real(cls, *modules, **kwargs)

    monkeypatch.setattr(Catalog, "from_modules", classmethod(counting))
    loader = CatalogLoader().add_modules(name)
    barrier = threading.Barrier(8)
    seen = []

    def ask() -> None:
        barrier.wait()
        seen.append(loader.load())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1
    assert len({id(load) for load in seen}) == 1
    assert seen[0].ok


def test_a_module_that_fails_to_import_is_a_load_error_not_a_crash(module_dir: Path) -> None:
    name = write_module(module_dir, "loader_fixture_broken", "import loader_no_such_dependency\n")
    loader = CatalogLoader().add_modules(name)
    load = loader.load()
    assert not load.ok
    assert load.catalog is None
    assert "loader_no_such_dependency" in (load.error or "")
    assert isinstance(load.exception, ImportError)
    with pytest.raises(CatalogError, match="loader_no_such_dependency"):
        _ = loader.catalog
    assert loader.load() is load  # the failure is kept, not retried per request


def test_colliding_tool_names_are_a_load_error_naming_the_tool(module_dir: Path) -> None:
    a = write_module(module_dir, "loader_fixture_a", TOOLS)
    b = write_module(module_dir, "loader_fixture_b", TOOLS)
    load = CatalogLoader().add_modules(a, b).load()
    assert not load.ok
    assert "ping" in (load.error or "")


def test_loading_with_nothing_registered_says_what_to_do() -> None:
    load = CatalogLoader().load()
    assert load.error == "no tool modules were registered (call add_modules first)."


def test_registering_after_the_first_use_is_refused(module_dir: Path) -> None:
    loader = CatalogLoader().add_modules(write_module(module_dir, "loader_fixture_late", TOOLS))
    loader.load()
    with pytest.raises(RuntimeError, match="already loaded"):
        loader.add_modules("anything")


METHODS = '''
from toolcast import tool

class Greeter:
    def __init__(self, greeting: str) -> None:
        self.greeting = greeting

    @tool
    def greet(self, name: str) -> str:
        """Greet someone."""
        return f"{self.greeting}, {name}"
'''


def test_method_tools_run_on_the_instance_the_loaders_resolver_gives(module_dir: Path) -> None:
    name = write_module(module_dir, "loader_fixture_methods", METHODS)
    instances = {}
    loader = CatalogLoader(resolver=lambda tool, call: instances["greeter"]).add_modules(name)
    catalog = loader.catalog  # imports the module: its class exists from here on
    instances["greeter"] = sys.modules[name].Greeter("Hello")
    outcome = catalog.select().invoke_sync(
        ToolCall(id="c1", name="greet", arguments={"name": "Ada"})
    )
    assert outcome.text == "Hello, Ada"
    assert repr(loader) == "CatalogLoader(1 modules, loaded)"
