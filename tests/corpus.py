"""A corpus of diverse tool signatures, shared by the schema, validation and provider tests.

Each function is a realistic tool shape; together they cover every row of the
schema contract (scalars, formats, containers, enums, literals, unions, optional
values, constraints, dataclasses, TypedDicts, NamedTuples, pydantic models,
recursion, defaults, context injection).
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NamedTuple

from annotated_types import Ge, Gt, Le, Len, Lt, MaxLen, MinLen, MultipleOf
from pydantic import BaseModel, Field
from typing_extensions import Doc, NotRequired, Required, TypedDict

from toolcast import Tool, ToolContext, tool


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Priority(enum.IntEnum):
    LOW = 1
    MEDIUM = 2
    HIGH = 3


@dataclass
class Point:
    """A point on a plane."""

    x: float
    y: float


@dataclass
class LineItem:
    """One line of an order."""

    sku: str
    qty: Annotated[int, Ge(1)]
    note: str | None = None


class Address(TypedDict):
    street: str
    city: str
    zip: NotRequired[str]


class Options(TypedDict, total=False):
    verbose: bool
    depth: Required[int]


class Span(NamedTuple):
    start: int
    end: int = 0


class Person(BaseModel):
    """Someone in the directory."""

    name: str = Field(description="Full name.")
    age: int = Field(ge=0, le=150)
    email: str | None = None


class Node(BaseModel):
    """A tree node."""

    label: str
    children: list[Node] = []


@dataclass
class Folder:
    name: str
    subfolders: list[Folder] = field(default_factory=list)


def no_params() -> str:
    """Return the current status."""
    return "ok"


def one_string(text: str) -> str:
    """Echo text."""
    return text


def scalars(flag: bool, count: int, ratio: float, label: str) -> dict[str, Any]:
    """Every JSON scalar."""
    return {"flag": flag, "count": count, "ratio": ratio, "label": label}


def defaults(query: str, limit: int = 10, exact: bool = False, sort: str = "name") -> list[str]:
    """Defaults are written to the schema."""
    return [query] * min(limit, 3)


def optional_values(a: int | None, b: str | None = None) -> str:
    """Optional with and without a default."""
    return f"{a}/{b}"


def int_bounds(n: Annotated[int, Ge(0), Le(100)], step: Annotated[int, MultipleOf(5)] = 5) -> int:
    """Inclusive bounds and multipleOf."""
    return n * step


def float_bounds(x: Annotated[float, Gt(0), Lt(1)]) -> float:
    """Exclusive bounds."""
    return x


def string_lengths(
    code: Annotated[str, MinLen(2), MaxLen(8)], tag: Annotated[str, Len(1, 3)] = "a"
) -> str:
    """String length constraints."""
    return code + tag


def string_pattern(sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d{3}$")]) -> str:
    """A pattern constraint."""
    return sku


def list_of_ints(values: list[int]) -> int:
    """A list of integers."""
    return sum(values)


def list_bounds(tags: Annotated[list[str], MinLen(1), MaxLen(3)]) -> list[str]:
    """Array length constraints."""
    return tags


def sequence_param(names: Sequence[str]) -> int:
    """An abstract sequence."""
    return len(names)


def tuple_fixed(pair: tuple[int, str]) -> str:
    """A fixed-length tuple."""
    return f"{pair[0]}{pair[1]}"


def tuple_variadic(values: tuple[float, ...]) -> float:
    """A variable-length tuple."""
    return sum(values)


def set_param(ids: set[int]) -> int:
    """A set: duplicates are refused."""
    return len(ids)


def frozenset_param(words: frozenset[str]) -> int:
    """A frozenset."""
    return len(words)


def dict_param(counts: dict[str, int]) -> int:
    """A map of str to int."""
    return sum(counts.values())


def mapping_param(labels: Mapping[str, str]) -> list[str]:
    """An abstract mapping."""
    return sorted(labels)


def any_param(payload: Any) -> Any:
    """Any JSON value."""
    return payload


def enum_param(color: Color) -> str:
    """A str enum."""
    return color.value


def int_enum_param(priority: Priority = Priority.MEDIUM) -> int:
    """An int enum with a default."""
    return int(priority)


def literal_param(mode: Literal["fast", "slow"], level: Literal[1, 2, 3] = 1) -> str:
    """Literals of str and int."""
    return f"{mode}{level}"


def mixed_literal(value: Literal["auto", 0, True]) -> str:
    """A literal of mixed JSON types."""
    return repr(value)


def union_param(key: int | str) -> str:
    """A union of two scalars."""
    return str(key)


def optional_union(key: int | str | None = None) -> str:
    """A union with None."""
    return str(key)


def datetime_param(when: dt.datetime) -> str:
    """An RFC 3339 date-time."""
    return when.isoformat()


def date_time_params(day: dt.date, at: dt.time | None = None) -> str:
    """A date and an optional time."""
    return f"{day} {at}"


def duration_param(length: dt.timedelta) -> float:
    """An ISO 8601 duration."""
    return length.total_seconds()


def uuid_param(item_id: uuid.UUID) -> str:
    """A UUID."""
    return str(item_id)


def decimal_param(amount: decimal.Decimal) -> str:
    """An exact decimal number."""
    return str(amount)


def bytes_param(blob: bytes) -> int:
    """Base64-encoded bytes."""
    return len(blob)


def dataclass_param(point: Point) -> float:
    """A dataclass."""
    return point.x + point.y


def nested_dataclasses(items: list[LineItem], ship_to: Point | None = None) -> int:
    """A list of dataclasses with nested optional fields."""
    return sum(i.qty for i in items)


def typeddict_param(address: Address) -> str:
    """A TypedDict with a NotRequired key."""
    return address["city"]


def typeddict_total_false(options: Options) -> bool:
    """A total=False TypedDict with a Required key."""
    return bool(options.get("verbose"))


def namedtuple_param(span: Span) -> int:
    """A NamedTuple with a default field."""
    return span.end - span.start


def model_param(person: Person) -> str:
    """A pydantic model with Field constraints."""
    return person.name


def recursive_model(tree: Node) -> int:
    """A recursive pydantic model."""
    return len(tree.children)


def recursive_dataclass(root: Folder) -> str:
    """A recursive dataclass."""
    return root.name


def annotated_docs(
    query: Annotated[str, "What to look for."],
    limit: Annotated[int, Doc("How many results."), Ge(1)] = 5,
) -> str:
    """Descriptions from Annotated metadata."""
    return query * limit


def field_default(query: str = Field(default="*", description="A glob.")) -> str:
    """A pydantic Field as the default."""
    return query


def numpy_doc(query: str, limit: int = 3) -> str:
    """Search the index.

    Parameters
    ----------
    query : str
        The query text.
    limit : int
        Maximum hits.
    """
    return query


def sphinx_doc(query: str, limit: int = 3) -> str:
    """Search the index.

    :param query: The query text.
    :param limit: Maximum hits.
    """
    return query


def with_context(query: str, ctx: ToolContext) -> str:
    """Receives the ToolContext (not in the schema)."""
    return f"{ctx.tool_name}:{query}"


def optional_list(tags: list[str] | None = None, matrix: list[list[int]] | None = None) -> int:
    """Optional containers and nested arrays."""
    return len(tags or [])


def dict_of_models(people: dict[str, Person]) -> int:
    """A map of pydantic models."""
    return len(people)


def list_of_enums(colors: list[Color], priorities: set[Priority] | None = None) -> int:
    """Enums inside containers."""
    return len(colors)


@tool(name="renamed_tool", description="Explicit name and description.", params={"q": "The query."})
def explicit_options(q: str) -> str:
    """Ignored docstring."""
    return q


async def async_tool(query: str, limit: int = 2) -> list[str]:
    """An async tool."""
    return [query] * limit


CORPUS: list[Any] = [
    no_params, one_string, scalars, defaults, optional_values, int_bounds, float_bounds,
    string_lengths, string_pattern, list_of_ints, list_bounds, sequence_param, tuple_fixed,
    tuple_variadic, set_param, frozenset_param, dict_param, mapping_param, any_param,
    enum_param, int_enum_param, literal_param, mixed_literal, union_param, optional_union,
    datetime_param, date_time_params, duration_param, uuid_param, decimal_param, bytes_param,
    dataclass_param, nested_dataclasses, typeddict_param, typeddict_total_false,
    namedtuple_param, model_param, recursive_model, recursive_dataclass, annotated_docs,
    field_default, numpy_doc, sphinx_doc, with_context, optional_list, dict_of_models,
    list_of_enums, explicit_options, async_tool,
]  # fmt: skip
"""Every corpus function, in a fixed order."""


def corpus_tools() -> list[Tool]:
    """A fresh Tool for every corpus function."""
    return [Tool.from_function(fn) for fn in CORPUS]
