"""The corpus of real protos and the generators of the schema <=> protojson property.

Two directions (tests/rpc/test_grpc_protojson.py):

- `messages(descriptor)`: random *valid* messages built with the protobuf API
  (REQUIRED fields set, OUTPUT_ONLY left out), written as the model would send
  them (`MessageToDict`, proto field names);
- `json_for(schema)`: JSON generated from the tool's input schema (by
  hypothesis-jsonschema where the schema has no recursion, else by the walker
  here), then mutated towards the edges protojson cares about.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from toolcast.grpc._index import DescriptorIndex
from toolcast.grpc._tools import _file_protos
from toolcast.grpc._wire import read_field_annotations

# The packages' own `_pb2` modules (installed by the `test` extra).
PACKAGE_MODULES = (
    "google.longrunning.operations_proto_pb2",
    "google.cloud.location.locations_pb2",
    "google.rpc.status_pb2",
    "google.api.http_pb2",
    "opentelemetry.proto.collector.trace.v1.trace_service_pb2",
    "opentelemetry.proto.collector.metrics.v1.metrics_service_pb2",
    "opentelemetry.proto.collector.logs.v1.logs_service_pb2",
    "opentelemetry.proto.collector.profiles.v1development.profiles_service_pb2",
    "grpc_health.v1.health_pb2",
    "grpc_reflection.v1alpha.reflection_pb2",
    "google.protobuf.descriptor_pb2",
    "google.protobuf.any_pb2",
    "google.protobuf.duration_pb2",
    "google.protobuf.empty_pb2",
    "google.protobuf.field_mask_pb2",
    "google.protobuf.struct_pb2",
    "google.protobuf.timestamp_pb2",
    "google.protobuf.wrappers_pb2",
)

# Messages that are not the request of any service method but are sent as
# requests, or as fields of one, by real APIs.
EXTRA_REQUESTS = (
    "google.rpc.Status",
    "google.api.HttpRule",
    "google.protobuf.DescriptorProto",
    "google.protobuf.FileDescriptorProto",
    "google.protobuf.Int32Value",
    "google.protobuf.UInt32Value",
    "google.protobuf.UInt64Value",
    "google.protobuf.FloatValue",
    "google.protobuf.DoubleValue",
    "google.protobuf.BoolValue",
    "google.protobuf.BytesValue",
)


def load_modules(extra: tuple[str, ...] = ()) -> list[Any]:
    return [importlib.import_module(name) for name in (*PACKAGE_MODULES, *extra)]


def corpus_index(modules: list[Any]) -> DescriptorIndex:
    protos = []
    for module in modules:
        protos += _file_protos(module)[0]
    return DescriptorIndex(protos)


def request_types(index: DescriptorIndex) -> list[str]:
    """Every method's request type in the index, then the extras, each once."""
    found: list[str] = []
    for service in index.services:
        for method in service.proto.method:
            name = method.input_type.lstrip(".")
            if name not in found:
                found.append(name)
    found += [name for name in EXTRA_REQUESTS if name not in found]
    return found


# -- (a) random valid messages -------------------------------------------------------

