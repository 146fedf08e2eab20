"""JSON Schema to GBNF (llama.cpp's grammar format), for the subset a grammar can hold.

What a context-free grammar cannot say (patterns, formats, numeric bounds, unique
items, exclusive `oneOf`, ...) is left out of the grammar and reported as a note;
toolcast still validates every call on the way in, so a note means "not enforced
while generating", never "not checked". Objects are generated with their declared
properties in a fixed order (required ones first) and no others. Numbers are
bounded on purpose (19 integer digits, 17 fraction digits, 3 exponent digits), so
a small model cannot run a number on to the token limit. Under `Caps` (what
`constraint(..., max_tokens=N)` chooses) every string, array, map and any-JSON
value is bounded too, so the whole output has a longest length (`_length`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolcast._constraint._pattern import pattern_expression

__all__ = ("PRIMITIVES", "Caps", "GrammarBuilder", "literal")

PRIMITIVES = {
    "ws": '" "?',
    "char": r'[^"\\\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})',
    "string": r'"\"" char* "\""',
    # Bounded strings leave out `\uXXXX` (six bytes for one character): raw UTF-8 is
    # at most four, which keeps a length cap's byte count tight.
    "text-char": r'[^"\\\x00-\x1F] | [\\] ["\\/bfnrt]',
    "integer": '"-"? natural',
    "natural": '"0" | positive-integer',
    "positive-integer": "[1-9] [0-9]{0,18}",
    "number": '"-"? natural-number',
    "natural-number": 'natural ("." [0-9]{1,17})? exponent?',
    "positive-number": '(positive-integer ("." [0-9]{1,17})? | positive-fraction) exponent?',
    "positive-fraction": '"0." "0"{0,16} [1-9] [0-9]{0,16}',
    "exponent": "[eE] [-+]? [0-9]{1,3}",
    "boolean": '"true" | "false"',
    "null": '"null"',
    "value": "object | array | string | number | boolean | null",
    "object": '"{" ws (string ws ":" ws value ws ("," ws string ws ":" ws value ws)*)? "}"',
    "array": '"[" ws (value ws ("," ws value ws)*)? "]"',
}
"""Shared rules; `value`, `object` and `array` are any JSON."""

# Keywords a grammar leaves to validation; annotations are ignored without a note.
_NOT_GENERATED = {
    "format": "the string format",
    "multipleOf": "multipleOf",
    "uniqueItems": "unique items",
    "contains": "contains",
    "minContains": "minContains",
    "maxContains": "maxContains",
    "not": "not",
    "if": "if/then/else",
    "dependentRequired": "dependentRequired",
    "dependentSchemas": "dependentSchemas",
    "patternProperties": "patternProperties",
    "propertyNames": "propertyNames",
    "minProperties": "minProperties",
    "maxProperties": "maxProperties",
    "unevaluatedProperties": "unevaluatedProperties",
    "unevaluatedItems": "unevaluatedItems",
}


@dataclass(frozen=True, slots=True)
class Caps:
    """Lengths the grammar imposes where the schema sets none."""

    text: int
    """Most characters of a string without `maxLength` (or with a larger one)."""
    items: int
    """Most items of an array (and entries of a map) without a smaller bound."""


_ENUMERATED = 200
"""Integer ranges up to this many values are generated as alternatives."""


def _bounds(schema: Mapping[str, Any], step: int) -> tuple[int | None, int | None]:
    """Inclusive integer bounds from `minimum`/`exclusiveMinimum`/... (None = open)."""
    low = high = None
    if isinstance(schema.get("minimum"), (int, float)):
        low = math.ceil(schema["minimum"])
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        value = math.floor(schema["exclusiveMinimum"]) + step
        low = value if low is None else max(low, value)
    if isinstance(schema.get("maximum"), (int, float)):
        high = math.floor(schema["maximum"])
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        value = math.ceil(schema["exclusiveMaximum"]) - step
        high = value if high is None else min(high, value)
    return low, high


Note = Callable[[str, str, str], None]
"""Records (JSON pointer, keyword, sentence)."""


def literal(value: Any) -> str:
    """A GBNF string literal matching `value`'s compact JSON text exactly."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class GrammarBuilder:
    """Collects named rules; `expression` turns one schema into a rule reference."""

    def __init__(self, caps: Caps | None = None) -> None:
        self.caps = caps
        self.rules: dict[str, str] = {}
        self._names: set[str] = set(PRIMITIVES)
        self._refs: dict[tuple[str, str], str] = {}

    def name(self, hint: str) -> str:
        """A fresh rule name from `hint` (GBNF names are `[a-zA-Z0-9-]+`)."""
        base = re.sub(r"[^a-zA-Z0-9]+", "-", hint).strip("-").lower() or "rule"
        candidate, n = base, 1
        while candidate in self._names:
            n += 1
            candidate = f"{base}-{n}"
        self._names.add(candidate)
        return candidate

    def rule(self, hint: str, body: str) -> str:
        """Add a rule and return its name."""
        name = self.name(hint)
        self.rules[name] = body
        return name

    def text(self, root: str) -> str:
        """The whole grammar, `root` first, then the rules, then the primitives used."""
        lines = [f"root ::= {root}"]
        lines += [f"{name} ::= {body}" for name, body in self.rules.items()]
        lines += [f"{name} ::= {body}" for name, body in PRIMITIVES.items()]
        return "\n".join(lines) + "\n"

    def expression(
        self, schema: Any, root: Mapping[str, Any], tool: str, path: str, note: Note
    ) -> str:
        """A GBNF expression for values of `schema`; `root` resolves its `$ref`s."""
        return _Walk(self, root, tool, note).of(schema, path)


