"""The schema contract (docs/schema.md), row by row, with exact JSON.

Fragments are compared as compact JSON text, so keyword order is pinned too.
Every schema built here also passes the draft 2020-12 metaschema check.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import decimal
import enum
import inspect
import json
import pathlib
import re
import typing
import uuid
from collections.abc import Iterable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NamedTuple, Optional, Union

import pytest
from annotated_types import Ge, Gt, Interval, Le, Len, Lt, MaxLen, MinLen, MultipleOf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import (
    AliasChoices,
    AnyUrl,
    BaseModel,
    ConfigDict,
    EmailStr,
    Field,
    HttpUrl,
    PrivateAttr,
)
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import Doc, NotRequired, Required, TypeAliasType, TypedDict

from corpus import CORPUS
from toolcast import (
    ImagePart,
    Injected,
    JsonPart,
    Param,
    TextPart,
    Tool,
    ToolContext,
    ToolDefinitionError,
    ToolResult,
    tool,
)
from toolcast._define._formats import (
    DURATION_PATTERN,
    LOCAL_DATETIME_PATTERN,
    LOCAL_TIME_PATTERN,
    NUMBER_TEXT_PATTERN,
)
from toolcast._define._schema import KEY_ORDER
from toolcast._frozen import thaw
from toolcast.typing import JsonValue

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def checked(schema: Any) -> dict[str, Any]:
    plain = thaw(schema)
    Draft202012Validator.check_schema(plain)
    return plain


def make_tool(annotation: Any, default: Any = inspect.Parameter.empty, **options: Any) -> Tool:
    """A tool with one parameter `x` of `annotation`."""

    def fn(x):
        return None

    fn.__annotations__ = {"x": annotation, "return": None}
    if default is not inspect.Parameter.empty:
        fn.__defaults__ = (default,)
    return Tool.from_function(fn, **options)


def fragment(annotation: Any, default: Any = inspect.Parameter.empty) -> str:
    """The compact JSON of parameter `x`'s property for `annotation`."""
    schema = checked(make_tool(annotation, default).spec.input_schema)
    return compact(schema["properties"]["x"])


def input_schema(fn: Any, **options: Any) -> str:
    return compact(checked(Tool.from_function(fn, **options).spec.input_schema))


def output_schema(fn: Any) -> str | None:
    schema = Tool.from_function(fn).spec.output_schema
    return None if schema is None else compact(checked(schema))


# -- types used below (module level, so string annotations resolve) -------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 3


class Mixed(enum.Enum):
    AUTO = "auto"
    ZERO = 0


class Ratio(enum.Enum):
    HALF = 0.5
    FULL = 1.0


@dataclass
class Point:
    """A point on a plane."""

    x: float
    y: float = 0.0


@dataclass
class Labelled(Point):
    """A point with a label.

    Attributes:
        label: What the point marks.
    """

    label: str = "here"
    tags: list[str] = field(default_factory=list)


class Address(TypedDict):
    street: str
    zip: NotRequired[str]


class Options(TypedDict, total=False):
    verbose: bool
    depth: Required[int]


class Span(NamedTuple):
    start: int
    end: int = 0


class Person(BaseModel):
    """Someone in the directory."""

    full_name: str = Field(alias="fullName", description="Full name.")
    age: int = Field(ge=0, le=150)
    nickname: str | None = None
    _secret: str = PrivateAttr(default="hidden")


class Login(BaseModel):
    user: str = Field(validation_alias=AliasChoices("username", "user"))


class Contact(BaseModel):
    email: EmailStr
    site: HttpUrl
    feed: AnyUrl


class Tree(BaseModel):
    """A tree node."""

    label: str
    children: list[Tree] = []


@dataclass
class Dept:
    name: str
    staff: list[Employee] = field(default_factory=list)


@dataclass
class Employee:
    name: str
    dept: Dept | None = None


UserId = typing.NewType("UserId", int)
Name = TypeAliasType("Name", str)


class Outer:
    @dataclass
    class Node:
        kids: list[Outer.Node] = field(default_factory=list)


@dataclass
class Node:
    kids: list[Node] = field(default_factory=list)


# -- types ----------------------------------------------------------------------------

