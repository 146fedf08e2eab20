"""Signatures that cannot become tools are refused when the tool is defined.

Each problem has a stable code (docs/errors.md) and names the function's
qualified name and the parameter path; every problem is reported in one error.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import pytest
from annotated_types import Ge, MinLen
from pydantic import AliasPath, BaseModel, Field

from toolcast import Injected, Param, Tool, ToolContext, ToolDefinitionError, tool

T = TypeVar("T")


class Plain:
    """A class with no schema: not a dataclass, TypedDict, NamedTuple or model."""

    def __init__(self, value: int) -> None:
        self.value = value


class Shape(enum.Enum):
    POINT = (0, 0)


@dataclass
class Holder:
    plain: Plain


class Nested(BaseModel):
    value: int = Field(validation_alias=AliasPath("data", 0))


def refused(fn: Any, **options: Any) -> ToolDefinitionError:
    with pytest.raises(ToolDefinitionError) as caught:
        Tool.from_function(fn, **options)
    return caught.value


# -- one problem each -------------------------------------------------------------------


def var_positional(*names: str) -> None:
    return None


def var_keyword(**options: int) -> None:
    return None


def plain_class(item: Plain) -> None:
    return None


def callable_param(callback: Callable[[int], int]) -> None:
    return None


def int_keys(counts: dict[int, str]) -> None:
    return None


def generic(value: T) -> None:
    return None


def unannotated(value) -> None:
    return None


def unresolved(value: Missing) -> None:  # noqa: F821
    return None


def object_param(value: object) -> None:
    return None


def nested_plain(rows: list[dict[str, Holder]]) -> None:
    return None


def bound_on_text(text: Annotated[str, Ge(1)]) -> None:
    return None


def length_on_int(count: Annotated[int, MinLen(1)]) -> None:
    return None


def bad_pattern(code: Annotated[str, Field(pattern="(?<=a")]) -> None:
    return None


def set_of_lists(groups: set[list[int]]) -> None:
    return None


def tuple_enum(shape: Shape) -> None:
    return None


def bytes_literal(mode: Literal[b"raw"]) -> None:
    return None


def two_contexts(a: ToolContext, b: ToolContext) -> None:
    return None


def nested_injected(values: list[Annotated[int, Injected("n")]]) -> None:
    return None


def alias_path(item: Nested) -> None:
    return None


def plain_return() -> Plain:
    return Plain(1)


@tool(params={"q": Param(name="shared")})
def duplicate_names(q: str, shared: str) -> None:
    return None


@tool(params={"missing": "A parameter that does not exist."})
def unknown_override(q: str) -> None:
    return None


CASES: list[tuple[Any, str, str]] = [
    (var_positional, "var-positional", "names"),
    (var_keyword, "var-keyword", "options"),
    (plain_class, "unsupported-type", "item"),
    (callable_param, "unsupported-type", "callback"),
    (object_param, "unsupported-type", "value"),
    (nested_plain, "unsupported-type", "rows[]{}.plain"),
    (int_keys, "non-str-dict-key", "counts"),
    (generic, "type-var", "value"),
    (unannotated, "missing-annotation", "value"),
    (unresolved, "unresolved-annotation", "value"),
    (bound_on_text, "constraint-mismatch", "text"),
    (length_on_int, "constraint-mismatch", "count"),
    (bad_pattern, "invalid-pattern", "code"),
    (set_of_lists, "unhashable-set", "groups"),
    (tuple_enum, "enum-values", "shape"),
    (bytes_literal, "literal-values", "mode"),
    (two_contexts, "duplicate-context", "b"),
    (nested_injected, "injected-nested", "values[]"),
    (alias_path, "unsupported-alias", "item.value"),
    (plain_return, "unsupported-type", "return"),
    (duplicate_names, "duplicate-name", "shared"),
    (unknown_override, "unknown-param-override", "missing"),
]


@pytest.mark.parametrize(
    ("fn", "code", "path"), CASES, ids=[c[1] + "-" + c[0].__name__ for c in CASES]
)
def test_refused_with_its_code_and_path(fn: Any, code: str, path: str) -> None:
    error = refused(fn)
    assert error.codes == (code,)
    assert error.problems[0].path == path
    assert error.qualname == fn.__qualname__
    assert str(error).startswith(f"{fn.__qualname__} cannot become a tool (1 problem):\n")
    assert f"[{code}] {path}: " in str(error)


def test_definition_error_is_a_type_error() -> None:
    assert isinstance(refused(var_positional), TypeError)


# -- names ----------------------------------------------------------------------------


def documented(x: int) -> None:
    return None


@pytest.mark.parametrize("name", ["has space", "", "x" * 65, "dotted.name", "café"])
def test_invalid_names_are_refused(name: str) -> None:
    error = refused(documented, name=name)
    assert error.codes == ("invalid-name",)
    assert error.problems[0].path == ""
    assert "^[A-Za-z0-9_-]{1,64}$" in error.problems[0].message


def test_from_schema_checks_the_name_too() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        Tool.from_schema("no spaces please", "", {"type": "object"}, lambda args: args)
    assert caught.value.codes == ("invalid-name",)


# -- methods --------------------------------------------------------------------------


class Service:
    def lookup(self, key: str) -> str:
        return f"{id(self)}:{key}"

    @tool
    def decorated(self, key: str) -> str:
        return key


@pytest.mark.parametrize("fn", [Service.lookup, Service.decorated], ids=["plain", "decorated"])
def test_unbound_method_without_instance_or_resolver_is_refused(fn: Any) -> None:
    error = refused(fn)
    assert error.codes == ("unbound-method",)
    assert error.problems[0].path == "self"
    assert error.qualname == fn.__qualname__


def test_unbound_method_with_instance_or_resolver_is_accepted() -> None:
    service = Service()
    by_instance = Tool.from_function(Service.lookup, instance=service)
    by_resolver = Tool.from_function(Service.lookup, resolver=lambda tool, call: service)
    bound = Tool.from_function(service.lookup)
    for t in (by_instance, by_resolver, bound):
        assert t.invoke_sync('{"key": "k"}').text == f"{id(service)}:k"
        assert list(t.spec.input_schema["properties"]) == ["key"]


# -- all problems at once ---------------------------------------------------------------


def many_problems(
    *args: int,
    callback: Callable[[], None],
    counts: dict[int, str],
    untyped,
    items: list[Plain],
    **kwargs: Any,
) -> T:
    return None


def test_every_problem_is_reported_once_in_signature_order() -> None:
    error = refused(many_problems, name="many problems")
    assert str(error) == (
        "many_problems cannot become a tool (8 problems):\n"
        "  [invalid-name] tool name 'many problems' must match ^[A-Za-z0-9_-]{1,64}$ "
        "(letters, digits, '_' and '-', at most 64 characters).\n"
        "  [var-positional] args: *args cannot be described to a model; use a list parameter.\n"
        "  [unsupported-type] callback: callables cannot be sent by a model.\n"
        "  [non-str-dict-key] counts: dict keys must be str (JSON object keys are strings), "
        "got int.\n"
        "  [missing-annotation] untyped: parameter has no type annotation; annotate it "
        "(use typing.Any to accept any JSON value).\n"
        "  [unsupported-type] items[]: type Plain has no JSON Schema; use a dataclass, "
        "TypedDict, pydantic model, or a builtin type.\n"
        "  [var-keyword] kwargs: **kwargs cannot be described to a model; declare each "
        "argument, or take a dict parameter.\n"
        "  [type-var] return: type variable T cannot become a schema; use a concrete type "
        "(generic functions are not tools)."
    )
    assert error.codes == (
        "invalid-name",
        "var-positional",
        "unsupported-type",
        "non-str-dict-key",
        "missing-annotation",
        "unsupported-type",
        "var-keyword",
        "type-var",
    )


def test_problems_are_data() -> None:
    problem = refused(int_keys).problems[0]
    assert (problem.code, problem.path) == ("non-str-dict-key", "counts")
    assert problem.message == "dict keys must be str (JSON object keys are strings), got int."


# -- docs/errors.md lists exactly the codes the source raises ------------------------------

ROOT = Path(__file__).resolve().parents[1]
_RAISED = re.compile(
    r'(?:DefinitionProblem|self\.problem|builder\.problem|self\.fail)\(\s*(?:path,\s*)?"([a-z]+(?:-[a-z]+)+)"'
)


def test_errors_page_lists_every_code_the_source_raises() -> None:
    sources = (ROOT / "src" / "toolcast").rglob("*.py")
    raised = {code for path in sources for code in _RAISED.findall(path.read_text())}
    page = (ROOT / "docs" / "errors.md").read_text().split("### Codes", 1)[1]
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", page, flags=re.MULTILINE))
    assert documented == raised


def test_an_unbound_method_is_reported_with_the_other_problems_in_one_error() -> None:
    class Shop:
        def order(self, *items):  # type: ignore[no-untyped-def]
            return items

    with pytest.raises(ToolDefinitionError) as info:
        Tool.from_function(Shop.order)
    assert set(info.value.codes) == {"unbound-method", "var-positional"}
