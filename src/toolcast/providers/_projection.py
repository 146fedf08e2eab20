"""Shared pieces of every provider module: the projection record, tool choice, caching.

Each `toolcast.providers.<target>` module projects one `ToolSpec` at a time into a
`Projection` (the wire definition plus the notes of every lossy step) and caches it
per (spec, target, options), so projecting the same tool set again is a lookup.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from toolcast._spec import ToolSpec

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
    """The `ToolSpec`s of tools given as Tools, ToolSpecs or a ToolSet, order kept."""
    if hasattr(tools, "tools") and callable(tools.tools):
        tools = tools.tools()
    specs = []
    for item in tools:
        spec = getattr(item, "spec", item)
        if not isinstance(spec, ToolSpec):
            msg = f"Expected a Tool or ToolSpec, got {type(item).__name__}."
            raise TypeError(msg)
        specs.append(spec)
    return specs


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
    """Return `project(spec)`, computed once per (spec, target, options) while spec lives."""
    key = (id(spec), target, options)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    result = project(spec)
    _CACHE[key] = result
    if id(spec) not in _WATCHED:
        _WATCHED.add(id(spec))
        weakref.finalize(spec, _forget, id(spec))
    return result
