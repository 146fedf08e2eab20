"""A hand-written JSON Schema -> a validator that accepts exactly what the schema accepts.

Used by `Tool.from_schema`. The schema is checked against its dialect's metaschema
(2020-12 unless `$schema` says otherwise) and its validator, jsonschema-rs, is built
when the tool is defined, so a call can never fail because of the schema. Every
keyword of the core and validation vocabularies is honoured; `format` is asserted
on strings, the OpenAPI numeric formats on numbers (`_numeric_formats`), and any
format on a node whose type allows neither is an annotation.
References resolve inside the schema only (`$defs`, `$id`, `$anchor`,
`$dynamicRef`); nothing is fetched. See docs/schema.md, "Hand-written schemas".
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema_rs

from toolcast._define._exact import ExactValidator
from toolcast._define._names import check_name
from toolcast._define._numeric_formats import NUMERIC_FORMATS, RANGE_KEYWORD, NumericFormat
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

    def lenient_validator(self) -> ExactValidator:
        """The validator for `null_means_default` calls (strict projections)."""
        return self.exact.null_means_default()


def schema_pointer(path: Any) -> str:
    """`["properties", "a/b", 0]` -> `/properties/a~1b/0` (RFC 6901)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _subschemas(schema: Any) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Every schema object inside `schema` (itself included), with its path."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield path, node
        children: list[tuple[tuple[str | int, ...], Any]] = []
        for key in _ONE:
            if key in node:
                children.append(((*path, key), node[key]))
        for key in _MAP:
            value = node.get(key)
            if isinstance(value, dict):
                children.extend(((*path, key, name), sub) for name, sub in value.items())
        for key in _LIST:
            value = node.get(key)
            if isinstance(value, list):
                children.extend(((*path, key, i), sub) for i, sub in enumerate(value))
        stack.extend(reversed(children))  # depth first, in document order


_SCALARS = frozenset({"string", "number", "integer", "boolean", "null"})


def _value_depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_value_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_value_depth, value), default=0)
    return 0


def _deepest(schemas: list[Any]) -> int | None:
    depths = [static_depth(s) for s in schemas]
    return None if None in depths else max((d for d in depths if d is not None), default=0)


def static_depth(schema: Any) -> int | None:
    """The deepest nesting a value `schema` accepts can have (a scalar is 0), or None.

    Conservative: a bound is derived only from `type`, `enum`/`const`, `items`,
    `prefixItems`, `properties`, `patternProperties` and `additionalProperties`; since
    every keyword of a 2020-12 schema applies at once, the others can only narrow it.
    """
    if schema is False:
        return 0
    if not isinstance(schema, dict) or "$schema" in schema:
        return None
    kind = schema.get("type")
    if kind is None:
        for key in ("const", "enum"):
            if key in schema:
                values = [schema[key]] if key == "const" else schema[key]
                return max(map(_value_depth, values), default=0) if isinstance(values, list) else 0
        return None
    kinds = set(kind) if isinstance(kind, list) else {kind}
    depths = [0]
    if "array" in kinds:
        prefix = schema.get("prefixItems", [])
        if "items" not in schema:
            return None
        inner = _deepest([schema["items"], *(prefix if isinstance(prefix, list) else [])])
        if inner is None:
            return None
        depths.append(1 + inner)
    if "object" in kinds:
        if "additionalProperties" not in schema:
            return None
        subs = [schema["additionalProperties"]]
        for key in ("properties", "patternProperties"):
            if isinstance(schema.get(key), dict):
                subs.extend(schema[key].values())
        inner = _deepest(subs)
        if inner is None:
            return None
        depths.append(1 + inner)
    if not kinds <= _SCALARS | {"array", "object"}:
        return None
    return max(depths)


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


@cache
def _metaschema(dialect: str) -> jsonschema_rs.Validator | None:
    try:
        return jsonschema_rs.validator_for(
            {"$schema": dialect, "$ref": dialect}, retriever=_offline
        )
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError):
        return None


def _meta_problems(schema: dict[str, Any]) -> list[DefinitionProblem]:
    dialect = schema.get("$schema", DIALECT)
    meta = _metaschema(dialect) if isinstance(dialect, str) else None
    if meta is None:
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


def _declared_types(node: dict[str, Any]) -> set[str] | None:
    kind = node.get("type")
    if isinstance(kind, str):
        return {kind}
    return set(kind) if isinstance(kind, list) else None


