"""A protobuf message -> the JSON Schema of its protojson form, for requests and responses.

Property names are the proto field names (`page_theme_id`) in both directions;
the executor writes responses with `preserving_proto_field_name=True`, so the
model meets one spelling. Every input shape is one `json_format.ParseDict`
accepts (the property in tests/rpc/test_grpc_protojson.py), every output shape
one `MessageToDict` writes; the rules and where they differ from the original
Go plugin are listed in docs/grpc.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from toolcast._json import JsonSchema
from toolcast.errors import DefinitionProblem
from toolcast.grpc._index import DescriptorIndex, MessageEntry
from toolcast.grpc._scalars import (
    ENUM,
    GROUP,
    MESSAGE,
    NON_OBJECT_ROOTS,
    OUTPUT_WELL_KNOWN,
    STRING,
    VALUE_DEF,
    VALUE_SCHEMA,
    WELL_KNOWN,
    WRAPPERS,
    describe_default,
    map_keys,
    scalar_schema,
)
from toolcast.grpc._wire import FieldAnnotations, read_field_annotations

__all__ = (
    "ALIAS_KEYWORD",
    "REQUIRED_RULES",
    "Direction",
    "RequiredRule",
    "message_schema",
    "nullable",
    "ordered",
)

ALIAS_KEYWORD = "x-toolcast-alias"
"""Marks a string that holds a UUID the model sees as `<prefix>-<n>`."""

Direction = Literal["input", "output"]
RequiredRule = Literal["field_behavior", "every_scalar"]
REQUIRED_RULES = ("field_behavior", "every_scalar")
"""`field_behavior`: only `google.api.field_behavior = REQUIRED` (and proto2
`required`) fields are required (AIP-203). `every_scalar`: also every plain proto3
scalar, the original plugin's rule, for protos written to that convention."""

_ORDER = (
    "type", "format", "description", "enum", "const", "minimum", "exclusiveMinimum",
    "maximum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
    "contentEncoding", "items", "prefixItems", "minItems", "maxItems", "uniqueItems",
    "properties", "required", "propertyNames", "additionalProperties", "not", "anyOf",
    "$ref", "default", "$defs",
)  # fmt: skip
_RANK = {key: rank for rank, key in enumerate(_ORDER)}
_REPEATED, _REQUIRED_LABEL = 3, 2
_ANY = "google.protobuf.Any"
_EMPTY = "google.protobuf.Empty"
_STRUCT = "google.protobuf.Struct"
_URL = "type.googleapis.com/"
_NOT_NULL: JsonSchema = {"not": {"type": "null"}}


def _unspecified(name: str) -> bool:
    # AIP-126: the zero value named *_UNSPECIFIED means "not set"; any other zero
    # (STRING, SYNTAX_PROTO2, STATUS_CODE_UNSET, UNKNOWN) is a value like the others.
    return name == "UNSPECIFIED" or name.endswith("_UNSPECIFIED")


