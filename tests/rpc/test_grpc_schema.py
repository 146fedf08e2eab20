"""Schema rules: protojson shapes, strictness, recursion, descriptions, metaschema, providers."""

from __future__ import annotations

import base64
import importlib
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conftest import PROTO, Compiled, check, protoc
from providers.portability import EXPECTED_MODULES
from toolcast import Tool
from toolcast.errors import ToolDefinitionError
from toolcast.grpc import tools_from_descriptors

PROVIDERS = EXPECTED_MODULES


@pytest.fixture(scope="module")
def tools(compiled: Compiled) -> dict[str, Tool]:
    return {t.name: t for t in tools_from_descriptors(compiled.with_comments)}


def props(tool: Tool) -> dict[str, Any]:
    return dict(tool.spec.input_schema["properties"])


def test_every_schema_passes_the_2020_12_metaschema(tools: dict[str, Tool]) -> None:
    for tool in tools.values():
        Draft202012Validator.check_schema(tool.spec.input_schema)
        assert tool.spec.output_schema is not None
        Draft202012Validator.check_schema(tool.spec.output_schema)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_tool_goes_through_every_provider(tools: dict[str, Tool], provider: str) -> None:
    module = importlib.import_module(f"toolcast.providers.{provider}")
    assert module.format_tools(list(tools.values()))
    for tool in tools.values():
        projection = module.project(tool)
        for note in projection.notes:  # whatever a target rewrote, it says where and why
            assert note.keyword
            assert note.action


def sink_args() -> dict[str, Any]:
    return {
        "ratio": 0.5,
        "weight": 1,
        "small": -3,
        "big": "-9223372036854775808",
        "count": 4294967295,
        "huge": 18446744073709551615,
        "delta": "-5",
        "stamp": "12",
        "flag": True,
        "text": "t",
        "blob": base64.b64encode(b"\x00\x01").decode(),
        "color": "COLOR_RED",
        "colors": ["COLOR_BLUE"],
        "maybe": None,
        "inners": {"k": {"label": "x", "url": "https://u"}},
        "by_number": {"7": "seven"},
        "inner": {"label": "y", "nothing": {}},
        "many": [{"label": "z", "url": "u"}],
        "at": "2024-05-01T12:00:00+02:00",
        "wait": "90s",
        "mask": "ratio,bigWrapped,inner.label",
        "data": {"a": [1, "b", None]},
        "anything": [1, {"x": None}],
        "list": [1, "two"],
        "packed": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1s"},
        "empty": {},
        "big_wrapped": "42",
        "flag_wrapped": None,
        "ratio_wrapped": 2.5,
        "a": "first",
        "c": 3,
    }


def test_arguments_the_schema_accepts_are_arguments_protojson_accepts(
    tools: dict[str, Tool], compiled: Compiled
) -> None:
    from google.protobuf import json_format

    args = sink_args()
    validated = tools["kitchen_sink"].validate(args)
    Draft202012Validator(tools["kitchen_sink"].spec.input_schema).validate(args)
    sink = json_format.ParseDict(validated, compiled.module("kitchen.v1.kitchen_pb2").Sink())
    assert sink.big == -(2**63)
    assert sink.huge == 2**64 - 1
    assert sink.by_number[7] == "seven"
    assert list(sink.mask.paths) == ["ratio", "big_wrapped", "inner.label"]
    assert sink.wait.seconds == 90
    assert sink.inner.HasField("nothing")
    assert not sink.HasField("maybe")
    assert not sink.HasField("flag_wrapped")


@pytest.mark.parametrize(
    ("field", "original_shape"),
    [
        ("wait", {"seconds": 5, "nanos": 0}),
        ("mask", {"paths": ["ratio"]}),
        ("list", {"values": [1]}),
        ("packed", {"type_url": "x", "value": "eA=="}),
    ],
)
def test_the_original_shapes_are_refused_by_protojson_and_by_the_schema(
    tools: dict[str, Tool], compiled: Compiled, field: str, original_shape: Any
) -> None:
    from google.protobuf import json_format

    sink_cls = compiled.module("kitchen.v1.kitchen_pb2").Sink
    with pytest.raises(json_format.ParseError):
        json_format.ParseDict({field: original_shape}, sink_cls())
    if field != "packed":  # an Any is an open object: the schema cannot see inside it
        with pytest.raises(ValueError, match=f"Argument '{field}' must be null or"):
            tools["kitchen_sink"].validate({**sink_args(), field: original_shape})


