"""`ToolSpec`, the immutable description of a tool, and `ToolCall`, one call by a model."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from toolcast._json import JsonSchema

__all__ = ("Arguments", "ToolCall", "ToolSpec", "unpack_call")

Arguments: TypeAlias = str | bytes | bytearray | Mapping[str, Any]
"""Tool arguments as a model sends them: JSON text, bytes, or a parsed object."""


_SPEC_SLOTS: dict[str, bool] = (
    {"slots": True, "weakref_slot": True} if sys.version_info >= (3, 11) else {}
)
"""Slots save about 150 bytes a spec (a large catalog holds thousands). Projections
are cached per spec through weak references, so a slotted spec needs its weakref
slot, which `dataclass` offers from Python 3.11; on 3.10 the spec keeps a dict."""


@dataclass(frozen=True, kw_only=True, **_SPEC_SLOTS)
class ToolSpec:
    """Everything a model or a host needs to know about a tool, and nothing it runs."""

    name: str
    """The model-visible name (`^[A-Za-z0-9_-]{1,64}$`)."""
    description: str = ""
    """What the tool does, for the model."""
    input_schema: JsonSchema
    """Canonical JSON Schema (2020-12) of the argument object; read-only."""
    output_schema: JsonSchema | None = None
    """Schema of a structured result, or None for text/no result; read-only."""
    status: str | None = None
    """Short user-facing progress text, e.g. "Searching for places"."""
    aliases: tuple[str, ...] = ()
    """Other names the tool is resolved by (old names, for transcripts)."""
    categories: tuple[str, ...] = ()
    """Cross-cutting labels used to select tool sets."""
    version: str | None = None
    """The tool's version; bump it when its contract changes."""
    deprecated: str | None = None
    """Why the tool is deprecated, or None when it is not."""
    replaced_by: str | None = None
    """The tool that replaces this one."""
    always_available: bool = False
    """Shown in the primary view even when it belongs to a toolbox."""
    required: bool = False
    """Included in every tool set."""
    ends_loop: bool = False
    """A successful call ends the model loop (its result is the answer)."""
    requires_approval: bool = False
    """The host must approve each call before it runs."""
    parallel_safe: bool = True
    """May run concurrently with other calls of the same turn."""
    blocking: bool = True
    """For sync functions: run in a worker thread from async hosts."""
    timeout: float | None = None
    """Seconds before the call is abandoned with a timeout result."""
    idempotent: bool = False
    """Running it again with the same arguments has no further effect (Temporal may retry it)."""
    long_running: bool = False
    """Takes long enough that an MCP server runs it as a task a client polls (docs/mcp.md)."""
    strict: bool = True
    """Ask providers for strict (schema-constrained) decoding where they offer it."""
    envelope: bool = False
    """Wrap results as `{"schema": ..., "result": ...}`."""
    is_async: bool = False
    """The underlying callable is a coroutine function."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Host-defined metadata, carried along untouched."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call made by a model, in a neutral shape."""

    id: str
    """The call id used to correlate the result (synthetic where a target has none)."""
    name: str
    """The tool name the model asked for."""
    arguments: Arguments = "{}"
    """Raw arguments: JSON text as sent, or the object a target already parsed."""
    provider_data: Mapping[str, Any] = field(default_factory=dict)
    """Target-specific data that must survive the round trip (Gemini thought signatures)."""


@dataclass(frozen=True, slots=True)
class ParsedArguments:
    """Arguments jiter already parsed from the model's text, with the strict checks.

    Alias resolution reads the text to swap aliases for ids; handing the parser
    its parse saves writing the arguments out and reading them again.
    """

    value: dict[str, Any]
    """The argument object, within the byte limit, free of duplicate keys and NaN."""


_JSON_VALUES = (list, tuple, int, float, type(None))


def unpack_call(
    arguments: Any, call_id: str | None, null_means_default: bool | None
) -> tuple[Any, str | None, bool]:
    """The arguments, call id and null handling of an invoke, from a `ToolCall` or arguments.

    Keyword values win over what the call carries; a `ToolCall` parsed from a
    strict projection carries `provider_data["null_means_default"]`.

    Raises:
        TypeError: `arguments` is neither a ToolCall nor arguments (a host mistake).
    """
    if type(arguments) is str or type(arguments) is ParsedArguments:  # first: every call
        return arguments, call_id, bool(null_means_default)
    if isinstance(arguments, ToolCall):
        if call_id is None:
            call_id = arguments.id
        if null_means_default is None:
            null_means_default = bool(arguments.provider_data.get("null_means_default"))
        # What the model sent goes to the parser as it is: a bad value is its result.
        return arguments.arguments, call_id, null_means_default
    # A JSON value that is not an object (a list, a number, None) may be what the
    # model sent, parsed by the host: that is the model's mistake, an error result.
    if not isinstance(arguments, (str, bytes, bytearray, Mapping, *_JSON_VALUES)):
        msg = (
            "invoke takes a ToolCall, or the arguments alone (JSON text, bytes or a "
            f"mapping); got {type(arguments).__name__}."
        )
        raise TypeError(msg)
    return arguments, call_id, bool(null_means_default)