def _format_problem(fmt: str, node: dict[str, Any]) -> str | None:
    """Why `fmt` on `node` cannot be honoured, or None (checked, or an annotation).

    Format checks apply to strings, and toolcast's numeric ones to numbers: on a node
    whose `type` allows neither, a format is an annotation whatever its name.
    """
    types = _declared_types(node)
    if fmt in NUMERIC_FORMATS:
        if types is None or "string" in types:
            allowed = "values of any type" if types is None else "strings"
            return (
                f"format {fmt!r} (OpenAPI) is checked on numbers, but this schema also "
                f"allows {allowed}, which no check of {fmt!r} covers; declare "
                '"type": "integer" or "number", or use a pattern for strings.'
            )
        return None
    if types is not None and "string" not in types:
        return None
    if _format_known(fmt):
        return None
    return f"format {fmt!r} cannot be checked; remove it or use a pattern."


def _walk_problems(schema: dict[str, Any]) -> list[DefinitionProblem]:
    problems = []
    for path, sub in _subschemas(schema):
        fmt = sub.get("format")
        why = _format_problem(fmt, sub) if isinstance(fmt, str) else None
        if why is not None:
            pointer = schema_pointer((*path, "format"))
            problems.append(DefinitionProblem("unsupported-format", pointer, why))
    return problems


def _checked_copy(schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The schema the validator runs, and the formats it must treat as annotations.

    Numeric formats get toolcast's range keyword beside them; a format on a node
    that allows no strings is never asserted by jsonschema-rs, which only needs to
    know the name (`formats=`) to build.
    """
    copy = json.loads(json.dumps(schema))
    names: dict[str, Any] = {}
    for _path, sub in _subschemas(copy):
        fmt = sub.get("format")
        if not isinstance(fmt, str) or _format_problem(fmt, sub) is not None:
            continue
        if fmt in NUMERIC_FORMATS:
            sub[RANGE_KEYWORD] = fmt
        if not _format_known(fmt):
            names[fmt] = _annotation
    return copy, names


def _annotation(_value: str) -> bool:
    return True  # never called with a value: the node's type allows no strings


def _build_problem(schema: dict[str, Any], error: Exception) -> DefinitionProblem:
    message = getattr(error, "message", None) or str(error)
    kind = getattr(error, "kind", None)
    pointer = schema_pointer(getattr(error, "instance_path", ()) or ())
    referencing = isinstance(kind, jsonschema_rs.ValidationErrorKind.Referencing)
    if referencing or isinstance(error, jsonschema_rs.ReferencingError):
        for path, sub in _subschemas(schema):
            for key in ("$ref", "$dynamicRef"):
                ref = sub.get(key)
                target = ref.split("#", 1)[-1] if isinstance(ref, str) else None
                if isinstance(ref, str) and (ref in message or (target and target in message)):
                    return DefinitionProblem(
                        "unsupported-ref",
                        schema_pointer((*path, key)),
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
        # JSON only (no NaN, sets, objects or cycles; tuples become lists), as a plain
        # copy the caller cannot change afterwards.
        root = json.loads(json.dumps(root, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        problems.append(DefinitionProblem("invalid-schema", "", f"not a JSON value ({why})."))
        raise ToolDefinitionError(name, problems) from None
    if not isinstance(root, dict) or root.get("type") != "object":
        problems.append(
            DefinitionProblem("root-not-object", "", 'the input schema must have "type": "object".')
        )
        raise ToolDefinitionError(name, problems)
    meta = _meta_problems(root)
    problems.extend(meta or _walk_problems(root))
    if problems:
        raise ToolDefinitionError(name, problems)
    checked, annotations = _checked_copy(root)
    try:
        validator = jsonschema_rs.validator_for(
            checked,
            validate_formats=True,
            ignore_unknown_formats=False,
            formats=annotations or None,
            keywords={RANGE_KEYWORD: NumericFormat},
            retriever=_offline,
            pattern_options=jsonschema_rs.FancyRegexOptions(backtrack_limit=_BACKTRACK_LIMIT),
        )
    except Exception as exc:  # jsonschema-rs raises several types; each becomes a problem
        raise ToolDefinitionError(name, [_build_problem(root, exc)]) from None
    depth = None
    # Older drafts ignore the siblings of `$ref`; only 2019-09 and later apply them all.
    if root.get("$schema", DIALECT).startswith("https://json-schema.org/draft/"):
        # A schema deeper than Python recurses gets no bound: the parser walks the depth.
        with contextlib.suppress(RecursionError):
            depth = static_depth({k: v for k, v in root.items() if k != "$schema"})
    return CompiledSchema(ExactValidator(name, validator, root), depth)