def test_well_known_shapes(tools: dict[str, Tool]) -> None:
    p = props(tools["kitchen_sink"])
    assert p["wait"]["type"] == ["string", "null"]
    assert p["wait"]["pattern"].endswith("s$")
    assert p["mask"]["type"] == ["string", "null"]
    assert p["at"]["format"] == "date-time"
    assert p["data"]["type"] == ["object", "null"]
    assert p["list"]["type"] == ["array", "null"]
    value = {"$ref": "#/$defs/google_protobuf_Value"}  # any JSON, numbers finite
    assert p["anything"]["anyOf"] == [value, {"type": "null"}]
    assert p["data"]["additionalProperties"] == value
    # An Any lists what it may pack: each branch closed, naming its "@type".
    urls = [b.get("properties", {}).get("@type", {}).get("const") for b in p["packed"]["anyOf"]]
    assert "type.googleapis.com/google.protobuf.Duration" in urls
    assert p["empty"]["properties"] == {}
    assert p["empty"]["additionalProperties"] is False
    assert p["blob"]["contentEncoding"] == "base64"
    assert p["blob"]["pattern"].startswith("^(?:[A-Za-z0-9+/_-]{4})*")
    assert p["big"]["anyOf"][1]["pattern"].endswith(
        "|-(?:0|[1-9][0-9]{0,17}|"
        + (p["big"]["anyOf"][1]["pattern"].split("|-(?:0|[1-9][0-9]{0,17}|", 1)[1])
    )
    assert p["huge"]["anyOf"][0]["maximum"] == 2**64 - 1
    assert p["small"]["minimum"] == -(2**31)
    assert p["small"]["maximum"] == 2**31 - 1
    assert p["small"]["description"] == "Optional; left out, it is 0."
    assert p["by_number"]["description"] == "Keys are integers written as strings."
    assert p["by_number"]["propertyNames"]["pattern"].startswith("^(?:")


def test_enums_leave_out_the_zero_value_on_input_only(tools: dict[str, Tool]) -> None:
    assert props(tools["kitchen_sink"])["color"]["enum"] == ["COLOR_RED", "COLOR_BLUE"]
    output = tools["kitchen_sink"].spec.output_schema
    assert output is not None
    assert output["properties"]["color"]["enum"][0] == "COLOR_UNSPECIFIED"


def test_required_fields(tools: dict[str, Tool]) -> None:
    schema = tools["links_create"].spec.input_schema
    # google.api.field_behavior = REQUIRED only (AIP-203).
    assert schema["required"] == ["destination"]
    assert "metadata" not in schema["properties"]  # skip
    assert "id" not in schema["properties"]  # OUTPUT_ONLY


def test_required_every_scalar_is_the_original_rule(compiled: Compiled) -> None:
    tools = {
        t.name: t for t in tools_from_descriptors(compiled.with_comments, required="every_scalar")
    }
    schema = tools["links_create"].spec.input_schema
    # REQUIRED and plain proto3 scalars; not optional, repeated, map or message
    # fields, nor aliased ids (the model may have none to give).
    assert schema["required"] == ["destination", "shortlink", "kind", "max_clicks"]
    assert "Optional;" not in schema["properties"]["shortlink"]["description"]