TYPE_ROWS: list[tuple[str, Any, str]] = [
    ("bool_is_boolean", bool, '{"type":"boolean"}'),
    ("int_is_integer", int, '{"type":"integer"}'),
    ("float_is_number", float, '{"type":"number"}'),
    (
        "decimal_is_number_or_numeric_string",
        decimal.Decimal,
        compact(
            {"anyOf": [{"type": "number"}, {"type": "string", "pattern": NUMBER_TEXT_PATTERN}]}
        ),
    ),
    (
        "bounded_decimal_is_number",
        Annotated[decimal.Decimal, Ge(0)],
        '{"type":"number","minimum":0}',
    ),
    ("str_is_string", str, '{"type":"string"}'),
    ("bytes_are_base64", bytes, '{"type":"string","contentEncoding":"base64"}'),
    (
        "datetime_is_date_time_offset_optional",
        dt.datetime,
        compact(
            {
                "anyOf": [
                    {"type": "string", "format": "date-time"},
                    {"type": "string", "pattern": LOCAL_DATETIME_PATTERN},
                ]
            }
        ),
    ),
    ("date_is_date", dt.date, '{"type":"string","format":"date"}'),
    (
        "time_is_time_offset_optional",
        dt.time,
        compact(
            {
                "anyOf": [
                    {"type": "string", "format": "time"},
                    {"type": "string", "pattern": LOCAL_TIME_PATTERN},
                ]
            }
        ),
    ),
    (
        "timedelta_is_duration_with_pattern",
        dt.timedelta,
        compact({"type": "string", "format": "duration", "pattern": DURATION_PATTERN}),
    ),
    ("uuid_is_uuid", uuid.UUID, '{"type":"string","format":"uuid"}'),
    ("path_is_string", pathlib.Path, '{"type":"string"}'),
    ("pure_path_is_string", pathlib.PurePath, '{"type":"string"}'),
    ("str_enum_lists_values_in_order", Color, '{"type":"string","enum":["red","green"]}'),
    ("int_enum_is_integer_enum", Priority, '{"type":"integer","enum":[1,3]}'),
    ("float_enum_is_number_enum", Ratio, '{"type":"number","enum":[0.5,1.0]}'),
    ("mixed_enum_has_no_type", Mixed, '{"enum":["auto",0]}'),
    ("str_literal", Literal["fast", "slow"], '{"type":"string","enum":["fast","slow"]}'),
    ("int_literal", Literal[1, 2], '{"type":"integer","enum":[1,2]}'),
    ("mixed_literal_has_no_type", Literal["auto", 0, True], '{"enum":["auto",0,true]}'),
    ("literal_of_enum_member_is_its_value", Literal[Color.RED], '{"type":"string","enum":["red"]}'),
    ("optional_adds_null_to_type", Optional[int], '{"type":["integer","null"]}'),  # noqa: UP045 - the typing spelling
    ("pipe_none_adds_null_to_type", int | None, '{"type":["integer","null"]}'),
    (
        "optional_enum_gains_null",
        Color | None,
        '{"type":["string","null"],"enum":["red","green",null]}',
    ),
    ("union_is_any_of", int | str, '{"anyOf":[{"type":"integer"},{"type":"string"}]}'),
    ("typing_union_is_any_of", Union[int, str], '{"anyOf":[{"type":"integer"},{"type":"string"}]}'),  # noqa: UP007
    (
        "optional_union_adds_null_branch",
        int | str | None,
        '{"anyOf":[{"type":"integer"},{"type":"string"},{"type":"null"}]}',
    ),
    ("list", list[int], '{"type":"array","items":{"type":"integer"}}'),
    ("sequence", Sequence[int], '{"type":"array","items":{"type":"integer"}}'),
    ("mutable_sequence", MutableSequence[int], '{"type":"array","items":{"type":"integer"}}'),
    ("iterable", Iterable[int], '{"type":"array","items":{"type":"integer"}}'),
    ("variadic_tuple", tuple[int, ...], '{"type":"array","items":{"type":"integer"}}'),
    ("bare_list_takes_any_items", list, '{"type":"array","items":{}}'),
    (
        "fixed_tuple_uses_prefix_items",
        tuple[int, str],
        '{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],'
        '"minItems":2,"maxItems":2}',
    ),
    ("empty_tuple_is_empty_array", tuple[()], '{"type":"array","maxItems":0}'),
    (
        "set_has_unique_items",
        set[int],
        '{"type":"array","items":{"type":"integer"},"uniqueItems":true}',
    ),
    (
        "frozenset_has_unique_items",
        frozenset[str],
        '{"type":"array","items":{"type":"string"},"uniqueItems":true}',
    ),
    (
        "dict_is_open_map",
        dict[str, int],
        '{"type":"object","additionalProperties":{"type":"integer"}}',
    ),
    (
        "mapping_is_open_map",
        Mapping[str, int],
        '{"type":"object","additionalProperties":{"type":"integer"}}',
    ),
    ("newtype_is_its_supertype", UserId, '{"type":"integer"}'),
    ("type_alias_is_its_value", Name, '{"type":"string"}'),
    ("any_is_empty_schema", Any, "{}"),
    ("json_value_is_empty_schema", JsonValue, "{}"),
    (
        "optional_list_adds_null_to_type",
        list[str] | None,
        '{"type":["array","null"],"items":{"type":"string"}}',
    ),
    (
        "nested_containers",
        dict[str, list[tuple[int, ...]]],
        '{"type":"object","additionalProperties":{"type":"array","items":'
        '{"type":"array","items":{"type":"integer"}}}}',
    ),
]


@pytest.mark.parametrize(
    ("annotation", "expected"), [r[1:] for r in TYPE_ROWS], ids=[r[0] for r in TYPE_ROWS]
)
def test_type_fragment(annotation: Any, expected: str) -> None:
    assert fragment(annotation) == expected


def json_payload(payload: JsonValue, many: list[JsonValue]) -> None:
    return None


def test_json_value_alias_in_a_signature_is_any_json() -> None:
    assert input_schema(json_payload) == (
        '{"type":"object","properties":{"payload":{},"many":{"type":"array","items":{}}},'
        '"required":["payload","many"],"additionalProperties":false}'
    )


def test_unions_never_use_one_of() -> None:
    for fn in CORPUS:
        assert "oneOf" not in json.dumps(thaw(Tool.from_function(fn).spec.input_schema))


# -- objects --------------------------------------------------------------------------


def test_dataclass_is_a_closed_object_described_by_its_docstring() -> None:
    assert fragment(Point) == (
        '{"type":"object","description":"A point on a plane.","properties":'
        '{"x":{"type":"number"},"y":{"type":"number","default":0.0}},'
        '"required":["x"],"additionalProperties":false}'
    )


def test_dataclass_fields_come_base_first_with_attribute_docs() -> None:
    assert fragment(Labelled) == (
        '{"type":"object","description":"A point with a label.","properties":'
        '{"x":{"type":"number"},"y":{"type":"number","default":0.0},'
        '"label":{"type":"string","description":"What the point marks.","default":"here"},'
        '"tags":{"type":"array","items":{"type":"string"}}},'
        '"required":["x"],"additionalProperties":false}'
    )


def test_typeddict_required_follows_not_required() -> None:
    assert fragment(Address) == (
        '{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":"string"}},'
        '"required":["street"],"additionalProperties":false}'
    )


def test_typeddict_total_false_requires_only_required_keys() -> None:
    assert fragment(Options) == (
        '{"type":"object","properties":{"verbose":{"type":"boolean"},"depth":{"type":"integer"}},'
        '"required":["depth"],"additionalProperties":false}'
    )


def test_namedtuple_is_an_object_of_its_fields() -> None:
    assert fragment(Span) == (
        '{"type":"object","properties":{"start":{"type":"integer"},'
        '"end":{"type":"integer","default":0}},"required":["start"],"additionalProperties":false}'
    )


def test_model_uses_aliases_descriptions_and_constraints_not_private_attributes() -> None:
    assert fragment(Person) == (
        '{"type":"object","description":"Someone in the directory.","properties":'
        '{"fullName":{"type":"string","description":"Full name."},'
        '"age":{"type":"integer","minimum":0,"maximum":150},'
        '"nickname":{"type":["string","null"]}},'
        '"required":["fullName","age"],"additionalProperties":false}'
    )


def test_model_property_is_the_key_pydantic_validates_by() -> None:
    # validation_alias=AliasChoices(...): the first choice is the advertised key.
    assert fragment(Login) == (
        '{"type":"object","properties":{"username":{"type":"string"}},'
        '"required":["username"],"additionalProperties":false}'
    )
    assert make_tool(Login).validate({"x": {"username": "ann"}}) == {"x": Login(user="ann")}


