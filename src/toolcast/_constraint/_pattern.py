r"""A regular-expression subset (`pattern`) as GBNF, for the inside of a JSON string.

Anchored patterns (`^...$`) made of literals, `.`, `\d`/`\w`, character classes,
groups, alternation and the quantifiers `? * + {m} {m,} {m,n}` translate; anything
else (lookaround, back-references, `\s`, unanchored patterns, characters JSON must
escape) returns None and the caller reports the pattern as not enforced.
"""

from __future__ import annotations

__all__ = ("pattern_expression",)

_CLASS_ESCAPES = {"d": "0-9", "w": "a-zA-Z0-9_"}
_SPECIAL = set("\\^$.|?*+()[]{}")


class _Unsupported(Exception):
    pass


def pattern_expression(pattern: str, cap: int | None = None) -> str | None:
    """GBNF matching the string body of `pattern`'s matches, or None when out of reach.

    With `cap`, open repetitions (`*`, `+`, `{m,}`) repeat at most `cap` times and `.`
    leaves out six-byte `u` escapes, so the expression has a longest length.
    """
    if not (pattern.startswith("^") and pattern.endswith("$") and not pattern.endswith("\\$")):
        return None
    parser = _Parser(pattern[1:-1], cap)
    try:
        expression = parser.alternation()
        if parser.pos != len(parser.text):
            return None
    except (_Unsupported, IndexError, ValueError):
        return None
    return expression


class _Parser:
    def __init__(self, text: str, cap: int | None = None) -> None:
        self.text, self.pos, self.cap = text, 0, cap

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def take(self) -> str:
        char = self.text[self.pos]
        self.pos += 1
        return char

    def alternation(self) -> str:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.take()
            branches.append(self.sequence())
        return branches[0] if len(branches) == 1 else "(" + " | ".join(branches) + ")"

    def sequence(self) -> str:
        parts = []
        while self.peek() not in ("", "|", ")"):
            parts.append(self.atom() + self.quantifier())
        return "(" + " ".join(parts) + ")" if parts else '""'

    def atom(self) -> str:
        char = self.take()
        if char == "(":
            if self.peek() == "?":
                self.take()
                if self.take() != ":":
                    raise _Unsupported
            inner = self.alternation()
            if self.take() != ")":
                raise _Unsupported
            return f"({inner})"
        if char == "[":
            return self.char_class()
        if char == ".":
            return "char" if self.cap is None else "text-char"
        if char == "\\":
            escaped = self.take()
            if escaped in _CLASS_ESCAPES:
                return f"[{_CLASS_ESCAPES[escaped]}]"
            if escaped in _SPECIAL or escaped in "-/,:#=!<>'&%@~`;":
                return _literal(escaped)
            raise _Unsupported
        if char in _SPECIAL:
            raise _Unsupported
        return _literal(char)

    def char_class(self) -> str:
        negated = self.peek() == "^"
        if negated:
            self.take()
        body: list[str] = []
        first = True
        while first or self.peek() != "]":
            first = False
            char = self.take()
            if char == "\\":
                escaped = self.take()
                if escaped in _CLASS_ESCAPES:
                    body.append(_CLASS_ESCAPES[escaped])
                    continue
                if escaped.isalnum():
                    raise _Unsupported
                body.append(_class_char(escaped))
            elif char == "[":
                raise _Unsupported
            elif char == "-" and body and self.peek() != "]":
                body.append("-")  # a range
            else:
                body.append(_class_char(char))
        self.take()
        if negated:
            # Never a quote, a backslash or a control character inside a JSON string.
            return "[^" + "".join(body) + '"\\\\\\x00-\\x1F]'
        return "[" + "".join(body) + "]"

    def quantifier(self) -> str:
        char = self.peek()
        cap = self.cap
        if char in ("?", "*", "+"):
            self.take()
            quantifier = char
            if cap is not None and char != "?":
                quantifier = f"{{{int(char == '+')},{max(cap, 1)}}}"
        elif char == "{":
            end = self.text.index("}", self.pos)
            low, comma, high = self.text[self.pos + 1 : end].replace(" ", "").partition(",")
            int(low)
            if high:
                int(high)
            quantifier = self.text[self.pos : end + 1].replace(" ", "")
            if cap is not None and comma and not high:
                quantifier = f"{{{low},{max(int(low), cap)}}}"
            self.pos = end + 1
        else:
            return ""
        if self.peek() in ("?", "+"):
            raise _Unsupported  # lazy or possessive: same language, but keep it simple
        return quantifier


def _literal(char: str) -> str:
    if char in ('"', "\\") or ord(char) < 0x20:
        raise _Unsupported  # JSON writes these escaped; not worth the rules
    return '"' + char + '"'


def _class_char(char: str) -> str:
    if char in ('"', "\\") or ord(char) < 0x20:
        raise _Unsupported
    if char in "]-^[":
        return f"\\x{ord(char):02X}"
    return char
