"""Declaring aliased ids: `Alias(prefix)`, the schema keyword, and what the model is told.

A field that holds a UUID and carries `Alias("link")` (in an annotation) or
`"x-toolcast-alias": "link"` (in a hand-written schema) is shown to the model as
a short id like `link-1`. This module knows schemas only; it imports nothing
from toolcast but the error vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolcast.errors import DefinitionProblem

__all__ = (
    "ALIAS_KEYWORD",
    "Alias",
    "alias_fragment",
    "alias_note",
    "alias_pattern",
    "alias_problems",
    "described",
    "has_marks",
    "marked",
    "model_facing",
    "strip_marks",
)

ALIAS_KEYWORD = "x-toolcast-alias"
"""The schema keyword that marks a string fragment holding an aliased UUID."""

PREFIX = re.compile(r"[a-z][a-z0-9_]*\Z")
"""What a prefix may be: lower-case letters, digits and `_`, starting with a letter."""


@dataclass(frozen=True, slots=True)
class Alias:
    """Marks a UUID field as an id the model sees as `<prefix>-<n>` (`link-1`).

    Use it in `Annotated[UUID, Alias("link")]` on a parameter, a field of a
    model, dataclass or TypedDict, a list item or a dict value, in inputs and
    outputs. The prefix is checked when the tool is defined.
    """

    prefix: str


def alias_pattern(prefix: str) -> str:
    """The pattern the model-facing fragment carries: `^link-[1-9][0-9]*$`."""
    return f"^{prefix}-[1-9][0-9]*$"


def alias_note(prefix: str) -> str:
    """The sentence appended to the field's description."""
    return f"An id like `{prefix}-1`."


def _is_string(fragment: Mapping[str, Any]) -> bool:
    kind = fragment.get("type")
    if kind == "string":
        return True
    return isinstance(kind, list) and "string" in kind and set(kind) <= {"string", "null"}


def alias_problems(prefixes: list[Any], fragment: Mapping[str, Any], path: str) -> list[Any]:
    """Why `fragment` cannot carry the alias `prefixes` (empty when it can)."""
    problems = []
    if len(set(prefixes)) > 1:
        shown = ", ".join(repr(p) for p in dict.fromkeys(prefixes))
        problems.append(
            DefinitionProblem(
                "alias-conflict", path, f"a field takes one Alias prefix, got {shown}."
            )
        )
    for prefix in dict.fromkeys(prefixes):
        if not isinstance(prefix, str) or not PREFIX.match(prefix):
            problems.append(
                DefinitionProblem(
                    "alias-prefix",
                    path,
                    f"alias prefix {prefix!r} must match [a-z][a-z0-9_]* (e.g. 'link').",
                )
            )
    if not problems and _string_branch(fragment) is None:
        problems.append(
            DefinitionProblem(
                "alias-type",
                path,
                "Alias(...) goes on a UUID or str field (optionally None); "
                "use list[Annotated[UUID, Alias(...)]] for a list of ids.",
            )
        )
    return problems


