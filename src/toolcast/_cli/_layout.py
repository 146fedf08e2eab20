"""Terminal layout for the `toolcast` command: colour, compact JSON, tool listings.

Everything here turns data the commands already built into text for a person at
a terminal; nothing imports tools or talks to providers. `use_color` decides
whether a stream gets ANSI colour (NO_COLOR and FORCE_COLOR override), `Style`
applies it, `compact_json` lays JSON out to fit a width, `type_text` shortens a
schema fragment to a type (`integer 1..50`), and `render` prints the document
`toolcast inspect` builds as readable text. The demo shares `Style` and
`compact_json`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

__all__ = ("Style", "compact_json", "render", "type_text", "use_color")


# --------------------------------------------------------------------------- style


def use_color(stream: TextIO) -> bool:
    """Colour on terminals only; NO_COLOR and FORCE_COLOR override (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


class Style:
    """ANSI styling that turns into plain text when colour is off."""

    _CODES: Mapping[str, str] = {
        "bold": "1",
        "dim": "2",
        "red": "31",
        "green": "32",
        "yellow": "33",
        "blue": "34",
        "magenta": "35",
        "cyan": "36",
    }

    def __init__(self, *, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        """`text` wrapped in the given styles (`"bold"`, `"red"`, ...)."""
        if not self.color or not styles or not text:
            return text
        codes = ";".join(self._CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


def compact_json(value: Any, *, width: int = 88, indent: str = "") -> str:
    """JSON laid out for reading: a value that fits in `width` stays on one line."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(indent) + len(flat) <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [
            f"{inner}{json.dumps(k, ensure_ascii=False)}: "
            + compact_json(v, width=width, indent=inner).lstrip()
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    items = [inner + compact_json(v, width=width, indent=inner).lstrip() for v in value]
    return "[\n" + ",\n".join(items) + f"\n{indent}]"


# --------------------------------------------------------------------------- inspect text


def _number(value: Any) -> str:
    return json.dumps(value)


def type_text(schema: Any) -> str:
    """A short type for a schema fragment: `integer 1..50`, `string | null`."""
    if not isinstance(schema, Mapping) or not schema:
        return "any"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    if "anyOf" in schema:
        return " | ".join(type_text(branch) for branch in schema["anyOf"])
    kinds = schema.get("type", "any")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    words = []
    for kind in kinds:
        word = kind
        if kind == "array" and "items" in schema:
            word = f"array of {type_text(schema['items'])}"
        elif kind == "array" and "prefixItems" in schema:
            word = "[" + ", ".join(type_text(s) for s in schema["prefixItems"]) + "]"
        elif kind == "object" and schema.get("properties"):
            keys = list(schema["properties"])
            if len(keys) > 5:
                keys = [*keys[:4], f"+{len(keys) - 4} more"]
            word = "object {" + ", ".join(keys) + "}"
        elif kind == "object" and isinstance(schema.get("additionalProperties"), Mapping):
            word = f"object of {type_text(schema['additionalProperties'])}"
        elif kind == "string" and "format" in schema:
            word = f"string ({schema['format']})"
        words.append(word)
    text = " | ".join(words)
    bounds = _bounds(schema)
    return f"{text} {bounds}" if bounds else text


def _bounds(schema: Mapping[str, Any]) -> str:
    parts = []
    for low_key, high_key, label in (
        ("minimum", "maximum", ""),
        ("minLength", "maxLength", "length "),
        ("minItems", "maxItems", "items "),
    ):
        low, high = schema.get(low_key), schema.get(high_key)
        if low is not None and high is not None:
            parts.append(f"{label}{_number(low)}..{_number(high)}")
        elif low is not None:
            parts.append(f"{label}>= {_number(low)}")
        elif high is not None:
            parts.append(f"{label}<= {_number(high)}")
    if "exclusiveMinimum" in schema:
        parts.append(f"> {_number(schema['exclusiveMinimum'])}")
    if "exclusiveMaximum" in schema:
        parts.append(f"< {_number(schema['exclusiveMaximum'])}")
    if "pattern" in schema:
        parts.append(f"matching {schema['pattern']}")
    return ", ".join(parts)


def _parameter_rows(schema: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    required = set(schema.get("required", ()))
    rows = []
    for name, fragment in (schema.get("properties") or {}).items():
        kind = type_text(fragment)
        if "default" in fragment:
            kind += f" = {json.dumps(fragment['default'], ensure_ascii=False)}"
        elif name in required:
            kind += ", required"
        description = fragment.get("description", "") if isinstance(fragment, Mapping) else ""
        rows.append((name, kind, description))
    return rows


def render(
    document: Mapping[str, Any], out: TextIO, style: Style, *, providers: Sequence[str]
) -> None:
    """Print the document `toolcast inspect` builds as text; `providers` feeds the hint."""
    tools = document["tools"]
    provider = document["provider"]
    noun = "tool" if len(tools) == 1 else "tools"
    out.write(style(f"{document['target']}: {len(tools)} {noun}", "bold") + "\n")
    for doc in tools:
        out.write("\n")
        _render_tool(doc, out, style)
    if provider is None:
        hint = ", ".join(providers)
        out.write("\n" + style(f"See a wire format with --provider ({hint}).", "dim") + "\n")


def _tag(key: str, value: Any) -> str:
    label = "async" if key == "is_async" else key.replace("_", " ")
    if value is True:
        return label
    if value is False:
        return f"not {label}"
    if isinstance(value, list):
        return f"{label}: {', '.join(map(str, value))}"
    if isinstance(value, str):
        return f"{label}: {value}"
    return f"{label}: {json.dumps(value, ensure_ascii=False)}"


def _render_tool(doc: Mapping[str, Any], out: TextIO, style: Style) -> None:
    indent = "    " if doc["toolbox"] else ""
    tags = []
    if doc["selector"]:
        tags.append("toolbox")
    elif doc["toolbox"]:
        tags.append(f"in toolbox {doc['toolbox']}")
    tags += [_tag(key, value) for key, value in doc["metadata"].items()]
    head = style(doc["name"], "bold", "cyan")
    if tags:
        head += "  " + style(" · ".join(tags), "dim")
    out.write(f"{indent}{head}\n")
    if doc["description"]:
        out.write(f"{indent}  {doc['description']}\n")
    rows = _parameter_rows(doc["input_schema"])
    if rows:
        name_width = max(len(r[0]) for r in rows)
        kind_width = max(len(r[1]) for r in rows)
        out.write(f"{indent}  {style('parameters', 'bold')}\n")
        for name, kind, description in rows:
            line = f"{name.ljust(name_width)}  {style(kind.ljust(kind_width), 'yellow')}"
            if description:
                line += f"  {description}"
            out.write(f"{indent}    {line.rstrip()}\n")
    else:
        out.write(f"{indent}  {style('no parameters', 'dim')}\n")
    if doc["output_schema"] is not None:
        out.write(f"{indent}  {style('returns', 'bold')} {type_text(doc['output_schema'])}\n")
    projection = doc.get("projection")
    if projection is None:
        return
    mode = "strict" if projection["strict"] else "not strict"
    out.write(f"{indent}  {style(projection['provider'], 'bold')} ({mode})\n")
    body = compact_json(projection["definition"], width=88 - len(indent) - 4)
    for line in body.splitlines():
        out.write(f"{indent}    {line}\n")
    for note in projection["notes"]:
        where = note["path"] or "/"
        text = f"note: {where} {note['keyword']} {note['action'].replace('_', ' ')}"
        out.write(f"{indent}    {style(text, 'magenta')}: {note['detail']}\n")
