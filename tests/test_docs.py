"""Every example in README.md and docs/**/*.md runs, so the docs cannot drift from the code.

Conventions for doc writers (one Markdown file at a time, blocks in file order):

- A ```python (or ```py) block is executed. All blocks of one file share one
  namespace, a module registered as `example` (as if saved as `example.py`, so no
  test-only module name shows in printed output, `if __name__ == "__main__":` guards
  stay off, and dataclasses and `from __future__ import annotations` work), and run
  in a fresh temporary working directory. One event loop serves the whole file.
- Each block must compile as a module (pasted into a `.py` file). A block that uses
  top-level `await` is a `python -m asyncio` session and says so in its fence:
  ```python title="python -m asyncio"``` (the site shows that title above the block);
  such a block must really need it.
- A python block whose first line is `# NAME.py` is a whole file: it is saved as
  NAME.py in the working directory (which is on `sys.path`, so later files import it)
  and run as `python NAME.py` would (`__name__ == "__main__"`), not in the namespace.
- `<!-- skip-run -->` (or `<!-- skip-run: why -->`) on the line before a fence
  keeps that block from running. It is still compiled, so it must be valid Python;
  use ```text for anything else. Use it for code that needs an API key, a network
  or a real model, and say why.
- `<!-- output -->` on the line before a ```text block: that block must equal what
  the python block just above it printed (trailing spaces ignored).
- A ```pycon block is a doctest (`>>>` lines, expected output below them), run in
  the same namespace as the file's python blocks.
- A ```console block: each `$ toolcast ...` line runs in-process through
  `toolcast._cli.main` (shell quoting is honoured), and the lines up to the next
  `$` are its expected stdout then stderr; a line that is just `...` matches any
  number of lines. Other `$` commands (pip, pytest) are shown, not run; the clean
  venv test runs the README's own setup commands.
- Relative links must point at files that exist.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import doctest
import inspect
import io
import json
import os
import re
import runpy
import shlex
import subprocess
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pytest
from annotated_types import Ge, Le

from toolcast._cli._main import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("**/*.md")])

_FENCE = re.compile(
    r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)(?P<info>[^`]*)$"
)
_ASYNCIO_SESSION = re.compile(r"""\btitle=(["'])python -m asyncio\1""")
_SKIP = re.compile(r"^\s*<!--\s*skip-run\b.*-->\s*$")
_OUTPUT = re.compile(r"^\s*<!--\s*output\s*-->\s*$")
_LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_PYTHON = ("python", "py")


@dataclass
class Block:
    """One fenced block of a Markdown file."""

    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    skip: bool = False
    output: bool = False
    asyncio_session: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def parse_blocks(text: str, path: Path = ROOT / "doc.md") -> list[Block]:
    """The fenced blocks of a Markdown text, with their markers."""
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if match is None:
            index += 1
            continue
        fence, indent = match["fence"], len(match["indent"])
        start = index
        body: list[str] = []
        index += 1
        while index < len(lines) and not lines[index].strip().startswith(fence):
            line = lines[index]
            body.append(line[indent:] if line[:indent].strip() == "" else line)
            index += 1
        index += 1
        before = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
        blocks.append(
            Block(
                path=path,
                line=start + 1,
                lang=match["lang"].lower(),
                code="\n".join(body) + "\n",
                skip=bool(_SKIP.match(before)),
                output=bool(_OUTPUT.match(before)),
                asyncio_session=bool(_ASYNCIO_SESSION.search(match["info"])),
            )
        )
    return blocks


def _doc_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _blocks_of(path: Path) -> list[Block]:
    return parse_blocks(path.read_text(encoding="utf-8"), path)


def _with(langs: tuple[str, ...]) -> list[Path]:
    return [p for p in DOCS if any(b.lang in langs for b in _blocks_of(p))]


# --------------------------------------------------------------------------- python


def _compile(block: Block, *, session: bool | None = None) -> types.CodeType:
    # Leading newlines make tracebacks point at the Markdown file's own lines.
    source = "\n" * block.line + block.code
    session = block.asyncio_session if session is None else session
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if session else 0
    return compile(source, str(block.path), "exec", flags=flags)


def _execute(block: Block, namespace: dict[str, object], loop: asyncio.AbstractEventLoop) -> str:
    code = _compile(block)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        if code.co_flags & inspect.CO_COROUTINE:
            loop.run_until_complete(eval(code, namespace))
        else:
            exec(code, namespace)
    return printed.getvalue()


_FILE = re.compile(r"^# (?P<name>[\w/]+\.py)\s*$")


def _as_file(block: Block) -> str | None:
    first = block.code.split("\n", 1)[0]
    match = _FILE.match(first)
    return match["name"] if match else None


def _run_file(block: Block, name: str) -> str:
    file = Path.cwd() / name
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(block.code, encoding="utf-8")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        runpy.run_path(str(file), run_name="__main__")
    return printed.getvalue()


def _doctest(block: Block, namespace: dict[str, object]) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.code, namespace, block.where, str(block.path), block.line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    result = runner.run(test, out=report.write, clear_globs=False)
    assert result.failed == 0, f"doctest failed at {block.where}:\n{report.getvalue()}"


def _same_text(actual: str, expected: str) -> bool:
    def norm(text: str) -> list[str]:
        return [line.rstrip() for line in text.strip("\n").splitlines()]

    return norm(actual) == norm(expected)


@pytest.mark.parametrize("path", _with((*_PYTHON, "pycon")), ids=_doc_id)
def test_python_examples_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # A neutral name, as if the blocks were saved as example.py: no test-only name shows
    # in printed output, and `if __name__ == "__main__":` guards stay off.
    name = "example"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, name, module)
    namespace = module.__dict__
    monkeypatch.syspath_prepend(str(tmp_path))  # files a page saves import each other
    modules_before = set(sys.modules)
    loop = asyncio.new_event_loop()
    ran = 0
    printed: str | None = None
    try:
        for block in _blocks_of(path):
            if block.lang in _PYTHON:
                if block.skip:
                    _compile(block)  # a skipped block must still be valid Python
                    printed = None
                    ran += 1
                    continue
                file = _as_file(block)
                if file is not None:
                    _compile(block)
                    printed = _run_file(block, file)
                else:
                    printed = _execute(block, namespace, loop)
                ran += 1
            elif block.lang == "pycon" and not block.skip:
                _doctest(block, namespace)
                ran += 1
            elif block.output:
                assert printed is not None, f"{block.where}: no python block above to compare"
                assert _same_text(printed, block.code), (
                    f"{block.where}: the block above printed\n{printed}"
                )
    finally:
        loop.close()
        for saved in set(sys.modules) - modules_before:  # the page's own files
            if str(getattr(sys.modules[saved], "__file__", "") or "").startswith(str(tmp_path)):
                del sys.modules[saved]
    assert ran, f"{_doc_id(path)}: no python or pycon block was checked"