def test_pydantic_email_and_urls_carry_formats() -> None:
    assert fragment(Contact) == (
        '{"type":"object","properties":{"email":{"type":"string","format":"email"},'
        '"site":{"type":"string","format":"uri"},"feed":{"type":"string","format":"uri"}},'
        '"required":["email","site","feed"],"additionalProperties":false}'
    )


def test_recursive_model_is_written_once_under_defs() -> None:
    schema = checked(make_tool(Tree).spec.input_schema)
    assert compact(schema["properties"]["x"]) == '{"$ref":"#/$defs/Tree"}'
    assert list(schema) == ["type", "properties", "required", "additionalProperties", "$defs"]
    assert compact(schema["$defs"]) == (
        '{"Tree":{"type":"object","description":"A tree node.","properties":'
        '{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Tree"},'
        '"default":[]}},"required":["label"],"additionalProperties":false}}'
    )


def two_nodes(a: Node, b: Outer.Node) -> None:
    return None


def test_recursive_classes_sharing_a_name_get_qualified_names() -> None:
    schema = checked(Tool.from_function(two_nodes).spec.input_schema)
    assert compact(schema["properties"]) == (
        '{"a":{"$ref":"#/$defs/Node"},"b":{"$ref":"#/$defs/Outer_Node"}}'
    )
    assert list(schema["$defs"]) == ["Node", "Outer_Node"]


def test_optional_reference_gets_a_null_branch() -> None:
    assert fragment(Tree | None) == '{"anyOf":[{"$ref":"#/$defs/Tree"},{"type":"null"}]}'


def test_mutually_recursive_dataclasses_define_the_cycle_once() -> None:
    """The first class met again is defined; the others are inlined inside it."""
    schema = checked(make_tool(Employee).spec.input_schema)
    assert compact(schema["properties"]["x"]) == '{"$ref":"#/$defs/Employee"}'
    assert compact(schema["$defs"]) == (
        '{"Employee":{"type":"object","properties":{"name":{"type":"string"},'
        '"dept":{"type":["object","null"],"properties":{"name":{"type":"string"},'
        '"staff":{"type":"array","items":{"$ref":"#/$defs/Employee"}}},'
        '"required":["name"],"additionalProperties":false}},'
        '"required":["name"],"additionalProperties":false}}'
    )


def test_recursive_values_arrive_as_instances() -> None:
    value = make_tool(Dept).validate(
        {"x": {"name": "R&D", "staff": [{"name": "Ann", "dept": {"name": "Ops"}}]}}
    )
    assert value == {"x": Dept("R&D", [Employee("Ann", Dept("Ops"))])}


# -- constraints ----------------------------------------------------------------------

CONSTRAINT_ROWS: list[tuple[str, Any, str]] = [
    (
        "ge_le_are_inclusive_bounds",
        Annotated[int, Ge(1), Le(10)],
        '{"type":"integer","minimum":1,"maximum":10}',
    ),
    (
        "gt_lt_are_exclusive_bounds",
        Annotated[float, Gt(0), Lt(1)],
        '{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}',
    ),
    ("multiple_of", Annotated[int, MultipleOf(5)], '{"type":"integer","multipleOf":5}'),
    (
        "bounds_follow_keyword_order_not_declaration_order",
        Annotated[int, MultipleOf(2), Le(10), Ge(0)],
        '{"type":"integer","minimum":0,"maximum":10,"multipleOf":2}',
    ),
    (
        "interval_groups_bounds",
        Annotated[int, Interval(ge=0, lt=9)],
        '{"type":"integer","minimum":0,"exclusiveMaximum":9}',
    ),
    (
        "min_max_len_on_str",
        Annotated[str, MinLen(2), MaxLen(8)],
        '{"type":"string","minLength":2,"maxLength":8}',
    ),
    ("len_on_str", Annotated[str, Len(1, 3)], '{"type":"string","minLength":1,"maxLength":3}'),
    (
        "len_on_list_counts_items",
        Annotated[list[str], Len(1, 3)],
        '{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3}',
    ),
    (
        "len_on_set_counts_items",
        Annotated[set[int], MaxLen(2)],
        '{"type":"array","items":{"type":"integer"},"maxItems":2,"uniqueItems":true}',
    ),
    (
        "pydantic_field_bounds",
        Annotated[int, Field(ge=1, lt=5)],
        '{"type":"integer","minimum":1,"exclusiveMaximum":5}',
    ),
    (
        "pydantic_field_pattern",
        Annotated[str, Field(pattern=r"^[A-Z]{3}$")],
        '{"type":"string","pattern":"^[A-Z]{3}$"}',
    ),
    (
        "pydantic_field_lengths_on_list",
        Annotated[list[int], Field(min_length=1, max_length=2)],
        '{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}',
    ),
    (
        "constraints_inside_optional",
        Optional[Annotated[int, Ge(1)]],  # noqa: UP045
        '{"type":["integer","null"],"minimum":1}',
    ),
    (
        "constraints_around_optional",
        Annotated[int | None, Ge(1)],
        '{"type":["integer","null"],"minimum":1}',
    ),
    (
        "max_len_never_opens_a_fixed_tuple",
        Annotated[tuple[int, str], MaxLen(5)],
        '{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],'
        '"minItems":2,"maxItems":2}',
    ),
    (
        "constraints_on_an_enum_keep_its_values",
        Annotated[Priority, Ge(2)],
        '{"type":"integer","enum":[1,3],"minimum":2}',
    ),
    (
        "annotated_text_is_the_description",
        Annotated[int, "How many."],
        '{"type":"integer","description":"How many."}',
    ),
    (
        "annotated_doc_is_the_description",
        Annotated[int, Doc("How many.")],
        '{"type":"integer","description":"How many."}',
    ),
    (
        "annotated_field_description",
        Annotated[int, Field(description="How many.", ge=1)],
        '{"type":"integer","description":"How many.","minimum":1}',
    ),
]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [r[1:] for r in CONSTRAINT_ROWS],
    ids=[r[0] for r in CONSTRAINT_ROWS],
)
def test_constraint_fragment(annotation: Any, expected: str) -> None:
    assert fragment(annotation) == expected


def test_constrained_enum_still_converts_and_checks_members() -> None:
    t = make_tool(Annotated[Priority, Ge(2)])
    assert t.validate({"x": 3}) == {"x": Priority.HIGH}
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        t.validate({"x": 1})


def test_constrained_literal_still_checks_members() -> None:
    t = make_tool(Annotated[Literal["a", "bb", "c"], MaxLen(1)])
    with pytest.raises(ValueError, match="one of"):
        t.validate({"x": "d"})


