"""The longest text a GBNF grammar can generate, in UTF-8 bytes.

A token always stands for at least one byte of text, so a grammar whose longest
output is N bytes cannot run past N tokens: this is how `constraint(...,
max_tokens=N)` proves that every call it allows ends within the request's token
budget. The measure reads the grammar text itself (the subset `GrammarBuilder`
and `pattern_expression` write: literals, character classes, rule names, groups,
`|`, and the `? * + {m,n}` repetitions), so it measures exactly what is sent.
"""

from __future__ import annotations

import re

__all__ = ("longest",)

_RULE = re.compile(r"^([a-zA-Z0-9-]+) ::= (.*)$")
_NAME = re.compile(r"[a-zA-Z0-9-]+")
_REPEAT = re.compile(r"\{(\d*)(,?)(\d*)\}")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "]": "]", "[": "["}
_UNBOUNDED = -1


def longest(grammar: str) -> int | None:
    """The most UTF-8 bytes `grammar`'s root can produce, or None when unbounded."""
    rules: dict[str, str] = {}
    for line in grammar.splitlines():
        match = _RULE.match(line)
        if match:
            rules[match.group(1)] = match.group(2)
    found = _Measure(rules).rule("root")
    return None if found == _UNBOUNDED else found


class _Measure:
    def __init__(self, rules: dict[str, str]) -> None:
        self.rules = rules
        self.known: dict[str, int] = {}
        self.open: set[str] = set()

    def rule(self, name: str) -> int:
        if name in self.known:
            return self.known[name]
        if name in self.open:
            return _UNBOUNDED  # a rule that can contain itself has no longest output
        self.open.add(name)
        text = self.rules[name]
        value, end = self.alternation(text, 0)
        if end != len(text):
            raise ValueError(f"unreadable grammar rule {name!r} at {end}: {text!r}")
        self.open.discard(name)
        self.known[name] = value
        return value

    def alternation(self, text: str, pos: int) -> tuple[int, int]:
        best, pos = self.sequence(text, pos)
        while pos < len(text) and text[pos] == "|":
            value, pos = self.sequence(text, pos + 1)
            best = _UNBOUNDED if _UNBOUNDED in (best, value) else max(best, value)
        return best, pos

    def sequence(self, text: str, pos: int) -> tuple[int, int]:
        total = 0
        while True:
            pos = _skip(text, pos)
            if pos >= len(text) or text[pos] in "|)":
                return total, pos
            value, pos = self.atom(text, pos)
            value, pos = self.repeated(value, text, pos)
            total = _UNBOUNDED if _UNBOUNDED in (total, value) else total + value

    def atom(self, text: str, pos: int) -> tuple[int, int]:
        char = text[pos]
        if char == '"':
            return _literal(text, pos)
        if char == "[":
            return _char_class(text, pos)
        if char == "(":
            value, pos = self.alternation(text, pos + 1)
            pos = _skip(text, pos)
            if pos >= len(text) or text[pos] != ")":
                raise ValueError(f"unclosed group in {text!r}")
            return value, pos + 1
        match = _NAME.match(text, pos)
        if match is None:
            raise ValueError(f"unexpected {char!r} in {text!r}")
        return self.rule(match.group(0)), match.end()

    def repeated(self, value: int, text: str, pos: int) -> tuple[int, int]:
        if pos >= len(text):
            return value, pos
        char = text[pos]
        if char == "?":
            return value, pos + 1
        if char in "*+":
            return (0 if value == 0 else _UNBOUNDED), pos + 1
        match = _REPEAT.match(text, pos)
        if match is None:
            return value, pos
        low, comma, high = match.groups()
        if comma and not high:
            return (0 if value == 0 else _UNBOUNDED), match.end()
        count = int(high or low)
        return (_UNBOUNDED if value == _UNBOUNDED else value * count), match.end()


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] == " ":
        pos += 1
    return pos


def _literal(text: str, pos: int) -> tuple[int, int]:
    out, pos = [], pos + 1
    while text[pos] != '"':
        if text[pos] == "\\":
            char, pos = _escape(text, pos)
            out.append(char)
        else:
            out.append(text[pos])
            pos += 1
    return len("".join(out).encode()), pos + 1


def _char_class(text: str, pos: int) -> tuple[int, int]:
    pos += 1
    negated = text[pos] == "^"
    pos += negated
    highest = 0
    while text[pos] != "]":
        if text[pos] == "\\":
            char, pos = _escape(text, pos)
        else:
            char, pos = text[pos], pos + 1
        highest = max(highest, ord(char))
    # A negated class matches any code point outside it: up to four bytes.
    size = 4 if negated else len(chr(highest).encode("utf-8", "surrogatepass"))
    return size, pos + 1


def _escape(text: str, pos: int) -> tuple[str, int]:
    kind = text[pos + 1]
    if kind == "x":
        return chr(int(text[pos + 2 : pos + 4], 16)), pos + 4
    if kind == "u":
        return chr(int(text[pos + 2 : pos + 6], 16)), pos + 6
    return _ESCAPES.get(kind, kind), pos + 2
