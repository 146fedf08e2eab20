"""Descriptions from Google, NumPy and Sphinx (reST) docstrings, via `docstring_parser`."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from functools import lru_cache

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


def _normalise(text: str | None) -> str:
    # Single newlines inside a paragraph become spaces; paragraph breaks stay.
    if not text:
        return ""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.strip())]
    return "\n\n".join(_SPACE.sub(" ", p) for p in paragraphs if p)


@lru_cache(maxsize=4096)
def parse_docstring(doc: str | None) -> Docstring:
    """Split a docstring into its description and per-parameter descriptions."""
    if not doc or not doc.strip():
        return Docstring()
    parsed = docstring_parser.parse(inspect.cleandoc(doc))
    parts = [_normalise(parsed.short_description), _normalise(parsed.long_description)]
    params = {
        p.arg_name: _normalise(p.description)
        for p in parsed.params
        if p.description and p.description.strip()
    }
    return Docstring(description="\n\n".join(p for p in parts if p), params=params)