def test_constrained_path_still_arrives_as_a_path() -> None:
    assert make_tool(Annotated[pathlib.Path, MinLen(1)]).validate({"x": "a/b"}) == {
        "x": pathlib.Path("a/b")
    }


def test_look_around_pattern_is_enforced_with_pythons_engine() -> None:
    t = make_tool(Annotated[str, Field(pattern=r"^(?!tmp)\w+$")])
    assert t.validate({"x": "data"}) == {"x": "data"}
    with pytest.raises(ValueError, match="must match the pattern"):
        t.validate({"x": "tmpfile"})


def field_description(query: str = Field(default="*", description="A glob.")) -> str:
    return query


def test_field_as_default_gives_description_and_default() -> None:
    assert input_schema(field_description) == (
        '{"type":"object","properties":{"query":{"type":"string","description":"A glob.",'
        '"default":"*"}},"additionalProperties":false}'
    )


# -- parameters -----------------------------------------------------------------------


def defaults(
    text: str = "a",
    count: int = 2,
    ratio: float = 0.5,
    flag: bool = False,
    color: Color = Color.GREEN,
    tags: list[str] = ["x"],  # noqa: B006
    extra: dict[str, int] = {"n": 1},  # noqa: B006
    amount: decimal.Decimal = decimal.Decimal("1.25"),
    nothing: int | None = None,
    day: dt.date = dt.date(2024, 1, 1),
) -> None:
    return None


def test_json_defaults_are_written_none_and_non_json_defaults_are_not() -> None:
    props = checked(Tool.from_function(defaults).spec.input_schema)["properties"]
    assert {k: v.get("default", "-") for k, v in props.items()} == {
        "text": "a",
        "count": 2,
        "ratio": 0.5,
        "flag": False,
        "color": "green",
        "tags": ["x"],
        "extra": {"n": 1},
        "amount": 1.25,
        "nothing": "-",
        "day": "-",
    }


def test_parameters_with_defaults_are_not_required_and_required_is_omitted_when_empty() -> None:
    assert "required" not in checked(Tool.from_function(defaults).spec.input_schema)


def nullable_required(a: int | None, b: int | None = None) -> None:
    return None


def test_optional_without_default_is_required_and_takes_null() -> None:
    t = Tool.from_function(nullable_required)
    assert input_schema(nullable_required) == (
        '{"type":"object","properties":{"a":{"type":["integer","null"]},'
        '"b":{"type":["integer","null"]}},"required":["a"],"additionalProperties":false}'
    )
    assert t.validate({"a": None}) == {"a": None}
    with pytest.raises(ValueError, match="Argument 'a' is required"):
        t.validate({})


def no_params() -> str:
    return "ok"


def test_no_parameters_is_an_empty_closed_object() -> None:
    assert (
        input_schema(no_params) == '{"type":"object","properties":{},"additionalProperties":false}'
    )


def test_unknown_argument_is_named() -> None:
    with pytest.raises(ValueError, match="Argument 'y' is not accepted by 'fn'"):
        make_tool(int).validate({"x": 1, "y": 2})


def with_context(query: str, ctx: ToolContext) -> str:
    return f"{ctx.tool_name}:{query}"


def with_optional_context(query: str, ctx: ToolContext | None = None) -> str:
    return f"{ctx is not None}:{query}"


@pytest.mark.parametrize("fn", [with_context, with_optional_context])
def test_tool_context_never_appears_in_the_schema(fn: Any) -> None:
    assert input_schema(fn) == (
        '{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],'
        '"additionalProperties":false}'
    )


def test_tool_context_is_passed_in() -> None:
    assert Tool.from_function(with_context).invoke_sync('{"query": "q"}').text == "with_context:q"


class Database:
    """A host object: it has no JSON Schema, and needs none."""

    def lookup(self, key: str) -> str:
        return f"row:{key}"


def with_injected(key: str, db: Annotated[Database, Injected("db")]) -> str:
    return db.lookup(key)


def test_injected_parameters_never_appear_and_are_filled_from_state() -> None:
    t = Tool.from_function(with_injected)
    assert input_schema(with_injected) == (
        '{"type":"object","properties":{"key":{"type":"string"}},"required":["key"],'
        '"additionalProperties":false}'
    )
    outcome = t.invoke_sync('{"key": "k1"}', context=ToolContext(state={"db": Database()}))
    assert outcome.text == "row:k1"


@tool(params={"q": Param(name="query", description="From params."), "n": "Shorthand text."})
def overridden(
    q: Annotated[str, Field(description="From Field.")],
    n: int = 1,
    m: Annotated[int, Doc("From Doc.")] = 2,
    k: int = 3,
) -> str:
    """Search.

    Args:
        q: From the docstring.
        n: From the docstring.
        m: From the docstring.
        k: From the docstring.
    """
    return q * n


def test_parameter_description_precedence_override_then_annotation_then_docstring() -> None:
    assert input_schema(overridden) == (
        '{"type":"object","properties":{"query":{"type":"string","description":"From params."},'
        '"n":{"type":"integer","description":"Shorthand text.","default":1},'
        '"m":{"type":"integer","description":"From Doc.","default":2},'
        '"k":{"type":"integer","description":"From the docstring.","default":3}},'
        '"required":["query"],"additionalProperties":false}'
    )


def test_renamed_parameter_is_passed_by_its_python_name() -> None:
    assert Tool.from_function(overridden).invoke_sync('{"query": "ab", "n": 2}').text == "abab"


def positional(a: int, b: int = 2, /, *, c: int = 3) -> str:
    return f"{a}{b}{c}"


def test_positional_only_parameters_are_named_in_the_schema_and_called_positionally() -> None:
    t = Tool.from_function(positional)
    assert list(t.spec.input_schema["properties"]) == ["a", "b", "c"]
    assert t.invoke_sync('{"a": 1, "c": 9}').text == "129"


# -- name and description -------------------------------------------------------------


async def get_docket_async(case: str) -> str:
    """Fetch a docket."""
    return case


def test_name_drops_a_trailing_async_suffix() -> None:
    assert Tool.from_function(get_docket_async).spec.name == "get_docket"


def test_explicit_name_and_description_win() -> None:
    spec = Tool.from_function(get_docket_async, name="docket-v2", description="Explicit.").spec
    assert (spec.name, spec.description) == ("docket-v2", "Explicit.")


def undocumented(x: int) -> None:
    return None


def test_description_is_empty_without_docstring() -> None:
    assert Tool.from_function(undocumented).spec.description == ""


