"""Discovery: which functions and classes of the host's modules become tools.

Only what the host names is scanned: the modules given (and a package's
submodules when asked). A `@tool` function or class counts only in the module
that defines it, so importing a tool elsewhere never registers it twice, and
`@tool(register=False)` keeps one out. Method tools need an instance per call:
the host passes a target resolver, `(tool, call) -> instance`; `FixedResolver`
and `FactoryResolver` cover the common cases, and `owner_class(tool)` lets a
dependency-injection container do the rest.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, Protocol, runtime_checkable

from toolcast._catalog._toolbox import ToolboxOptions, toolbox_options
from toolcast._define._decorator import options_of
from toolcast._spec import ToolCall
from toolcast._tool import TargetResolver, Tool
from toolcast.errors import CatalogError

__all__ = (
    "ClassEntry",
    "ClassResolver",
    "FactoryResolver",
    "FixedResolver",
    "Member",
    "class_tools",
    "fingerprint",
    "iter_modules",
    "origin_of",
    "owner_class",
    "register_owner",
    "resolver_for",
    "scan_class",
    "scan_module",
    "snake_case",
)

MemberKind = Literal["method", "static", "class"]

_OWNERS: weakref.WeakKeyDictionary[Any, type] = weakref.WeakKeyDictionary()
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def origin_of(obj: Any) -> str:
    """`module.QualName` of a function, method or class, for messages."""
    target = getattr(obj, "__func__", obj)
    module = getattr(target, "__module__", None) or "?"
    qualname = getattr(target, "__qualname__", None) or repr(target)
    return f"{module}.{qualname}"


def snake_case(name: str) -> str:
    """`DocumentTools` -> `document_tools` (the default toolbox name)."""
    return _CAMEL.sub("_", name).lower()


@dataclass(frozen=True, slots=True)
class Member:
    """One `@tool` method found on a class."""

    attribute: str
    """The attribute name on the class."""
    function: Callable[..., Any]
    """The plain function (unwrapped from staticmethod/classmethod)."""
    kind: MemberKind
    """Instance method, static method or class method."""


@dataclass(frozen=True, slots=True)
class ClassEntry:
    """A class with `@tool` methods, or a `@toolbox` class."""

    cls: type
    """The class."""
    members: tuple[Member, ...]
    """Its own registered `@tool` methods, in definition order."""
    toolbox: ToolboxOptions | None
    """Its `@toolbox` options, when it is a toolbox."""

    @property
    def toolbox_name(self) -> str:
        """The toolbox name: the one given, else the class name in snake_case."""
        name = self.toolbox.name if self.toolbox is not None else None
        return name or snake_case(self.cls.__name__)


def _registered(function: Any) -> bool:
    options = options_of(function)
    return options is not None and options.register


def scan_class(cls: type) -> ClassEntry:
    """The class's own `@tool` methods (inherited ones belong to their base class)."""
    members = []
    for attribute, raw in vars(cls).items():
        kind: MemberKind = "method"
        function = raw
        if isinstance(raw, staticmethod):
            kind, function = "static", raw.__func__
        elif isinstance(raw, classmethod):
            kind, function = "class", raw.__func__
        if inspect.isfunction(function) and _registered(function):
            members.append(Member(attribute, function, kind))
    return ClassEntry(cls, tuple(members), toolbox_options(cls))


def scan_module(module: ModuleType) -> list[Callable[..., Any] | ClassEntry]:
    """The tool functions and tool classes `module` defines, in definition order."""
    found: list[Callable[..., Any] | ClassEntry] = []
    seen: set[int] = set()
    name = module.__name__
    for value in list(vars(module).values()):
        # Defined here, not imported: only scanned modules contribute tools.
        if getattr(value, "__module__", None) != name or id(value) in seen:
            continue
        if inspect.isclass(value):
            entry = scan_class(value)
            if entry.members or entry.toolbox is not None:
                seen.add(id(value))
                found.append(entry)
        elif inspect.isfunction(value) and _registered(value):
            seen.add(id(value))
            found.append(value)
    return found


def fingerprint(modules: Iterable[ModuleType]) -> tuple[int, ...]:
    """Identities of every tool object in `modules`; changes when one is reloaded."""
    out: list[int] = []
    for module in modules:
        out.append(id(module))
        for item in scan_module(module):
            if isinstance(item, ClassEntry):
                out.append(id(item.cls))
                out.extend(id(member.function) for member in item.members)
            else:
                out.append(id(item))
    return tuple(out)


def iter_modules(modules: Iterable[ModuleType | str], *, recursive: bool) -> list[ModuleType]:
    """The modules to scan, each once, in order.

    With `recursive`, every submodule of each package given follows it, imported
    in sorted name order.
    """
    out: dict[str, ModuleType] = {}
    for item in modules:
        module: object = item
        if isinstance(item, str):
            module = importlib.import_module(item)
        if not isinstance(module, ModuleType):
            msg = f"Expected a module or a module name, got {type(module).__name__}."
            raise CatalogError(msg)
        out.setdefault(module.__name__, module)
        path = getattr(module, "__path__", None)
        if recursive and path is not None:
            prefix = module.__name__ + "."
            found = pkgutil.walk_packages(path, prefix, onerror=_reraise)
            names = sorted(info.name for info in found)
            for sub in names:
                out.setdefault(sub, importlib.import_module(sub))
    return list(out.values())


