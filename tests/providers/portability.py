"""The portability matrix: every corpus tool projected onto every provider target.

Each cell says what one target makes of one tool: "as is" (no conversion notes),
"converted" (with the keywords its notes name) or "refused" (the target raised
`UnsupportedSchemaError`, whose message is kept as the reason). Provider modules
that are not there yet are skipped and reported, so the matrix can be built while
the targets are still being written. `render_markdown` writes
docs/providers/portability.md; run this file (`python tests/providers/portability.py
--write`) or the test with TOOLCAST_WRITE_DOCS=1 to regenerate it.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from toolcast import ToolSpec
from toolcast.errors import UnsupportedSchemaError

TESTS_DIR = Path(__file__).resolve().parents[1]
DOC_PATH = TESTS_DIR.parent / "docs" / "providers" / "portability.md"
INDEX_PATH = DOC_PATH.with_name("index.md")

Status = Literal["as is", "converted", "refused"]
STATUSES: tuple[Status, ...] = ("as is", "converted", "refused")

EXPECTED_MODULES = (
    "openai_chat",
    "openai_responses",
    "openai_realtime",
    "anthropic",
    "gemini",
    "bedrock",
    "mistral",
    "ollama",
    "mcp",
    "hermes",
)
"""Every target toolcast ships; the committed table is checked once all exist."""

TARGET_NAMES = {
    "openai_chat": "OpenAI Chat Completions",
    "openai_responses": "OpenAI Responses",
    "openai_realtime": "OpenAI Realtime",
    "anthropic": "Anthropic Messages",
    "gemini": "Google Gemini",
    "bedrock": "AWS Bedrock Converse",
    "mistral": "Mistral",
    "ollama": "Ollama",
    "mcp": "MCP",
    "hermes": "Hermes / Qwen text",
}
"""Display names; each target's page is docs/providers/<module>.md."""


@dataclass(frozen=True)
class Column:
    """One target as a column: a provider module and the `project` options used."""

    module: str
    label: str
    options: Mapping[str, Any] = field(default_factory=dict)
    main: bool = True
    """Shown in the main table; other columns appear in the summary only."""


# Default options are what a user gets without asking; "strict off" variants show
# what the strict-capable targets accept when strict decoding is not wanted.
COLUMNS = (
    Column("openai_chat", "OpenAI Chat"),
    Column("openai_chat", "OpenAI Chat, strict off", {"strict": False}, main=False),
    Column("openai_responses", "OpenAI Responses"),
    Column(
        "openai_responses",
        "OpenAI Responses, strict off",
        {"strict": False},
        main=False,
    ),
    Column("openai_realtime", "OpenAI Realtime"),
    Column("openai_realtime", "OpenAI Realtime, strict off", {"strict": False}, main=False),
    Column("anthropic", "Anthropic"),
    Column("anthropic", "Anthropic, strict off", {"strict": False}, main=False),
    Column("gemini", "Gemini `parametersJsonSchema`"),
    Column("gemini", "Gemini `parameters`", {"variant": "openapi"}),
    Column("bedrock", "Bedrock"),
    Column("bedrock", "Bedrock, strict off", {"strict": False}, main=False),
    Column("mistral", "Mistral"),
    Column("mistral", "Mistral, strict off", {"strict": False}, main=False),
    Column("ollama", "Ollama"),
    Column("mcp", "MCP"),
    Column("hermes", "Hermes / Qwen text"),
)


@dataclass(frozen=True)
class Cell:
    """What one target made of one tool."""

    status: Status
    keywords: tuple[str, ...] = ()
    """For "converted": the keywords the conversion notes name, sorted."""
    strict_dropped: bool = False
    """For "converted": the target fell back to non-strict decoding."""
    reason: str = ""
    """For "refused": the `UnsupportedSchemaError` message."""


@dataclass
class Matrix:
    """Cells by (tool name, column label), plus what could not be built."""

    tools: list[str]
    columns: list[Column]
    cells: dict[tuple[str, str], Cell]
    missing_modules: list[str]
    """Expected provider modules that cannot be imported (not written yet)."""
    skipped_columns: dict[str, str]
    """Columns left out, by label, with the reason (a module lacks an option)."""
    corpus: str
    """Where the tools came from."""

    @property
    def complete(self) -> bool:
        """Every expected target is present with every planned column."""
        return not self.missing_modules and not self.skipped_columns

    def column(self, label: str) -> dict[str, Cell]:
        """One column's cells by tool name."""
        return {tool: self.cells[tool, label] for tool in self.tools}