@pytest.mark.parametrize("name", ["a", "A-b_9", "x" * 64])
def test_valid_names_are_kept(name: str) -> None:
    assert make_tool(int, name=name).spec.name == name


# -- output schema --------------------------------------------------------------------


def returns_str() -> str:
    return ""


def returns_none() -> None:
    return None


def returns_unannotated():
    return 1


def returns_optional_str() -> str | None:
    return None


def returns_any() -> Any:
    return 1


def returns_part() -> TextPart:
    return TextPart("x")


def returns_parts() -> list[TextPart | ImagePart]:
    return []


def returns_json_part() -> JsonPart:
    return JsonPart("{}")


def returns_tool_result() -> ToolResult:
    return ToolResult([])


@pytest.mark.parametrize(
    "fn",
    [
        returns_str,
        returns_none,
        returns_unannotated,
        returns_optional_str,
        returns_any,
        returns_part,
        returns_parts,
        returns_json_part,
        returns_tool_result,
    ],
)
def test_text_none_and_content_parts_have_no_output_schema(fn: Any) -> None:
    assert output_schema(fn) is None


def returns_int() -> int:
    return 1


def returns_strings() -> list[str]:
    return ["a"]


def returns_point() -> Point:
    return Point(1, 2)


def returns_tree() -> Tree:
    return Tree(label="root")


def returns_optional_int() -> int | None:
    return None


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (returns_int, '{"type":"integer"}'),
        (returns_strings, '{"type":"array","items":{"type":"string"}}'),
        (returns_optional_int, '{"type":["integer","null"]}'),
        (
            returns_point,
            '{"type":"object","description":"A point on a plane.","properties":'
            '{"x":{"type":"number"},"y":{"type":"number","default":0.0}},'
            '"required":["x"],"additionalProperties":false}',
        ),
    ],
    ids=["int", "list_of_str", "optional_int", "dataclass"],
)
def test_structured_returns_have_an_output_schema(fn: Any, expected: str) -> None:
    assert output_schema(fn) == expected


def test_recursive_output_schema_carries_its_defs() -> None:
    schema = json.loads(output_schema(returns_tree) or "null")
    assert list(schema) == ["$ref", "$defs"]
    assert list(schema["$defs"]) == ["Tree"]


@tool(envelope=True)
def enveloped(x: int) -> Point:
    return Point(x, 0)


def test_envelope_wraps_result_with_its_output_schema() -> None:
    outcome = Tool.from_function(enveloped).invoke_sync('{"x": 2}')
    assert outcome.text == (
        '{"schema":{"$schema":"' + DRAFT_2020_12 + '","type":"object",'
        '"description":"A point on a plane.","properties":{"x":{"type":"number"},'
        '"y":{"type":"number","default":0.0}},"required":["x"],"additionalProperties":false},'
        '"result":{"x":2,"y":0}}'
    )


# -- keyword order and metaschema, across the corpus -----------------------------------

_RANK = {key: i for i, key in enumerate(KEY_ORDER)}


def _fragments(schema: Any) -> Iterable[dict[str, Any]]:
    """Every schema fragment inside `schema` (not property-name maps)."""
    if not isinstance(schema, dict):
        return
    yield schema
    for key in ("properties", "$defs"):
        for sub in schema.get(key, {}).values():
            yield from _fragments(sub)
    for key in ("items", "additionalProperties"):
        yield from _fragments(schema.get(key))
    for key in ("prefixItems", "anyOf"):
        for sub in schema.get(key, []):
            yield from _fragments(sub)


CORPUS_TOOLS = [Tool.from_function(fn) for fn in CORPUS]


@pytest.mark.parametrize("t", CORPUS_TOOLS, ids=[t.name for t in CORPUS_TOOLS])
def test_every_fragment_uses_the_canonical_keyword_order(t: Tool) -> None:
    for schema in (t.spec.input_schema, t.spec.output_schema):
        for part in _fragments(thaw(schema)):
            keys = list(part)
            assert all(k in _RANK for k in keys), keys
            assert keys == sorted(keys, key=_RANK.__getitem__), keys


@pytest.mark.parametrize("t", CORPUS_TOOLS, ids=[t.name for t in CORPUS_TOOLS])
def test_every_output_schema_passes_the_metaschema(t: Tool) -> None:
    if t.spec.output_schema is not None:
        checked(t.spec.output_schema)


def test_published_schemas_are_read_only() -> None:
    with pytest.raises(TypeError):
        Tool.from_function(returns_point).spec.input_schema["type"] = "array"


# -- accepted values arrive as Python types ---------------------------------------------


def everything(
    when: dt.datetime,
    day: dt.date,
    at: dt.time,
    span: dt.timedelta,
    ident: uuid.UUID,
    amount: decimal.Decimal,
    color: Color,
    priority: Priority,
    point: Point,
    address: Address,
    pair: Span,
    person: Person,
    ids: set[int],
    words: frozenset[str],
    fixed: tuple[int, str],
    rest: tuple[float, ...],
    blob: bytes,
    where: pathlib.Path,
) -> None:
    return None


ARGS = {
    "when": "2024-05-01T09:30:00.25+02:00",
    "day": "2024-05-01",
    "at": "09:30:00Z",
    "span": "P1DT2H30M5S",
    "ident": "123e4567-e89b-12d3-a456-426614174000",
    "amount": 0.1,
    "color": "red",
    "priority": 3,
    "point": {"x": 1, "y": 2.5},
    "address": {"street": "Main St"},
    "pair": {"start": 1},
    "person": {"fullName": "Ann Lee", "age": 40},
    "ids": [1, 2],
    "words": ["a", "b"],
    "fixed": [1, "a"],
    "rest": [1, 2.5],
    "blob": "aGVsbG8=",
    "where": "docs/a.md",
}


def test_accepted_values_arrive_as_python_types() -> None:
    value = Tool.from_function(everything).validate(json.dumps(ARGS))
    plus_two = dt.timezone(dt.timedelta(hours=2))
    assert value == {
        "when": dt.datetime(2024, 5, 1, 9, 30, 0, 250000, tzinfo=plus_two),
        "day": dt.date(2024, 5, 1),
        "at": dt.time(9, 30, tzinfo=dt.timezone.utc),
        "span": dt.timedelta(days=1, hours=2, minutes=30, seconds=5),
        "ident": uuid.UUID("123e4567-e89b-12d3-a456-426614174000"),
        "amount": decimal.Decimal("0.1"),
        "color": Color.RED,
        "priority": Priority.HIGH,
        "point": Point(1.0, 2.5),
        "address": {"street": "Main St"},
        "pair": Span(1, 0),
        "person": Person(fullName="Ann Lee", age=40),
        "ids": {1, 2},
        "words": frozenset({"a", "b"}),
        "fixed": (1, "a"),
        "rest": (1.0, 2.5),
        "blob": b"hello",
        "where": pathlib.Path("docs/a.md"),
    }
    assert type(value["amount"]) is decimal.Decimal
    assert type(value["point"].x) is float