def test_descriptions(tools: dict[str, Tool]) -> None:
    p = props(tools["links_create"])
    assert p["destination"]["description"] == "The destination URL."
    assert p["shortlink"]["description"] == (
        "The shortlink (URL slug)\nfor the link.\n\n"
        'Optional; left out, it is "".\n\n'
        "Send an empty string unless the user asked for a specific slug."
    )
    assert p["note"]["description"] == "Private note, never shown to visitors."
    assert p["page_theme_id"]["description"].startswith(
        "Theme to apply, if any.\n\nUse an id returned by another tool; never invent one."
    )
    assert p["cache_ttl"]["description"].startswith("How long the link stays cached.\n\nA duration")
    # The tool description is the annotation's, else the RPC's leading comment.
    assert tools["links_create"].spec.description == "Create a short link."
    assert tools["links_list"].spec.description == "Lists links, newest first."


def test_optional_is_nullable_and_not_required(tools: dict[str, Tool]) -> None:
    schema = tools["kitchen_sink"].spec.input_schema
    assert schema["properties"]["maybe"]["type"] == ["integer", "null"]
    assert "maybe" not in schema.get("required", [])


def test_a_nested_message_with_one_oneof_may_have_none_set(tools: dict[str, Tool]) -> None:
    inner = props(tools["kitchen_sink"])["inner"]
    assert inner["type"] == ["object", "null"]
    assert inner["not"] == {
        "properties": {"url": {"not": {"type": "null"}}, "nothing": {"not": {"type": "null"}}},
        "required": ["url", "nothing"],
    }
    tool = tools["kitchen_sink"]
    tool.validate({**sink_args(), "inner": {"label": "x"}})  # none set: proto allows it
    tool.validate({**sink_args(), "inner": {"label": "x", "url": "u", "nothing": None}})
    with pytest.raises(ValueError, match="Argument 'inner' must not"):
        tool.validate({**sink_args(), "inner": {"label": "x", "url": "u", "nothing": {}}})


def test_two_oneofs_are_flattened_with_a_note(tools: dict[str, Tool]) -> None:
    p = props(tools["kitchen_sink"])
    assert p["a"]["description"] == "Set at most one of: a, b."
    assert p["c"]["type"] == ["integer", "null"]


def test_root_oneof_is_an_object_whose_members_are_optional(tools: dict[str, Tool]) -> None:
    schema = tools["kitchen_choose"].spec.input_schema
    assert schema["type"] == "object"
    # A strict tool: strict grammars have no `not`, so the executor checks the oneof.
    assert "not" not in schema
    assert "anyOf" not in schema
    assert "required" not in schema  # nothing is REQUIRED
    assert set(schema["properties"]) == {"id", "name", "number"}
    from toolcast.providers import openai_chat

    strict = openai_chat.format_tools([tools["kitchen_choose"]])[0]["function"]
    assert strict["strict"] is True
    # Strict's rules still hold: every key required, the members nullable.
    assert strict["parameters"]["required"] == ["id", "name", "number"]


