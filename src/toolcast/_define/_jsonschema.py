"""A hand-written JSON Schema -> a validator that accepts exactly what the schema accepts.

Used by `Tool.from_schema`. The schema is checked against its dialect's metaschema
(2020-12 unless `$schema` says otherwise) and its validator, jsonschema-rs, is built
when the tool is defined, so a call can never fail because of the schema. Every
keyword of the core and validation vocabularies is honoured; `format` is asserted.
References resolve inside the schema only (`$defs`, `$id`, `$anchor`,
`$dynamicRef`); nothing is fetched. See docs/schema.md, "Hand-written schemas".
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema_rs

from toolcast._define._exact import ExactValidator
from toolcast._define._names import check_name
from toolcast.errors import DefinitionProblem, ToolDefinitionError

__all__ = ("CompiledSchema", "compile_schema", "schema_pointer")

DIALECT = "https://json-schema.org/draft/2020-12/schema"
# Bounds the work a pattern may do per call (fancy-regex counts backtracking steps);
# a pattern that hits it refuses the value rather than running on.
_BACKTRACK_LIMIT = 100_000

# Keywords whose value is a subschema, a map of subschemas, or a list of them
# (2020-12 plus the older drafts' spellings a declared `$schema` may use).
_ONE = (
    "additionalProperties", "items", "contains", "propertyNames", "not", "if", "then",
    "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems",
)  # fmt: skip
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems", "items")


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A checked schema and its validator, built when the tool is defined."""

    exact: ExactValidator
    depth: int | None = None  # unknown: the argument parser walks the depth itself

    def validator(self) -> ExactValidator:
        """The validator (already built)."""
        return self.exact


def schema_pointer(path: Any) -> str:
    """`["properties", "a/b", 0]` -> `/properties/a~1b/0` (RFC 6901)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _subschemas(schema: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object inside `schema` (itself included), with its pointer."""
    if not isinstance(schema, dict):
        return
    yield pointer, schema
    for key in _ONE:
        if key in schema:
            yield from _subschemas(schema[key], pointer + schema_pointer([key]))
    for key in _MAP:
        value = schema.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from _subschemas(sub, f"{pointer}{schema_pointer([key, name])}")
    for key in _LIST:
        value = schema.get(key)
        if isinstance(value, list):
            for i, sub in enumerate(value):
                yield from _subschemas(sub, f"{pointer}{schema_pointer([key, i])}")


def _offline(uri: str) -> Any:
    raise LookupError(f"{uri} is not part of the schema and toolcast does not fetch schemas")


@cache
def _format_known(fmt: str) -> bool:
    try:
        jsonschema_rs.validator_for(
            {"format": fmt}, validate_formats=True, ignore_unknown_formats=False
        )
    except jsonschema_rs.ValidationError:
        return False
    return True


def _meta_problems(schema: dict[str, Any]) -> list[DefinitionProblem]:
    dialect = schema.get("$schema", DIALECT)
    try:
        meta = jsonschema_rs.validator_for(
            {"$schema": dialect, "$ref": dialect}, retriever=_offline
        )
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError):
        return [
            DefinitionProblem(
                "unsupported-dialect",
                "/$schema",
                f"the dialect {dialect!r} is not one toolcast knows (JSON Schema drafts 4, 6, "
                "7, 2019-09 and 2020-12); remove `$schema` to use 2020-12.",
            )
        ]
    problems: dict[tuple[str, str], DefinitionProblem] = {}
    for error in meta.iter_errors(schema):
        pointer = schema_pointer(error.instance_path)
        problems.setdefault(
            (pointer, error.message),
            DefinitionProblem(
                "invalid-schema", pointer, f"{error.message} (checked against {dialect})."
            ),
        )
    return list(problems.values())


def _walk_problems(schema: dict[str, Any]) -> list[DefinitionProblem]:
    problems = []
    for pointer, sub in _subschemas(schema, ""):
        fmt = sub.get("format")
        if isinstance(fmt, str) and not _format_known(fmt):
            problems.append(
                DefinitionProblem(
                    "unsupported-format",
                    f"{pointer}/format",
                    f"format {fmt!r} cannot be checked; remove it or use a pattern.",
                )
            )
    return problems


def _build_problem(schema: dict[str, Any], error: Exception) -> DefinitionProblem:
    message = getattr(error, "message", None) or str(error)
    kind = getattr(error, "kind", None)
    pointer = schema_pointer(getattr(error, "instance_path", ()) or ())
    referencing = isinstance(kind, jsonschema_rs.ValidationErrorKind.Referencing)
    if referencing or isinstance(error, jsonschema_rs.ReferencingError):
        for where, sub in _subschemas(schema, ""):
            for key in ("$ref", "$dynamicRef"):
                ref = sub.get(key)
                target = ref.split("#", 1)[-1] if isinstance(ref, str) else None
                if isinstance(ref, str) and (ref in message or (target and target in message)):
                    return DefinitionProblem(
                        "unsupported-ref",
                        f"{where}/{key}",
                        f"{key} {ref!r} cannot be resolved inside the schema ({message}); "
                        "toolcast does not fetch schemas: put the referenced schema under "
                        "`$defs` with its `$id`.",
                    )
        return DefinitionProblem("unsupported-ref", pointer, f"{message}.")
    if pointer.endswith("/pattern") or "regex" in message:
        return DefinitionProblem(
            "invalid-pattern", pointer, f"{message}: not an ECMA-262 regular expression."
        )
    return DefinitionProblem("invalid-schema", pointer, f"{message}.")


def compile_schema(name: str, schema: dict[str, Any]) -> CompiledSchema:
    """Check a tool's input schema and build its validator, or raise ToolDefinitionError."""
    problems: list[DefinitionProblem] = []
    check_name(name, problems)
    root: Any = schema  # a caller may pass anything; say what is wrong
    try:
        # JSON only (no NaN, tuples, sets or cycles), as a plain copy the caller cannot change.
        root = json.loads(json.dumps(root, allow_nan=False))
    except (TypeError, ValueError) as exc:
        problems.append(DefinitionProblem("invalid-schema", "", f"not a JSON value ({exc})."))
        raise ToolDefinitionError(name, problems) from None
    if not isinstance(root, dict) or root.get("type") != "object":
        problems.append(
            DefinitionProblem("root-not-object", "", 'the input schema must have "type": "object".')
        )
        raise ToolDefinitionError(name, problems)
    problems.extend(_meta_problems(root))
    if not problems:
        problems.extend(_walk_problems(root))
    if problems:
        raise ToolDefinitionError(name, problems)
    try:
        validator = jsonschema_rs.validator_for(
            root,
            validate_formats=True,
            ignore_unknown_formats=False,
            retriever=_offline,
            pattern_options=jsonschema_rs.FancyRegexOptions(backtrack_limit=_BACKTRACK_LIMIT),
        )
    except Exception as exc:  # jsonschema-rs raises several types; each becomes a problem
        raise ToolDefinitionError(name, [_build_problem(root, exc)]) from None
    return CompiledSchema(ExactValidator(name, validator, root))