def _reraise(name: str) -> None:
    # walk_packages swallows a subpackage's ImportError by default, which would
    # silently drop its tools; surface it instead.
    raise  # re-raises the ImportError walk_packages is handling


# ----------------------------------------------------------------------- resolvers


def register_owner(function: Any, cls: type) -> None:
    """Record that `function` is a method defined by `cls` (discovery does this)."""
    _OWNERS[function] = cls


def owner_class(tool: Tool) -> type | None:
    """The class that defines a method tool, or None for a plain function.

    A host's own resolver uses it to ask its container for the right object.
    """
    function = tool.function
    try:
        found = _OWNERS.get(function)
    except TypeError:  # a callable object that cannot be weakly referenced
        found = None
    if found is not None:
        return found
    qualname: str = getattr(function, "__qualname__", "")
    module = inspect.getmodule(function)
    if module is None or "<locals>" in qualname or "." not in qualname:
        return None
    value: Any = module
    for part in qualname.split(".")[:-1]:
        value = getattr(value, part, None)
    return value if inspect.isclass(value) else None


@runtime_checkable
class ClassResolver(Protocol):
    """A resolver that can specialise itself for one class when a catalog is built."""

    def __call__(self, tool: Tool, call: ToolCall) -> Any:
        """Return the instance `tool` runs on for `call`."""
        ...  # pragma: no cover - protocol

    def for_class(self, cls: type) -> TargetResolver:
        """A resolver for the methods of `cls`; raises CatalogError if it has none."""
        ...  # pragma: no cover - protocol


def _owner_or_fail(tool: Tool) -> type:
    cls = owner_class(tool)
    if cls is None:
        msg = f"Tool {tool.name!r} is not a method of a known class."
        raise CatalogError(msg)
    return cls


class FixedResolver:
    """Method tools run on the given objects: each class's methods on its instance.

    Example:
        >>> Catalog.from_modules(crm, resolver=FixedResolver(CrmTools(client)))
    """

    __slots__ = ("_instances",)

    def __init__(self, *instances: object) -> None:
        self._instances = instances

    def instance_for(self, cls: type) -> object:
        """The first given object that is an instance of `cls`."""
        for instance in self._instances:
            if isinstance(instance, cls):
                return instance
        names = ", ".join(type(i).__name__ for i in self._instances) or "none"
        msg = (
            f"FixedResolver has no instance of {cls.__module__}.{cls.__qualname__} "
            f"(it holds: {names}); pass one to FixedResolver(...)."
        )
        raise CatalogError(msg)

    def for_class(self, cls: type) -> TargetResolver:
        """A resolver returning this resolver's instance of `cls`, checked now."""
        instance = self.instance_for(cls)
        return lambda tool, call: instance

    def __call__(self, tool: Tool, call: ToolCall) -> Any:
        return self.instance_for(_owner_or_fail(tool))

    def __repr__(self) -> str:
        names = ", ".join(type(i).__name__ for i in self._instances)
        return f"FixedResolver({names})"


class FactoryResolver:
    """Method tools run on objects made by `factory(cls)`.

    A fresh object per call by default (no state leaks between calls); with
    `per_call=False`, one object per class, made on first use.

    Example:
        >>> Catalog.from_modules(crm, resolver=FactoryResolver(container.resolve))
    """

    __slots__ = ("_cache", "_factory", "_lock", "_per_call")

    def __init__(self, factory: Callable[[type], object], *, per_call: bool = True) -> None:
        self._factory = factory
        self._per_call = per_call
        self._cache: dict[type, object] = {}
        self._lock = threading.Lock()

    def instance_for(self, cls: type) -> object:
        """An instance of `cls` from the factory (cached when not per call)."""
        if self._per_call:
            return self._factory(cls)
        with self._lock:
            if cls not in self._cache:
                self._cache[cls] = self._factory(cls)
            return self._cache[cls]

    def for_class(self, cls: type) -> TargetResolver:
        """A resolver asking the factory for `cls`."""
        return lambda tool, call: self.instance_for(cls)

    def __call__(self, tool: Tool, call: ToolCall) -> Any:
        return self.instance_for(_owner_or_fail(tool))

    def __repr__(self) -> str:
        return f"FactoryResolver({self._factory!r}, per_call={self._per_call})"


def resolver_for(resolver: TargetResolver | None, cls: type) -> TargetResolver | None:
    """The resolver the methods of `cls` get: specialised when it can be."""
    if isinstance(resolver, ClassResolver):
        return resolver.for_class(cls)
    return resolver


def class_tools(entry: ClassEntry, resolver: TargetResolver | None) -> Iterator[Tool]:
    """Build the member tools of a scanned class (instance methods via `resolver`)."""
    cls = entry.cls
    specialised: TargetResolver | None = None
    for member in entry.members:
        register_owner(member.function, cls)
        if member.kind == "static":
            yield Tool.from_function(member.function)
        elif member.kind == "class":
            yield Tool.from_function(getattr(cls, member.attribute))
        else:
            if specialised is None:
                if resolver is None:
                    msg = (
                        f"{origin_of(cls)} has method tools ({member.attribute}, ...) "
                        "but the catalog has no resolver: pass resolver=FixedResolver"
                        "(instance), resolver=FactoryResolver(factory), or your own "
                        "(tool, call) -> instance."
                    )
                    raise CatalogError(msg)
                specialised = resolver_for(resolver, cls)
            yield Tool.from_function(member.function, resolver=specialised)
