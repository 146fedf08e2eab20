"""The `toolcast` command line, called in-process through `main([...])`.

Pins: exit codes (0 ok, 1 a tool or schema error, 2 a usage error), JSON on
stdout when piped, diagnostics on stderr that name the fix, every TARGET form
(module, module:attribute, file path, factory), `call` printing exactly what a
model receives, and `lock`/`check` wired to the catalog's lock module. One
subprocess test runs `python -m toolcast --help` as a user would.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolcast import Tool
from toolcast._cli._layout import compact_json, type_text
from toolcast._cli._main import main, provider_names
from toolcast.examples import places
from toolcast.providers import anthropic, openai_chat

PLACES = "toolcast.examples.places"
CATALOG = "toolcast.examples:catalog"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write_module(folder: Path, name: str, source: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


# --------------------------------------------------------------------------- usage


def test_help_lists_every_command_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("inspect", "call", "lock", "check", "demo"):
        assert f"    {command}" in out
    assert "exit codes: 0 ok, 1 a tool or schema error, 2 a usage error." in out


def test_help_names_check_in_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 9: `toolcast --help` lists `check` with the other commands."""
    code, out, _ = run(capsys, "--help")
    assert code == 0
    summary = out.splitlines()[2]
    assert "lock, check" in summary, summary
    assert "    check     compare tools with a lock file" in out


def test_version_names_the_installed_package(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.startswith("toolcast ")


def test_missing_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys)
    assert code == 2
    assert "COMMAND" in err


def test_unknown_provider_is_a_usage_error_listing_choices(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "inspect", PLACES, "--provider", "openai")
    assert (code, out) == (2, "")
    assert "invalid choice: 'openai'" in err
    assert "openai_chat" in err


# --------------------------------------------------------------------------- inspect


def test_inspect_piped_prints_exact_json_of_every_tool(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "inspect", PLACES)
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["target"] == PLACES
    assert document["provider"] is None
    names = [tool["name"] for tool in document["tools"]]
    assert names == ["find_places", "place_details"]
    find = document["tools"][0]
    assert find["input_schema"] == Tool.from_function(places.find_places).spec.input_schema
    assert find["metadata"] == {
        "status": "Searching for places",
        "categories": ["places"],
        "is_async": True,
    }
    assert "projection" not in find


def test_inspect_with_provider_shows_the_wire_definition_and_notes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "inspect", PLACES, "--provider", "anthropic", "--json")
    assert code == 0
    find = json.loads(out)["tools"][0]
    expected = anthropic.project(Tool.from_function(places.find_places))
    assert find["projection"]["definition"] == expected.definition
    assert find["projection"]["strict"] is True
    moved = {(n["keyword"], n["action"]) for n in find["projection"]["notes"]}
    assert moved == {
        ("minimum", "moved_to_description"),
        ("maximum", "moved_to_description"),
    }


def test_inspect_no_strict_turns_strict_decoding_off(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "inspect", PLACES, "-p", "openai_chat", "--no-strict")
    assert code == 0
    projection = json.loads(out)["tools"][0]["projection"]
    assert projection["strict"] is False
    tool = Tool.from_function(places.find_places)
    assert projection["definition"] == openai_chat.project(tool, strict=False).definition


def test_inspect_strict_on_a_target_without_strict_mode_warns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "inspect", PLACES, "-p", "gemini", "--strict")
    assert code == 0
    assert json.loads(out)["tools"][0]["projection"]["provider"] == "gemini"
    assert "gemini has no strict mode; --strict is ignored." in err


def test_inspect_text_lays_out_parameters_and_notes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "inspect", PLACES, "-p", "anthropic", "--text")
    assert code == 0
    assert out.startswith("toolcast.examples.places: 2 tools\n")
    assert "    max_results  integer 1..50 = 10  Maximum number of places to return." in out
    assert "    query        string, required    Text to search for" in out
    assert "  returns array of object {id, name, country, population}" in out
    assert "note: /properties/max_results minimum moved to description: " in out
    assert "\x1b[" not in out


def test_inspect_text_is_coloured_only_when_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, coloured, _ = run(capsys, "inspect", PLACES, "--text")
    monkeypatch.setenv("NO_COLOR", "1")
    _, plain, _ = run(capsys, "inspect", PLACES, "--text")
    assert "\x1b[1;36mfind_places\x1b[0m" in coloured
    assert "\x1b[" not in plain


