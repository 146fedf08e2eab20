"""Annotations read from serialized options by field number, with no protobuf import.

An option message reaches us as bytes (`options.SerializeToString()`): whether
the extension was registered in some descriptor pool, and under which package
name, does not matter. That is what lets `(ai.context.v1.rpc_tool)` and
`(ai.tools.v1.rpc_tool)` mean the same thing, as they do in the original plugin.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = (
    "FIELD_BEHAVIOR",
    "FIELD_CONTEXT",
    "OUTPUT_ONLY",
    "REQUIRED",
    "RPC_TOOL",
    "TOOL_FIELD",
    "FieldAnnotations",
    "RpcTool",
    "WireError",
    "fields_of",
    "read_field",
    "read_field_annotations",
    "read_rpc_tool",
)

RPC_TOOL = 52104
"""`MethodOptions` extension: ai.tools.v1.ToolDefinition."""
TOOL_FIELD = 52105
"""`FieldOptions` extension: ai.tools.v1.ToolFieldOptions."""
FIELD_CONTEXT = 52103
"""`FieldOptions` extension: ai.context.v1.FieldContext (its `description` is field 1)."""
FIELD_BEHAVIOR = 1052
"""`FieldOptions` extension: repeated google.api.FieldBehavior."""
OUTPUT_ONLY = 3
"""The `google.api.FieldBehavior` value of a field the server sets."""
REQUIRED = 2
"""The `google.api.FieldBehavior` value of a field the caller must set."""

_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5


class WireError(ValueError):
    """The bytes are not a valid protobuf message."""


@dataclass(frozen=True, slots=True)
class RpcTool:
    """The `rpc_tool` option of a method."""

    name: str = ""
    description: str = ""
    strict: bool = False
    auto_execute: bool = False


@dataclass(frozen=True, slots=True)
class FieldAnnotations:
    """What toolcast reads from one field's options."""

    skip: bool = False
    alias_prefix: str = ""
    usage_notes: str = ""
    description: str = ""
    """`tool_field.description`, else `field_context.description`."""
    output_only: bool = False
    required: bool = False


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise WireError("truncated or overlong varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def fields_of(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Every `(number, wire_type, value)` of a message, in order; bytes for length-delimited."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, kind = key >> 3, key & 7
        if kind == _VARINT:
            value, pos = _varint(data, pos)
            yield number, kind, value
        elif kind == _BYTES:
            size, pos = _varint(data, pos)
            if pos + size > len(data):
                raise WireError("length-delimited field runs past the end")
            yield number, kind, data[pos : pos + size]
            pos += size
        elif kind in (_FIXED64, _FIXED32):
            width = 8 if kind == _FIXED64 else 4
            if pos + width > len(data):
                raise WireError("fixed-width field runs past the end")
            yield number, kind, int.from_bytes(data[pos : pos + width], "little")
            pos += width
        else:  # groups (3, 4) never appear in options toolcast reads
            raise WireError(f"unsupported wire type {kind}")


def read_field(data: bytes, number: int) -> bytes | None:
    """The payload of the first length-delimited field `number`, or None."""
    for found, kind, value in fields_of(data):
        if found == number and kind == _BYTES:
            assert isinstance(value, bytes)
            return value
    return None


def _scalars(payload: bytes) -> tuple[dict[int, str], dict[int, bool]]:
    texts: dict[int, str] = {}
    flags: dict[int, bool] = {}
    for number, kind, value in fields_of(payload):
        if kind == _BYTES and isinstance(value, bytes):
            texts.setdefault(number, value.decode("utf-8", "replace"))
        elif kind == _VARINT and isinstance(value, int):
            flags[number] = bool(value)  # proto3: the last value wins
    return texts, flags


def read_rpc_tool(method_options: bytes) -> RpcTool | None:
    """The method's `rpc_tool` option, or None when the method is not a tool."""
    payload = read_field(method_options, RPC_TOOL)
    if payload is None:
        return None
    texts, flags = _scalars(payload)
    return RpcTool(
        name=texts.get(1, ""),
        description=texts.get(2, ""),
        strict=flags.get(3, False),
        auto_execute=flags.get(4, False),
    )


def _behaviours(data: bytes) -> Iterator[int]:
    for number, kind, value in fields_of(data):
        if number != FIELD_BEHAVIOR:
            continue
        if kind == _VARINT and isinstance(value, int):
            yield value
        elif kind == _BYTES and isinstance(value, bytes):  # packed
            pos = 0
            while pos < len(value):
                item, pos = _varint(value, pos)
                yield item


def read_field_annotations(field_options: bytes) -> FieldAnnotations:
    """`tool_field`, `field_context.description` and `field_behavior` of one field."""
    if not field_options:
        return _NONE
    texts: dict[int, str] = {}
    flags: dict[int, bool] = {}
    payload = read_field(field_options, TOOL_FIELD)
    if payload is not None:
        texts, flags = _scalars(payload)
    behaviours = set(_behaviours(field_options))
    description = texts.get(4, "")
    if not description:
        context = read_field(field_options, FIELD_CONTEXT)
        if context is not None:
            description = _scalars(context)[0].get(1, "")
    return FieldAnnotations(
        skip=flags.get(1, False),
        alias_prefix=texts.get(2, ""),
        usage_notes=texts.get(3, ""),
        description=description,
        output_only=OUTPUT_ONLY in behaviours,
        required=REQUIRED in behaviours,
    )


_NONE = FieldAnnotations()
