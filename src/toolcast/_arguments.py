"""Raw arguments from a model -> the validated argument object, within limits.

The raw text is parsed once by jiter to refuse what JSON Schema cannot see
(duplicate keys, NaN/Infinity, invalid UTF-8, oversized or over-deep input).
Where the schema holds only JSON's own types (strings, numbers, booleans, null,
arrays, objects, and toolcast's validators on them), pydantic-core validates
that parse itself: one pass over the text. Elsewhere (Decimal, tuples, enums,
dates, bytes) it validates straight from the text, whose digits and strings it
reads in JSON mode, so numbers keep their exact value.
"""

from __future__ import annotations

import decimal
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import jiter
from pydantic_core import SchemaValidator, ValidationError, to_json

from toolcast._define._formats import INTS_FROM_TEXT, PATTERN_DEADLINE, PATTERN_TIMEOUT
from toolcast._exact_paths import (
    BadNumber,
    as_digits,
    as_integer,
    exact_at,
    find_number,
    literal_at,
    strings_at,
)
from toolcast._json_errors import arguments_message
from toolcast._messages import format_validation_errors
from toolcast._numbers import TOO_LARGE, spelled_reason
from toolcast._spec import Arguments, ParsedArguments

__all__ = ("ArgumentsError", "JsonValidator", "Limits", "Parser", "reads_parsed")


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what a model may send; anything larger is refused before parsing."""

    max_bytes: int = 1 << 20
    """Largest accepted argument text, in bytes (UTF-8)."""
    max_depth: int = 64
    """Deepest accepted nesting of objects and arrays (the argument object is 1)."""
    max_result_chars: int = 100_000
    """Longest result text sent to the model; a longer one is cut, with a note saying so."""


class ArgumentsError(Exception):
    """Arguments were refused; `message` is written for the model."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def _too_deep(value: Any, limit: int) -> bool:
    # Level by level, holding references only: a megabyte of `[{}, {}, ...]` costs a
    # list of pointers, not a tuple per item.
    level = [value]
    depth = 1
    while level:
        if depth > limit:
            return True
        below = []
        for item in level:
            if item:
                for child in item.values() if type(item) is dict else item:
                    if type(child) is dict or type(child) is list:
                        below.append(child)
        level = below
        depth += 1
    return False


_JITER_MESSAGES = (
    ("duplicate key", "repeat the key {detail}{where}; send each argument once"),
    ("number out of range", "contain a number too large to handle"),
    ("recursion limit", "are nested too deeply"),
    ("utf-8", "are not valid UTF-8 text"),
    ("utf8", "are not valid UTF-8 text"),
)


def _is_utf8(raw: str | bytes) -> bool:
    # jiter names the byte, not the cause; only the error path pays for this check.
    try:
        if isinstance(raw, str):
            raw.encode("utf-8")  # lone surrogates cannot be encoded
        else:
            raw.decode("utf-8")
    except UnicodeError:
        return False
    return True


def _holds_floats(raw: str | bytes) -> bool:
    """Whether the text may hold a number written with a fraction or exponent."""
    if isinstance(raw, str):
        return _FRACTION_TEXT.search(raw) is not None
    return _FRACTION_BYTES.search(raw) is not None


