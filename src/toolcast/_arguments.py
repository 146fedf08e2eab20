"""Raw arguments from a model -> the validated argument object, within limits.

The raw text is parsed once by jiter to refuse what JSON Schema cannot see
(duplicate keys, NaN/Infinity, invalid UTF-8, oversized or over-deep input),
then validated by pydantic-core straight from the text, so numbers keep their
exact value (Decimal) and formats are checked on the original strings.
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jiter
from pydantic_core import SchemaValidator, ValidationError, to_json

from toolcast._messages import format_validation_errors
from toolcast._spec import Arguments

__all__ = ("ArgumentsError", "Limits", "Parser")


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what a model may send; anything larger is refused before parsing."""

    max_bytes: int = 1 << 20
    """Largest accepted argument text, in bytes (UTF-8)."""
    max_depth: int = 64
    """Deepest accepted nesting of objects and arrays (the argument object is 1)."""


class ArgumentsError(Exception):
    """Arguments were refused; `message` is written for the model."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def _too_deep(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


def _strings_at(value: Any, path: tuple[Any, ...]) -> str | None:
    """The location of a JSON string at a guarded path, if there is one."""
    if not path:
        return "" if isinstance(value, str) else None
    head, rest = path[0], path[1:]
    if head == "*":
        items: Any = ()
        if isinstance(value, dict):
            items = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        for key, item in items:
            found = _strings_at(item, rest)
            if found is not None:
                return f"[{key}]{found}" if isinstance(key, int) else f".{key}{found}"
        return None
    if isinstance(head, int):
        if isinstance(value, list) and head < len(value):
            found = _strings_at(value[head], rest)
            return None if found is None else f"[{head}]{found}"
        return None
    if isinstance(value, dict) and head in value:
        found = _strings_at(value[head], rest)
        return None if found is None else f".{head}{found}"
    return None


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


def _digits_at(value: Any, exact: Any, path: tuple[Any, ...]) -> Any:
    """`value` with the numbers at `path` replaced by the exact digits from `exact`."""
    if not path:
        is_number = isinstance(exact, (int, float, decimal.Decimal)) and not isinstance(exact, bool)
        return str(exact) if is_number else value
    head, rest = path[0], path[1:]
    if head == "*":
        if isinstance(value, dict) and isinstance(exact, dict):
            return {k: _digits_at(v, exact[k], rest) for k, v in value.items()}
        if isinstance(value, list) and isinstance(exact, list):
            return [_digits_at(v, e, rest) for v, e in zip(value, exact, strict=True)]
        return value
    if isinstance(head, int):
        if isinstance(value, list) and isinstance(exact, list) and head < len(value):
            return [*value[:head], _digits_at(value[head], exact[head], rest), *value[head + 1 :]]
        return value
    if isinstance(value, dict) and isinstance(exact, dict) and head in value:
        return {**value, head: _digits_at(value[head], exact[head], rest)}
    return value


_NON_FINITE = re.compile(r"[:\[,]\s*-?(?:NaN|Infinity)\s*[,}\]]")


class Parser:
    """Parses and validates the arguments of one tool."""

    __slots__ = ("_check_depth", "_guards", "_limits", "_schema", "_tool", "_validator")

    def __init__(
        self,
        tool: str,
        validator: SchemaValidator,
        schema: dict[str, Any],
        *,
        limits: Limits,
        static_depth: int | None,
        guards: tuple[tuple[Any, ...], ...] = (),
    ) -> None:
        self._tool = tool
        self._validator = validator
        self._schema = schema
        self._limits = limits
        # A schema that cannot nest deeper than the limit needs no depth walk:
        # anything deeper is refused by validation anyway.
        self._check_depth = static_depth is None or static_depth + 1 > limits.max_depth
        self._guards = guards

    def _fail_json(self, exc: ValueError) -> ArgumentsError:
        text = str(exc)
        lowered = text.lower()
        for needle, phrase in _JITER_MESSAGES:
            if needle in lowered:
                detail = text[text.find('"') : text.rfind('"') + 1] if '"' in text else ""
                where = f" ({text[text.find(' at line') + 4 :]})" if " at line" in text else ""
                if "{where}" not in phrase:
                    phrase += "{where}"
                return ArgumentsError(
                    f"Arguments for '{self._tool}' {phrase.format(detail=detail, where=where)}."
                )
        return ArgumentsError(
            f"Arguments for '{self._tool}' must be a JSON object (invalid JSON: {text})."
        )

    def parse(self, arguments: Arguments) -> Any:
        """Validate `arguments`; return the converted argument object or raise ArgumentsError."""
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
            raise self._fail_json(exc) from None
        if not isinstance(parsed, dict):
            raise ArgumentsError(f"Arguments for '{self._tool}' must be a JSON object.")
        if self._check_depth and _too_deep(parsed, self._limits.max_depth):
            limit = self._limits.max_depth
            raise ArgumentsError(
                f"Arguments for '{self._tool}' are nested deeper than {limit} levels."
            )
        if self._guards:
            raw = self._exact_decimals(raw, parsed)
        try:
            return self._validator.validate_json(raw)
        except ValidationError as exc:
            raise ArgumentsError(
                format_validation_errors(self._tool, exc.errors(include_url=False), self._schema)
            ) from None

    def _exact_decimals(self, raw: str | bytes, parsed: Any) -> bytes:
        """Refuse strings where a Decimal goes; give the validator each one's exact digits.

        pydantic-core reads JSON numbers through a float, which drops digits.
        """
        for guard in self._guards:
            where = _strings_at(parsed, guard)
            if where is not None:
                raise ArgumentsError(
                    f"Argument '{where.lstrip('.')}' must be a number, not a string."
                )
        exact = jiter.from_json(
            raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw,
            float_mode="decimal",
        )
        for guard in self._guards:
            parsed = _digits_at(parsed, exact, guard)
        return to_json(parsed)

    def _too_large(self, size: int) -> ArgumentsError:
        return ArgumentsError(
            f"Arguments for '{self._tool}' are too large ({size} bytes; the limit is "
            f"{self._limits.max_bytes})."
        )