@pytest.mark.parametrize("path", _with(_PYTHON), ids=_doc_id)
def test_python_examples_paste_into_a_file_or_say_they_are_asyncio_sessions(path: Path) -> None:
    problems = []
    for block in _blocks_of(path):
        if block.lang not in _PYTHON:
            continue
        try:
            _compile(block, session=False)
        except SyntaxError as error:
            if not block.asyncio_session:
                problems.append(f"{block.where}: {error.msg} (not a module; mark it or rewrite it)")
            else:
                _compile(block)  # valid in `python -m asyncio`
        else:
            if block.asyncio_session:
                problems.append(f"{block.where}: marked `python -m asyncio` but needs no await")
    assert problems == []


def test_the_first_asyncio_session_a_reader_meets_is_explained() -> None:
    # docs/index.md says what the mark means; getting-started repeats it at its first one.
    for page in ("index.md", "getting-started.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        assert "python -m asyncio" in text.split('title="python -m asyncio"', 1)[0], page


def test_a_top_level_await_outside_a_marked_block_is_caught() -> None:
    text = '```python\nawait f()\n```\n```python title="python -m asyncio"\nawait f()\n```\n'
    plain, session = parse_blocks(text)
    assert not plain.asyncio_session
    assert session.asyncio_session
    with pytest.raises(SyntaxError):
        _compile(plain)
    assert _compile(session).co_flags & inspect.CO_COROUTINE


# --------------------------------------------------------------------------- console


def _matches(actual: list[str], expected: list[str]) -> bool:
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(_matches(actual[i:], expected[1:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == expected[0] and _matches(actual[1:], expected[1:])


def _commands(block: Block) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in block.code.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line.rstrip())
    return out


@pytest.mark.parametrize("path", _with(("console",)), ids=_doc_id)
def test_console_examples_print_what_they_show(
    path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    checked = 0
    for block in _blocks_of(path):
        if block.lang != "console" or block.skip:
            continue
        for command, expected in _commands(block):
            argv = shlex.split(command)
            if argv[0] != "toolcast":
                continue
            main(argv[1:])
            captured = capsys.readouterr()
            actual = [line.rstrip() for line in (captured.out + captured.err).splitlines()]
            while expected and not expected[-1]:
                expected.pop()
            assert _matches(actual, expected), f"{block.where}: `{command}` printed:\n" + "\n".join(
                actual
            )
            checked += 1
    assert checked, f"{_doc_id(path)}: no `$ toolcast` command to check"


# --------------------------------------------------------------------------- links


@pytest.mark.parametrize("path", DOCS, ids=_doc_id)
def test_relative_links_point_at_files(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    broken = []
    for match in _LINK.finditer(text):
        target = match["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        file = (path.parent / target.split("#", 1)[0]).resolve()
        if not file.exists():
            broken.append(target)
    assert not broken, f"{_doc_id(path)} links to missing files: {broken}"


# --------------------------------------------------------------------------- README


def _readme_blocks(lang: str) -> list[Block]:
    return [b for b in _blocks_of(ROOT / "README.md") if b.lang == lang]


def test_readme_quick_start_fits_in_15_lines() -> None:
    quick_start = _readme_blocks("python")[0]
    assert len(quick_start.code.strip().splitlines()) <= 15


def test_readme_gives_the_demo_and_test_commands_for_a_fresh_machine() -> None:
    commands = [b.code.strip() for b in _readme_blocks("bash")]
    assert (
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && toolcast demo"
        in commands
    )
    test_command = (
        "python3 -m venv .venv && . .venv/bin/activate && "
        "pip install -e '.[test]' && python -m pytest -q"
    )
    assert test_command in commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[test]'" in ci
    assert "python -m pytest -q" in ci


# --------------------------------------------------------------------------- the runner


def test_markers_on_the_line_before_a_fence_are_read() -> None:
    text = (
        "Intro\n\n<!-- skip-run: needs a key -->\n```python\nclient.call()\n```\n\n"
        "```python\nprint(1)\n```\n<!-- output -->\n```text\n1\n```\n"
        "- list item:\n\n  ```console\n  $ toolcast --help\n  usage\n  ```\n"
    )
    blocks = parse_blocks(text)
    assert [(b.lang, b.skip, b.output, b.line) for b in blocks] == [
        ("python", True, False, 4),
        ("python", False, False, 8),
        ("text", False, True, 12),
        ("console", False, False, 17),
    ]
    assert blocks[3].code == "$ toolcast --help\nusage\n"


def test_an_ellipsis_line_matches_any_number_of_lines() -> None:
    assert _matches(["a", "b", "c", "d"], ["a", "...", "d"])
    assert _matches(["a", "d"], ["a", "...", "d"])
    assert not _matches(["a", "b"], ["a", "...", "d"])


# --------------------------------------------------------------------------- comparison
# docs/comparison.md marks these claims about other libraries "checked"; each test
# runs the library itself and is skipped when it is not installed.


def _weather(city: str, days: Annotated[int, Ge(1), Le(7)] = 1) -> str:
    """Forecast the weather.

    Args:
        city: City name.
        days: Days ahead.
    """
    return f"{city}: sunny for {days} days"


def _tag_city(city: str, tags: dict[str, int]) -> str:
    """Tag a city."""
    return city


def test_comparison_agents_sdk_strict_makes_defaults_required_not_nullable() -> None:
    agents = pytest.importorskip("agents")
    tool = agents.function_tool(_weather)
    assert tool.strict_json_schema is True
    schema = tool.params_json_schema
    assert schema["required"] == ["city", "days"]
    assert schema["properties"]["days"]["type"] == "integer"
    assert schema["properties"]["days"]["description"] == "Days ahead."


def test_comparison_agents_sdk_refuses_a_free_form_dict_under_strict() -> None:
    agents = pytest.importorskip("agents")
    with pytest.raises(agents.exceptions.UserError, match="additionalProperties"):
        agents.function_tool(_tag_city)


def test_comparison_agents_sdk_answers_bad_arguments_generically() -> None:
    agents = pytest.importorskip("agents")
    from agents.tool_context import ToolContext

    tool = agents.function_tool(_weather)
    arguments = '{"city": "Paris", "days": 9}'
    context = ToolContext(
        context=None, tool_name="_weather", tool_call_id="c1", tool_arguments=arguments
    )
    result = asyncio.run(tool.on_invoke_tool(context, arguments))
    assert result == "An error occurred while running the tool. Please try again."


def test_comparison_pydantic_ai_sends_pydantic_errors_as_the_result() -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    seen: list[object] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if not seen:
            seen.append(info.function_tools[0])
            call = ToolCallPart("_weather", '{"city": "Paris", "days": 9}', tool_call_id="c1")
            return ModelResponse(parts=[call])
        seen.extend(part.content for part in messages[-1].parts)
        return ModelResponse(parts=[TextPart("done")])

    Agent(FunctionModel(model), tools=[_weather]).run_sync("weather?")
    definition, retry = seen
    properties = definition.parameters_json_schema["properties"]
    assert properties["days"]["description"] == "Days ahead."
    assert isinstance(retry, list)
    assert retry[0]["loc"] == ["days"]
    assert retry[0]["type"] == "less_than_equal"


def test_comparison_fastmcp_sends_pydantic_text_with_a_url() -> None:
    fastmcp = pytest.importorskip("fastmcp")

    server = fastmcp.FastMCP("weather")
    server.tool(_weather)

    async def call() -> Any:
        async with fastmcp.Client(server) as client:
            (listed,) = await client.list_tools()
            result = await client.call_tool(
                "_weather", {"city": "Paris", "days": 9}, raise_on_error=False
            )
            return listed, result

    listed, result = asyncio.run(call())
    assert listed.description == "Forecast the weather."
    schema = getattr(listed, "input_schema", None) or listed.inputSchema
    assert schema["properties"]["days"]["description"] == "Days ahead."
    assert result.is_error
    assert "errors.pydantic.dev" in result.content[0].text


def test_comparison_langchain_keeps_args_in_the_description_and_raises() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.tools import tool as langchain_tool
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from pydantic import ValidationError

    tool = langchain_tool(_weather)
    function = convert_to_openai_tool(tool)["function"]
    assert "Args:" in function["description"]
    assert "description" not in function["parameters"]["properties"]["city"]
    with pytest.raises(ValidationError):
        tool.invoke({"city": "Paris", "days": 9})
    strict = convert_to_openai_tool(tool, strict=True)["function"]["parameters"]
    assert strict["required"] == ["city", "days"]
    assert strict["properties"]["days"]["type"] == "integer"


# --------------------------------------------------------------------------- tutorial


def test_the_tutorial_stops_in_one_process_and_resumes_in_another(tmp_path: Path) -> None:
    files = {}
    for block in _blocks_of(ROOT / "docs" / "tutorial.md"):
        name = _as_file(block) if block.lang in _PYTHON else None
        if name is not None:
            (tmp_path / name).write_text(block.code, encoding="utf-8")
            files[name] = block
    assert set(files) == {"shop.py", "models.py", "order.py", "approve.py"}
    env = {k: v for k, v in os.environ.items() if k != "LOCAL_MODEL_URL"}
    first = subprocess.run(
        [sys.executable, "order.py"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[0] == "pending"
    saved = json.loads((tmp_path / "conversation.json").read_text())
    assert saved  # the pending conversation is on disk, for the second process
    second = subprocess.run(
        [sys.executable, "approve.py"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("done | I ordered two large blue mugs.")
    assert "ordered 2 x sku 1" in second.stdout
