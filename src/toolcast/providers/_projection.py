"""Shared pieces of every provider module: the projection record, tool choice, caching.

Each `toolcast.providers.<target>` module projects one `ToolSpec` at a time into a
`Projection` (the wire definition plus the notes of every lossy step) and caches it
per (spec, target, options), so projecting the same tool set again is a lookup.

For `format_tools` the cache keeps only each definition as compact JSON bytes,
about a third of the memory of the dicts and notes, and jiter parses them into
fresh, mutable dicts in less time than a deep copy of the dicts takes. The
`Projection` with its read-only definition is made and kept only for `project()`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import jiter
import pydantic_core

from toolcast._define._pytypes import has_python_types, without_python_types
from toolcast._frozen import freeze, thaw
from toolcast._spec import ToolSpec
from toolcast._tool import Tool

__all__ = (
    "ChoiceMode",
    "ConversionNote",
    "NormalizedChoice",
    "Projection",
    "ToolChoice",
    "cached_projection",
    "fresh_definitions",
    "normalize_choice",
    "specs_of",
)


@dataclass(frozen=True, slots=True)
class ConversionNote:
    """One lossy step taken to fit a schema into a target's dialect."""

    path: str
    """Where in the input schema, as a JSON pointer (`/properties/items/items`)."""
    keyword: str
    """The keyword affected (`minLength`, `additionalProperties`, ...)."""
    action: Literal["moved_to_description", "dropped", "rewritten", "narrowed", "strict_disabled"]
    """What was done to it (docs/providers/index.md, "How conversion is reported")."""
    detail: str
    """A sentence a person can read: what changed and why."""


@dataclass(frozen=True, slots=True)
class Projection:
    """A tool as one target sees it."""

    target: str
    """The provider module name (`openai_chat`, `anthropic`, ...)."""
    name: str
    """The tool name on the wire."""
    definition: Mapping[str, Any]
    """The wire definition, JSON-ready."""
    strict: bool
    """Whether the definition asks the target for strict decoding."""
    notes: tuple[ConversionNote, ...] = ()
    """Every lossy step, in the order taken; empty when the schema went over as is."""


ChoiceMode: TypeAlias = Literal["auto", "none", "required"]

ToolChoice: TypeAlias = ChoiceMode | Mapping[str, Any] | ToolSpec | Any
"""A neutral tool choice: `"auto"`, `"none"`, `"required"`, a Tool or ToolSpec (call
exactly that tool), `{"name": "x"}` (the same by name), or
`{"allowed": ["a", "b"], "mode": "auto" | "required"}` (restrict to a subset)."""


@dataclass(frozen=True, slots=True)
class NormalizedChoice:
    """A tool choice reduced to one shape every target module translates."""

    mode: ChoiceMode
    """`auto`, `none` or `required`."""
    names: tuple[str, ...] = ()
    """The tools the choice is restricted to (one name means "call exactly this")."""


def normalize_choice(choice: ToolChoice) -> NormalizedChoice:
    """Reduce any accepted tool-choice spelling to a `NormalizedChoice`."""
    if isinstance(choice, str):
        if choice in ("auto", "none", "required"):
            return NormalizedChoice(choice)  # type: ignore[arg-type]
        msg = (
            f"Unknown tool choice {choice!r}: use 'auto', 'none', 'required', "
            "{'name': tool_name} or {'allowed': [names], 'mode': 'auto'|'required'}."
        )
        raise ValueError(msg)
    spec = getattr(choice, "spec", choice)
    if isinstance(spec, ToolSpec):
        return NormalizedChoice("required", (spec.name,))
    if isinstance(choice, Mapping):
        if "name" in choice:
            return NormalizedChoice("required", (str(choice["name"]),))
        if "allowed" in choice:
            mode = choice.get("mode", "auto")
            if mode not in ("auto", "required"):
                msg = f"An allowed-tools choice takes mode 'auto' or 'required', not {mode!r}."
                raise ValueError(msg)
            return NormalizedChoice(mode, tuple(str(n) for n in choice["allowed"]))
    msg = f"Cannot read {choice!r} as a tool choice."
    raise TypeError(msg)


def specs_of(tools: Iterable[Any]) -> list[ToolSpec]:
    """The `ToolSpec`s of tools given as Tools, ToolSpecs, functions or a ToolSet, in order.

    Functions (`@tool`-decorated or plain) become tools as `Catalog([fn])` makes
    them. A single tool is refused with a TypeError that says to pass a list.
    """
    given: Any = tools  # hosts pass anything; refuse a single tool in words
    if hasattr(given, "tools") and callable(given.tools):
        given = given.tools()
    if isinstance(given, ToolSpec) or isinstance(getattr(given, "spec", None), ToolSpec):
        msg = f"Pass a list of tools, not one {type(given).__name__}: format_tools([tool])."
        raise TypeError(msg)
    if callable(given) and not isinstance(given, Iterable):
        msg = f"Pass a list of tools, not one function: format_tools([{_name_of(given)}])."
        raise TypeError(msg)
    specs = []
    for item in given:
        spec = getattr(item, "spec", item)
        if not isinstance(spec, ToolSpec) and callable(item):
            spec = _function_spec(item)
        if not isinstance(spec, ToolSpec):
            msg = f"Expected a Tool, a ToolSpec or a function, got {type(item).__name__}."
            raise TypeError(msg)
        specs.append(spec)
    return specs


def _name_of(fn: Any) -> str:
    return str(getattr(fn, "__name__", "fn"))


_FUNCTION_SPECS: weakref.WeakKeyDictionary[Any, ToolSpec] = weakref.WeakKeyDictionary()


