"""The projection cache behind every target's `format_tools` and `project`.

Claims pinned here (src/toolcast/providers/_projection.py):
- `format_tools` gives what `thaw(project(...).definition)` gives, value for value
  and type for type, whichever of the two a process calls first;
- JSON values in a schema (`const`, `default`, `enum`, `examples`) come back
  exactly: -0.0 keeps its sign, 1.0 stays a float, big ints stay whole;
- values JSON cannot carry (Decimal, tuple, NaN, a lone surrogate) come back as
  they were given, as before the cache kept JSON;
- every `format_tools` call returns new, plain, mutable dicts and lists;
- `project(...).definition` is read-only and the same object on every call;
- a spec's entries go when the spec does.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import math
from decimal import Decimal
from typing import Any

import pytest

from toolcast import ToolSpec
from toolcast._frozen import thaw
from toolcast.errors import UnsupportedSchemaError
from toolcast.providers import _projection

# (provider module, options both `format_tools` and `project` take)
TARGETS: list[tuple[str, dict[str, Any]]] = [
    ("openai_chat", {}),
    ("openai_chat", {"strict": False}),
    ("openai_responses", {}),
    ("openai_responses", {"output_schema": True}),
    ("openai_realtime", {}),
    ("anthropic", {}),
    ("anthropic", {"strict": False}),
    ("gemini", {}),
    ("gemini", {"variant": "openapi"}),
    ("bedrock", {"strict": False}),
    ("mistral", {}),
    ("ollama", {}),
    ("ollama", {"full_schema": True}),
    ("mcp", {}),
    ("hermes", {}),
]
IDS = [module + "".join(f"-{k}={v}" for k, v in options.items()) for module, options in TARGETS]

JSON_VALUES: list[Any] = [
    -0.0,
    0.0,
    1.0,
    1,
    True,
    False,
    None,
    2**70,
    -(2**64) - 1,
    0.1,
    5e-324,
    1.7976931348623157e308,
    123456789.125,
    "",
    'é\u2028\x00😀\\"',
    [1, 1.0, True, [-0.0]],
    {"x": -0.0, "y": [2**63]},
]


def exact(a: Any, b: Any) -> bool:
    """Equal as JSON values and of the same types (dicts and lists of any subclass)."""
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and list(a) == list(b)
            and all(type(k) is type(b_k) for k, b_k in zip(a, b, strict=True))
            and all(exact(v, b[k]) for k, v in a.items())
        )
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(exact, a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a):
            return math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def containers(value: Any) -> list[Any]:
    """Every dict and list inside `value`, itself included."""
    found = [value] if isinstance(value, dict | list) else []
    children = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    )
    for child in children:
        found += containers(child)
    return found


def fresh(spec: ToolSpec) -> ToolSpec:
    """An equal spec the cache has never seen."""
    return dataclasses.replace(spec)


def valued_spec(values: list[Any]) -> ToolSpec:
    properties = {
        f"p{i}": {"const": value, "default": value, "enum": [value], "examples": [value]}
        for i, value in enumerate(values)
    }
    schema = {"type": "object", "properties": properties}
    return ToolSpec(name="valued", description="Values.", input_schema=schema, strict=False)


def module_of(name: str) -> Any:
    return importlib.import_module(f"toolcast.providers.{name}")


def accepts(module: Any, spec: ToolSpec, options: dict[str, Any]) -> bool:
    """Whether the target takes the tool (Gemini's OpenAPI form refuses recursion)."""
    try:
        module.format_tools([fresh(spec)], **options)
    except UnsupportedSchemaError:
        return False
    return True


@pytest.mark.parametrize(("module_name", "options"), TARGETS, ids=IDS)
def test_format_tools_matches_project_whichever_comes_first(
    module_name: str, options: dict[str, Any], corpus: list[Any]
) -> None:
    module = module_of(module_name)
    specs = [t.spec for t in corpus if accepts(module, t.spec, options)]
    assert len(specs) > len(corpus) - 3
    batches = [specs[i : i + 20] for i in range(0, len(specs), 20)]
    for batch in batches:
        format_first = [fresh(s) for s in batch]
        formatted = module.format_tools(format_first, **options)
        projected = [thaw(module.project(s, **options).definition) for s in format_first]
        project_first = [fresh(s) for s in batch]
        projected_first = [thaw(module.project(s, **options).definition) for s in project_first]
        formatted_after = module.format_tools(project_first, **options)
        if module_name == "gemini":  # one {"functionDeclarations": [...]} around them
            formatted = formatted[0]["functionDeclarations"]
            formatted_after = formatted_after[0]["functionDeclarations"]
        assert exact(formatted, projected)
        assert exact(formatted_after, projected_first)
        assert exact(formatted, formatted_after)


@pytest.mark.parametrize(("module_name", "options"), TARGETS, ids=IDS)
def test_format_tools_keeps_json_values_exact(module_name: str, options: dict[str, Any]) -> None:
    module = module_of(module_name)
    spec = valued_spec(JSON_VALUES)
    formatted = module.format_tools([spec], **options)
    again = module.format_tools([spec], **options)
    projected = thaw(module.project(spec, **options).definition)
    if module_name == "gemini":
        formatted, again = (r[0]["functionDeclarations"][0] for r in (formatted, again))
    else:
        formatted, again = formatted[0], again[0]
    assert exact(formatted, projected)
    assert exact(again, projected)


def test_schema_as_is_target_returns_json_values_untouched() -> None:
    from toolcast.providers import hermes

    spec = valued_spec(JSON_VALUES)
    hermes.format_tools([spec])  # the first call fills the cache
    (definition,) = hermes.format_tools([spec])
    assert exact(definition["function"]["parameters"], spec.input_schema)
    zero = definition["function"]["parameters"]["properties"]["p0"]["const"]
    assert math.copysign(1.0, zero) == -1.0
    assert definition["function"]["parameters"]["properties"]["p7"]["enum"] == [2**70]


@pytest.mark.parametrize(
    "value",
    [Decimal("1.50"), (1, 2), float("nan"), float("inf"), "\udc80", type("Name", (str,), {})("x")],
    ids=["decimal", "tuple", "nan", "inf", "lone-surrogate", "str-subclass"],
)
def test_values_json_cannot_carry_come_back_as_given(value: Any) -> None:
    from toolcast.providers import hermes, mcp

    for module in (hermes, mcp):
        spec = valued_spec([value, 1.0])
        first = module.format_tools([spec])
        second = module.format_tools([spec])
        for result in (first, second):
            schema = (
                result[0]["function"]["parameters"]
                if module is hermes
                else result[0]["inputSchema"]
            )
            const = schema["properties"]["p0"]["const"]
            assert type(const) is type(value)
            assert exact(const, value)
            assert exact(schema["properties"]["p1"]["const"], 1.0)
        schema["properties"]["p0"]["default"] = "changed"  # still a fresh copy
        assert module.format_tools([spec]) == first


@pytest.mark.parametrize(("module_name", "options"), TARGETS, ids=IDS)
def test_format_tools_returns_new_plain_mutable_dicts(
    module_name: str, options: dict[str, Any], corpus: list[Any]
) -> None:
    module = module_of(module_name)
    tools = corpus[:20]
    before = module.format_tools(tools, **options)
    first = module.format_tools(tools, **options)
    for container in containers(first):
        assert type(container) in (dict, list)
        if isinstance(container, dict):
            container["x-edited"] = True
        else:
            container.append("edited")
    second = module.format_tools(tools, **options)
    assert exact(second, before)
    seen = {id(c) for c in containers(first)}
    assert not any(id(c) in seen for c in containers(second))


@pytest.mark.parametrize(("module_name", "options"), TARGETS, ids=IDS)
def test_project_definition_is_read_only_and_shared(
    module_name: str, options: dict[str, Any], corpus: list[Any]
) -> None:
    module = module_of(module_name)
    spec = fresh(corpus[3].spec)  # `defaults`: a nested schema
    module.format_tools([spec], **options)  # the JSON form first
    projection = module.project(spec, **options)
    assert module.project(spec, **options) is projection
    nested = containers(projection.definition)
    assert len(nested) > 2
    for container in nested:
        edit = container.__setitem__ if isinstance(container, dict) else container.insert
        with pytest.raises(TypeError, match="read-only"):
            edit(0, "edited")


def test_entries_go_with_their_spec(corpus: list[Any]) -> None:
    from toolcast.providers import openai_chat

    def held() -> tuple[int, int, int]:
        return len(_projection._WIRES), len(_projection._FULL), len(_projection._WATCHED)

    gc.collect()
    wires, full, watched = held()
    specs = [fresh(t.spec) for t in corpus[:30]]
    openai_chat.format_tools(specs)
    openai_chat.project(specs[0])
    openai_chat.project(specs[0], strict=False)
    assert held() == (wires + 30, full + 2, watched + 30)
    del specs
    gc.collect()
    assert held() == (wires, full, watched)
