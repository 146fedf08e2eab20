"""`CatalogLoader`: register tool modules at start-up, build the catalog on first use.

An application container (a web app's lifespan, a DI provider) registers modules
once while it wires itself, and the catalog is built when a request first needs
it, exactly once, however many threads ask at the same moment. A failed build is
kept as a load error rather than raised into whichever request came first, so the
host decides how to report it (a health check, a 503), like the .NET catalog
service's `LoadAsync()` state.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

from toolcast._catalog._catalog import Catalog
from toolcast._tool import TargetResolver
from toolcast.errors import CatalogError

__all__ = ("CatalogLoad", "CatalogLoader")


@dataclass(frozen=True, slots=True)
class CatalogLoad:
    """What loading produced: the catalog, or the error that stopped it."""

    catalog: Catalog | None
    """The built catalog; None when loading failed."""
    error: str | None = None
    """One line saying why loading failed; None on success."""
    exception: BaseException | None = None
    """The exception behind `error`, for the host's logs."""

    @property
    def ok(self) -> bool:
        """True when the catalog was built."""
        return self.catalog is not None


class CatalogLoader:
    """Modules registered now, a catalog built once on first use.

    Example:
        >>> loader = CatalogLoader(resolver=FactoryResolver(container.resolve))
        >>> loader.add_modules("shop.tools", "shop.admin")
        >>> catalog = loader.catalog          # built here, once; CatalogError if it failed
    """

    def __init__(self, *, recursive: bool = False, resolver: TargetResolver | None = None) -> None:
        """A loader with nothing registered yet.

        Args:
            recursive: Scan every submodule of each package registered.
            resolver: `(tool, call) -> instance` for method tools, given to the catalog.
        """
        self._modules: list[ModuleType | str] = []
        self._recursive = recursive
        self._resolver = resolver
        self._lock = threading.Lock()
        self._load: CatalogLoad | None = None

    def add_modules(self, *modules: ModuleType | str) -> CatalogLoader:
        """Register modules (or dotted names) to scan; returns the loader for chaining.

        Raises:
            RuntimeError: The catalog was already loaded; registering now would
                change a catalog requests already rely on.
        """
        with self._lock:
            if self._load is not None:
                raise RuntimeError(
                    "CatalogLoader: the catalog was already loaded; register every "
                    "module before the first use."
                )
            self._modules.extend(modules)
        return self

    @property
    def modules(self) -> Sequence[ModuleType | str]:
        """What is registered, in order."""
        return tuple(self._modules)

    def load(self) -> CatalogLoad:
        """Build the catalog on the first call; every later call returns the same result."""
        load = self._load
        if load is not None:
            return load
        with self._lock:
            if self._load is None:
                self._load = self._build()
            return self._load

    @property
    def catalog(self) -> Catalog:
        """The catalog, built on first use.

        Raises:
            CatalogError: Loading failed; the message is the load error.
        """
        load = self.load()
        if load.catalog is None:
            raise CatalogError(load.error or "the catalog could not be loaded.") from load.exception
        return load.catalog

    def _build(self) -> CatalogLoad:
        if not self._modules:
            return CatalogLoad(None, "no tool modules were registered (call add_modules first).")
        try:
            catalog = Catalog.from_modules(
                *self._modules, recursive=self._recursive, resolver=self._resolver
            )
        except CatalogError as exc:
            return CatalogLoad(None, str(exc), exc)
        except ImportError as exc:
            return CatalogLoad(None, f"a tool module could not be imported: {exc}", exc)
        except Exception as exc:  # a module's own import-time failure, or a definition error
            return CatalogLoad(None, f"{type(exc).__name__}: {exc}", exc)
        return CatalogLoad(catalog)

    def __repr__(self) -> str:
        state = "not loaded" if self._load is None else ("loaded" if self._load.ok else "failed")
        return f"CatalogLoader({len(self._modules)} modules, {state})"
