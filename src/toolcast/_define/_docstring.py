"""Descriptions from Google, NumPy and Sphinx (reST) docstrings (docstring_parser)."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from functools import lru_cache

import docstring_parser
from docstring_parser import google

__all__ = ("Docstring", "parse_docstring")

_SPACE = re.compile(r"[ \t]*\n[ \t]*(?!\n)|[ \t]+")


@dataclass(frozen=True, slots=True)
class Docstring:
    """The parts of a docstring toolcast uses."""

    description: str = ""
    """Summary and body, with every section (Args, Returns, ...) removed."""
    params: dict[str, str] = field(default_factory=dict)
    """Parameter (or attribute) name -> its description."""


def _normalise(text: str | None) -> str:
    # Single newlines inside a paragraph become spaces; paragraph breaks stay.
    if not text:
        return ""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.strip())]
    return "\n\n".join(_SPACE.sub(" ", p) for p in paragraphs if p)


# Napoleon's other parameter sections (keyword-only parameters are often listed there).
_SECTIONS = [
    *google.DEFAULT_SECTIONS,
    *(
        google.Section(title, "param", google.SectionType.MULTIPLE)
        for title in ("Keyword Args", "Keyword Arguments", "Other Parameters")
    ),
]
_GOOGLE = google.GoogleParser(_SECTIONS)
_TITLE = re.compile("(?:" + "|".join(re.escape(s.title) for s in _SECTIONS) + r"):[ \t]*\Z")


def _parse(text: str) -> docstring_parser.Docstring:
    lines = text.split("\n")
    if _TITLE.match(lines[0]) and not any(_TITLE.match(line) for line in lines[1:]):
        # `"""Args:` on the quote line: dedenting flattened the entries to the
        # title's level, so put them back under it.
        text = "\n".join([lines[0], *(f"    {line}" for line in lines[1:])])
    # The leading newline lets a docstring open with a section, which
    # docstring_parser would otherwise read as the summary.
    text = "\n" + text
    best = docstring_parser.parse(text)
    try:
        extended = _GOOGLE.parse(text)
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