def _function_spec(fn: Any) -> ToolSpec:
    """The spec `Tool.from_function(fn)` gives, made once per function while it lives."""
    try:
        return _FUNCTION_SPECS[fn]
    except (KeyError, TypeError):  # not seen yet, or not weak-referenceable
        pass
    spec = Tool.from_function(fn).spec
    with contextlib.suppress(TypeError):  # not weak-referenceable: made again next time
        _FUNCTION_SPECS[fn] = spec
    return spec


_Key: TypeAlias = tuple[int, str, Hashable]
"""(`id(spec)`, target, options): one cache entry, kept while the spec lives."""

_NO_WIRE = b""
_WIRES: dict[_Key, bytes] = {}
"""Each definition `format_tools` asked for, as compact JSON; `_NO_WIRE` when JSON
cannot carry it exactly (its fresh copies are then thawed from `_FULL`)."""
_FULL: dict[_Key, Projection] = {}
"""Each projection `project()` asked for, definition read-only."""


class _Watch(weakref.ref[ToolSpec]):
    """A weak reference to a spec that drops the spec's entries when it goes."""

    __slots__ = ("keys",)
    keys: list[_Key]

    def __new__(cls, spec: ToolSpec) -> _Watch:
        # The callback is taken here, not in __init__ (as `weakref.WeakMethod` does).
        self = super().__new__(cls, spec, _forget)
        self.keys = []
        return self


_WATCHED: dict[int, _Watch] = {}


def _forget(watch: _Watch) -> None:
    for key in watch.keys:
        _WIRES.pop(key, None)
        _FULL.pop(key, None)
    if watch.keys:  # every key starts with the spec's id
        _WATCHED.pop(watch.keys[0][0], None)


def _watch(spec: ToolSpec, key: _Key) -> None:
    watch = _WATCHED.get(id(spec))
    if watch is None:  # setdefault: two threads end up with the same watch
        watch = _WATCHED.setdefault(id(spec), _Watch(spec))
    if key not in watch.keys:
        watch.keys.append(key)


def cached_projection(
    spec: ToolSpec,
    target: str,
    options: Hashable,
    project: Callable[[ToolSpec], Projection],
) -> Projection:
    """Return `project(spec)`, computed once per (spec, target, options) while spec lives.

    The definition comes back read-only. `x-python-type`
    (`@tool(python_types=True)`) is for the host: every target projects the spec
    without it.
    """
    key = (id(spec), target, options)
    full = _FULL.get(key)
    if full is None:
        # `format_tools` keeps only the JSON, so a `project()` after it projects
        # again (once) to have the notes, rather than holding them for every tool.
        made = project(_model_facing(spec))
        full = _FULL[key] = dataclasses.replace(made, definition=freeze(made.definition))
        _watch(spec, key)
    return full


def fresh_definitions(
    specs: Sequence[ToolSpec],
    target: str,
    options: Hashable,
    project: Callable[[ToolSpec], Projection],
) -> list[dict[str, Any]]:
    """`thaw(cached_projection(spec, ...).definition)` for each spec, in order.

    `project` must be the one `cached_projection` gets for the same (target,
    options). The cache keeps each definition as compact JSON, a fraction of the
    memory of its dicts, and one jiter call per request parses them into new,
    mutable dicts, faster than a deep copy of the dicts.
    """
    wires = []
    for spec in specs:
        key = (id(spec), target, options)
        wire = _WIRES.get(key)
        wires.append(wire if wire is not None else _new_wire(spec, key, project))
    if all(wires):
        parsed: list[dict[str, Any]] = jiter.from_json(b"[" + b",".join(wires) + b"]")
        return parsed
    return [
        jiter.from_json(wire) if wire else thaw(_FULL[(id(spec), target, options)].definition)
        for spec, wire in zip(specs, wires, strict=True)
    ]


def _new_wire(spec: ToolSpec, key: _Key, project: Callable[[ToolSpec], Projection]) -> bytes:
    full = _FULL.get(key)
    made = full if full is not None else project(_model_facing(spec))
    wire = _wire_of(made.definition)
    if not wire and full is None:  # kept before `_WIRES` says to look for it
        _FULL[key] = dataclasses.replace(made, definition=freeze(made.definition))
    _WIRES[key] = wire
    _watch(spec, key)
    return wire


def _wire_of(definition: Mapping[str, Any]) -> bytes:
    """Compact JSON that jiter parses back to exactly `definition`, or `_NO_WIRE`.

    Exactly: equal, and of JSON's own types only. A tuple, a set, a non-string
    key, NaN, a lone surrogate, a Decimal or a `str` subclass do not survive
    JSON as they are; such a definition is kept as dicts instead.
    """
    try:
        wire = pydantic_core.to_json(definition)
        back = jiter.from_json(wire)
    except (ValueError, RecursionError):  # jiter nests 200 deep at most
        return _NO_WIRE
    # Equality settles values and keys (key order is kept both ways), though not
    # types: `True == 1 == 1.0`, and a `str` subclass equals its text. Nor the
    # sign of -0.0, which pydantic-core writes and jiter reads as such.
    return wire if back == definition and _plain(definition) else _NO_WIRE


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> bool:
    """Whether `value` holds only dicts with `str` keys, lists and JSON scalars."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(type(key) is str for key in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif type(item) not in _SCALARS:
            return False
    return True


def _model_facing(spec: ToolSpec) -> ToolSpec:
    """`spec` without `x-python-type` keywords (itself when it has none)."""
    typed_in = has_python_types(spec.input_schema)
    typed_out = has_python_types(spec.output_schema)
    if not (typed_in or typed_out):
        return spec
    return dataclasses.replace(
        spec,
        input_schema=freeze(without_python_types(spec.input_schema)),
        output_schema=freeze(without_python_types(spec.output_schema)),
    )
