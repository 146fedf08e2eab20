"""Tool names: the one pattern every provider accepts, and the check that says why not."""

from __future__ import annotations

import re

from toolcast.errors import DefinitionProblem

__all__ = ("NAME_PATTERN", "check_name")

NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")


def check_name(name: str, problems: list[DefinitionProblem], *, kind: str = "tool name") -> None:
    """Record a problem when `name` is not a valid tool name (or alias)."""
    if NAME_PATTERN.match(name):
        return
    rule = (
        f"{kind} {name!r} must match ^[A-Za-z0-9_-]{{1,64}}$ "
        "(letters, digits, '_' and '-', at most 64 characters)."
    )
    if kind == "alias":
        problems.append(DefinitionProblem("invalid-alias", "", rule))
    else:
        problems.append(DefinitionProblem("invalid-name", "", rule))