def test_inspect_lists_toolbox_members_after_their_selector(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "inspect", CATALOG)
    assert code == 0
    rows = [(t["name"], t["toolbox"], t["selector"]) for t in json.loads(out)["tools"]]
    assert rows == [
        ("find_places", None, False),
        ("place_details", None, False),
        ("documents", None, True),
        ("search_documents", "documents", False),
        ("read_document", "documents", False),
    ]


def test_inspect_a_file_path_target(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_module(
        tmp_path,
        "cli_file_tools",
        '''
        from dataclasses import dataclass
        from toolcast import tool

        @dataclass
        class Point:
            x: int
            y: int

        @tool
        def move(point: Point, dx: int = 0) -> Point:
            """Move a point."""
            return Point(point.x + dx, point.y)
        ''',
    )
    code, out, _ = run(capsys, "inspect", str(path))
    assert code == 0
    (move,) = json.loads(out)["tools"]
    assert move["name"] == "move"
    assert move["input_schema"]["required"] == ["point"]


@pytest.mark.parametrize(
    ("attribute", "names"),
    [
        ("find_places", ["find_places"]),
        ("tools", ["place_details", "find_places"]),
        ("single", ["find_places"]),
        ("make", ["find_places"]),
    ],
)
def test_inspect_module_attribute_forms(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    attribute: str,
    names: list[str],
) -> None:
    path = write_module(
        tmp_path,
        "cli_attribute_forms",
        """
        from toolcast import Tool
        from toolcast.examples.places import find_places, place_details

        tools = [place_details, find_places]
        single = Tool.from_function(find_places)

        def make():
            from toolcast._catalog._catalog import Catalog
            return Catalog([find_places])
        """,
    )
    code, out, _ = run(capsys, "inspect", f"{path}:{attribute}")
    assert code == 0
    assert [t["name"] for t in json.loads(out)["tools"]] == names


def test_inspect_unknown_module_names_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "inspect", "no_such_module_xyz")
    assert (code, out) == (2, "")
    assert "no module named 'no_such_module_xyz'" in err
    assert "pass a file path" in err


def test_inspect_missing_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "inspect", str(tmp_path / "nope.py"))
    assert code == 2
    assert "no such file" in err


def test_inspect_missing_attribute_lists_the_tools_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "inspect", f"{PLACES}:find_place")
    assert code == 2
    assert "has no attribute 'find_place'" in err
    assert "find_places, place_details" in err


def test_inspect_attribute_of_the_wrong_kind_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "inspect", f"{PLACES}:__all__")
    assert code == 2
    assert "point TARGET at a function, a Tool" in err


def test_inspect_module_without_tools_says_how_to_make_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "inspect", "json")
    assert code == 2
    assert "json defines no tools. Mark functions with @toolcast.tool" in err


def test_inspect_tool_that_cannot_be_defined_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_module(
        tmp_path,
        "cli_bad_tools",
        """
        from toolcast import tool

        @tool
        def spread(*values: int) -> int:
            return sum(values)
        """,
    )
    code, out, err = run(capsys, "inspect", str(path))
    assert (code, out) == (1, "")
    assert "spread cannot become a tool" in err


def test_inspect_module_that_fails_to_import_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_module(tmp_path, "cli_broken", "raise ValueError('no config')\n")
    code, _, err = run(capsys, "inspect", str(path))
    assert code == 1
    assert "failed: ValueError: no config" in err


def test_inspect_strict_that_a_target_cannot_honour_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_module(
        tmp_path,
        "cli_free_keys",
        """
        from toolcast import tool

        @tool
        def tag(tags: dict[str, int]) -> None:
            '''Tag things.'''
        """,
    )
    code, _, err = run(capsys, "inspect", str(path), "-p", "anthropic", "--strict")
    assert code == 1
    assert err.startswith("toolcast: tag: ")
    assert "/properties/tags" in err
    assert err.endswith("On the command line: drop --strict, or pass --no-strict.\n")


# --------------------------------------------------------------------------- call


def test_call_prints_the_result_exactly_as_the_model_receives_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "call", PLACES, "find_places", '{"query": "Paris"}')
    assert (code, err) == (0, "")
    expected = Tool.from_function(places.find_places).invoke_sync('{"query": "Paris"}')
    assert out == expected.text + "\n"


