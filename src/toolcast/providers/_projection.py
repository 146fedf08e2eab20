"""Shared pieces of every provider module: the projection record, tool choice, caching.

Each `toolcast.providers.<target>` module projects one `ToolSpec` at a time into a
`Projection` (the wire definition plus the notes of every lossy step) and caches it
per (spec, target, options), so projecting the same tool set again is a lookup.
"""

from __future__ import annotations

import contextlib
import dataclasses
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from toolcast._define._pytypes import has_python_types, without_python_types
from toolcast._frozen import freeze
from toolcast._spec import ToolSpec
from toolcast._tool import Tool

__all__ = (
    "ChoiceMode",
    "ConversionNote",
    "NormalizedChoice",
    "Projection",
    "ToolChoice",
    "cached_projection",
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
    action: Literal["moved_to_description", "dropped", "rewritten", "strict_disabled"]
    """What was done to it."""
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


_CACHE: dict[tuple[int, str, Hashable], Projection] = {}
_WATCHED: set[int] = set()


def _forget(spec_id: int) -> None:
    _WATCHED.discard(spec_id)
    for key in [k for k in _CACHE if k[0] == spec_id]:
        del _CACHE[key]


def cached_projection(
    spec: ToolSpec,
    target: str,
    options: Hashable,
    project: Callable[[ToolSpec], Projection],
) -> Projection:
    """Return `project(spec)`, computed once per (spec, target, options) while spec lives.

    `x-python-type` (`@tool(python_types=True)`) is for the host: every target
    projects the spec without it.
    """
    key = (id(spec), target, options)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    result = project(_model_facing(spec))
    _CACHE[key] = result
    if id(spec) not in _WATCHED:
        _WATCHED.add(id(spec))
        weakref.finalize(spec, _forget, id(spec))
    return result


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
