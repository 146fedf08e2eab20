"""Scalar and well-known-type schemas: exactly the protojson spellings `ParseDict` reads.

Every pattern here is bounded the way protobuf's own parser is: 64-bit integers
in decimal strings by their range, base64 by its alphabet, Duration by
±315,576,000,000 s, Timestamp by years 0001-9999 in UTC with an upper-case `T`/`Z`,
no leap second and at most nine fraction digits. Patterns use only what every
provider's regex dialect has (no look-around).
"""

from __future__ import annotations

from toolcast._json import JsonSchema

__all__ = (
    "BYTES_PATTERN",
    "DOUBLE_MAX",
    "DURATION_PATTERN",
    "FLOAT_MAX",
    "INT_RANGES",
    "NON_OBJECT_ROOTS",
    "TIMESTAMP_PATTERN",
    "WELL_KNOWN",
    "WRAPPERS",
    "digits_up_to",
    "integer_text",
    "map_keys",
    "scalar_schema",
    "describe_default",
)

# FieldDescriptorProto.Type values.
DOUBLE, FLOAT, INT64, UINT64, INT32, FIXED64, FIXED32, BOOL = 1, 2, 3, 4, 5, 6, 7, 8
STRING, GROUP, MESSAGE, BYTES, UINT32, ENUM = 9, 10, 11, 12, 13, 14
SFIXED32, SFIXED64, SINT32, SINT64 = 15, 16, 17, 18

INT_RANGES = {
    INT32: (-(2**31), 2**31 - 1),
    SINT32: (-(2**31), 2**31 - 1),
    SFIXED32: (-(2**31), 2**31 - 1),
    UINT32: (0, 2**32 - 1),
    FIXED32: (0, 2**32 - 1),
    INT64: (-(2**63), 2**63 - 1),
    SINT64: (-(2**63), 2**63 - 1),
    SFIXED64: (-(2**63), 2**63 - 1),
    UINT64: (0, 2**64 - 1),
    FIXED64: (0, 2**64 - 1),
}
WIDE = {INT64, SINT64, SFIXED64, UINT64, FIXED64}

FLOAT_MAX = 340282350000000000000000000000000000000
"""`3.4028235e38`, the largest float32 as protojson writes it (shortest spelling),
as an exact integer: validators compare the text's exact value, and the double
nearest 3.4028235e38 is a little below it. The executor clamps the few values
between it and float32's exact maximum, which protobuf's Python parser refuses."""
DOUBLE_MAX = 1.7976931348623157e308


def digits_up_to(limit: int) -> str:
    """A regex (no anchors) of the decimal numerals 0..`limit`, without leading zeros."""
    text = str(limit)
    n = len(text)
    parts = ["0"]
    if n > 1:
        parts.append("[1-9]" if n == 2 else f"[1-9][0-9]{{0,{n - 2}}}")
    for i, digit in enumerate(text):
        low = 1 if i == 0 else 0
        if int(digit) > low:
            top = int(digit) - 1
            choice = str(low) if top == low else f"[{low}-{top}]"
            rest = n - i - 1
            tail = "" if rest == 0 else "[0-9]" if rest == 1 else f"[0-9]{{{rest}}}"
            parts.append(text[:i] + choice + tail)
    if n > 1 or limit > 0:
        parts.append(text)
    return "(?:" + "|".join(dict.fromkeys(parts)) + ")"


def integer_text(low: int, high: int) -> str:
    """A regex (no anchors) of the decimal integers low..high (low is 0 or -(high+1))."""
    positive = digits_up_to(high)
    if low == 0:
        return positive
    return f"(?:{positive}|-{digits_up_to(-low)})"


_B64 = "[A-Za-z0-9+/_-]"
BYTES_PATTERN = rf"^(?:{_B64}{{4}})*(?:{_B64}{{2}}(?:==)?|{_B64}{{3}}=?)?$"
"""Base64, standard or URL-safe alphabet, padding optional: what protojson reads."""

DURATION_PATTERN = rf"^-?{digits_up_to(315_576_000_000)}(?:\.[0-9]{{1,9}})?s$"

_MONTH_DAY = r"(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
_CLOCK = r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?"
_OFFSET = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]"
_MID_YEAR = (
    r"(?:000[2-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])"
)
# Years 0001 and 9999 take only the offsets that keep the instant inside them.
TIMESTAMP_PATTERN = (
    rf"^(?:{_MID_YEAR}-{_MONTH_DAY}{_CLOCK}(?:Z|[+-]{_OFFSET})"
    rf"|0001-{_MONTH_DAY}{_CLOCK}(?:Z|-{_OFFSET})"
    rf"|9999-{_MONTH_DAY}{_CLOCK}(?:Z|\+{_OFFSET}))$"
)

_PATH = r"[a-z][A-Za-z0-9]*(?:\.[a-z][A-Za-z0-9]*)*"