def test_call_with_bad_arguments_prints_the_error_result_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "call", PLACES, "find_places", '{"query": "x", "max_results": 3000}'
    )
    assert code == 1
    assert out == "Argument 'max_results' must be less than or equal to 50 (got 3000).\n"
    assert "error result (invalid_arguments)" in err


def test_call_with_text_that_is_not_json_gets_the_models_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "call", PLACES, "find_places", "query=Paris")
    assert code == 1
    assert "JSON" in out


def test_call_reads_arguments_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"place_id": "par-tx"}'))
    code, out, _ = run(capsys, "call", PLACES, "place_details", "-")
    assert code == 0
    assert json.loads(out)["name"] == "Paris, Texas"


def test_call_tool_error_is_sent_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "call", PLACES, "place_details", '{"place_id": "x"}')
    assert code == 1
    assert out.startswith("No place has the id 'x'. Call find_places")
    assert "(tool_error)" in err


def test_call_with_provider_prints_the_result_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        "call",
        PLACES,
        "place_details",
        '{"place_id": "nope"}',
        "--provider",
        "openai_chat",
        "--call-id",
        "call_9",
    )
    assert code == 1
    assert json.loads(out) == [
        {
            "role": "tool",
            "tool_call_id": "call_9",
            "content": "Error: No place has the id 'nope'. Call find_places to get a valid id.",
        }
    ]


def test_call_runs_a_toolbox_member_on_a_default_instance(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        "call",
        "toolcast.examples.documents",
        "read_document",
        '{"document_id": "doc-3"}',
    )
    assert code == 0
    assert out.startswith("Team lunch rota\n")


def test_call_unknown_tool_is_a_usage_error_listing_the_tools(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "call", CATALOG, "delete_document", "{}")
    assert (code, out) == (2, "")
    assert "no tool named 'delete_document'" in err
    assert "find_places, place_details, documents, search_documents" in err


@pytest.mark.parametrize("provider", provider_names())
def test_every_provider_projects_and_answers_through_the_cli(
    capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    code, out, _ = run(capsys, "inspect", CATALOG, "--provider", provider)
    assert code == 0
    tools = json.loads(out)["tools"]
    assert all(t["projection"]["provider"] == provider for t in tools)
    code, out, _ = run(
        capsys, "call", PLACES, "place_details", '{"place_id": "spr-il"}', "-p", provider
    )
    assert code == 0
    assert "Springfield, Illinois" in out
    json.loads(out)


# --------------------------------------------------------------------------- lock/check


@pytest.fixture
def versions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """Two modules with the same tool: v2 drops a parameter without a version bump."""
    monkeypatch.syspath_prepend(str(tmp_path))
    write_module(
        tmp_path,
        "cli_lock_v1",
        """
        from toolcast import tool

        @tool
        def greet(name: str, excited: bool = False) -> str:
            '''Greet someone.'''
            return name
        """,
    )
    write_module(
        tmp_path,
        "cli_lock_v2",
        """
        from toolcast import tool

        @tool
        def greet(name: str) -> str:
            '''Greet someone.'''
            return name
        """,
    )
    return "cli_lock_v1", "cli_lock_v2"


def test_lock_then_check_the_same_code_passes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, versions: tuple[str, str]
) -> None:
    lockfile = tmp_path / "tools.lock.json"
    code, _, err = run(capsys, "lock", versions[0], "-o", str(lockfile))
    assert code == 0
    assert "locked 1 tools" in err
    assert json.loads(lockfile.read_text())["format"] == "toolcast-lock/1"
    code, out, _ = run(capsys, "check", versions[0], str(lockfile))
    assert code == 0
    assert "0 changes" in out


def test_check_fails_on_a_breaking_change_without_a_version_bump(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, versions: tuple[str, str]
) -> None:
    lockfile = tmp_path / "tools.lock.json"
    assert main(["lock", versions[0], "-o", str(lockfile)]) == 0
    code, out, err = run(capsys, "check", versions[1], str(lockfile))
    assert code == 1
    assert "BREAKING: greet:" in out
    assert "Bump each tool's `version`" in err