class _Walk:
    def __init__(self, grammar: GrammarBuilder, root: Mapping[str, Any], tool: str, note: Note):
        self.g, self.root, self.tool, self.note = grammar, root, tool, note

    def of(self, schema: Any, path: str) -> str:
        if schema is True or schema == {}:
            return self.any()
        if not isinstance(schema, Mapping):
            self.note(path, "false", "A schema that accepts nothing; any JSON is generated.")
            return self.any()
        for keyword, words in _NOT_GENERATED.items():
            if keyword in schema:
                self.note(path, keyword, f"The grammar does not enforce {words}.")
        if "$ref" in schema:
            return self.ref(str(schema["$ref"]), path)
        if "const" in schema:
            return literal(schema["const"])
        if "enum" in schema:
            return "(" + " | ".join(literal(v) for v in schema["enum"]) + ")"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                if key == "oneOf":
                    self.note(path, "oneOf", "Generated as anyOf (exclusivity not enforced).")
                rest = {k: v for k, v in schema.items() if k != key}
                branches = [
                    self.of({**rest, **b} if isinstance(b, Mapping) else b, f"{path}/{key}/{i}")
                    for i, b in enumerate(schema[key])
                ]
                return "(" + " | ".join(branches) + ")"
        if "allOf" in schema:
            return self.of(self.merge(schema, path), path)
        kind = schema.get("type")
        if isinstance(kind, list):
            alternatives = [self.of({**schema, "type": k}, path) for k in kind]
            return "(" + " | ".join(alternatives) + ")"
        if kind == "string":
            return self.string(schema, path)
        if kind == "integer":
            return self.integer(schema, path)
        if kind == "number":
            return self.number(schema, path)
        if kind in ("boolean", "null"):
            return str(kind)
        if kind == "array" or "items" in schema or "prefixItems" in schema:
            return self.array(schema, path)
        if kind == "object" or "properties" in schema or "additionalProperties" in schema:
            return self.object(schema, path)
        return self.any()

    def any(self) -> str:
        """Any JSON: unbounded, or under caps two levels of capped arrays and objects."""
        caps = self.g.caps
        if caps is None:
            return "value"
        if "value-2" in self.g.rules:
            return "value-2"
        text = self.quoted(0, caps.text)
        more = self.repeat(0, caps.items)
        self.g.rules["value-0"] = f"{text} | number | boolean | null"
        for depth in (1, 2):
            inner = f"value-{depth - 1}"
            items = f'"[" ws ({inner} (ws "," ws {inner}){more} ws)? "]"'
            pair = f'{text} ws ":" ws {inner}'
            pairs = f'"{{" ws ({pair} (ws "," ws {pair}){more} ws)? "}}"'
            self.g.rules[f"value-{depth}"] = f"{inner} | {items} | {pairs}"
        self.g._names.update(("value-0", "value-1", "value-2"))
        return "value-2"

    def quoted(self, low: int, high: int | None) -> str:
        """A JSON string of `low` to `high` characters (bytes stay countable under caps)."""
        char = "char" if self.g.caps is None else "text-char"
        if high is None and low == 0:
            return "string"
        return f'("\\"" {char}{{{low},{"" if high is None else high}}} "\\"")'

    @staticmethod
    def repeat(low: int, high: int | None) -> str:
        """The repetition of the items after the first: `{low-1, high-1}` or `*`."""
        if high is None:
            return "*" if low <= 1 else f"{{{low - 1},}}"
        return f"{{{max(low - 1, 0)},{max(high - 1, 0)}}}"

    def capped(self, own: Any, low: int, cap: int, path: str, keyword: str) -> int | None:
        """The upper bound to generate: the schema's own, tightened to the caps."""
        high = None if own is None else int(own)
        if self.g.caps is None:
            return high
        if high is None or high > max(cap, low):
            self.note(
                path,
                keyword,
                f"Generated with at most {max(cap, low)} so the call fits its token budget.",
            )
            return max(cap, low)
        return high

    def integer(self, schema: Mapping[str, Any], path: str) -> str:
        low, high = _bounds(schema, 1)
        if low is not None and high is not None and 0 <= high - low <= _ENUMERATED:
            return "(" + " | ".join(f'"{n}"' for n in range(low, high + 1)) + ")"
        if high is not None:
            self.note(path, "maximum", "The grammar does not enforce the maximum.")
        if low is None or low < 0:
            if low is not None:
                self.note(path, "minimum", "The grammar does not enforce the minimum.")
            return "integer"
        if low > 1:
            self.note(path, "minimum", "The grammar enforces only that it is positive.")
        return "natural" if low == 0 else "positive-integer"

    def number(self, schema: Mapping[str, Any], path: str) -> str:
        for keyword in ("maximum", "exclusiveMaximum"):
            if keyword in schema:
                self.note(path, keyword, f"The grammar does not enforce {keyword}.")
        low, strict = schema.get("minimum"), False
        if "exclusiveMinimum" in schema:
            low, strict = schema["exclusiveMinimum"], True
        if low is None:
            return "number"
        if low == 0:
            return "positive-number" if strict else "natural-number"
        if low > 0:
            self.note(path, "minimum", "The grammar enforces only that it is positive.")
            return "positive-number"
        self.note(path, "minimum", "The grammar does not enforce the minimum.")
        return "number"

    def ref(self, ref: str, path: str) -> str:
        key = (self.tool, ref)
        known = self.g._refs.get(key)
        if known is not None:
            return known
        if not ref.startswith("#"):
            self.note(path, "$ref", f"Remote reference {ref!r}: any JSON is generated.")
            return "value"
        target: Any = self.root
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and part in target:
                target = target[part]
            else:
                self.note(path, "$ref", f"Unresolvable reference {ref!r}: any JSON is generated.")
                return "value"
        name = self.g.name(f"{self.tool}-{ref.rsplit('/', 1)[-1] or 'root'}")
        self.g._refs[key] = name  # registered first, so recursive references terminate
        self.g.rules[name] = self.of(target, ref[1:] or "")
        return name

    def merge(self, schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            if isinstance(part, Mapping) and "$ref" in part and len(part) == 1:
                part = self.resolve(str(part["$ref"]))
            if not isinstance(part, Mapping):
                continue
            for key, value in part.items():
                if key == "properties":
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required":
                    merged["required"] = [*merged.get("required", []), *value]
                elif key not in merged:
                    merged[key] = value
                elif merged[key] != value:
                    self.note(path, "allOf", f"Conflicting {key!r} in allOf: the first is used.")
        return merged

    def resolve(self, ref: str) -> Any:
        target: Any = self.root
        for part in [p for p in ref.lstrip("#").split("/") if p]:
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        return target

    def string(self, schema: Mapping[str, Any], path: str) -> str:
        caps = self.g.caps
        if isinstance(schema.get("pattern"), str):
            body = pattern_expression(schema["pattern"], None if caps is None else caps.text)
            if body is not None:
                if "minLength" in schema or "maxLength" in schema:
                    self.note(path, "minLength", "Lengths are not enforced next to a pattern.")
                return f'("\\"" {body} "\\"")'
            self.note(path, "pattern", "The grammar does not enforce this pattern.")
        low = int(schema.get("minLength") or 0)
        cap = 0 if caps is None else caps.text
        return self.quoted(low, self.capped(schema.get("maxLength"), low, cap, path, "maxLength"))

    def array(self, schema: Mapping[str, Any], path: str) -> str:
        prefix = schema.get("prefixItems")
        if prefix:
            items = [self.of(s, f"{path}/prefixItems/{i}") for i, s in enumerate(prefix)]
            if schema.get("items") not in (None, False) or schema.get("minItems", 0) < len(prefix):
                self.note(path, "prefixItems", "Generated with exactly the prefix items.")
            return '("[" ws ' + ' ws "," ws '.join(items) + ' ws "]")'
        item = self.of(schema.get("items", True), f"{path}/items")
        low = int(schema.get("minItems", 0))
        cap = 0 if self.g.caps is None else self.g.caps.items
        high = self.capped(schema.get("maxItems"), low, cap, path, "maxItems")
        if high is not None and high == 0:
            return '("[" ws "]")'
        body = f'{item} (ws "," ws {item}){self.repeat(low, high)} ws'
        if low == 0:
            return f'("[" ws ({body})? "]")'
        return f'("[" ws {body} "]")'

    def object(self, schema: Mapping[str, Any], path: str) -> str:
        properties: Mapping[str, Any] = schema.get("properties") or {}
        extra = schema.get("additionalProperties", True)
        if not properties:
            if extra is False:
                return '("{" ws "}")'
            value = self.of(extra, f"{path}/additionalProperties")
            cap = 0 if self.g.caps is None else self.g.caps.items
            high = self.capped(None, 0, cap, path, "additionalProperties")
            key = self.quoted(0, None if self.g.caps is None else self.g.caps.text)
            pair = f'{key} ws ":" ws {value} ws'
            more = self.repeat(0, high)
            return self.g.rule(
                f"{self.tool}-{path}-map", f'"{{" ws ({pair} ("," ws {pair}){more})? "}}"'
            )
        if extra is not False:
            self.note(
                path,
                "additionalProperties",
                "Only the declared properties are generated.",
            )
        required = [n for n in properties if n in set(schema.get("required") or ())]
        optional = [n for n in properties if n not in required]
        pairs = {
            n: f'{literal(n)} ws ":" ws {self.of(properties[n], f"{path}/properties/{n}")}'
            for n in properties
        }
        # Optional properties in order: each chain rule is "this one, then maybe the
        # rest" or "skip to the rest", so any ordered subset can be generated.
        chain = ""
        for n in reversed(optional):
            body = pairs[n] + (f' (ws "," ws {chain})? | {chain}' if chain else "")
            chain = self.g.rule(f"{self.tool}-{path}-{n}-opt", body)
        if required:
            body = ' ws "," ws '.join(pairs[n] for n in required)
            if chain:
                body += f' (ws "," ws {chain})?'
            inner = f"{body} ws"
        else:
            inner = f"({chain} ws)?"
        return self.g.rule(f"{self.tool}-{path}-object", f'"{{" ws {inner} "}}"')