def _string_branch(fragment: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if _is_string(fragment):
        return fragment
    branches = fragment.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2:
        kinds = [b.get("type") if isinstance(b, Mapping) else None for b in branches]
        if "null" in kinds:
            other = branches[1 - kinds.index("null")]
            return other if isinstance(other, Mapping) and _is_string(other) else None
    return None


def alias_fragment(
    prefix: str, fragment: Mapping[str, Any], description: str | None = None
) -> dict[str, Any]:
    """The model-facing fragment for an aliased string fragment.

    `{"type": "string", "pattern": "^link-[1-9][0-9]*$", "description": "...
    An id like `link-1`.", "x-toolcast-alias": "link"}`; a nullable fragment stays
    nullable. The UUID's `format` and any length bounds are dropped: the model
    never sees the UUID.
    """
    if "anyOf" in fragment and not _is_string(fragment):
        branches = [
            b if b.get("type") == "null" else alias_fragment(prefix, b) for b in fragment["anyOf"]
        ]
        out: dict[str, Any] = {"anyOf": branches}
        if fragment.get("description"):
            out["description"] = fragment["description"]
        return out
    said = description if description is not None else fragment.get("description")
    note = alias_note(prefix)
    if isinstance(said, str) and said.strip():
        said = said.rstrip()
        note = said if said.endswith(note) else f"{said} {note}"
    out = {"type": fragment.get("type", "string"), "description": note}
    out["pattern"] = alias_pattern(prefix)
    for keyword in ("title", "default", "examples", "deprecated"):
        if keyword in fragment:
            out[keyword] = fragment[keyword]
    out[ALIAS_KEYWORD] = prefix
    return out


def marked(
    fragment: dict[str, Any], prefixes: list[str], path: str, problems: list[Any]
) -> dict[str, Any]:
    """`fragment` made model-facing for `Alias(prefix)`, or as it is after a problem."""
    found = alias_problems(prefixes, fragment, path)
    if found:
        problems.extend(found)
        return fragment
    return _ordered(alias_fragment(prefixes[0], fragment))


def described(fragment: dict[str, Any], description: str) -> dict[str, Any]:
    """`fragment` with a field's `description` (an aliased field keeps its note last).

    The field's own description replaces its type's (a class docstring): it says
    what this field means, the docstring only what the type is.
    """
    prefix = fragment.get(ALIAS_KEYWORD)
    if isinstance(prefix, str):
        said = f"{description} {fragment.get('description', '')}"
        return _ordered(alias_fragment(prefix, fragment, said))
    return {**fragment, "description": description}


_ORDER = ("type", "description", "pattern")


def _ordered(fragment: dict[str, Any]) -> dict[str, Any]:
    # The canonical order (`_define._node.KEY_ORDER`): type, description, ..., x- last.
    head = {k: fragment[k] for k in _ORDER if k in fragment}
    rest = {k: v for k, v in fragment.items() if k not in head and k != ALIAS_KEYWORD}
    tail = {ALIAS_KEYWORD: fragment[ALIAS_KEYWORD]} if ALIAS_KEYWORD in fragment else {}
    return {**head, **rest, **tail}


def model_facing(schema: Any, problems: list[Any], path: str = "") -> Any:
    """A hand-written schema with every marked fragment made model-facing.

    Fragments marked `x-toolcast-alias` are replaced by `alias_fragment`;
    everything else is copied as it is. Bad marks are added to `problems`.
    """
    if isinstance(schema, list):
        return [model_facing(item, problems, path) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    if ALIAS_KEYWORD in schema:
        prefix = schema[ALIAS_KEYWORD]
        found = alias_problems([prefix], schema, path)
        if found:
            problems.extend(found)
            return dict(schema)
        return alias_fragment(prefix, schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, Mapping):
            out[key] = {
                name: model_facing(sub, problems, f"{path}.{name}" if path else str(name))
                for name, sub in value.items()
            }
        elif key in ("enum", "const", "default", "examples", "required"):
            out[key] = value
        else:
            out[key] = model_facing(value, problems, path)
    return out


def strip_marks(schema: Any) -> Any:
    """`schema` without the alias keyword (for validators that refuse unknown keywords)."""
    if isinstance(schema, list):
        return [strip_marks(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    return {
        key: value if key in ("enum", "const", "default", "examples") else strip_marks(value)
        for key, value in schema.items()
        if key != ALIAS_KEYWORD
    }


def has_marks(schema: Any) -> bool:
    """True when `schema` marks any fragment with the alias keyword.

    Iterative, so a hostile schema nested thousands of levels deep (from a remote
    MCP server) reaches the schema checker's own refusal instead of a RecursionError.
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, Mapping):
            if ALIAS_KEYWORD in node:
                return True
            stack.extend(v for k, v in node.items() if k not in ("enum", "const", "default"))
    return False