def test_lock_usage_errors_name_the_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check")
    assert code == 2
    assert err.startswith("usage: toolcast check")


# --------------------------------------------------------------------------- demo


def test_demo_exits_0_and_prints_each_pipeline_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "demo")
    assert (code, err) == (0, "")
    for step in ("parse_calls", "resolve", "invoke", "format_results"):
        assert f"     {step} " in out
    assert "\x1b[" not in out


# --------------------------------------------------------------------------- helpers


@pytest.mark.parametrize(
    ("schema", "text"),
    [
        ({"type": "integer", "minimum": 1, "maximum": 50}, "integer 1..50"),
        ({"type": ["string", "null"]}, "string | null"),
        (
            {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "array of string items >= 1",
        ),
        ({"type": "string", "enum": ["a", "b"]}, '"a" | "b"'),
        ({"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/Node"}]}, "integer | Node"),
        ({"type": "object", "additionalProperties": {"type": "number"}}, "object of number"),
        ({"type": "string", "format": "date-time"}, "string (date-time)"),
        ({}, "any"),
    ],
)
def test_type_text_reads_like_a_signature(schema: dict[str, object], text: str) -> None:
    assert type_text(schema) == text


def test_compact_json_keeps_short_values_on_one_line() -> None:
    value = {"a": [1, 2], "b": {"c": "x" * 100}}
    long = '"' + "x" * 100 + '"'
    assert compact_json(value) == ('{\n  "a": [1, 2],\n  "b": {\n    "c": ' + long + "\n  }\n}")
    assert json.loads(compact_json(value)) == value


def test_python_m_toolcast_help_runs_in_a_subprocess() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "toolcast", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: toolcast")


# ------------------------------------------------------------- for a person (issue 24)

RAISING_TOOLS = '''
from toolcast import tool


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b
'''


def test_call_json_prints_one_object_for_scripts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "call", PLACES, "place_details", '{"place_id": "par-fr"}', "--json")
    assert code == 0
    document = json.loads(out)
    assert document["tool"] == "place_details"
    assert document["is_error"] is False
    assert document["error_kind"] is None
    assert document["result"]["name"] == "Paris"


def test_call_on_a_terminal_indents_the_result(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    assert main(["call", PLACES, "place_details", '{"place_id": "par-fr"}']) == 0
    shown = screen.getvalue()
    assert shown.startswith('{\n  "id": "par-fr",\n  "name": "Paris",')


def test_call_names_the_cause_when_the_tool_raises(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tools = tmp_path / "maths.py"
    tools.write_text(RAISING_TOOLS)
    code, _, err = run(capsys, "call", str(tools), "divide", '{"a": 1, "b": 0}')
    assert code == 1
    assert (
        "toolcast: the tool raised ZeroDivisionError: division by zero (at maths.py:8 in divide); "
        "--traceback shows the whole trace."
    ) in err.splitlines()
    code, _, err = run(capsys, "call", str(tools), "divide", '{"a": 1, "b": 0}', "--traceback")
    assert code == 1
    assert "Traceback (most recent call last):" in err
    assert "return a / b" in err


def _without(modules: list[str], argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # A child process in which these packages cannot be imported, as on an install
    # without the extra (`None` in sys.modules makes every import of them fail).
    script = (
        "import sys\n"
        f"for name in {modules!r}:\n"
        "    sys.modules[name] = None\n"
        "from toolcast._cli._main import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_serve_without_the_mcp_extra_says_what_to_install(tmp_path: Path) -> None:
    done = _without(["anyio", "mcp"], ["serve", PLACES], tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "toolcast: `toolcast serve` needs the mcp extra (anyio is not installed): "
        "pip install 'toolcast[mcp]'"
    ]


def test_inspect_a_descriptor_set_without_the_grpc_extra_says_what_to_install(
    tmp_path: Path,
) -> None:
    (tmp_path / "api.binpb").write_bytes(b"")
    done = _without(["grpc", "google.protobuf", "google"], ["inspect", "api.binpb"], tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("toolcast: ")
    assert "pip install 'toolcast[grpc]'" in line


def test_the_console_script_runs_a_call_in_a_real_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolcast", "call", PLACES, "place_details", '{"place_id": "x"}'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "returned an error result (tool_error)" in done.stderr
    assert "Traceback" not in done.stderr