def _has_presence(entry: MessageEntry, f: Any) -> bool:
    if f.label == _REPEATED:
        return False
    return bool(f.proto3_optional or f.type in (MESSAGE, GROUP) or entry.syntax != "proto3")


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
    def __init__(
        self,
        index: DescriptorIndex,
        direction: Direction,
        primary: str,
        required: RequiredRule,
        any_types: Sequence[str],
        strict: bool,
    ) -> None:
        self.index = index
        self.direction = direction
        self.primary = primary
        self.required_rule = required
        self.any_types = any_types
        self.strict = strict
        self.problems: list[DefinitionProblem] = []
        self.recursive: set[str] = set()
        self.defs: dict[str, JsonSchema] = {}

    # -- recursion ------------------------------------------------------------------

    def find_cycles(self, name: str, stack: tuple[str, ...] = ()) -> None:
        """Mark every message type that contains itself, `google.protobuf.*` included."""
        if name in stack:
            self.recursive.add(name)
            return
        entry = self.index.messages.get(name)
        # The well-known types have shapes of their own (Struct and Value recurse
        # through one shared definition), so the walk stops at them.
        if entry is None or name in WELL_KNOWN or name in WRAPPERS or name == _ANY:
            return
        for f in entry.proto.field:
            if f.type in (MESSAGE, GROUP):
                self.find_cycles(f.type_name.lstrip("."), (*stack, name))

    @staticmethod
    def def_name(full_name: str) -> str:
        return full_name.replace(".", "_")

    def claim(self, key: str, build: Any) -> JsonSchema:
        """`{"$ref"}` to definition `key`, built by `build()` the first time."""
        if key not in self.defs:
            self.defs[key] = {}  # claimed before building: it may refer to itself
            self.defs[key] = build()
        return {"$ref": f"#/$defs/{key}"}

    # -- messages -------------------------------------------------------------------

    def message(self, entry: MessageEntry, path: str, id_prefix: str, depth: int) -> JsonSchema:
        """The closed object for a message (the open one for responses).

        `id_prefix` goes to an unannotated string field named `id` (the primary
        prefix rule); `depth` is 0 for the root.
        """
        proto = entry.proto
        props: dict[str, JsonSchema] = {}
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
            in_oneof = f.HasField("oneof_index") and f.oneof_index in real_oneofs
            needed = (
                not in_oneof
                and self.direction == "input"
                and self.is_required(entry, f, notes, prefix)
            )
            schema = self.field(entry, index, f, notes, where, prefix, depth, needed or in_oneof)
            if schema is None:
                continue
            if in_oneof:
                oneofs.setdefault(f.oneof_index, []).append(f.name)
            if self.direction == "input" and (in_oneof or _has_presence(entry, f)):
                schema = nullable(schema)  # ParseDict reads null as "leave unset"
            props[f.name] = schema
            if needed:
                required.append(f.name)
        if self.direction == "output":
            return {"type": "object", "properties": props}
        closed: JsonSchema = {"type": "object", "properties": props}
        if required:
            closed["required"] = required
        closed["additionalProperties"] = False
        pairs: list[JsonSchema] = []
        for members in oneofs.values():
            if len(members) < 2:
                continue
            note = "Set at most one of: " + ", ".join(members) + "."
            for name in members:
                props[name] = _described(props[name], props[name].get("description", ""), note)
            pairs += [
                {"properties": {a: _NOT_NULL, b: _NOT_NULL}, "required": [a, b]}
                for i, a in enumerate(members)
                for b in members[i + 1 :]
            ]
        if pairs and not self.strict:
            # Two members of one oneof set (not null) is what protojson refuses.
            closed["not"] = pairs[0] if len(pairs) == 1 else {"anyOf": pairs}
        return closed

    def is_required(
        self, entry: MessageEntry, f: Any, notes: FieldAnnotations, prefix: str
    ) -> bool:
        if notes.required or f.label == _REQUIRED_LABEL:
            return True
        if self.required_rule == "field_behavior" or prefix:
            return False  # an aliased id the model may not have: "" is not an alias
        # The original's rule: plain proto3 scalars have no absent state, so the model
        # sends them; fields with presence and collections may be left out.
        if f.label == _REPEATED or f.type in (MESSAGE, GROUP) or f.proto3_optional:
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
        needed: bool,
    ) -> JsonSchema | None:
        description = notes.description or entry.comments.get(index, "")
        if f.label == _REPEATED and f.type == MESSAGE:
            map_entry = self.index.messages.get(f.type_name.lstrip("."))
            if map_entry is not None and map_entry.proto.options.map_entry:
                return self.map(map_entry, description, notes, where, prefix, depth)
        value = self.value(f, where, prefix, depth)
        if value is None:
            return None
        schema, hint = value
        if f.label == _REPEATED:
            schema = {"type": "array", "items": schema}
        default = ""
        if (
            self.direction == "input"
            and not needed
            and not prefix
            and f.label != _REPEATED
            and f.type not in (MESSAGE, GROUP)
            and not _has_presence(entry, f)
        ):
            zero = None
            if f.type == ENUM:
                enum = self.index.enum(f.type_name)
                zero = next((v.name for v in enum.value if v.number == 0), "0")
            default = describe_default(f.type, zero)
        return _described(schema, description, hint, default, notes.usage_notes)

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
        names, key_hint = map_keys(key.type)
        schema: JsonSchema = {"type": "object"}
        if names is not None and self.direction == "input":
            schema["propertyNames"] = names
        schema["additionalProperties"] = value[0]
        return _described(schema, description, key_hint, value[1], notes.usage_notes)

    def value(self, f: Any, where: str, prefix: str, depth: int) -> tuple[JsonSchema, str] | None:
        """The schema of one value of field `f` (repeated and maps aside), and a hint."""
        kind = f.type
        if kind in (MESSAGE, GROUP):
            name = f.type_name.lstrip(".")
            wrapped = WRAPPERS.get(name)
            if wrapped is not None:
                return self.scalar(wrapped, where, prefix), ""
            if prefix:
                self.not_string(where)
            return self.named(name, where, depth)
        if kind == ENUM:
            if prefix:
                self.not_string(where)
            return self.enum(f.type_name, where), ""
        return self.scalar(kind, where, prefix), ""

    def named(self, name: str, where: str, depth: int) -> tuple[JsonSchema, str] | None:
        """The schema of a value of message type `name` (not a wrapper), and a hint."""
        if self.direction == "output" and name in OUTPUT_WELL_KNOWN:
            return dict(OUTPUT_WELL_KNOWN[name]), ""
        if name == _ANY:
            return self.any(where, depth), _ANY_HINT
        known = WELL_KNOWN.get(name)
        if known is not None:
            schema, hint = known
            if "$ref" in schema or "additionalProperties" in schema or "items" in schema:
                self.defs.setdefault(VALUE_DEF, VALUE_SCHEMA)
            if name == _EMPTY and self.direction == "input":
                schema = {**schema, "additionalProperties": False}
            return dict(schema), hint
        entry = self.index.messages.get(name)
        if entry is None:
            self.problems.append(
                DefinitionProblem("unknown-type", where, f"message {name} is not in the set.")
            )
            return None
        if name in self.recursive:
            ref = self.claim(self.def_name(name), lambda: self.message(entry, where, "", depth + 1))
            return ref, ""
        # Responses: the primary prefix also reaches the `id` of top-level messages.
        child = self.primary if self.direction == "output" and depth == 0 else ""
        return self.message(entry, where, child, depth + 1), ""

    def any(self, where: str, depth: int) -> JsonSchema:
        """An Any: one closed branch per type it may pack, or `{}` (empty) when none."""
        branches: list[JsonSchema] = []
        for name in self.any_types:
            url: JsonSchema = {"const": _URL + name}
            if name in WRAPPERS or (name in WELL_KNOWN and name != _EMPTY):
                found = self.named(name, where, depth) if name not in WRAPPERS else None
                value = self.scalar(WRAPPERS[name], where, "") if found is None else found[0]
                branches.append(
                    {
                        "type": "object",
                        "properties": {"@type": url, "value": value},
                        "required": ["@type", "value"],
                        "additionalProperties": False,
                    }
                )
                continue
            entry = self.index.messages[name]

            def packed(entry: MessageEntry = entry, url: JsonSchema = url) -> JsonSchema:
                inner = self.message(entry, where, "", depth + 1)
                inner["properties"] = {"@type": url, **inner["properties"]}
                inner["required"] = ["@type", *inner.get("required", ())]
                return ordered(inner)

            branches.append(self.claim("Any_" + self.def_name(name), packed))
        if not branches:
            return {"type": "object", "properties": {}, "additionalProperties": False}
        return {"anyOf": branches}

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
        names = [
            v.name
            for v in enum.value
            if self.direction == "output" or v.number != 0 or not _unspecified(v.name)
        ]
        if not names:
            self.problems.append(
                DefinitionProblem(
                    "enum-only-zero",
                    where,
                    f"enum {type_name.lstrip('.')} has only its unspecified value, which a "
                    "model cannot usefully send; add values, or mark the field "
                    "(ai.tools.v1.tool_field).skip = true.",
                )
            )
            return {"type": "string"}
        return {"type": "string", "enum": names}

    def scalar(self, kind: int, where: str, prefix: str) -> JsonSchema:
        if prefix and kind != STRING:
            self.not_string(where)
        schema = scalar_schema(kind, self.direction)
        if prefix:
            schema[ALIAS_KEYWORD] = prefix
        return schema


