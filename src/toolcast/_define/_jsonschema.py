"""A hand-written JSON Schema -> a pydantic-core validator that accepts the same JSON.

Used by `Tool.from_schema`. Only the keywords toolcast itself emits (plus a few
common ones) are compiled; any other validation keyword is refused when the tool
is defined, so a schema is never advertised that the validator cannot honour.
Values reach the handler as plain JSON (dicts, lists, str, int, float, bool, None).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic_core import CoreConfig, PydanticCustomError, SchemaValidator, to_json
from pydantic_core import core_schema as cs

from toolcast._define._formats import (
    INT_BASE,
    parse_date,
    parse_datetime,
    parse_time,
    parse_uuid,
)
from toolcast._define._names import check_name
from toolcast._define._schema import SchemaBuilder
from toolcast.errors import DefinitionProblem, ToolDefinitionError

__all__ = ("CompiledSchema", "compile_schema")

_ANNOTATIONS = {
    "title", "description", "default", "examples", "$schema", "$id", "$comment",
    "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding", "$defs",
    "definitions",
}  # fmt: skip
# An approximation of RFC 5321/5322 addresses and RFC 3986 absolute URIs: the
# shape is checked, not every production of the grammars.
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\Z")
_URI = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9._~!$&'()*+,;=:@/?#\[\]-]|%[0-9A-Fa-f]{2})*\Z"
)


def _matching(regex: re.Pattern[str], kind: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if not regex.match(value):
            raise PydanticCustomError("format", f"must be a valid {kind}")
        return value

    return check


# RFC 3339 appendix A durations (years and months too: values stay strings here, so
# timedelta's limits do not apply), with a decimal fraction allowed on seconds.
_TIME_PART = r"T(?=[0-9])(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:\.[0-9]+)?S)?"
_DURATION = re.compile(
    rf"P(?:[0-9]+W|(?=[0-9]+[YMD])(?:[0-9]+Y)?(?:[0-9]+M)?(?:[0-9]+D)?(?:{_TIME_PART})?"
    rf"|{_TIME_PART})\Z"
)


_FORMATS: dict[str, Callable[[str], Any]] = {
    "date-time": parse_datetime,
    "date": parse_date,
    "time": parse_time,
    "duration": _matching(_DURATION, "ISO 8601 duration"),
    "uuid": parse_uuid,
    "email": _matching(_EMAIL, "email"),
    "uri": _matching(_URI, "uri"),
}
_KNOWN = {
    "type", "enum", "const", "anyOf", "$ref", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "pattern", "items", "prefixItems", "minItems", "maxItems", "uniqueItems",
    "properties", "required", "additionalProperties",
} | _ANNOTATIONS  # fmt: skip


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A compiled schema; the validator itself is built on first use."""

    core: cs.CoreSchema
    depth: int | None
    python_regex: bool

    def validator(self) -> SchemaValidator:
        """Build the pydantic-core validator."""
        config = CoreConfig(regex_engine="python-re") if self.python_regex else None
        return SchemaValidator(self.core, config)


def _keep_string(parse: Any) -> Any:
    def check(value: str) -> str:
        parse(value)
        return value

    return check


def _unique_json(items: list[Any]) -> list[Any]:
    seen = {to_json(_normalise(i)) for i in items}
    if len(seen) != len(items):
        raise PydanticCustomError("unique", "must not contain duplicate items")
    return items


def _normalise(value: Any) -> Any:
    # JSON equality: 1 == 1.0, key order is irrelevant, true != 1.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _normalise(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