def clip(text: str, limit: int) -> str:
    """`text`, cut to `limit` characters with an ellipsis (echoes of model input)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


_GOT_CHARS = 60
_FULL_REPORT_BYTES = 16 * 1024
"""Up to this size every problem is found and counted; above it each array, set and
dict stops at its first bad item, so a megabyte of bad items costs one error, not a
million (pydantic-core has no cap on collected errors)."""
_MAX_ERRORS_READ = 20_000
"""More errors than this (a flood of unknown keys) are never materialised in Python;
a trimmed copy of the input is validated to find the ones to show."""
_KEPT_UNKNOWN_KEYS = 50
# An exponent, or 17 digits and dots in a row: the text may hold a number a float
# would round (up to 15 significant digits a float keeps a number's integrality).
_FLOAT_TEXT = re.compile(r"[0-9][eE]|[0-9.]{17}")
# Any number with a fraction or exponent: validation may have met one where an int goes
# (INT_BASE sends integral floats back, inside unions too, where its error is hidden).
_FRACTION_TEXT = re.compile(r"[0-9][.eE]")
_FRACTION_BYTES = re.compile(rb"[0-9][.eE]")
_FLOAT_BYTES = re.compile(rb"[0-9][eE]|[0-9.]{17}")


def fail_fast(core: Any) -> Any:
    """A copy of pydantic-core schema `core` whose containers stop at their first error."""
    if isinstance(core, dict):
        out = {k: fail_fast(v) for k, v in core.items()}
        if out.get("type") in ("list", "tuple", "set", "frozenset", "dict"):
            out["fail_fast"] = True
        return out
    if isinstance(core, list):
        return [fail_fast(v) for v in core]
    if isinstance(core, tuple):
        return tuple(fail_fast(v) for v in core)
    return core


def _property_names(schema: Any, found: set[str]) -> set[str]:
    """Every property name declared anywhere in a JSON Schema."""
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            found.update(properties)
        for value in schema.values():
            _property_names(value, found)
    elif isinstance(schema, list):
        for value in schema:
            _property_names(value, found)
    return found


def _trimmed(value: Any, known: set[str]) -> Any:
    """`value` with large objects cut to their known keys plus a few unknown ones."""
    if isinstance(value, dict):
        if len(value) > _KEPT_UNKNOWN_KEYS:
            kept: dict[str, Any] = {}
            unknown = 0
            for key, item in value.items():
                if key in known:
                    kept[key] = item
                elif unknown < _KEPT_UNKNOWN_KEYS:
                    unknown += 1
                    kept[key] = item
            value = kept
        return {k: _trimmed(v, known) for k, v in value.items()}
    if isinstance(value, list):
        return [_trimmed(v, known) for v in value]
    return value


class JsonValidator(Protocol):
    """A validator other than pydantic-core's (`from_schema` tools).

    It raises ArgumentsError itself, in toolcast's wording.
    """

    def validate_json(self, raw: str | bytes, /) -> Any:
        """Validate argument text; return the argument object."""
        ...


_SAME_IN_PYTHON_MODE = frozenset(
    {
        # JSON's own types, containers of them, and combinators: strict validation of
        # jiter's parse (dict, list, str, int, float, bool, None) means what strict
        # validation of the text means. Strict `tuple`, `set`, `decimal`, `enum`,
        # `date`, `uuid` and `bytes` want Python instances in Python mode, so a tool
        # using one validates the text instead.
        "any",
        "bool",
        "chain",
        "default",
        "definition-ref",
        "definitions",
        "dict",
        "float",
        "function-after",
        "function-before",
        "function-plain",
        "function-wrap",
        "int",
        "list",
        "literal",
        "none",
        "nullable",
        "str",
        "tagged-union",
        "typed-dict",
        "typed-dict-field",
        "union",
        "no-info",
        "with-info",
    }
)
_NOT_SCHEMAS = frozenset({"metadata", "serialization"})


def reads_parsed(core: Any) -> bool:
    """Whether pydantic-core schema `core` may validate jiter's parse instead of the text."""
    if isinstance(core, dict):
        kind = core.get("type")
        if kind == "model":
            # Only ever chained after toolcast's own object validation (`own_model_schema`):
            # it gets that step's Python dict in either mode.
            return True
        if isinstance(kind, str) and kind not in _SAME_IN_PYTHON_MODE:
            return False
        return all(reads_parsed(v) for k, v in core.items() if k not in _NOT_SCHEMAS)
    if isinstance(core, (list, tuple)):
        return all(reads_parsed(v) for v in core)
    return True


_from_json = jiter.from_json
_LINE_COLUMN = re.compile(r"at line (\d+) column (\d+)")


_INFINITIES = (float("inf"), float("-inf"))


