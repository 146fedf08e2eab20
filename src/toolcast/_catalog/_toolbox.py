"""Toolboxes: a class of tools a model first sees as one zero-argument selector tool.

`@toolbox("documents", "Read and search documents.")` on a class groups its `@tool`
methods. The catalog shows the model only the selector (plus members marked
`always_available`); calling the selector lists each member (name, description,
input schema and metadata, as `ToolInfo`), and the host adds the members to the
next turn's tools. This is progressive disclosure: a large catalog costs the model
a few lines until it needs a group. A selector built for a `ToolSet` lists only
the members in that set, so it never reveals a tool the model cannot call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from typing_extensions import TypedDict

from toolcast._json import JsonSchema
from toolcast._tool import Tool

__all__ = (
    "TOOLBOX_ATTR",
    "ToolInfo",
    "Toolbox",
    "ToolboxOptions",
    "make_selector",
    "tool_info",
    "toolbox",
    "toolbox_options",
)

TOOLBOX_ATTR = "__toolcast_toolbox__"

C = TypeVar("C", bound=type)


@dataclass(frozen=True, slots=True)
class ToolboxOptions:
    """What `@toolbox(...)` recorded on a class; None means "derive it"."""

    name: str | None = None
    """The selector's tool name (the class name by default)."""
    description: str | None = None
    """The selector's description (the class docstring by default)."""


@overload
def toolbox(cls: C, /) -> C: ...
@overload
def toolbox(name: str | None = None, description: str | None = None) -> Callable[[C], C]: ...
def toolbox(name: Any = None, description: str | None = None) -> Any:
    """Make a class of `@tool` methods a toolbox; the class is returned unchanged.

    Use it bare (`@toolbox`) or as `@toolbox("documents", "Read documents.")`.
    """

    def mark(cls: C) -> C:
        setattr(cls, TOOLBOX_ATTR, ToolboxOptions(name, description))
        return cls

    if isinstance(name, type):
        cls, name = name, None
        return mark(cls)
    return mark


def toolbox_options(cls: type) -> ToolboxOptions | None:
    """The `@toolbox` options of `cls` itself (a subclass does not inherit them)."""
    options = vars(cls).get(TOOLBOX_ATTR)
    return options if isinstance(options, ToolboxOptions) else None


class ToolInfo(TypedDict):
    """What a selector tells the model about one member tool."""

    name: str
    description: str
    input_schema: JsonSchema
    required: bool
    always_available: bool
    version: str | None
    categories: list[str]
    aliases: list[str]
    deprecated: str | None
    replaced_by: str | None


def tool_info(tool: Tool) -> ToolInfo:
    """The model-facing description of one tool, as a selector lists it."""
    spec = tool.spec
    return ToolInfo(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        required=spec.required,
        always_available=spec.always_available,
        version=spec.version,
        categories=list(spec.categories),
        aliases=list(spec.aliases),
        deprecated=spec.deprecated,
        replaced_by=spec.replaced_by,
    )


@dataclass(frozen=True, slots=True, eq=False)
class Toolbox:
    """A named group of tools, reached through its selector tool."""

    name: str
    """The toolbox name, which is also its selector's tool name."""
    description: str
    """What the toolbox offers, shown to the model on the selector."""
    members: tuple[Tool, ...]
    """The member tools, in definition order (deprecated ones included)."""
    selector: Tool
    """The zero-argument tool that lists the members."""
    origin: str
    """Where it was defined (`module.Class`), for error messages."""
    scoped: bool = False
    """True for a tool set's copy: `members` are the set's, all listed by `selector`."""

    @property
    def member_names(self) -> tuple[str, ...]:
        """The members' tool names, in order."""
        return tuple(tool.name for tool in self.members)

    def __repr__(self) -> str:
        return f"Toolbox(name={self.name!r}, members={list(self.member_names)!r})"


_SELECTOR_INPUT: JsonSchema = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}


def _selector_template() -> list[ToolInfo]:
    """Lists a toolbox's tools."""
    return []


@functools.lru_cache(maxsize=1)
def _selector_output() -> JsonSchema:
    # Derived once from the annotation, then reused: a tool set may build a
    # selector per toolbox, and a hand-written schema tool is ~4x cheaper to make.
    schema = Tool.from_function(_selector_template, name="selector").spec.output_schema
    assert schema is not None
    return schema


def make_selector(name: str, description: str, members: Sequence[Tool]) -> Tool:
    """The selector tool of a toolbox: calling it lists `members` as `ToolInfo`."""
    listed = tuple(members)

    # The closure keeps the member list fixed: a selector built for one tool set
    # can never list a tool added to the catalog later.
    def select(arguments: Mapping[str, Any]) -> list[ToolInfo]:
        return [tool_info(tool) for tool in listed]

    select.__qualname__ = select.__name__ = f"toolbox_{name}"
    return Tool.from_schema(
        name,
        description or f"Opens the '{name}' toolbox and lists its tools.",
        _SELECTOR_INPUT,
        select,
        output_schema=_selector_output(),
        status=f"Opening {name}",
    )