def typed_echo(when: dt.datetime, ids: set[int], point: Point) -> str:
    return f"{type(when).__name__} {type(ids).__name__} {type(point).__name__}"


def test_the_function_receives_converted_values() -> None:
    outcome = Tool.from_function(typed_echo).invoke_sync(
        '{"when": "2024-05-01T09:30:00Z", "ids": [1], "point": {"x": 0}}'
    )
    assert outcome.text == "datetime set Point"


def test_decimal_is_not_the_binary_float_expansion() -> None:
    assert make_tool(decimal.Decimal).validate('{"x": 19.99}') == {"x": decimal.Decimal("19.99")}


@pytest.mark.parametrize("digits", ["12345678901234567890.123456789", "2.50", "1E+400", "-0.0"])
def test_decimal_keeps_every_digit_as_sent(digits: str) -> None:
    assert make_tool(decimal.Decimal).validate(f'{{"x": {digits}}}') == {
        "x": decimal.Decimal(digits)
    }


def test_decimals_inside_containers_keep_every_digit() -> None:
    value = make_tool(list[decimal.Decimal]).validate('{"x": [0.30000000000000001, 7]}')
    assert value == {"x": [decimal.Decimal("0.30000000000000001"), decimal.Decimal(7)]}


def test_integer_accepts_an_integral_number() -> None:
    value = make_tool(int).validate('{"x": 3.0}')
    assert value == {"x": 3}
    assert type(value["x"]) is int


def test_integer_accepts_integral_numbers_beyond_64_bits() -> None:
    assert make_tool(int).validate('{"x": 1e19}') == {"x": 10**19}
    assert make_tool(int).validate('{"x": 100000000000000000000000}') == {"x": 10**23}


def test_integers_of_any_size_are_exact() -> None:
    """Written with an exponent or a fraction, an integer is still read exactly."""
    t = make_tool(int)
    assert t.validate('{"x": 1e23}') == {"x": 10**23}
    assert t.validate('{"x": 9007199254740993.0}') == {"x": 9007199254740993}
    assert t.validate('{"x": 1.5e1}') == {"x": 15}
    with pytest.raises(ValueError, match=r"must be an integer \(got 1.0000000000000000001\)"):
        t.validate('{"x": 1.0000000000000000001}')
    listed = make_tool(list[int])
    assert listed.validate('{"x": [1e23, 2]}') == {"x": [10**23, 2]}
    with pytest.raises(ValueError, match=r"Argument 'x\[1\]' must be an integer"):
        listed.validate('{"x": [1, 2.00000000000000000001]}')


def test_integer_bounds_and_multiples_are_exact() -> None:
    big = make_tool(Annotated[int, Le(2**53)])
    assert big.validate(f'{{"x": {2**53}}}') == {"x": 2**53}
    with pytest.raises(ValueError, match="less than or equal to 9007199254740992"):
        big.validate(f'{{"x": {2**53 + 1}}}')
    with pytest.raises(ValueError, match="less than or equal to 9007199254740992"):
        big.validate('{"x": 9007199254740993.0}')
    three = make_tool(Annotated[int, MultipleOf(3)])
    assert three.validate(f'{{"x": {10**40 + 2}}}') == {"x": 10**40 + 2}
    with pytest.raises(ValueError, match="multiple of 3"):
        three.validate(f'{{"x": {10**40 + 1}}}')


def test_decimal_bounds_are_exact() -> None:
    t = make_tool(Annotated[decimal.Decimal, Ge(0.1)])
    # The schema says 0.1; Decimal(0.1) would be 0.1000000000000000055...
    assert t.validate('{"x": 0.1}') == {"x": decimal.Decimal("0.1")}
    with pytest.raises(ValueError, match=r"greater than or equal to 0\.1"):
        t.validate('{"x": 0.09999999999999999999}')


def test_a_decimal_bound_a_schema_number_cannot_hold_is_refused() -> None:
    bound = decimal.Decimal("0.30000000000000000001")
    with pytest.raises(ToolDefinitionError, match="inexact-bound"):
        make_tool(Annotated[decimal.Decimal, Le(bound)])


def test_decimal_accepts_a_numeric_string_as_its_schema_says() -> None:
    t = make_tool(decimal.Decimal)
    assert t.validate('{"x": "19.99"}') == {"x": decimal.Decimal("19.99")}
    assert t.validate('{"x": "-1.50E+3"}') == {"x": decimal.Decimal("-1.50E+3")}
    assert t.validate('{"x": 19.99}') == {"x": decimal.Decimal("19.99")}
    for bad in ('"1_000"', '" 1.5"', '"NaN"', '"1."', '"abc"', "true"):
        with pytest.raises(ValueError, match="must be a number or a numeric string"):
            t.validate(f'{{"x": {bad}}}')
    listed = make_tool(list[decimal.Decimal] | None)
    assert listed.validate('{"x": ["2.50", 0.30000000000000001]}') == {
        "x": [decimal.Decimal("2.50"), decimal.Decimal("0.30000000000000001")]
    }