def _as_spelled(errors: list[Any], raw: str | bytes) -> list[Any]:
    """`errors` with each infinity (a literal beyond the float range) as the model wrote it."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    spelled = jiter.from_json(data, float_mode="lossless-float")
    out = []
    for error in errors:
        if error.get("input") in _INFINITIES:
            node: Any = spelled
            for part in error["loc"]:  # union branch names are not keys: skipped
                if (type(node) is dict and part in node) or (
                    type(node) is list and type(part) is int and part < len(node)
                ):
                    node = node[part]
            if type(node) is jiter.LosslessFloat:
                error = {**error, "input": node}
        out.append(error)
    return out


def _beyond_decimal(number: Any) -> bool:
    if type(number) is not jiter.LosslessFloat:
        return False
    try:
        decimal.Decimal(bytes(number).decode())
    except decimal.InvalidOperation:
        return True
    return False


_NON_FINITE = re.compile(r"[:\[,]\s*-?(?:NaN|Infinity)\s*[,}\]]")


class Parser:
    """Parses and validates the arguments of one tool."""

    __slots__ = (
        "_bounded",
        "_check_depth",
        "_decimals",
        "_integers",
        "_known",
        "_limits",
        "_no_text",
        "_parsed",
        "_quick_chars",
        "_schema",
        "_timed",
        "_tool",
        "_validator",
    )

    def __init__(
        self,
        tool: str,
        validator: SchemaValidator | JsonValidator,
        schema: dict[str, Any],
        *,
        limits: Limits,
        static_depth: int | None,
        guards: tuple[tuple[Any, ...], ...] = (),
        bounded: Callable[[], SchemaValidator] | None = None,
        timed: bool = False,
        from_parsed: bool = False,
    ) -> None:
        """Set up the parser of one tool.

        Args:
            tool: The tool's name, for messages.
            validator: Validates the argument text.
            schema: The input schema, for messages.
            limits: Size and depth bounds.
            static_depth: The deepest nesting the schema allows (None: unbounded).
            guards: Paths to exact numbers: ending in `int`, an integer; in `...`, a
                Decimal that may also come as a numeric string; else a Decimal that
                must not be a string.
            bounded: Builds the same validator with containers stopping at their
                first error, used for large input (built when first needed).
            timed: The validator runs back-tracking patterns, which share one time
                bound per call (`PATTERN_TIMEOUT`).
            from_parsed: Validate jiter's parse rather than the text (`reads_parsed`).
        """
        self._tool = tool
        self._validator = validator
        self._schema = schema
        self._limits = limits
        # A schema that cannot nest deeper than the limit needs no depth walk:
        # anything deeper is refused by validation anyway.
        self._check_depth = static_depth is None or static_depth + 1 > limits.max_depth
        self._integers = tuple(g[:-1] for g in guards if g[-1:] == (int,))
        self._no_text = tuple(g for g in guards if g[-1:] not in ((int,), (...,)))
        self._decimals = (*self._no_text, *(g[:-1] for g in guards if g[-1:] == (...,)))
        self._bounded: SchemaValidator | Callable[[], SchemaValidator] | None = bounded
        self._known: set[str] | None = None
        self._timed = timed
        self._parsed = from_parsed and isinstance(validator, SchemaValidator) and not self._decimals
        quick = self._parsed and not self._check_depth and not timed
        # Text this short is within the byte limit (4 bytes a character at most) and
        # gets the full error report: `parse` may skip both checks.
        self._quick_chars = min(limits.max_bytes // 4, _FULL_REPORT_BYTES) if quick else -1

    def _fail_json(self, exc: ValueError, raw: str | bytes) -> ArgumentsError:
        text = str(exc)
        lowered = text.lower()
        for needle, phrase in _JITER_MESSAGES:
            if needle in lowered:
                detail = text[text.find('"') : text.rfind('"') + 1] if '"' in text else ""
                detail = clip(detail, 200)  # a repeated key may be a megabyte long
                where = f" ({text[text.find(' at line') + 4 :]})" if " at line" in text else ""
                if "{where}" not in phrase:
                    phrase += "{where}"
                return ArgumentsError(
                    f"Arguments for '{self._tool}' {phrase.format(detail=detail, where=where)}."
                )
        # Syntax errors in words for the model (toolcast._json_errors), cut-off text included.
        return ArgumentsError(arguments_message(self._tool, raw, text))

    def parse(self, arguments: Arguments | ParsedArguments) -> Any:
        """Validate `arguments`; return the converted argument object or raise ArgumentsError."""
        if type(arguments) is str and len(arguments) <= self._quick_chars:
            # The usual call, in as few steps as it takes: small text, a tool read in one
            # pass, nothing to bound. Anything unusual (an error above all) goes the
            # whole way below, which words it; only failed calls pay twice.
            try:
                # Plain `encode()` is CPython's fastest UTF-8 path; a lone surrogate
                # raises UnicodeEncodeError (a ValueError): the whole way words it.
                parsed = _from_json(
                    arguments.encode(), allow_inf_nan=False, catch_duplicate_keys=True
                )
                if type(parsed) is dict:
                    return self._validator.validate_python(parsed)  # type: ignore[union-attr]
            except (ValueError, ValidationError):
                pass
        elif isinstance(arguments, ParsedArguments):
            if self._quick_chars >= 0:
                try:
                    return self._validator.validate_python(arguments.value)  # type: ignore[union-attr]
                except ValidationError:
                    pass
            arguments = arguments.value
        return self._parse(arguments)

    def _parse(self, arguments: Arguments) -> Any:
        if isinstance(arguments, str):
            if (
                len(arguments) * 4 > self._limits.max_bytes
                and len(arguments.encode("utf-8", "surrogatepass")) > self._limits.max_bytes
            ):
                raise self._too_large(len(arguments.encode("utf-8", "surrogatepass")))
            raw: bytes | str = arguments
        elif isinstance(arguments, (bytes, bytearray)):
            if len(arguments) > self._limits.max_bytes:
                raise self._too_large(len(arguments))
            raw = bytes(arguments)
        elif isinstance(arguments, Mapping):
            try:
                # to_json knows dict, not every Mapping (MappingProxyType, ChainMap, ...).
                top = arguments if isinstance(arguments, dict) else dict(arguments)
                raw = to_json(top, inf_nan_mode="constants", bytes_mode="base64")
            except Exception:  # a host passed a non-JSON value; its repr is not for the model
                raise ArgumentsError(
                    f"Arguments for '{self._tool}' must be a JSON object of JSON values."
                ) from None
            if len(raw) > self._limits.max_bytes:
                raise self._too_large(len(raw))
        else:
            raise ArgumentsError(f"Arguments for '{self._tool}' must be a JSON object.")
        if not raw.strip():
            # Some models send "" for tools without parameters.
            raw = "{}"
        try:
            parsed = jiter.from_json(
                raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw,
                allow_inf_nan=False,
                catch_duplicate_keys=True,
            )
        except ValueError as exc:
            if not _is_utf8(raw):
                raise ArgumentsError(
                    f"Arguments for '{self._tool}' are not valid UTF-8 text."
                ) from None
            if _NON_FINITE.search(raw if isinstance(raw, str) else raw.decode("utf-8", "replace")):
                raise ArgumentsError(
                    f"Arguments for '{self._tool}' contain NaN or Infinity, which JSON does not "
                    "allow; send a finite number or null."
                ) from None
            if str(exc).startswith("number out of range"):
                raise ArgumentsError(self._long_number(raw, str(exc))) from None
            raise self._fail_json(exc, raw) from None
        if not isinstance(parsed, dict):
            raise ArgumentsError(f"Arguments for '{self._tool}' must be a JSON object.")
        if self._check_depth and _too_deep(parsed, self._limits.max_depth):
            limit = self._limits.max_depth
            raise ArgumentsError(
                f"Arguments for '{self._tool}' are nested deeper than {limit} levels."
            )
        text = self._exact_numbers(raw, parsed, integers=False) if self._decimals else raw
        validator = self._validator
        partial = self._bounded is not None and len(raw) > _FULL_REPORT_BYTES
        if partial:
            validator = self._bounded_validator()
        token = PATTERN_DEADLINE.set(time.perf_counter() + PATTERN_TIMEOUT) if self._timed else None
        try:
            try:
                if self._parsed:
                    return validator.validate_python(parsed)  # type: ignore[union-attr]
                return validator.validate_json(text)
            except ValidationError as exc:
                failed = exc
            if _holds_floats(raw):
                # A float may have reached an int position (`1e23`, `2.0`): read the
                # text's digits exactly and validate again. Plain integers never do.
                text = self._exact_numbers(raw, parsed, integers=True)
                exact = INTS_FROM_TEXT.set(True)
                try:
                    return validator.validate_json(text)
                except ValidationError as exc:
                    failed = exc
                finally:
                    INTS_FROM_TEXT.reset(exact)
            raise ArgumentsError(self._describe(failed, parsed, raw, partial=partial)) from None
        finally:
            if token is not None:
                PATTERN_DEADLINE.reset(token)

    def _bounded_validator(self) -> SchemaValidator:
        bounded = self._bounded
        if not isinstance(bounded, SchemaValidator):
            assert bounded is not None
            bounded = self._bounded = bounded()
        return bounded

    def _describe(
        self, exc: ValidationError, parsed: Any, raw: str | bytes, *, partial: bool
    ) -> str:
        """The model's message for `exc`, reading at most `_MAX_ERRORS_READ` errors."""
        count = exc.error_count()
        if count <= _MAX_ERRORS_READ:
            errors = exc.errors(include_url=False)
            if any(e.get("input") in _INFINITIES for e in errors):
                errors = _as_spelled(errors, raw)
            return format_validation_errors(self._tool, errors, self._schema, partial=partial)
        # Thousands of errors only come from unknown keys (containers stop at their
        # first error): validate a copy with most unknown keys cut to find a few.
        if self._known is None:
            self._known = _property_names(self._schema, set())
        validator = self._bounded_validator() if self._bounded is not None else self._validator
        exact = INTS_FROM_TEXT.set(True)  # a float at an int position: read it as before
        try:
            validator.validate_json(to_json(_trimmed(parsed, self._known)))
        except ValidationError as small:
            if small.error_count() <= _MAX_ERRORS_READ:
                errors = small.errors(include_url=False)
                return format_validation_errors(
                    self._tool, errors, self._schema, total=count, partial=partial
                )
        except ArgumentsError as small:
            return small.message
        finally:
            INTS_FROM_TEXT.reset(exact)
        return f"Invalid arguments for '{self._tool}' ({count} problems, mostly unknown keys)."

    def _exact_numbers(self, raw: str | bytes, parsed: Any, *, integers: bool) -> str | bytes:
        """Give the validator the exact digits of numbers where a Decimal or int goes.

        pydantic-core reads JSON numbers written with a fraction or exponent through a
        float, which drops digits; a Decimal that must be a number refuses strings here.
        """
        for guard in self._no_text:
            where = strings_at(parsed, guard)
            if where is not None:
                where = clip(where.lstrip("."), 200)
                raise ArgumentsError(f"Argument '{where}' must be a number, not a string.")
        if integers:
            # Re-read only when the text has digits a float could have rounded; else
            # the floats are exact and the validator converts them.
            pattern = _FLOAT_TEXT if isinstance(raw, str) else _FLOAT_BYTES
            integers = pattern.search(raw) is not None  # type: ignore[arg-type]
        if not self._decimals and not integers:
            return raw
        try:
            exact = jiter.from_json(
                raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw,
                float_mode="decimal",
            )
        except ValueError:  # an exponent beyond Decimal's range (1e1000000000000000000)
            raise ArgumentsError(self._unreadable_number(raw)) from None
        try:
            for guard in self._decimals:
                parsed = exact_at(parsed, exact, guard, as_digits)
            for guard in self._integers if integers else ():
                parsed = exact_at(parsed, exact, guard, as_integer)
        except BadNumber as exc:
            where = clip(exc.where.lstrip("."), 200)
            got = clip(str(exc.exact), _GOT_CHARS)
            raise ArgumentsError(f"Argument '{where}' {exc.reason} (got {got}).") from None
        return to_json(parsed)

    def _long_number(self, raw: str | bytes, error: str) -> str:
        """The message for a literal of more than `MAX_INTEGER_DIGITS` digits (jiter's limit)."""
        data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
        place = _LINE_COLUMN.search(error)
        found = literal_at(data, int(place[1]), int(place[2])) if place else None
        if found is None:  # pragma: no cover - jiter always names the place
            return f"Arguments for '{self._tool}' contain a number too large to handle."
        where, text = found
        return (
            f"Argument '{clip(where.lstrip('.'), 200)}' {TOO_LARGE} "
            f"(got {clip(text.decode(), _GOT_CHARS)})."
        )

    def _unreadable_number(self, raw: str | bytes) -> str:
        """The message for a number whose exponent is beyond even Decimal's range."""
        data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
        found = find_number(jiter.from_json(data, float_mode="lossless-float"), _beyond_decimal)
        if found is None:  # pragma: no cover - the decimal parse failed on one of them
            return f"Arguments for '{self._tool}' contain a number too large to handle."
        where, number = found
        text = bytes(number).decode()
        reason = spelled_reason(text)
        return f"Argument '{clip(where.lstrip('.'), 200)}' {reason} (got {clip(text, _GOT_CHARS)})."

    def _too_large(self, size: int) -> ArgumentsError:
        return ArgumentsError(
            f"Arguments for '{self._tool}' are too large ({size} bytes; the limit is "
            f"{self._limits.max_bytes})."
        )
