"""A protobuf message -> the JSON Schema of its protojson form, for requests and responses.

Property names are the proto field names (`page_theme_id`) in both directions;
the executor writes responses with `preserving_proto_field_name=True`, so the
model meets one spelling. Every shape is one `json_format.ParseDict` accepts
(input) or `MessageToDict` writes (output); the rules and where they differ from
the original Go plugin are listed in docs/grpc.md.
"""

from __future__ import annotations

from typing import Any, Literal

from toolcast._json import JsonSchema
from toolcast.errors import DefinitionProblem
from toolcast.grpc._index import DescriptorIndex, MessageEntry
from toolcast.grpc._wire import FieldAnnotations, read_field_annotations

__all__ = ("ALIAS_KEYWORD", "Direction", "message_schema", "nullable", "ordered")

ALIAS_KEYWORD = "x-toolcast-alias"
"""Marks a string that holds a UUID the model sees as `<prefix>-<n>`."""

Direction = Literal["input", "output"]

_ORDER = (
    "type", "format", "description", "enum", "const", "minimum", "exclusiveMinimum",
    "maximum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
    "contentEncoding", "items", "prefixItems", "minItems", "maxItems", "uniqueItems",
    "properties", "required", "additionalProperties", "anyOf", "$ref", "default", "$defs",
)  # fmt: skip
_RANK = {key: rank for rank, key in enumerate(_ORDER)}

# FieldDescriptorProto.Type and .Label values.
_DOUBLE, _FLOAT, _INT64, _UINT64, _INT32, _FIXED64, _FIXED32, _BOOL = 1, 2, 3, 4, 5, 6, 7, 8
_STRING, _GROUP, _MESSAGE, _BYTES, _UINT32, _ENUM = 9, 10, 11, 12, 13, 14
_SFIXED32, _SFIXED64, _SINT32, _SINT64 = 15, 16, 17, 18
_REPEATED, _REQUIRED_LABEL = 3, 2

_INT_RANGES = {
    _INT32: (-(2**31), 2**31 - 1),
    _SINT32: (-(2**31), 2**31 - 1),
    _SFIXED32: (-(2**31), 2**31 - 1),
    _UINT32: (0, 2**32 - 1),
    _FIXED32: (0, 2**32 - 1),
    _INT64: (-(2**63), 2**63 - 1),
    _SINT64: (-(2**63), 2**63 - 1),
    _SFIXED64: (-(2**63), 2**63 - 1),
    _UINT64: (0, 2**64 - 1),
    _FIXED64: (0, 2**64 - 1),
}
_UNSIGNED = {_UINT32, _FIXED32, _UINT64, _FIXED64}
_WIDE = {_INT64, _SINT64, _SFIXED64, _UINT64, _FIXED64}

