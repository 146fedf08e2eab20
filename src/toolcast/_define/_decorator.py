"""`@tool`: marks a function or method as a tool and records its options.

The decorated function is returned unchanged (it stays an ordinary callable);
the options live in its `__toolcast__` attribute until `Tool.from_function` reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar, overload

from toolcast._frozen import freeze
from toolcast._json import JsonSchema
from toolcast._spec import ToolSpec

__all__ = ("OPTIONS_ATTR", "Param", "ToolOptions", "options_of", "spec_of", "tool")

OPTIONS_ATTR = "__toolcast__"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Param:
    """What the model is told about one parameter or field, whatever the code says.

    Give it in `@tool(params={"q": Param(...)})`, or inside `Annotated[T, Param(...)]`
    on a parameter or on a field of a dataclass, TypedDict, NamedTuple or pydantic
    model (docs/schema.md, "Model-only guidance").
    """

    name: str | None = None
    """The property name the model sees (parameters only; the Python name by default)."""
    description: str | None = None
    """The property description, over Field/Doc/docstring and the type's own."""
    note: str | None = None
    """Guidance for the model, appended to the description after a blank line."""
    hidden: bool = False
    """Left out of the schema (needs a default, which the code then gets)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOptions:
    """Everything `@tool(...)` accepts; None means "derive it"."""

    name: str | None = None
    description: str | None = None
    status: str | None = None
    aliases: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    version: str | None = None
    deprecated: str | None = None
    replaced_by: str | None = None
    always_available: bool = False
    required: bool = False
    ends_loop: bool = False
    requires_approval: bool = False
    parallel_safe: bool = True
    blocking: bool = True
    timeout: float | None = None
    idempotent: bool = False
    """Running it twice with the same arguments does no more than once (Temporal may retry it)."""
    long_running: bool = False
    """MCP servers run it as a task (2026-07-28 Tasks extension) for clients that poll."""
    strict: bool = True
    envelope: bool | None = None
    """None: wrap results when the result type carries descriptions (docs/invoking.md)."""
    register: bool = True
    """False keeps the tool out of module discovery (it can still be added by hand)."""
    resolve_aliases: bool = True
    """False: aliased ids reach the code as the aliases (display-only tools)."""
    python_types: bool = False
    """Write `x-python-type` on every schema fragment (providers strip it)."""
    params: Mapping[str, Param] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def merged(self, overrides: Mapping[str, Any]) -> ToolOptions:
        """A copy with `overrides` applied (unknown keys raise TypeError)."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            msg = f"Unknown tool option(s): {', '.join(unknown)}."
            raise TypeError(msg)
        return replace(self, **_normalise(overrides))


def _normalise(options: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(options)
    for key in ("aliases", "categories"):
        if key in out and out[key] is not None:
            value = out[key]
            out[key] = (value,) if isinstance(value, str) else tuple(value)
    if "params" in out and out["params"] is not None:
        out["params"] = {
            k: v if isinstance(v, Param) else Param(description=str(v))
            for k, v in out["params"].items()
        }
    return out


def options_of(fn: Any) -> ToolOptions | None:
    """The options `@tool` recorded on `fn` (or its underlying function), if any."""
    target = getattr(fn, "__func__", fn)
    options = getattr(target, OPTIONS_ATTR, None)
    return options if isinstance(options, ToolOptions) else None


@overload
def tool(fn: F, /) -> F: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    status: str | None = None,
    aliases: tuple[str, ...] | list[str] = (),
    categories: tuple[str, ...] | list[str] = (),
    version: str | None = None,
    deprecated: str | None = None,
    replaced_by: str | None = None,
    always_available: bool = False,
    required: bool = False,
    ends_loop: bool = False,
    requires_approval: bool = False,
    parallel_safe: bool = True,
    blocking: bool = True,
    timeout: float | None = None,
    idempotent: bool = False,
    long_running: bool = False,
    strict: bool = True,
    envelope: bool | None = None,
    register: bool = True,
    resolve_aliases: bool = True,
    python_types: bool = False,
    params: Mapping[str, Param | str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Callable[[F], F]: ...
def tool(fn: Any = None, /, **options: Any) -> Any:
    """Mark a function or method as a tool; it stays directly callable.

    Use it bare (`@tool`) or with options (`@tool(status="Searching")`).
    `params={"q": Param(name="query")}` or `params={"q": "description"}`
    overrides one parameter's model-visible name or description.
    """
    options = {k: v for k, v in options.items() if v is not None}
    recorded = ToolOptions().merged(options)

    def mark(func: F) -> F:
        target = getattr(func, "__func__", func)
        if not callable(target):
            raise TypeError(
                f"@tool needs a function or method, got {type(func).__name__} {func!r}."
            )
        if checker is not None:
            checker(target, recorded)
        setattr(target, OPTIONS_ATTR, recorded)
        return func

    return mark if fn is None else mark(fn)


# Set by `_define._function` (which imports this module, so it cannot be imported
# here): checks a function when `@tool` marks it.
checker: Callable[[Any, ToolOptions], None] | None = None


def spec_of(
    name: str,
    description: str,
    input_schema: JsonSchema,
    output_schema: JsonSchema | None,
    options: ToolOptions,
    *,
    is_async: bool,
) -> ToolSpec:
    """The frozen spec of a tool with these options, its schemas made read-only."""
    return ToolSpec(
        name=name,
        description=description,
        input_schema=freeze(input_schema),
        output_schema=freeze(output_schema),
        status=options.status,
        aliases=options.aliases,
        categories=_clean_categories(options.categories),
        version=options.version,
        deprecated=options.deprecated,
        replaced_by=options.replaced_by,
        always_available=options.always_available,
        required=options.required,
        ends_loop=options.ends_loop,
        requires_approval=options.requires_approval,
        parallel_safe=options.parallel_safe,
        blocking=options.blocking and not is_async,
        timeout=options.timeout,
        idempotent=options.idempotent,
        long_running=options.long_running,
        strict=options.strict,
        envelope=bool(options.envelope),
        is_async=is_async,
        extra=freeze(dict(options.extra)),
    )


def _clean_categories(categories: tuple[str, ...]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for category in categories:
        category = category.strip()
        if category:
            seen.setdefault(category)
    return tuple(seen)