def test_recursion_uses_defs_and_ref(tools: dict[str, Tool]) -> None:
    schema = tools["workflow_tree_import"].spec.input_schema
    node = schema["$defs"]["workflow_v1_Node"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/workflow_v1_Node"}
    assert schema["properties"]["root"]["anyOf"][0] == {"$ref": "#/$defs/workflow_v1_Node"}
    tools["workflow_tree_import"].validate({"root": {"title": "a", "children": [{"title": "b"}]}})


def test_alias_marks_in_both_directions(tools: dict[str, Tool]) -> None:
    mark = "x-toolcast-alias"
    assert props(tools["links_create"])["page_theme_id"][mark] == "theme"
    out = tools["links_create"].spec.output_schema
    assert out is not None
    link = out["properties"]["link"]["properties"]
    assert link["id"][mark] == "link"
    assert link["page_theme_id"][mark] == "theme"
    assert mark not in link["workspace_id"]
    # The primary prefix of a list response comes from its items' id.
    steps = tools["workflow_steps_list"].spec.output_schema
    assert steps is not None
    step = steps["properties"]["steps"]["items"]["properties"]
    assert step["id"][mark] == "step"
    assert step["link_id"][mark] == "link"
    # Nested request messages carry their own marks.
    assert props(tools["links_update"])["link"]["properties"]["id"][mark] == "link"


def test_one_naming_in_both_directions(tools: dict[str, Tool]) -> None:
    out = tools["links_create"].spec.output_schema
    assert out is not None
    assert "page_theme_id" in out["properties"]["link"]["properties"]
    assert "page_theme_id" in props(tools["links_create"])


def compile_set(tmp_path: Any, proto: str) -> bytes:
    out = tmp_path / "set.binpb"
    check(protoc(f"--descriptor_set_out={out}", "--include_imports", proto))
    return bytes(out.read_bytes())


def test_only_zero_enum_and_streaming_are_refused_together(tmp_path: Any) -> None:
    with pytest.raises(ToolDefinitionError) as raised:
        tools_from_descriptors(compile_set(tmp_path, "bad/v1/bad.proto"))
    assert sorted(raised.value.codes) == ["enum-only-zero", "grpc-streaming", "grpc-streaming"]
    text = str(raised.value)
    assert (
        "bad.v1.BadService/Zero mode: enum bad.v1.OnlyZero has only its unspecified value" in text
    )
    assert "bad.v1.BadService/Upload: client-streaming RPCs cannot be tools" in text
    assert "bad.v1.BadService/Chat: bidirectional-streaming" in text


def test_the_ai_context_spelling_reads_by_number(tmp_path: Any) -> None:
    (tool,) = tools_from_descriptors(compile_set(tmp_path, "legacy/v1/legacy.proto"))
    assert tool.name == "legacy_ping"
    assert tool.spec.strict is True
    assert tool.spec.description == "Echo a text."
    assert props(tool)["text"]["description"] == 'What to echo.\n\nOptional; left out, it is "".'


def test_proto_dir_exists() -> None:
    assert (PROTO / "links" / "v1" / "links.proto").is_file()


def test_portability_matrix(tools: dict[str, Tool]) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from providers.portability import build_matrix

    matrix = build_matrix(list(tools.values()))
    refused = {key for key, cell in matrix.cells.items() if cell.status == "refused"}
    # Gemini's OpenAPI `parameters` cannot take references (recursion, and the one
    # definition bounding Struct/Value numbers); every other cell projects.
    refs = {"workflow_tree_import", "kitchen_sink", "kitchen_sink_strict", "links_create"}
    assert refused == {(name, "Gemini `parameters`") for name in refs}
    # Maps, Struct and Any are open objects: strict targets fall back with a note,
    # as they do for `dict[str, T]`.
    dropped = {key for key, cell in matrix.cells.items() if cell.strict_dropped}
    assert {tool for tool, _ in dropped} == {"kitchen_sink_strict"}
    assert matrix.cells["links_list", "OpenAI Chat"].strict_dropped is False


def test_primary_prefix_follows_the_original_rule(compiled: Compiled) -> None:
    from google.protobuf import descriptor_pb2

    from toolcast.grpc._definition import primary_prefix
    from toolcast.grpc._index import DescriptorIndex

    files = descriptor_pb2.FileDescriptorSet.FromString(compiled.with_comments).file
    index = DescriptorIndex(files)
    # From the response's nested id, although the request's id is OUTPUT_ONLY.
    assert primary_prefix(index, "links.v1.CreateLinkRequest", "links.v1.CreateLinkResponse") == (
        "link"
    )
    # From the items' id, although the request only has link_id.
    assert primary_prefix(
        index, "workflow.v1.ListStepsRequest", "workflow.v1.ListStepsResponse"
    ) == ("step")
    # Nothing in the response: the request's first annotated field.
    assert primary_prefix(
        index, "workflow.v1.WatchStepsRequest", "workflow.v1.ImportTreeResponse"
    ) == ("link")
    assert primary_prefix(index, "links.v1.SlowRequest", "links.v1.SlowResponse") == ""


def test_importing_the_wing_imports_neither_grpc_nor_protobuf() -> None:
    import subprocess
    import sys

    code = (
        "import sys, toolcast.grpc; "
        "assert not [m for m in sys.modules if m.startswith(('grpc', 'google'))]"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
