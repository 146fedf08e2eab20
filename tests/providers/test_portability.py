"""The portability matrix (tests/providers/portability.py) and its committed page.

Structural facts only: every cell is one of three statuses and carries what that
status promises; targets that take any JSON Schema (MCP, Hermes text) change
nothing; recursive tools never reach Gemini's OpenAPI `parameters` with a `$ref`.
With TOOLCAST_WRITE_DOCS=1 the page docs/providers/portability.md is regenerated;
otherwise it must match the matrix once every provider module exists.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from pathlib import Path

import pytest

from toolcast import ToolSpec

sys.path.insert(0, str(Path(__file__).parent))
portability = importlib.import_module("portability")


@pytest.fixture(scope="module")
def matrix() -> portability.Matrix:
    return portability.build_matrix()


def test_matrix_covers_every_corpus_tool_and_present_target(
    matrix: portability.Matrix,
) -> None:
    assert len(matrix.tools) >= 40
    assert len(set(matrix.tools)) == len(matrix.tools)
    built = {column.module for column in matrix.columns}
    assert built == set(portability.present_modules())
    assert len(matrix.cells) == len(matrix.tools) * len(matrix.columns)


def test_every_cell_is_one_of_three_statuses_with_its_evidence(
    matrix: portability.Matrix,
) -> None:
    for (tool, label), cell in matrix.cells.items():
        assert cell.status in portability.STATUSES, (tool, label)
        if cell.status == "as is":
            assert (cell.keywords, cell.reason, cell.strict_dropped) == ((), "", False)
        elif cell.status == "converted":
            assert cell.keywords, (tool, label)
            assert cell.reason == ""
        else:
            assert cell.reason, (tool, label)
            assert cell.keywords == ()


def test_a_tool_with_no_schema_keywords_to_lose_is_never_refused(
    matrix: portability.Matrix,
) -> None:
    for label in (column.label for column in matrix.columns):
        assert matrix.cells["one_string", label].status != "refused", label


def test_mcp_and_hermes_take_every_corpus_tool_as_is(
    matrix: portability.Matrix,
) -> None:
    for label in ("MCP", "Hermes / Qwen text"):
        assert {c.status for c in matrix.column(label).values()} == {"as is"}


def test_recursive_tools_are_refused_or_ref_free_on_gemini_parameters(
    matrix: portability.Matrix,
) -> None:
    if "Gemini `parameters`" not in {c.label for c in matrix.columns}:
        pytest.skip("the gemini module or its openapi variant is not there yet")
    gemini = importlib.import_module("toolcast.providers.gemini")
    tools, _ = portability.load_corpus()
    recursive = [t for t in tools if "$ref" in json.dumps(t.spec.input_schema)]
    assert {t.name for t in recursive} >= {"recursive_model", "recursive_dataclass"}
    for tool in recursive:
        cell = matrix.cells[tool.name, "Gemini `parameters`"]
        assert cell.status in ("refused", "converted"), tool.name
        if cell.status == "converted":
            definition = gemini.project(tool, variant="openapi").definition
            assert "$ref" not in json.dumps(definition)


def test_missing_targets_and_unknown_options_are_skipped_not_fatal() -> None:
    spec = ToolSpec(name="t", input_schema={"type": "object"})
    columns = [
        portability.Column("no_such_target", "Nowhere"),
        portability.Column("mcp", "MCP, odd option", {"no_such_option": 1}),
        portability.Column("mcp", "MCP"),
    ]
    built = portability.build_matrix([spec], columns)
    assert "no_such_target" in built.missing_modules
    assert built.skipped_columns == {"MCP, odd option": "mcp.project takes no ['no_such_option']"}
    assert built.cells["t", "MCP"] == portability.Cell("as is")
    assert not built.complete
    page = portability.render_markdown(built)
    assert "**Incomplete:** no module yet for no_such_target" in page


def test_page_is_deterministic_and_lists_every_refusal(
    matrix: portability.Matrix,
) -> None:
    page = portability.render_markdown(matrix)
    assert page == portability.render_markdown(portability.build_matrix())
    main = {c.label for c in matrix.columns if c.main}
    shown = [
        cell
        for (_, label), cell in matrix.cells.items()
        if cell.status == "refused" and label in main
    ]
    for number, cell in enumerate(shown, 1):
        assert f"\n{number}. " in page
        assert cell.reason in page


WRITE_DOCS = os.environ.get("TOOLCAST_WRITE_DOCS") == "1"
REGENERATE = "TOOLCAST_WRITE_DOCS=1 pytest tests/providers/test_portability.py"


def _skip_unless_complete(matrix: portability.Matrix) -> None:
    if not matrix.complete:
        pytest.skip(
            "generated docs are checked once every provider module exists: "
            + portability._incomplete(matrix)
        )


def test_committed_page_is_up_to_date(matrix: portability.Matrix) -> None:
    page = portability.render_markdown(matrix)
    path = portability.DOC_PATH
    if WRITE_DOCS:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
        return
    _skip_unless_complete(matrix)
    assert path.exists(), f"run {REGENERATE}"
    assert path.read_text(encoding="utf-8") == page, (
        f"docs/providers/portability.md is stale: regenerate it with {REGENERATE}"
    )


def test_index_tool_choice_table_is_up_to_date(matrix: portability.Matrix) -> None:
    index = portability.INDEX_PATH.read_text(encoding="utf-8")
    updated = portability.update_index(index)
    if WRITE_DOCS:
        portability.INDEX_PATH.write_text(updated, encoding="utf-8")
        return
    _skip_unless_complete(matrix)
    assert index == updated, f"the index's tool-choice table is stale: {REGENERATE}"


def test_index_lists_every_target_with_a_link_to_its_page() -> None:
    index = portability.INDEX_PATH.read_text(encoding="utf-8")
    targets = index.split("## Targets", 1)[1].split("\n## ", 1)[0]
    linked = re.findall(r"\]\(([a-z_]+)\.md\)", targets)
    # tests/test_docs.py checks that the linked pages exist.
    assert sorted(linked) == sorted(portability.present_modules())