def test_plain_datetime_and_time_accept_a_missing_offset() -> None:
    when = make_tool(dt.datetime)
    assert when.validate('{"x": "2025-03-01T09:00:00"}') == {"x": dt.datetime(2025, 3, 1, 9)}
    assert when.validate('{"x": "2025-03-01T09:00:00.5+01:00"}') == {
        "x": dt.datetime(2025, 3, 1, 9, 0, 0, 500000, dt.timezone(dt.timedelta(hours=1)))
    }
    at = make_tool(dt.time)
    assert at.validate('{"x": "07:08:09"}') == {"x": dt.time(7, 8, 9)}
    reference = Draft202012Validator(
        thaw(when.spec.input_schema), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    assert reference.is_valid({"x": "2025-03-01T09:00:00"})
    assert reference.is_valid({"x": "2024-02-29T23:59:59"})
    assert not reference.is_valid({"x": "2023-02-29T23:59:59"})
    assert not reference.is_valid({"x": "0000-01-01T00:00:00"})


@pytest.mark.parametrize("offset", ["+00:99", "+00:60", "-24:00", "+99:00"])
def test_offsets_out_of_range_are_refused(offset: str) -> None:
    """`+00:99` used to be read as +01:39."""
    with pytest.raises(ValueError, match="RFC 3339 date-time"):
        make_tool(dt.datetime).validate(f'{{"x": "2025-03-01T09:00:00{offset}"}}')
    with pytest.raises(ValueError, match="must be a time"):
        make_tool(dt.time).validate(f'{{"x": "09:00:00{offset}"}}')


# -- the rules docs/schema.md promises ----------------------------------------------------

REFUSED: list[tuple[str, Any, str]] = [
    ("int_refuses_fraction", int, "1.5"),
    ("int_refuses_true", int, "true"),
    ("float_refuses_true", float, "true"),
    ("bool_refuses_one", bool, "1"),
    ("str_refuses_number", str, "1"),
    ("decimal_refuses_other_strings", decimal.Decimal, '"1_000"'),
    ("bounded_decimal_refuses_numeric_string", Annotated[decimal.Decimal, Ge(0)], '"1.5"'),
    ("date_time_refuses_offset_minutes_over_59", dt.datetime, '"2024-05-01T09:30:00+00:99"'),
    ("date_time_refuses_impossible_day_without_offset", dt.datetime, '"2023-02-29T09:30:00"'),
    ("date_time_needs_the_t", dt.datetime, '"2024-05-01 09:30:00Z"'),
    ("date_time_refuses_unix_time", dt.datetime, "1714555800"),
    ("date_refuses_impossible_day", dt.date, '"2024-02-30"'),
    ("time_refuses_offset_minutes_over_59", dt.time, '"09:30:00+00:60"'),
    ("time_refuses_hour_24", dt.time, '"24:00:00"'),
    ("duration_refuses_fractions", dt.timedelta, '"PT0.5S"'),
    ("duration_refuses_year_then_day", dt.timedelta, '"P1Y2D"'),
    ("duration_refuses_minutes_then_hours", dt.timedelta, '"PT1M2H"'),
    ("duration_refuses_years", dt.timedelta, '"P1Y"'),
    ("duration_refuses_months", dt.timedelta, '"P1M"'),
    ("duration_refuses_seconds_as_number", dt.timedelta, "60"),
    ("uuid_needs_hyphens", uuid.UUID, '"123e4567e89b12d3a456426614174000"'),
    ("base64_needs_padding", bytes, '"aGVsbG8"'),
    ("base64_refuses_url_safe_alphabet", bytes, '"-_-_"'),
    ("set_refuses_duplicates", set[int], "[1, 1]"),
    ("tuple_refuses_extra_items", tuple[int, str], '[1, "a", 2]'),
    ("enum_refuses_other_values", Color, '"blue"'),
    ("literal_refuses_true_for_one", Literal[1, 2], "true"),
    ("closed_object_refuses_unknown_keys", Point, '{"x": 1, "z": 2}'),
    ("dict_refuses_non_object", dict[str, int], "[]"),
]


@pytest.mark.parametrize(
    ("annotation", "raw"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_refused_by_schema_and_validator_alike(annotation: Any, raw: str) -> None:
    t = make_tool(annotation)
    instance = json.loads(f'{{"x": {raw}}}')
    reference = Draft202012Validator(
        thaw(t.spec.input_schema), format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    with pytest.raises(ValueError, match="Argument 'x"):
        t.validate(f'{{"x": {raw}}}')
    # base64 content is not a format, so the reference does not check it (test_agreement does).
    if annotation is not bytes:
        assert not reference.is_valid(instance)


@pytest.mark.parametrize(
    "raw",
    ['{"x": 1, "x": 2}', '{"x": NaN}', '{"x": Infinity}', '{"x": -Infinity}'],
    ids=["duplicate_keys", "nan", "infinity", "minus_infinity"],
)
def test_json_that_json_schema_cannot_see_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="Arguments for 'fn'"):
        make_tool(float).validate(raw)


def test_leap_second_is_refused() -> None:
    """A known gap: RFC 3339 allows :60, datetime cannot hold it."""
    with pytest.raises(ValueError, match="RFC 3339"):
        make_tool(dt.datetime).validate('{"x": "2016-12-31T23:59:60Z"}')


def test_duration_beyond_timedelta_is_refused() -> None:
    """A known gap: the pattern allows any length, timedelta stops short of 10**9 days."""
    t = make_tool(dt.timedelta)
    assert t.validate('{"x": "P999999999D"}') == {"x": dt.timedelta(days=999999999)}
    with pytest.raises(ValueError, match="shorter than 1000000000 days"):
        t.validate('{"x": "P1000000000D"}')


def test_durations_follow_rfc_3339_appendix_a() -> None:
    t = make_tool(dt.timedelta)
    assert t.validate('{"x": "P2W"}') == {"x": dt.timedelta(weeks=2)}
    assert t.validate('{"x": "P1DT2H"}') == {"x": dt.timedelta(days=1, hours=2)}
    assert t.validate('{"x": "PT2H0M3S"}') == {"x": dt.timedelta(hours=2, seconds=3)}
    with pytest.raises(ValueError, match="RFC 3339 duration"):
        t.validate('{"x": "PT2H3S"}')  # dur-hour = H [dur-minute]: seconds need minutes
    assert t.validate('{"x": "P99999999DT1S"}') == {"x": dt.timedelta(days=99999999, seconds=1)}


def test_decimal_in_a_union_takes_a_numeric_string() -> None:
    """A known gap: the exact-number path covers Decimal alone, in containers and in
    Optional[...], not a Decimal that is one branch of a wider union."""
    assert make_tool(decimal.Decimal | int).validate('{"x": "1.5"}') == {
        "x": decimal.Decimal("1.5")
    }


def test_email_str_is_stricter_than_the_format() -> None:
    """A known gap: pydantic wants a dotted domain; JSON Schema's email format does not."""
    with pytest.raises(ValueError, match="valid email"):
        make_tool(EmailStr).validate('{"x": "root@localhost"}')


def test_sub_microsecond_fractions_are_truncated() -> None:
    assert make_tool(dt.time).validate('{"x": "09:30:00.0000019Z"}') == {
        "x": dt.time(9, 30, 0, 1, tzinfo=dt.timezone.utc)
    }


def test_pydantic_model_is_rebuilt_through_its_validators() -> None:
    assert typing.get_type_hints(Person)  # the model resolves
    with pytest.raises(ValueError, match=r"Argument 'x.age' must be less than or equal to 150"):
        make_tool(Person).validate({"x": {"fullName": "A", "age": 200}})


def test_pattern_digit_class_is_unicode() -> None:
    """A known gap: ECMA-262's \\d is ASCII; the Rust engine's (and Python's) is not."""
    t = make_tool(Annotated[str, Field(pattern=r"^\d{3}$")])
    assert t.validate({"x": "\u0661\u0662\u0663"}) == {"x": "\u0661\u0662\u0663"}


def test_set_of_bool_and_int_refuses_true_and_one() -> None:
    """A known gap: JSON sees two values, a Python set one."""
    with pytest.raises(ValueError, match="duplicate"):
        make_tool(set[int | bool]).validate({"x": [True, 1]})


# -- typed-path leniencies and pydantic options (issue 10) ------------------------------


_REFERENCE = Draft202012Validator.FORMAT_CHECKER


@pytest.mark.parametrize(
    ("annotation", "pattern"),
    [
        (dt.datetime, LOCAL_DATETIME_PATTERN),
        (dt.time, LOCAL_TIME_PATTERN),
        (decimal.Decimal, NUMBER_TEXT_PATTERN),
        (dt.timedelta, DURATION_PATTERN),
    ],
    ids=["datetime", "time", "decimal", "timedelta"],
)
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_lenient_forms_are_decided_like_the_reference(
    annotation: Any, pattern: str, data: st.DataObject
) -> None:
    """Text built from the advertised pattern, then edited: toolcast == jsonschema.

    `fullmatch`: Python's `$` (which the reference validator uses) also matches
    before a trailing newline, ECMA-262's does not; that known gap is documented
    in docs/schema.md, and left out here so the comparison is between meanings.
    """
    text = data.draw(
        st.from_regex(pattern, fullmatch=True).flatmap(
            lambda valid: st.one_of(
                st.just(valid),
                st.integers(0, max(len(valid) - 1, 0)).flatmap(
                    lambda i: st.sampled_from("0123456789:+-.TZ ").map(
                        lambda c: valid[:i] + c + valid[i + 1 :]
                    )
                ),
            )
        )
    )
    t = make_tool(annotation)
    reference = Draft202012Validator(thaw(t.spec.input_schema), format_checker=_REFERENCE)
    expected = reference.is_valid({"x": text})
    try:
        t.validate(json.dumps({"x": text}))
        accepted, message = True, ""
    except ValueError as exc:
        accepted, message = False, str(exc)
    if "shorter than 1000000000 days" in message or re.search("[eE][+-]?[0-9]{18}", text):
        return  # the documented gaps: beyond timedelta's and Decimal's range
    assert accepted == expected, f"{text!r}: reference={expected} toolcast={accepted} {message}"


class Order(BaseModel):
    sku: str
    trace_id: SkipJsonSchema[str] = "none"


class Account(BaseModel):
    name: str
    password: str = Field(default="", exclude=True)


class Event(BaseModel):
    model_config = ConfigDict(extra="allow")
    kind: str


def test_skip_json_schema_hides_a_field_and_the_model_cannot_send_it() -> None:
    def place(order: Order, note: str | SkipJsonSchema[None] = "") -> str:
        return f"{order.trace_id} {note!r}"

    t = Tool.from_function(place)
    schema = t.spec.input_schema
    assert "trace_id" not in schema["properties"]["order"]["properties"]
    assert schema["properties"]["note"] == {"type": "string", "default": ""}
    assert t.invoke_sync('{"order": {"sku": "a"}}').text == "none ''"
    refused = t.invoke_sync('{"order": {"sku": "a", "trace_id": "x"}}').text
    assert refused.startswith("Argument 'order.trace_id' is not accepted")
    assert t.invoke_sync('{"order": {"sku": "a"}, "note": null}').text == (
        "Argument 'note' must be a string (got null)."
    )


def test_skip_json_schema_on_a_required_field_is_refused() -> None:
    class Hidden(BaseModel):
        secret: SkipJsonSchema[int]

    with pytest.raises(ToolDefinitionError, match=r"\[hidden-field\] x.secret"):
        make_tool(Hidden)


def test_field_exclude_leaves_the_field_out_of_the_output_schema_only() -> None:
    def update(account: Account) -> Account:
        return account

    t = Tool.from_function(update)
    assert list(t.spec.input_schema["properties"]["account"]["properties"]) == [
        "name",
        "password",
    ]
    assert t.spec.output_schema is not None
    assert list(t.spec.output_schema["properties"]) == ["name"]
    text = t.invoke_sync('{"account": {"name": "a", "password": "p"}}').text
    assert text == '{"name":"a"}'
    Draft202012Validator(thaw(t.spec.output_schema)).validate(json.loads(text))


def test_extra_allow_opens_the_object_and_keeps_the_keys() -> None:
    def log(event: Event) -> str:
        return json.dumps(event.model_dump())

    t = Tool.from_function(log)
    assert t.spec.input_schema["properties"]["event"]["additionalProperties"] is True
    text = t.invoke_sync('{"event": {"kind": "a", "user": {"id": 1}}}').text
    assert json.loads(text) == {"kind": "a", "user": {"id": 1}}


class Inventory:
    def __init__(self, stock: int) -> None:
        self.stock = stock

    def left(self, taken: int) -> int:
        return self.stock - taken

    async def left_async(self, taken: int) -> int:
        return self.stock - taken


async def open_inventory(tool: Tool, call: Any) -> Inventory:
    await asyncio.sleep(0)
    return Inventory(10)


async def test_an_async_target_resolver_is_awaited() -> None:
    """It used to be passed as `self`: the model read an AttributeError."""
    for method in (Inventory.left, Inventory.left_async):
        t = Tool.from_function(method, resolver=open_inventory)
        assert (await t.invoke('{"taken": 3}')).text == "7"


def test_an_async_target_resolver_runs_under_invoke_sync_outside_a_loop() -> None:
    t = Tool.from_function(Inventory.left, resolver=open_inventory)
    assert t.invoke_sync('{"taken": 4}').text == "6"


async def test_an_async_target_resolver_under_invoke_sync_in_a_loop_is_a_host_error() -> None:
    t = Tool.from_function(Inventory.left, resolver=open_inventory)
    outcome = t.invoke_sync('{"taken": 4}')
    assert outcome.text == "Tool 'left' is not available right now."
    assert "use 'await tool.invoke(...)'" in str(outcome.exception)