def present_modules() -> list[str]:
    """The public provider modules in src/toolcast/providers, sorted."""
    import toolcast.providers as package

    return sorted(
        info.name
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_")
    )


def load_corpus() -> tuple[list[Any], str]:
    """The corpus tools (tests/corpus.py) and a note of where they came from."""
    if str(TESTS_DIR) not in sys.path:
        sys.path.insert(0, str(TESTS_DIR))
    corpus = importlib.import_module("corpus")
    return list(corpus.corpus_tools()), "tests/corpus.py"


def plan_columns(
    columns: Sequence[Column] = COLUMNS,
) -> tuple[list[tuple[Column, Any]], list[str], dict[str, str]]:
    """Columns whose module imports and takes the options; and what was left out."""
    present = set(present_modules())
    planned = list(columns)
    known = {column.module for column in columns}
    # A target added later still gets a column with its default options.
    planned += [Column(name, name) for name in sorted(present - known)]
    usable: list[tuple[Column, Any]] = []
    missing: list[str] = []
    skipped: dict[str, str] = {}
    for column in planned:
        try:
            module = importlib.import_module(f"toolcast.providers.{column.module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"toolcast.providers.{column.module}":
                raise  # the module exists but is broken: that is a real failure
            if column.module not in missing:
                missing.append(column.module)
            continue
        accepted = inspect.signature(module.project).parameters
        unknown = [key for key in column.options if key not in accepted]
        if unknown:
            skipped[column.label] = f"{column.module}.project takes no {unknown}"
            continue
        usable.append((column, module))
    return usable, missing, skipped


def classify(module: Any, tool: Any, options: Mapping[str, Any]) -> Cell:
    """Project one tool with one target and classify the result."""
    try:
        projection = module.project(tool, **options)
    except UnsupportedSchemaError as exc:
        return Cell("refused", reason=" ".join(str(exc).split()))
    if not projection.notes:
        return Cell("as is")
    keywords = tuple(sorted({note.keyword for note in projection.notes}))
    dropped = any(note.action == "strict_disabled" for note in projection.notes)
    return Cell("converted", keywords, strict_dropped=dropped)


def build_matrix(tools: Sequence[Any] | None = None, columns: Sequence[Column] = COLUMNS) -> Matrix:
    """Classify every tool under every usable column."""
    source = "given tools"
    if tools is None:
        tools, source = load_corpus()
    usable, missing, skipped = plan_columns(columns)
    names = [_spec(tool).name for tool in tools]
    cells = {
        (_spec(tool).name, column.label): classify(module, tool, column.options)
        for tool in tools
        for column, module in usable
    }
    present = present_modules()
    missing += [m for m in EXPECTED_MODULES if m not in present and m not in missing]
    return Matrix(names, [c for c, _ in usable], cells, missing, skipped, source)


def _spec(tool: Any) -> ToolSpec:
    spec = getattr(tool, "spec", tool)
    assert isinstance(spec, ToolSpec)
    return spec


def _cell_text(cell: Cell, footnote: int | None) -> str:
    if cell.status == "refused":
        return f"refused [{footnote}](#refusals)"
    if cell.status == "as is":
        return "as is"
    text = "converted: " + ", ".join(f"`{k}`" for k in cell.keywords)
    return text + " (not strict)" if cell.strict_dropped else text


def render_markdown(matrix: Matrix) -> str:
    """The portability page: the matrix, a per-column summary and the refusals."""
    main = [c for c in matrix.columns if c.main]
    refusals: list[tuple[str, str, str]] = []
    lines = [
        "# Portability: the corpus on every target",
        "",
        "<!-- Generated by tests/providers/portability.py; do not edit by hand.",
        "     Regenerate with: TOOLCAST_WRITE_DOCS=1 pytest "
        "tests/providers/test_portability.py -->",
        "",
        f"Every tool of `{matrix.corpus}` ({len(matrix.tools)} tools) projected with "
        "each provider module's `project(tool, **options)`. A cell is **as is** (the "
        "canonical schema went over without a conversion note), **converted** (the "
        "keywords named by the `ConversionNote`s; *not strict* means the target fell "
        "back to non-strict decoding) or **refused** (`UnsupportedSchemaError`; the "
        "reasons are listed under [Refusals](#refusals)). Converted keywords are not "
        "lost: what a target cannot enforce is moved into descriptions, and the "
        "invoker still validates every call against the canonical schema.",
        "",
    ]
    if matrix.missing_modules or matrix.skipped_columns:
        lines += ["**Incomplete:** " + _incomplete(matrix), ""]
    lines += [
        "| Tool | " + " | ".join(c.label for c in main) + " |",
        "|---|" + "---|" * len(main),
    ]
    for tool in matrix.tools:
        row = []
        for column in main:
            cell = matrix.cells[tool, column.label]
            footnote = None
            if cell.status == "refused":
                refusals.append((tool, column.label, cell.reason))
                footnote = len(refusals)
            row.append(_cell_text(cell, footnote))
        lines.append(f"| `{tool}` | " + " | ".join(row) + " |")
    lines += [
        "",
        "## Summary",
        "",
        "| Target | as is | converted | refused |",
        "|---|---|---|---|",
    ]
    for column in matrix.columns:
        counts = [
            sum(1 for cell in matrix.column(column.label).values() if cell.status == s)
            for s in STATUSES
        ]
        lines.append(f"| {column.label} | " + " | ".join(map(str, counts)) + " |")
    lines += ["", "## Refusals", ""]
    if not refusals:
        lines.append("None.")
    for number, (tool, label, reason) in enumerate(refusals, 1):
        lines.append(f"{number}. `{tool}` on {label}: {reason}")
    return "\n".join(lines) + "\n"


def _incomplete(matrix: Matrix) -> str:
    parts = []
    if matrix.missing_modules:
        parts.append("no module yet for " + ", ".join(matrix.missing_modules))
    parts += [f"{label} left out ({why})" for label, why in matrix.skipped_columns.items()]
    return "; ".join(parts) + "."


# The neutral choices every target is asked to translate, as the index shows them.
CHOICES: tuple[tuple[str, Any], ...] = (
    ('`"auto"`', "auto"),
    ('`"none"`', "none"),
    ('`"required"`', "required"),
    ('`{"name": "get_weather"}`', {"name": "get_weather"}),
    (
        '`{"allowed": ["get_weather", "search"], "mode": "auto"}`',
        {"allowed": ["get_weather", "search"], "mode": "auto"},
    ),
)
CHOICE_BEGIN = "<!-- tool-choice table: generated by tests/providers/portability.py -->"
CHOICE_END = "<!-- end of the generated tool-choice table -->"


def _choice_cell(module: Any, choice: Any) -> str:
    tools = [
        ToolSpec(name=name, input_schema={"type": "object"}) for name in ("get_weather", "search")
    ]
    takes_tools = "tools" in inspect.signature(module.format_tool_choice).parameters
    try:
        if takes_tools:
            value = module.format_tool_choice(choice, tools=tools)
        else:
            value = module.format_tool_choice(choice)
    except ValueError:
        return "not expressible"
    if value is None:
        return "nothing to send"
    return "`" + json.dumps(value, ensure_ascii=False) + "`"


def render_tool_choice_table() -> str:
    """What each present target's `format_tool_choice` returns for each choice."""
    present = present_modules()
    order = [m for m in EXPECTED_MODULES if m in present]
    order += [m for m in present if m not in order]
    lines = [
        CHOICE_BEGIN,
        "| Target | " + " | ".join(label for label, _ in CHOICES) + " |",
        "|---|" + "---|" * len(CHOICES),
    ]
    for name in order:
        module = importlib.import_module(f"toolcast.providers.{name}")
        cells = [_choice_cell(module, choice) for _, choice in CHOICES]
        label = f"[{TARGET_NAMES.get(name, name)}]({name}.md)"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append(CHOICE_END)
    return "\n".join(lines)


def update_index(text: str) -> str:
    """`text` (the index page) with its tool-choice table regenerated."""
    start = text.index(CHOICE_BEGIN)
    end = text.index(CHOICE_END) + len(CHOICE_END)
    return text[:start] + render_tool_choice_table() + text[end:]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the page, or write it (and the index's tool-choice table) with `--write`."""
    args = list(sys.argv[1:] if argv is None else argv)
    text = render_markdown(build_matrix())
    if "--write" in args:
        DOC_PATH.parent.mkdir(parents=True, exist_ok=True)
        DOC_PATH.write_text(text, encoding="utf-8")
        index = INDEX_PATH.read_text(encoding="utf-8")
        INDEX_PATH.write_text(update_index(index), encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