_ANY_HINT = (
    'A packed message: "@type" names its type; the other keys are its fields, or '
    '"value" for a well-known type.'
)


def default_any_types(index: DescriptorIndex, root: str) -> list[str]:
    """What an Any may pack by default.

    The well-known types in the set, then the messages of the request's own file.
    """
    entry = index.messages.get(root)
    home = entry.file_name if entry is not None else ""
    known = [n for n in (*WELL_KNOWN, *WRAPPERS) if n in index.messages]
    local = [
        name
        for name, found in index.messages.items()
        if found.file_name == home
        and home
        and not found.proto.options.map_entry
        and name not in known
        and name != _ANY
    ]
    return [*known, *local]


def message_schema(
    index: DescriptorIndex,
    type_name: str,
    direction: Direction,
    *,
    id_prefix: str = "",
    problems: list[DefinitionProblem],
    required: RequiredRule = "field_behavior",
    any_types: Sequence[str] | None = None,
    strict: bool = False,
) -> JsonSchema:
    """The root object schema of message `type_name`, read as `direction`.

    `id_prefix` is the tool's primary alias prefix, given to an unannotated `id`.
    A well-known type whose protojson is not an object is wrapped as
    `{"value": ...}` (the executor unwraps it). `any_types` are the full names an
    Any may pack (default: `default_any_types`). For a `strict` tool the
    at-most-one rule of a oneof is said in the description only (strict grammars
    have no `not`); the executor refuses two members with a tool error.
    """
    name = type_name.lstrip(".")
    if any_types is None:
        any_types = default_any_types(index, name)
    missing = [n for n in any_types if n not in index.messages]
    for n in missing:
        problems.append(
            DefinitionProblem("unknown-type", "any_types", f"message {n} is not in the set.")
        )
    packable = [n for n in any_types if n not in missing]
    builder = _Builder(index, direction, id_prefix, required, packable, strict)
    builder.find_cycles(name)
    if name in NON_OBJECT_ROOTS:
        wrapped = WRAPPERS.get(name)
        found = (
            (builder.scalar(wrapped, "value", ""), "")
            if wrapped
            else builder.named(name, "value", 0)
        )
        assert found is not None
        schema: JsonSchema = {"type": "object", "properties": {"value": _described(*found)}}
        if direction == "input":
            schema["required"] = ["value"]
            schema["additionalProperties"] = False
    elif name == _ANY and direction == "input":
        schema = {"type": "object", **builder.any("", 0)}
    elif name in (_STRUCT, _EMPTY, _ANY):
        found = builder.named(name, "", 0)
        assert found is not None
        schema = found[0]
    else:
        schema = builder.message(index.message(name), "", id_prefix, 0)
    if builder.defs:
        schema["$defs"] = dict(sorted(builder.defs.items()))
    problems.extend(builder.problems)
    return schema
