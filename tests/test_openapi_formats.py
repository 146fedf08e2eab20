"""Issue 21, defect 2: OpenAPI numeric formats are accepted and asserted as named.

`int32`/`int64` (and the registry's other integer formats) check their range, `float`
and `double` the finite range of binary32/binary64; any format on a node whose type
allows no strings is an annotation; what cannot be checked is refused with the reason.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types as genai_types

from toolcast import Tool
from toolcast.errors import ToolDefinitionError
from toolcast.providers import anthropic, gemini, ollama, openai_chat


def _tool(prop: dict[str, Any]) -> Tool:
    schema = {"type": "object", "properties": {"n": prop}, "required": ["n"]}
    return Tool.from_schema("measure", "Measure.", schema, lambda args: args["n"])


@pytest.mark.parametrize(
    ("kind", "fmt"),
    [
        ("number", "float"),
        ("number", "double"),
        ("integer", "int32"),
        ("integer", "int64"),
        ("number", "int32"),
        ("integer", "uint64"),
    ],
)
def test_defect_2_numeric_formats_are_defined(kind: str, fmt: str) -> None:
    tool = _tool({"type": kind, "format": fmt})
    assert tool.spec.input_schema["properties"]["n"] == {"type": kind, "format": fmt}
    assert tool.invoke_sync('{"n": 7}').value == 7


@pytest.mark.parametrize(
    ("fmt", "inside", "outside", "message"),
    [
        ("int32", 2**31 - 1, 2**31, "must be an int32, from -2147483648 to 2147483647"),
        ("int32", -(2**31), -(2**31) - 1, "must be an int32, from -2147483648 to 2147483647"),
        ("int64", 2**63 - 1, 2**63, f"must be an int64, from {-(2**63)} to {2**63 - 1}"),
        ("uint8", 255, -1, "must be a uint8, from 0 to 255"),
    ],
)
def test_defect_2_integer_formats_check_their_range(
    fmt: str, inside: int, outside: int, message: str
) -> None:
    tool = _tool({"type": "integer", "format": fmt})
    assert tool.invoke_sync(f'{{"n": {inside}}}').value == inside
    outcome = tool.invoke_sync(f'{{"n": {outside}}}')
    assert outcome.text == f"Argument 'n' {message} (got {outside})."


def test_defect_2_int64_range_is_checked_on_exponent_spellings() -> None:
    tool = _tool({"type": "integer", "format": "int64"})
    assert tool.invoke_sync('{"n": 9.2e18}').value == 9_200_000_000_000_000_000
    assert tool.invoke_sync('{"n": 9.3e18}').text.startswith("Argument 'n' must be an int64")


def test_defect_2_float_and_double_check_only_their_finite_range() -> None:
    single = _tool({"type": "number", "format": "float"})
    assert single.invoke_sync('{"n": 0.1}').value == 0.1  # precision is not asserted
    assert single.invoke_sync('{"n": 3.4e38}').value == 34 * 10**37  # exact, as every number
    assert single.invoke_sync('{"n": 3.5e38}').text == (
        "Argument 'n' must be within a float32's range, ±3.4028234663852886e+38 "
        "(format float) (got 350000000000000000000000000000000000000)."
    )
    double = _tool({"type": "number", "format": "double"})
    assert double.invoke_sync('{"n": 1e308}').value == 10**308
    assert double.invoke_sync('{"n": 1e309}').text.startswith(
        "Argument 'n' must be within a double's range, ±1.7976931348623157e+308 (format double)"
    )


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "number", "format": "currency"},
        {"type": "integer", "format": "date-time"},
        {"type": "boolean", "format": "flag"},
        {"type": "array", "format": "csv", "items": {"type": "string"}},
        {"type": ["integer", "null"], "format": "int32"},
    ],
)
def test_defect_2_a_format_no_check_touches_is_an_annotation(prop: dict[str, Any]) -> None:
    tool = _tool(prop)
    assert tool.spec.input_schema["properties"]["n"] == prop
    sample = {"number": "1.5", "integer": "3", "boolean": "true", "array": '["a"]'}
    kind = prop["type"] if isinstance(prop["type"], str) else "integer"
    assert not tool.invoke_sync('{"n": ' + sample[kind] + "}").is_error


@pytest.mark.parametrize(
    ("prop", "reason"),
    [
        ({"type": "string", "format": "int64"}, "also allows strings"),
        ({"format": "int32"}, "also allows values of any type"),
        ({"type": "string", "format": "currency"}, "format 'currency' cannot be checked"),
        ({"format": "currency"}, "format 'currency' cannot be checked"),
    ],
)
def test_defect_2_what_cannot_be_checked_is_refused_with_the_reason(
    prop: dict[str, Any], reason: str
) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        _tool(prop)
    [problem] = caught.value.problems
    assert problem.code == "unsupported-format"
    assert problem.path == "/properties/n/format"
    assert reason in problem.message


def test_defect_2_string_formats_are_still_asserted() -> None:
    tool = _tool({"type": "string", "format": "date"})
    assert tool.invoke_sync('{"n": "2024-05-01"}').value == "2024-05-01"
    assert tool.invoke_sync('{"n": "May 1st"}').is_error


def _gemini_parameters(tool: Tool, variant: str) -> dict[str, Any]:
    [declarations] = gemini.format_tools([tool], variant=variant)  # type: ignore[arg-type]
    declaration = declarations["functionDeclarations"][0]
    key = "parametersJsonSchema" if variant == "json_schema" else "parameters"
    return declaration[key]["properties"]["n"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("variant", ["json_schema", "openapi"])
@pytest.mark.parametrize(
    ("kind", "fmt", "kept"),
    [
        ("integer", "int32", True),
        ("integer", "int64", True),
        ("number", "float", True),
        ("number", "double", True),
        ("number", "int64", False),  # Gemini lists int64 for INTEGER only
        ("integer", "uint8", False),
        ("integer", "double", False),
    ],
)
def test_defect_2_gemini_keeps_each_numeric_format_on_its_own_type(
    variant: str, kind: str, fmt: str, kept: bool
) -> None:
    prop = _gemini_parameters(_tool({"type": kind, "format": fmt}), variant)
    if kept:
        assert prop["format"] == fmt
    else:
        assert "format" not in prop
        assert f"Format: {fmt}." in prop["description"]


def test_defect_2_gemini_projection_is_accepted_by_the_sdk_types() -> None:
    tool = _tool({"type": "integer", "format": "int64"})
    [declarations] = gemini.format_tools([tool], variant="openapi")
    sdk = genai_types.Tool.model_validate(declarations)
    parameters = sdk.function_declarations[0].parameters  # type: ignore[index,union-attr]
    assert parameters.properties["n"].format == "int64"  # type: ignore[union-attr,index]


def test_defect_2_targets_without_numeric_formats_move_them_to_words() -> None:
    tool = _tool({"type": "integer", "format": "int32"})
    strict = openai_chat.format_tools([tool])[0]["function"]["parameters"]["properties"]["n"]
    assert "format" not in strict
    assert "Format: int32." in strict["description"]
    claude = anthropic.format_tools([tool], strict=True)[0]["input_schema"]["properties"]["n"]
    assert "format" not in claude
    local = ollama.format_tools([tool])[0]["function"]["parameters"]["properties"]["n"]
    assert "format" not in local