class _Compiler:
    def __init__(self, name: str, root: dict[str, Any]) -> None:
        self.name = name
        self.root = root
        self.problems: list[DefinitionProblem] = []
        self.refs: set[str] = set()
        self.python_regex = False
        self.literals = SchemaBuilder(name)

    def fail(self, path: str, code: str, message: str) -> tuple[cs.CoreSchema, int | None]:
        self.problems.append(DefinitionProblem(code, path, message))
        return cs.any_schema(), 0

    def compile(self, schema: Any, path: str) -> tuple[cs.CoreSchema, int | None]:
        if schema is True or schema == {}:
            return cs.any_schema(), None
        if schema is False:
            return self.fail(path, "unsupported-keyword", "the schema `false` accepts nothing.")
        if not isinstance(schema, dict):
            return self.fail(path, "invalid-schema", f"expected a schema object, got {schema!r}.")
        unknown = sorted(set(schema) - _KNOWN)
        if unknown:
            return self.fail(
                path,
                "unsupported-keyword",
                f"keywords {', '.join(unknown)} are not supported by toolcast's validator.",
            )
        if "$ref" in schema:
            ref = schema["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
                return self.fail(
                    path,
                    "unsupported-ref",
                    f"only local '#/$defs/Name' references are supported, not {ref!r}.",
                )
            self.refs.add(ref.rsplit("/", 1)[-1])
            ref_core = cs.definition_reference_schema(ref.rsplit("/", 1)[-1])
            return self._and_siblings(ref_core, None, schema, "$ref", path)
        if "anyOf" in schema:
            parts = [self.compile(s, f"{path}/anyOf/{i}") for i, s in enumerate(schema["anyOf"])]
            depths = [d for _, d in parts]
            core = cs.union_schema(
                [c for c, _ in parts],
                custom_error_type="union_mismatch",
                custom_error_message="must match one of the allowed shapes",
            )
            depth = None if None in depths else max(d for d in depths if d is not None)
            return self._and_siblings(core, depth, schema, "anyOf", path)
        if "enum" in schema or "const" in schema:
            key = "enum" if "enum" in schema else "const"
            values = tuple(schema["enum"]) if key == "enum" else (schema["const"],)
            if any(isinstance(v, (dict, list)) for v in values):
                return self.fail(
                    path, "unsupported-keyword", "enum/const values must be JSON scalars."
                )
            return self._and_siblings(
                self.literals._literal(values, path).core, 0, schema, key, path
            )
        kind = schema.get("type")
        if kind is None:
            untyped = sorted(set(schema) - _ANNOTATIONS)
            if untyped:
                # They would constrain only values of their own type; say which.
                return self.fail(
                    path, "missing-type", f'keywords {", ".join(untyped)} need a "type".'
                )
            return cs.any_schema(), None
        kinds = kind if isinstance(kind, list) else [kind]
        compiled = [self._typed(k, schema, path) for k in kinds]
        if len(compiled) == 1:
            return compiled[0]
        depths = [d for _, d in compiled]
        return cs.union_schema(
            [c for c, _ in compiled],
            custom_error_type="union_mismatch",
            custom_error_message=f"must be one of: {', '.join(kinds)}",
        ), (None if None in depths else max(d for d in depths if d is not None))

    def _and_siblings(
        self, core: cs.CoreSchema, depth: int | None, schema: dict[str, Any], key: str, path: str
    ) -> tuple[cs.CoreSchema, int | None]:
        """`core` (for `key`) and the schema's other validation keywords, both applied."""
        rest = {k: v for k, v in schema.items() if k != key}
        if not set(rest) - _ANNOTATIONS:
            return core, depth
        first, first_depth = self.compile(rest, path)
        both = None if depth is None or first_depth is None else max(depth, first_depth)
        return cs.chain_schema([first, core]), both

    def _typed(self, kind: str, s: dict[str, Any], path: str) -> tuple[cs.CoreSchema, int | None]:
        num = {
            k: s[v]
            for k, v in (
                ("ge", "minimum"),
                ("le", "maximum"),
                ("gt", "exclusiveMinimum"),
                ("lt", "exclusiveMaximum"),
                ("multiple_of", "multipleOf"),
            )
            if v in s
        }
        if kind == "integer":
            core: cs.CoreSchema = INT_BASE
            if num:
                core = cs.chain_schema([core, cs.int_schema(strict=True, **num)])
            return core, 0
        if kind == "number":
            return cs.float_schema(strict=True, allow_inf_nan=False, **num), 0
        if kind == "boolean":
            return cs.bool_schema(strict=True), 0
        if kind == "null":
            return cs.none_schema(), 0
        if kind == "string":
            pattern = s.get("pattern")
            engine: Literal["python-re"] | None = None
            if pattern is not None:
                from toolcast._define._constraints import regex_needs_python

                if regex_needs_python(pattern):
                    try:
                        re.compile(pattern)
                    except re.error as exc:
                        return self.fail(
                            path,
                            "invalid-pattern",
                            f"pattern {pattern!r} is not a regular expression ({exc}).",
                        )
                    engine = "python-re"  # on the field itself: a config does not reach it
                    self.python_regex = True
            core = cs.str_schema(
                strict=True,
                min_length=s.get("minLength"),
                max_length=s.get("maxLength"),
                pattern=pattern,
                regex_engine=engine,
            )
            fmt = s.get("format")
            if fmt is not None:
                parse = _FORMATS.get(fmt)
                if parse is None:
                    return self.fail(
                        path,
                        "unsupported-format",
                        f"format {fmt!r} cannot be checked (supported: {', '.join(_FORMATS)}); "
                        "remove it or use a pattern.",
                    )
                core = cs.no_info_after_validator_function(_keep_string(parse), core)
            return core, 0
        if kind == "array":
            lengths = {"min_length": s.get("minItems"), "max_length": s.get("maxItems")}
            if "prefixItems" in s:
                if s.get("minItems", 0) < len(s["prefixItems"]):
                    # pydantic-core's tuples need every leading item; a shorter array,
                    # valid JSON Schema, would be refused.
                    return self.fail(
                        path,
                        "unsupported-keyword",
                        f'prefixItems needs "minItems": {len(s["prefixItems"])} or more '
                        "(shorter arrays cannot be validated).",
                    )
                parts = [
                    self.compile(p, f"{path}/prefixItems/{i}")
                    for i, p in enumerate(s["prefixItems"])
                ]
                items = [c for c, _ in parts]
                depths = [d for _, d in parts]
                if s.get("items", True) is False:
                    # `"items": false` closes the tuple (the usual 2020-12 idiom).
                    core = cs.tuple_schema(items, strict=True, **lengths)
                else:
                    rest, rest_depth = self.compile(s.get("items", True), f"{path}/items")
                    core = cs.tuple_schema(
                        [*items, rest], variadic_item_index=len(items), strict=True, **lengths
                    )
                    depths.append(rest_depth)
                core = cs.no_info_after_validator_function(list, core)
            else:
                item, item_depth = self.compile(s.get("items", True), f"{path}/items")
                core = cs.list_schema(item, strict=True, **lengths)
                depths = [item_depth]
            if s.get("uniqueItems"):
                core = cs.no_info_after_validator_function(_unique_json, core)
            depth = None if None in depths else 1 + max(d for d in depths if d is not None)
            return core, depth
        if kind == "object":
            props = s.get("properties", {})
            required = set(s.get("required", ()))
            extra = s.get("additionalProperties", True)
            fields: dict[str, cs.TypedDictField] = {}
            depths = []
            for key, sub in props.items():
                core, depth = self.compile(sub, f"{path}/properties/{key}")
                fields[key] = cs.typed_dict_field(core, required=key in required)
                depths.append(depth)
            missing = sorted(required - set(props))
            if missing and extra is False:
                return self.fail(
                    path, "invalid-schema", f"required names {missing} are not in properties."
                )
            if extra is False:
                core = cs.typed_dict_schema(fields, extra_behavior="forbid", strict=True)
            else:
                extras, depth = (
                    (None, None)
                    if extra is True
                    else self.compile(extra, f"{path}/additionalProperties")
                )
                depths.append(depth)
                core = cs.typed_dict_schema(
                    fields, extra_behavior="allow", extras_schema=extras, strict=True
                )
            depth = (
                None if None in depths else 1 + max((d for d in depths if d is not None), default=0)
            )
            return core, depth
        return self.fail(path, "invalid-schema", f"unknown type {kind!r}.")


def compile_schema(name: str, schema: dict[str, Any]) -> CompiledSchema:
    """Compile a tool's input schema, or raise ToolDefinitionError listing every problem."""
    compiler = _Compiler(name, schema)
    check_name(name, compiler.problems)
    root: Any = schema  # a caller may pass anything; say what is wrong
    if not isinstance(root, dict) or root.get("type") != "object":
        compiler.problems.append(
            DefinitionProblem("root-not-object", "", 'the input schema must have "type": "object".')
        )
        raise ToolDefinitionError(name, compiler.problems)
    core, depth = compiler.compile(schema, "")
    definitions = []
    for key, sub in (schema.get("$defs") or {}).items():
        sub_core, _ = compiler.compile(sub, f"/$defs/{key}")
        definitions.append({**sub_core, "ref": key})
    unknown_refs = sorted(compiler.refs - set(schema.get("$defs") or {}))
    for ref in unknown_refs:
        compiler.problems.append(
            DefinitionProblem("unsupported-ref", "", f"'#/$defs/{ref}' is not defined.")
        )
    compiler.problems.extend(compiler.literals.problems)
    if compiler.problems:
        raise ToolDefinitionError(name, compiler.problems)
    if definitions:
        core = cs.definitions_schema(core, definitions)  # type: ignore[arg-type]
        depth = None
    return CompiledSchema(core, depth, compiler.python_regex)