_INT_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "sint32": (-(2**31), 2**31 - 1),
    "sfixed32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "fixed32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "sint64": (-(2**63), 2**63 - 1),
    "sfixed64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
    "fixed64": (0, 2**64 - 1),
}
_TYPE_NAMES = {
    1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64",
    7: "fixed32", 8: "bool", 9: "string", 10: "group", 11: "message", 12: "bytes",
    13: "uint32", 14: "enum", 15: "sfixed32", 16: "sfixed64", 17: "sint32", 18: "sint64",
}  # fmt: skip
_NAME = st.from_regex(r"[a-z]{1,6}(_[a-z]{1,4}){0,2}", fullmatch=True)
_JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
JSON_VALUES = st.recursive(
    _JSON_LEAF,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def _kind(field: Any) -> str:
    return _TYPE_NAMES[field.type]


def _notes(field: Any) -> Any:
    return read_field_annotations(field.GetOptions().SerializeToString())


def _enum_values(enum: Any) -> list[int]:
    # `*_UNSPECIFIED` means "not set" (AIP-126): a documented narrowing, not offered.
    return [v.number for v in enum.values if not v.name.endswith("_UNSPECIFIED")]


def _scalar(draw: Callable[..., Any], field: Any, nonzero: bool) -> Any:
    kind = _kind(field)
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        strategy = st.integers(low, high)
        return draw(strategy.filter(bool) if nonzero else strategy)
    if kind == "float":
        value = draw(st.floats(width=32, allow_nan=False, allow_infinity=False))
    elif kind == "double":
        value = draw(st.floats(allow_nan=False, allow_infinity=False))
    elif kind == "bool":
        return True if nonzero else draw(st.booleans())
    elif kind == "string":
        return draw(st.text(min_size=1 if nonzero else 0, max_size=8))
    elif kind == "bytes":
        return draw(st.binary(min_size=1 if nonzero else 0, max_size=8))
    elif kind == "enum":
        values = _enum_values(field.enum_type)
        if nonzero:
            values = [v for v in values if v] or values
        return draw(st.sampled_from(values)) if values else 0
    else:
        raise AssertionError(kind)
    return value if value or not nonzero else 1.5


class MessageBuilder:
    """Fills messages at random; `any_types` are the types an Any may pack."""

    def __init__(self, any_types: Callable[[Any], list[Any]]) -> None:
        self.any_types = any_types

    def fill(self, draw: Callable[..., Any], message: Any, depth: int) -> None:
        descriptor = message.DESCRIPTOR
        if self.well_known(draw, message, depth):
            return
        chosen: dict[str, str | None] = {}
        for oneof in descriptor.oneofs:
            fields = [f for f in oneof.fields if not _notes(f).output_only]
            if len(fields) == 1 and fields[0].has_presence and oneof.name.startswith("_"):
                continue  # proto3 optional's synthetic oneof
            names = [f.name for f in fields]
            chosen[oneof.name] = draw(st.sampled_from([None, *names]))
        for field in descriptor.fields:
            notes = _notes(field)
            if notes.output_only or notes.skip:
                continue
            required = notes.required or field.is_required  # proto2 `required` too
            oneof = field.containing_oneof
            if oneof is not None and oneof.name in chosen:
                if chosen[oneof.name] != field.name:
                    continue
            elif not required and (depth > 3 or not draw(st.booleans())):
                continue
            self.set_field(draw, message, field, required, depth)

    def set_field(
        self, draw: Callable[..., Any], message: Any, field: Any, required: bool, depth: int
    ) -> None:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key_field = field.message_type.fields_by_name["key"]
            value_field = field.message_type.fields_by_name["value"]
            target = getattr(message, field.name)
            for _ in range(draw(st.integers(1 if required else 0, 2))):
                key = _scalar(draw, key_field, False)
                if value_field.message_type is not None:
                    self.fill(draw, target[key], depth + 1)
                else:
                    target[key] = _scalar(draw, value_field, False)
            return
        if field.is_repeated:
            target = getattr(message, field.name)
            for _ in range(draw(st.integers(1 if required else 0, 2))):
                if field.message_type is not None:
                    self.fill(draw, target.add(), depth + 1)
                else:
                    target.append(_scalar(draw, field, False))
            return
        if field.message_type is not None:
            sub = getattr(message, field.name)
            sub.SetInParent()
            self.fill(draw, sub, depth + 1)
            return
        setattr(message, field.name, _scalar(draw, field, required))

    def well_known(self, draw: Callable[..., Any], message: Any, depth: int) -> bool:
        name = message.DESCRIPTOR.full_name
        if name == "google.protobuf.Timestamp":
            message.seconds = draw(st.integers(-62135596800, 253402300799))
            message.nanos = draw(st.integers(0, 999_999_999))
        elif name == "google.protobuf.Duration":
            seconds = draw(st.integers(-315576000000, 315576000000))
            nanos = draw(st.integers(0, 999_999_999))
            message.seconds = seconds
            message.nanos = -nanos if seconds < 0 else nanos
        elif name == "google.protobuf.FieldMask":
            for path in draw(st.lists(st.lists(_NAME, min_size=1, max_size=2), max_size=3)):
                message.paths.append(".".join(path))
        elif name == "google.protobuf.Struct":
            message.update(draw(st.dictionaries(st.text(max_size=4), JSON_VALUES, max_size=3)))
        elif name == "google.protobuf.ListValue":
            message.extend(draw(st.lists(JSON_VALUES, max_size=3)))
        elif name == "google.protobuf.Value":
            from google.protobuf import json_format

            json_format.ParseDict(draw(JSON_VALUES), message)
        elif name == "google.protobuf.Any":
            choices = self.any_types(message.DESCRIPTOR)
            if choices:
                packed = draw(st.sampled_from(choices))()
                if depth < 3:
                    self.fill(draw, packed, depth + 1)
                message.Pack(packed)
        else:
            return False
        return True


def message_json(draw: Callable[..., Any], cls: Any, builder: MessageBuilder) -> Any:
    """A random valid message of `cls` as protojson (the model's spelling)."""
    from google.protobuf import json_format

    message = cls()
    builder.fill(draw, message, 0)
    out = json_format.MessageToDict(
        message,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=draw(st.booleans()),
        descriptor_pool=message.DESCRIPTOR.file.pool,
    )
    return _without_unspecified(out)


def _without_unspecified(value: Any) -> Any:
    # Printing defaults writes `*_UNSPECIFIED` for an unset enum; the schema leaves
    # that name out (AIP-126, a documented narrowing): the model leaves the key out.
    if isinstance(value, dict):
        return {
            k: _without_unspecified(v)
            for k, v in value.items()
            if not (isinstance(v, str) and v.endswith("_UNSPECIFIED"))
        }
    if isinstance(value, list):
        return [_without_unspecified(v) for v in value]
    return value


# -- (b) JSON from the schema, and mutations ---------------------------------------

EDGE_STRINGS = (
    "", "0", "-0", "5", "-1", "1.5", "1e3", " 5", "+5", "007",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551615", "18446744073709551616",
    "4294967296", "2147483648", "99999999999999999999999",
    "YQ==", "YQ", "YWJj", "a", "ab=", "====", "@@@@", "YQ=x", "-_-_",
    "2024-05-01T12:00:00Z", "2024-05-01t12:00:00z", "2024-05-01T12:00:00z",
    "2016-12-31T23:59:60Z", "0000-01-01T00:00:00Z", "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00", "2024-05-01T12:00:00.1234567891Z",
    "2024-05-01T12:00:00+99:99", "2024-02-30T00:00:00Z", "2024-05-01",
    "1s", "-1.5s", "315576000000s", "315576000001s", "-315576000001s", "1.0000000001s",
    "1.5", "s", "fooBar", "foo_bar", "foo.barBaz,qux", "Foo", "a,,b",
    "type.googleapis.com/google.protobuf.Duration", "type.googleapis.com/nope.Nope",
    "nope", "NaN", "Infinity", "-Infinity", "true", "false", "HARDCOVER", "UNKNOWN",
)  # fmt: skip
EDGE_NUMBERS = (
    0, -0.0, 1, -1, 1.5, 1.0, 2**31, -(2**31) - 1, 2**32, 2**63, -(2**63) - 1, 2**64,
    1e39, -1e39, 3.4028235e38, 1e308, 10**400, 1e20, 9.223372036854776e18,
)  # fmt: skip
EDGES = st.one_of(
    st.sampled_from(EDGE_STRINGS),
    st.sampled_from(EDGE_NUMBERS),
    st.sampled_from([None, True, False, {}, [], {"@type": "type.googleapis.com/nope"}]),
    st.sampled_from([{"@type": "type.googleapis.com/google.protobuf.Duration", "value": 5}]),
)
_KEYS = st.one_of(st.sampled_from(EDGE_STRINGS), st.text(max_size=4))


def _resolve(schema: Any, root: Any) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = {**root["$defs"][name], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _string(draw: Callable[..., Any], schema: Any) -> str:
    if "pattern" in schema:
        return draw(st.from_regex(schema["pattern"], fullmatch=True).filter(lambda s: len(s) < 80))
    if "enum" in schema:
        return draw(st.sampled_from([v for v in schema["enum"] if isinstance(v, str)]))
    if schema.get("format") == "date-time":
        return draw(st.sampled_from([s for s in EDGE_STRINGS if s[:2].isdigit() and "-" in s]))
    return draw(st.text(max_size=6))


def generate(draw: Callable[..., Any], schema: Any, root: Any, depth: int = 0) -> Any:
    """A value for `schema` (or near it: validation decides), by walking the schema."""
    schema = _resolve(schema, root)
    if schema is True or schema == {} or not isinstance(schema, dict):
        return draw(JSON_VALUES)
    if "const" in schema:
        return schema["const"]
    rest = {k: v for k, v in schema.items() if k not in ("anyOf", "allOf", "oneOf")}
    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches and not ({"type", "properties"} & set(rest)):
        return generate(
            draw, {**rest, **_resolve(draw(st.sampled_from(branches)), root)}, root, depth
        )
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = draw(st.sampled_from(kind))
    if kind is None and "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    if kind == "null":
        return None
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "integer":
        return draw(st.integers(schema.get("minimum"), schema.get("maximum")))
    if kind == "number":
        low, high = (
            None if b is None else float(b) for b in (schema.get("minimum"), schema.get("maximum"))
        )
        return draw(
            st.floats(low, high, allow_nan=False, allow_infinity=False) | st.integers(-9, 9)
        )
    if kind == "string":
        return _string(draw, schema)
    if kind == "array":
        items = schema.get("items", {})
        return [generate(draw, items, root, depth + 1) for _ in range(draw(st.integers(0, 2)))]
    if kind == "object" or "properties" in schema:
        return _object(draw, schema, root, depth)
    return draw(JSON_VALUES)


def _object(draw: Callable[..., Any], schema: Any, root: Any, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    required = set(schema.get("required", ()))
    for name, sub in schema.get("properties", {}).items():
        if name in required or (depth < 4 and draw(st.integers(0, 2)) == 0):
            out[name] = generate(draw, sub, root, depth + 1)
    extra = schema.get("additionalProperties", True)
    if extra is not False and depth < 4:
        names = schema.get("propertyNames", {})
        key_strategy = (
            st.from_regex(names["pattern"], fullmatch=True) if "pattern" in names else _KEYS
        )
        if "enum" in names:
            key_strategy = st.sampled_from(names["enum"])
        for _ in range(draw(st.integers(0, 2))):
            key = draw(key_strategy)
            out[key] = generate(draw, extra if isinstance(extra, dict) else {}, root, depth + 1)
    return out


def mutate(draw: Callable[..., Any], value: Any, depth: int = 0) -> Any:
    """`value` with some leaves (and some keys) replaced by edge values."""
    if depth < 6 and isinstance(value, dict):
        out = {k: mutate(draw, v, depth + 1) for k, v in value.items()}
        if draw(st.integers(0, 5)) == 0:
            out[draw(_KEYS)] = draw(EDGES)
        return out
    if depth < 6 and isinstance(value, list):
        return [mutate(draw, v, depth + 1) for v in value]
    if draw(st.integers(0, 3)) == 0:
        return draw(EDGES)
    return value


def has_recursion(schema: Any) -> bool:
    return "$defs" in json.dumps(schema)