_WRAPPERS = {
    "google.protobuf.DoubleValue": _DOUBLE,
    "google.protobuf.FloatValue": _FLOAT,
    "google.protobuf.Int64Value": _INT64,
    "google.protobuf.UInt64Value": _UINT64,
    "google.protobuf.Int32Value": _INT32,
    "google.protobuf.UInt32Value": _UINT32,
    "google.protobuf.BoolValue": _BOOL,
    "google.protobuf.StringValue": _STRING,
    "google.protobuf.BytesValue": _BYTES,
}
_PATH = r"[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*"
_WELL_KNOWN: dict[str, tuple[JsonSchema, str]] = {
    "google.protobuf.Timestamp": (
        {"type": "string", "format": "date-time"},
        'An RFC 3339 timestamp with a zone, e.g. "2024-05-01T12:00:00Z".',
    ),
    "google.protobuf.Duration": (
        {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$"},
        'A duration in seconds with the suffix "s", e.g. "90s" or "1.5s".',
    ),
    "google.protobuf.FieldMask": (
        {"type": "string", "pattern": rf"^({_PATH}(,{_PATH})*)?$"},
        'Comma-separated field paths in lowerCamelCase, e.g. "title,pageThemeId".',
    ),
    "google.protobuf.Struct": ({"type": "object"}, ""),
    "google.protobuf.Value": ({}, ""),
    "google.protobuf.ListValue": ({"type": "array", "items": {}}, ""),
    "google.protobuf.Any": (
        {
            "type": "object",
            "properties": {"@type": {"type": "string"}},
            "required": ["@type"],
        },
        'A packed message: "@type" is "type.googleapis.com/<message full name>", '
        "the other keys are that message's fields.",
    ),
    "google.protobuf.Empty": ({"type": "object", "properties": {}}, ""),
}


def _has_presence(entry: MessageEntry, f: Any) -> bool:
    if f.label == _REPEATED:
        return False
    return bool(f.proto3_optional or f.type in (_MESSAGE, _GROUP) or entry.syntax != "proto3")


def nullable(schema: JsonSchema) -> JsonSchema:
    """`schema` also accepting null, spelled as SCHEMA.md spells `T | None`."""
    if not schema or "$defs" in schema:
        return schema
    kind = schema.get("type")
    if isinstance(kind, str) and "anyOf" not in schema:
        out = {**schema, "type": [kind, "null"]}
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    if "anyOf" in schema and len(schema) == 1 + ("description" in schema):
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    description = schema.get("description")
    inner = {k: v for k, v in schema.items() if k != "description"}
    out = {"anyOf": [inner, {"type": "null"}]}
    return ordered({**out, "description": description}) if description else out


def ordered(schema: JsonSchema) -> JsonSchema:
    """`schema` with its keywords in the canonical order (extensions last)."""
    return dict(sorted(schema.items(), key=lambda kv: _RANK.get(kv[0], len(_RANK))))


def _described(schema: JsonSchema, *texts: str) -> JsonSchema:
    text = "\n\n".join(t for t in texts if t)
    if not text:
        return schema
    return ordered({**schema, "description": text})


class _Builder:
    def __init__(self, index: DescriptorIndex, direction: Direction, primary: str) -> None:
        self.index = index
        self.direction = direction
        self.primary = primary
        self.problems: list[DefinitionProblem] = []
        self.recursive: set[str] = set()
        self.defs: dict[str, JsonSchema] = {}

    # -- recursion ------------------------------------------------------------------

    def find_cycles(self, name: str, stack: tuple[str, ...] = ()) -> None:
        if name in stack:
            self.recursive.add(name)
            return
        entry = self.index.messages.get(name)
        if entry is None or name.startswith("google.protobuf."):
            return
        for f in entry.proto.field:
            if f.type in (_MESSAGE, _GROUP):
                self.find_cycles(f.type_name.lstrip("."), (*stack, name))

    @staticmethod
    def def_name(full_name: str) -> str:
        return full_name.replace(".", "_")

    # -- messages -------------------------------------------------------------------

    def message(self, entry: MessageEntry, path: str, id_prefix: str, depth: int) -> JsonSchema:
        """The object (or, for one nested oneof, union of objects) for a message.

        `id_prefix` goes to an unannotated string field named `id` (the primary
        prefix rule); `depth` is 0 for the root.
        """
        proto = entry.proto
        props: dict[str, JsonSchema] = {}
        plain: dict[str, JsonSchema] = {}
        required: list[str] = []
        oneofs: dict[int, list[str]] = {}
        real_oneofs = [
            i
            for i in range(len(proto.oneof_decl))
            if not any(f.proto3_optional and f.oneof_index == i for f in proto.field)
        ]
        for index, f in enumerate(proto.field):
            notes = read_field_annotations(f.options.SerializeToString())
            if self.direction == "input" and (notes.skip or notes.output_only):
                continue
            where = f"{path}.{f.name}" if path else f.name
            prefix = notes.alias_prefix or (id_prefix if f.name == "id" else "")
            schema = self.field(entry, index, f, notes, where, prefix, depth)
            if schema is None:
                continue
            in_oneof = f.HasField("oneof_index") and f.oneof_index in real_oneofs
            if in_oneof:
                oneofs.setdefault(f.oneof_index, []).append(f.name)
                plain[f.name] = schema  # a union branch requires its member, not null
            if self.direction == "input" and (in_oneof or _has_presence(entry, f)):
                schema = nullable(schema)  # ParseDict reads null as "leave unset"
            props[f.name] = schema
            if (
                not in_oneof
                and self.direction == "input"
                and self.is_required(entry, f, notes, prefix)
            ):
                required.append(f.name)
        if self.direction == "output":
            return {"type": "object", "properties": props}
        if len(oneofs) == 1 and path:
            (members,) = oneofs.values()
            return {"anyOf": self.branches({**props, **plain}, required, members)}
        for members in oneofs.values():
            note = "Set at most one of: " + ", ".join(members) + "."
            for name in members:
                props[name] = _described(props[name], props[name].get("description", ""), note)
        closed: JsonSchema = {"type": "object", "properties": props}
        if required:
            closed["required"] = required
        closed["additionalProperties"] = False
        return closed

    @staticmethod
    def branches(
        props: dict[str, JsonSchema], required: list[str], members: list[str]
    ) -> list[JsonSchema]:
        regular = {k: v for k, v in props.items() if k not in members}
        out = []
        for member in members:
            branch: JsonSchema = {
                "type": "object",
                "properties": {**regular, member: props[member]},
                "required": [*required, member],
                "additionalProperties": False,
            }
            out.append(branch)
        return out

    def is_required(
        self, entry: MessageEntry, f: Any, notes: FieldAnnotations, prefix: str
    ) -> bool:
        if notes.required or f.label == _REQUIRED_LABEL:
            return True
        if prefix:
            return False  # an id the model may not have: "" (unset) is not an alias
        # Fields with presence (optional, messages) and collections may be left out:
        # absence means something protojson accepts. Plain proto3 scalars have no
        # absent state, so the model sends them, as in the original.
        if f.label == _REPEATED or f.type in (_MESSAGE, _GROUP) or f.proto3_optional:
            return False
        return entry.syntax == "proto3"

    # -- fields ---------------------------------------------------------------------

    def field(
        self,
        entry: MessageEntry,
        index: int,
        f: Any,
        notes: FieldAnnotations,
        where: str,
        prefix: str,
        depth: int,
    ) -> JsonSchema | None:
        description = notes.description or entry.comments.get(index, "")
        if f.label == _REPEATED and f.type == _MESSAGE:
            map_entry = self.index.messages.get(f.type_name.lstrip("."))
            if map_entry is not None and map_entry.proto.options.map_entry:
                return self.map(map_entry, description, notes, where, prefix, depth)
        value = self.value(f, where, prefix, depth)
        if value is None:
            return None
        schema, hint = value
        if f.label == _REPEATED:
            schema = {"type": "array", "items": schema}
        return _described(schema, description, hint, notes.usage_notes)

    def map(
        self,
        entry: MessageEntry,
        description: str,
        notes: FieldAnnotations,
        where: str,
        prefix: str,
        depth: int,
    ) -> JsonSchema | None:
        key, val = sorted(entry.proto.field, key=lambda f: f.number)
        value = self.value(val, f"{where}[]", prefix, depth + 1)
        if value is None:
            return None
        key_hint = ""
        if key.type == _BOOL:
            key_hint = 'Keys are "true" or "false".'
        elif key.type != _STRING:
            key_hint = "Keys are integers written as strings."
        schema = {"type": "object", "additionalProperties": value[0]}
        return _described(schema, description, key_hint, value[1], notes.usage_notes)

    def value(self, f: Any, where: str, prefix: str, depth: int) -> tuple[JsonSchema, str] | None:
        """The schema of one value of field `f` (repeated and maps aside), and a hint."""
        kind = f.type
        if kind in (_MESSAGE, _GROUP):
            name = f.type_name.lstrip(".")
            wrapped = _WRAPPERS.get(name)
            if wrapped is not None:
                return self.scalar(wrapped, where, prefix), ""
            if prefix:
                self.not_string(where)
            known = _WELL_KNOWN.get(name)
            if known is not None:
                schema, hint = known
                if name == "google.protobuf.Empty" and self.direction == "input":
                    schema = {**schema, "additionalProperties": False}
                return dict(schema), hint
            entry = self.index.messages.get(name)
            if entry is None:
                self.problems.append(
                    DefinitionProblem("unknown-type", where, f"message {name} is not in the set.")
                )
                return None
            if name in self.recursive:
                if name not in self.defs:
                    self.defs[name] = {}  # claimed before building: it refers to itself
                    self.defs[name] = self.message(entry, where, "", depth + 1)
                return {"$ref": f"#/$defs/{self.def_name(name)}"}, ""
            # Responses: the primary prefix also reaches the `id` of top-level messages.
            child = self.primary if self.direction == "output" and depth == 0 else ""
            return self.message(entry, where, child, depth + 1), ""
        if kind == _ENUM:
            if prefix:
                self.not_string(where)
            return self.enum(f.type_name, where), ""
        return self.scalar(kind, where, prefix), ""

    def not_string(self, where: str) -> None:
        self.problems.append(
            DefinitionProblem(
                "alias-not-string",
                where,
                "alias_prefix is only meaningful on string fields (the UUID is a string).",
            )
        )

    def enum(self, type_name: str, where: str) -> JsonSchema:
        enum = self.index.enum(type_name)
        names = [v.name for v in enum.value if self.direction == "output" or v.number != 0]
        if not names:
            self.problems.append(
                DefinitionProblem(
                    "enum-only-zero",
                    where,
                    f"enum {type_name.lstrip('.')} has only its zero value, which a model "
                    "cannot usefully send; add values, or mark the field "
                    "(ai.tools.v1.tool_field).skip = true.",
                )
            )
            return {"type": "string"}
        return {"type": "string", "enum": names}

    def scalar(self, kind: int, where: str, prefix: str) -> JsonSchema:
        if prefix and kind != _STRING:
            self.not_string(where)
        if kind == _BOOL:
            return {"type": "boolean"}
        if kind in (_DOUBLE, _FLOAT):
            return {"type": "number"}
        if kind == _BYTES:
            return {"type": "string", "contentEncoding": "base64"}
        if kind in _INT_RANGES:
            low, high = _INT_RANGES[kind]
            digits = r"^[0-9]+$" if kind in _UNSIGNED else r"^-?[0-9]+$"
            if kind not in _WIDE:
                return {"type": "integer", "minimum": low, "maximum": high}
            # protojson writes 64-bit integers as decimal strings and reads either form.
            text: JsonSchema = {"type": "string", "pattern": digits}
            if self.direction == "output":
                return text
            return {"anyOf": [{"type": "integer", "minimum": low, "maximum": high}, text]}
        schema: JsonSchema = {"type": "string"}
        if prefix:
            schema[ALIAS_KEYWORD] = prefix
        return schema


def message_schema(
    index: DescriptorIndex,
    type_name: str,
    direction: Direction,
    *,
    id_prefix: str = "",
    problems: list[DefinitionProblem],
) -> JsonSchema:
    """The root object schema of message `type_name`, read as `direction`.

    `id_prefix` is the tool's primary alias prefix, given to an unannotated `id`.
    """
    builder = _Builder(index, direction, id_prefix)
    name = type_name.lstrip(".")
    builder.find_cycles(name)
    known = _WELL_KNOWN.get(name)
    if known is not None and known[0].get("type") == "object":
        schema = dict(known[0])
        if direction == "input":
            schema["additionalProperties"] = False
    else:
        schema = builder.message(index.message(name), "", id_prefix, 0)
    if builder.defs:
        schema["$defs"] = {builder.def_name(k): v for k, v in sorted(builder.defs.items())}
    problems.extend(builder.problems)
    return schema