WRAPPERS = {
    "google.protobuf.DoubleValue": DOUBLE,
    "google.protobuf.FloatValue": FLOAT,
    "google.protobuf.Int64Value": INT64,
    "google.protobuf.UInt64Value": UINT64,
    "google.protobuf.Int32Value": INT32,
    "google.protobuf.UInt32Value": UINT32,
    "google.protobuf.BoolValue": BOOL,
    "google.protobuf.StringValue": STRING,
    "google.protobuf.BytesValue": BYTES,
}

VALUE_DEF = "google_protobuf_Value"
_VALUE_REF: JsonSchema = {"$ref": f"#/$defs/{VALUE_DEF}"}
VALUE_SCHEMA: JsonSchema = {
    "anyOf": [
        {"type": ["null", "boolean", "string"]},
        {"type": "number", "minimum": -DOUBLE_MAX, "maximum": DOUBLE_MAX},
        {"type": "array", "items": _VALUE_REF},
        {"type": "object", "additionalProperties": _VALUE_REF},
    ]
}
"""Any JSON value with finite numbers: what `google.protobuf.Value` can hold."""

WELL_KNOWN: dict[str, tuple[JsonSchema, str]] = {
    "google.protobuf.Timestamp": (
        {"type": "string", "format": "date-time", "pattern": TIMESTAMP_PATTERN},
        'An RFC 3339 timestamp with a zone, e.g. "2024-05-01T12:00:00Z" (years 0001-9999, '
        'upper-case "T" and "Z", at most 9 fraction digits).',
    ),
    "google.protobuf.Duration": (
        {"type": "string", "pattern": DURATION_PATTERN},
        'A duration in seconds with the suffix "s", e.g. "90s" or "1.5s" (at most '
        "±315576000000s, 9 fraction digits).",
    ),
    "google.protobuf.FieldMask": (
        {"type": "string", "pattern": rf"^(?:{_PATH}(?:,{_PATH})*)?$"},
        'Comma-separated field paths in lowerCamelCase, e.g. "title,pageThemeId".',
    ),
    "google.protobuf.Struct": ({"type": "object", "additionalProperties": _VALUE_REF}, ""),
    "google.protobuf.Value": (_VALUE_REF, ""),
    "google.protobuf.ListValue": ({"type": "array", "items": _VALUE_REF}, ""),
    "google.protobuf.Empty": ({"type": "object", "properties": {}}, ""),
}
OUTPUT_WELL_KNOWN: dict[str, JsonSchema] = {
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
    "google.protobuf.Any": {"type": "object", "properties": {"@type": {"type": "string"}}},
}
NON_OBJECT_ROOTS = frozenset(
    {
        *WRAPPERS,
        "google.protobuf.Timestamp",
        "google.protobuf.Duration",
        "google.protobuf.FieldMask",
        "google.protobuf.Value",
        "google.protobuf.ListValue",
    }
)
"""Well-known types whose protojson is not an object: as a request or a response
they travel as `{"value": <protojson>}`."""


def scalar_schema(kind: int, direction: str) -> JsonSchema:
    """The schema of one scalar value of field type `kind`."""
    if kind == BOOL:
        return {"type": "boolean"}
    if kind == DOUBLE:
        return {"type": "number", "minimum": -DOUBLE_MAX, "maximum": DOUBLE_MAX}
    if kind == FLOAT:
        return {"type": "number", "minimum": -FLOAT_MAX, "maximum": FLOAT_MAX}
    if kind == BYTES:
        return {"type": "string", "contentEncoding": "base64", "pattern": BYTES_PATTERN}
    if kind in INT_RANGES:
        low, high = INT_RANGES[kind]
        if kind not in WIDE:
            return {"type": "integer", "minimum": low, "maximum": high}
        # protojson writes 64-bit integers as decimal strings and reads either form.
        text: JsonSchema = {"type": "string", "pattern": f"^{integer_text(low, high)}$"}
        if direction == "output":
            return text
        return {"anyOf": [{"type": "integer", "minimum": low, "maximum": high}, text]}
    return {"type": "string"}


def map_keys(kind: int) -> tuple[JsonSchema | None, str]:
    """`propertyNames` for map keys of type `kind`, and a hint."""
    if kind == BOOL:
        return {"enum": ["true", "false"]}, 'Keys are "true" or "false".'
    if kind in INT_RANGES:
        low, high = INT_RANGES[kind]
        pattern = f"^{integer_text(low, high)}$"
        return {"pattern": pattern}, "Keys are integers written as strings."
    return None, ""


def zero_text(kind: int) -> str:
    """How protojson spells the default of a scalar of type `kind`."""
    if kind == BOOL:
        return "false"
    if kind in (STRING, BYTES):
        return '""'
    return "0"


def describe_default(kind: int, enum_zero: str | None) -> str:
    """The "left out" sentence of an optional field without presence."""
    value = enum_zero if enum_zero is not None else zero_text(kind)
    return f"Optional; left out, it is {value}."
