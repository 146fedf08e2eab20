"""Descriptions from Google, NumPy and Sphinx (reST) docstrings (docstring_parser)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import docstring_parser

__all__ = ("Docstring", "parse_docstring")

_SPACE = re.compile(r"[ \t]*\n[ \t]*(?!\n)|[ \t]+")


@dataclass(frozen=True, slots=True)
class Docstring:
    """The parts of a docstring toolcast uses."""

    description: str = ""
    """Summary and body, with every section (Args, Returns, ...) removed."""
    params: dict[str, str] = field(default_factory=dict)
    """Parameter (or attribute) name -> its description."""


_ROLE = re.compile(r"(?<![\w`]):(?:[A-Za-z][\w-]*:)?[A-Za-z][\w-]*:`([^`\n]+)`")
"""A Sphinx role, `:class:`Place``, `:py:meth:`~a.b`` (an optional domain first)."""
_TARGET = re.compile(r"\A(.*\S)\s*<[^<>]+>\Z", re.S)
"""`title <target>` in a role: the title is what a reader sees."""


def _role_text(match: re.Match[str]) -> str:
    """The text Sphinx shows for a role: `~a.b.c` -> `c`, `title <t>` -> `title`."""
    inner = match.group(1).strip()
    titled = _TARGET.match(inner)
    if titled:
        return titled.group(1)
    inner = inner.lstrip("!")  # `!name`: shown as written, not linked
    if inner.startswith("~"):
        inner = inner[1:].rsplit(".", 1)[-1]
    return inner


def _normalise(text: str | None) -> str:
    # Single newlines inside a paragraph become spaces; paragraph breaks stay.
    # Sphinx roles become the text they show: the model reads prose, not markup.
    if not text:
        return ""
    text = _ROLE.sub(_role_text, text)
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.strip())]
    return "\n\n".join(_SPACE.sub(" ", p) for p in paragraphs if p)


@lru_cache(maxsize=1)
def _parsers() -> tuple[Any, re.Pattern[str]]:
    """The extended Google parser and its section-title pattern.

    docstring_parser loads on the first docstring, not at `import toolcast`.
    """
    from docstring_parser import google

    # Napoleon's other parameter sections (keyword-only parameters are often listed there).
    sections = [
        *google.DEFAULT_SECTIONS,
        *(
            google.Section(title, "param", google.SectionType.MULTIPLE)
            for title in ("Keyword Args", "Keyword Arguments", "Other Parameters")
        ),
    ]
    title = re.compile("(?:" + "|".join(re.escape(s.title) for s in sections) + r"):[ \t]*\Z")
    return google.GoogleParser(sections), title


_EXTENDED_TITLE = re.compile(r"^[ \t]*(?:Keyword Arg|Other Param)", re.M)
"""Lines without which the extended parser finds only the default Google sections."""

# Lines without which a style finds no section: a style whose mark is absent
# finds nothing, so it cannot win (`_auto`). Supersets of each parser's own test.
_MARKS = {
    "rest": re.compile(r"^\s*:", re.M),
    # A section title line (`Args:`, `Returns:`, ... alone on a line), whatever the words.
    "google": re.compile(r"^[ \t]*[A-Za-z][A-Za-z ]*:[ \t\r\f\v]*$", re.M),
    "numpydoc": re.compile(r"^\s*(?:-+|\.\..*::.*)\s*$", re.M),
    "epydoc": re.compile("@"),
}


_STYLES = ("rest", "google", "numpydoc", "epydoc")
"""`docstring_parser.parse`'s order."""


@cache
def _parser(style: str) -> Callable[[str], docstring_parser.Docstring]:
    """One style's parse, its parser made on first use and kept.

    `google.parse` and `numpydoc.parse` build a fresh parser (and its section regex)
    on every call, a third of parsing a short docstring; their `parse` keeps no state
    between calls.
    """
    from docstring_parser import epydoc, google, numpydoc, rest

    if style == "google":
        return google.GoogleParser().parse
    if style == "numpydoc":
        return numpydoc.NumpydocParser().parse
    return rest.parse if style == "rest" else epydoc.parse


def _auto(text: str) -> docstring_parser.Docstring:
    """`docstring_parser.parse(text)` (every style, the one finding most sections wins).

    The same result, faster: a style that cannot find a section (its mark is absent)
    is only parsed when no style finds one, where the first style that parses wins.
    """
    from docstring_parser.common import ParseError

    done: dict[str, docstring_parser.Docstring] = {}
    error: Exception | None = None
    for name in _STYLES:
        mark = _MARKS.get(name)
        if mark is None or mark.search(text):
            try:
                done[name] = _parser(name)(text)
            except ParseError as exc:
                error = exc
    most = max((len(d.meta) for d in done.values()), default=0)
    if most:
        return next(d for d in done.values() if len(d.meta) == most)
    for name in _STYLES:  # nothing found anywhere: the first that parses
        if name in done:
            return done[name]
        try:
            parsed: docstring_parser.Docstring = _parser(name)(text)
        except ParseError as exc:
            error = exc
        else:
            return parsed
    assert error is not None
    raise error


def _parse(text: str) -> docstring_parser.Docstring:
    import docstring_parser

    parser, title = _parsers()
    lines = text.split("\n")
    if title.match(lines[0]) and not any(title.match(line) for line in lines[1:]):
        # `"""Args:` on the quote line: dedenting flattened the entries to the
        # title's level, so put them back under it.
        text = "\n".join([lines[0], *(f"    {line}" for line in lines[1:])])
    # The leading newline lets a docstring open with a section, which
    # docstring_parser would otherwise read as the summary.
    text = "\n" + text
    best = _auto(text)
    if _EXTENDED_TITLE.search(text) is None:
        # Without an extra section title the extended parser reads what the default
        # Google parser read (or fails as it did), which cannot beat `best`.
        return best
    try:
        extended = parser.parse(text)
    except docstring_parser.ParseError:
        return best
    return extended if len(extended.meta) > len(best.meta) else best


@lru_cache(maxsize=4096)
def parse_docstring(doc: str | None) -> Docstring:
    """Split a docstring into its description and per-parameter descriptions."""
    if not doc or not doc.strip():
        return Docstring()
    parsed = _parse(inspect.cleandoc(doc))
    short, long = parsed.short_description, parsed.long_description
    if short and long and not parsed.blank_after_short_description:
        # A summary wrapped over several lines is one paragraph, not two.
        short, long = f"{short}\n{long}", None
    parts = [_normalise(short), _normalise(long)]
    params = {
        p.arg_name: _normalise(p.description)
        for p in parsed.params
        if p.description and p.description.strip()
    }
    return Docstring(description="\n\n".join(p for p in parts if p), params=params)
