"""Three routes, one result; the plugin's output and diagnostics; options read by number."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import PLUGIN, SERVED, Compiled, protoc
from toolcast.grpc import include_path, tools_from_descriptors
from toolcast.grpc._plugin import python_literal
from toolcast.grpc._wire import read_field_annotations, read_rpc_tool


def specs(source: Any) -> list[Any]:
    return [tool.spec for tool in tools_from_descriptors(source)]


def test_three_routes_give_identical_specs_without_comments(compiled: Compiled) -> None:
    # workflow.proto has no comments: every description comes from annotations.
    from_set = specs(compiled.workflow_set)
    from_pb2 = specs(compiled.module("workflow.v1.workflow_pb2"))
    from_plugin = specs(compiled.module("gen_workflow"))
    assert from_set == from_pb2 == from_plugin
    assert [s.name for s in from_set] == sorted(s.name for s in from_set)


def test_plugin_and_descriptor_set_agree_with_comments(compiled: Compiled) -> None:
    assert specs(compiled.with_comments) == specs(compiled.module("gen_tools"))


def test_pb2_modules_match_a_set_without_source_info(compiled: Compiled) -> None:
    modules = [compiled.module(name) for name in ("links.v1.links_pb2", "workflow.v1.workflow_pb2")]
    modules.append(compiled.module("kitchen.v1.kitchen_pb2"))
    assert specs(modules) == specs(compiled.without_comments)
    # ... and they lose the comment descriptions, keeping annotation ones.
    with_comments = {s.name: s for s in specs(compiled.with_comments)}
    plain = {s.name: s for s in specs(modules)}
    assert with_comments["links_list"].description == "Lists links, newest first."
    assert plain["links_list"].description == ""
    assert plain["links_create"].description == "Create a short link."


def test_plugin_output_is_deterministic_and_ruff_clean(compiled: Compiled, tmp_path: Path) -> None:
    out = tmp_path / "again"
    out.mkdir()
    result = protoc(f"--plugin=protoc-gen-toolcast={PLUGIN}", f"--toolcast_out={out}", *SERVED)
    assert result.returncode == 0
    assert result.stdout == ""
    assert result.stderr == ""
    first = (compiled.root / "gen_tools.py").read_text()
    again = (out / "toolcast_tools.py").read_text()
    assert first.replace("gen_tools", "x") == again.replace("toolcast_tools", "x")
    ruff = [sys.executable, "-m", "ruff"]
    for command in (["check", "--isolated"], ["format", "--isolated", "--check"]):
        done = subprocess.run([*ruff, *command, str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    imported = set()
    for node in ast.walk(ast.parse(again)):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert imported == {"__future__", "typing", "sys", "toolcast.grpc"}


def test_plugin_reports_problems_through_protoc(tmp_path: Path) -> None:
    result = protoc(
        f"--plugin=protoc-gen-toolcast={PLUGIN}", f"--toolcast_out={tmp_path}", "bad/v1/bad.proto"
    )
    assert result.returncode != 0
    assert result.stdout == ""
    assert "gRPC tools cannot become a tool (3 problems)" in result.stderr
    assert "[enum-only-zero] bad.v1.BadService/Zero mode" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_plugin_refuses_unknown_parameters(tmp_path: Path) -> None:
    result = protoc(
        f"--plugin=protoc-gen-toolcast={PLUGIN}", f"--toolcast_out=colour=red:{tmp_path}", SERVED[1]
    )
    assert result.returncode != 0
    assert (
        "unknown parameter(s) colour (known: module, pb2_package, methods, services, required)"
        in (result.stderr)
    )


def test_include_path_holds_the_annotations() -> None:
    text = (Path(include_path()) / "ai/tools/v1/annotations.proto").read_text()
    assert "rpc_tool = 52104" in text
    assert "tool_field = 52105" in text


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def flag(number: int, value: int = 1) -> bytes:
    return varint(number << 3) + varint(value)


def test_rpc_tool_decodes_all_four_fields_among_others() -> None:
    body = field(1, b"t") + field(2, b"d") + flag(3) + flag(4)
    options = flag(33) + field(52103, b"noise") + field(52104, body)
    assert read_rpc_tool(options) == read_rpc_tool(field(52104, body))
    tool = read_rpc_tool(options)
    assert tool is not None
    assert (tool.name, tool.description, tool.strict, tool.auto_execute) == (
        "t",
        "d",
        True,
        True,
    )
    bare = read_rpc_tool(field(52104, field(1, b"n") + field(2, b"x")))
    assert bare is not None
    assert not bare.strict
    assert not bare.auto_execute
    assert read_rpc_tool(b"") is None
    assert read_rpc_tool(field(7, b"x")) is None
    empty = read_rpc_tool(field(52104, b""))
    assert empty is not None
    assert empty.name == ""


@pytest.mark.parametrize(
    ("options", "output_only"),
    [
        (flag(1052, 3), True),  # unpacked
        (field(1052, varint(2) + varint(3)), True),  # packed [REQUIRED, OUTPUT_ONLY]
        (flag(1052, 2), False),  # REQUIRED is not OUTPUT_ONLY
        (flag(1052, 5), False),
        (b"", False),
    ],
)
def test_field_behavior_packed_and_unpacked(options: bytes, output_only: bool) -> None:
    assert read_field_annotations(options).output_only is output_only


def test_tool_field_and_field_context_fallback() -> None:
    notes = read_field_annotations(
        field(52105, flag(1) + field(2, b"link") + field(3, b"notes") + field(4, b"desc"))
    )
    assert (notes.skip, notes.alias_prefix, notes.usage_notes, notes.description) == (
        True,
        "link",
        "notes",
        "desc",
    )
    fallback = read_field_annotations(field(52103, field(1, b"from context")))
    assert fallback.description == "from context"


def test_wire_skips_every_wire_type_and_refuses_garbage() -> None:
    from toolcast.grpc._wire import WireError, fields_of

    data = flag(1) + varint(2 << 3 | 1) + bytes(8) + varint(3 << 3 | 5) + bytes(4) + field(4, b"x")
    assert [n for n, _, _ in fields_of(data)] == [1, 2, 3, 4]
    with pytest.raises(WireError):
        list(fields_of(varint(1 << 3 | 3)))
    with pytest.raises(WireError):
        list(fields_of(field(1, b"abc")[:-1]))


def test_python_literal_quotes_like_the_formatter() -> None:
    assert python_literal('say "hi"') == "'say \"hi\"'"
    assert python_literal("it's") == '"it\'s"'
    assert (
        python_literal({"a": [True, None, 1]})
        == '{\n    "a": [\n        True,\n        None,\n        1,\n    ],\n}'
    )
