"""200 varied tool functions for the definition and projection benchmarks.

The functions are generated from a fixed seed as ordinary module-level source
(compiled once, on import), so each is a real function with a signature, type
hints and a docstring, like hand-written tools. They mix:

- 0 to 8 parameters, about a third of them with defaults;
- scalars, `Annotated` constraints, `Literal`, enums, `X | None`, unions,
  lists, sets, tuples, `dict[str, T]`, dates, UUIDs, `Decimal`;
- dataclasses, `TypedDict`s (with `NotRequired`) and pydantic models, some
  nested, and `pydantic.Field` descriptions;
- Google, NumPy and Sphinx docstrings, and no docstring at all;
- sync and async functions, with several return types.

Every function is accepted by both `toolcast.Tool.from_function` and
`pydantic.TypeAdapter`, so the two can be timed on exactly the same set.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from annotated_types import Ge, Gt, Le, MaxLen, MinLen
from pydantic import BaseModel, Field
from typing_extensions import NotRequired, TypedDict

__all__ = ("FUNCTIONS", "SEED", "SOURCE", "functions")

SEED = 20260601
SIZE = 200


class Color(enum.Enum):
    """A colour."""

    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Priority(enum.IntEnum):
    """How urgent something is."""

    LOW = 1
    MEDIUM = 2
    HIGH = 3


@dataclass
class Point:
    """A point on a map."""

    lat: Annotated[float, Ge(-90), Le(90)]
    lon: Annotated[float, Ge(-180), Le(180)]


@dataclass
class LineItem:
    """One line of an order."""

    sku: str
    qty: Annotated[int, Ge(1)]
    note: str | None = None
    tags: list[str] = field(default_factory=list)


class Address(TypedDict):
    """A postal address."""

    street: str
    city: str
    postcode: NotRequired[str]


class Customer(BaseModel):
    """A customer record."""

    name: str = Field(description="Full name.")
    email: str
    address: Address
    vip: bool = False


class DateRange(BaseModel):
    """A closed range of dates."""

    start: datetime.date
    end: datetime.date


class Filter(BaseModel):
    """A search filter."""

    field_name: str
    op: Literal["eq", "ne", "lt", "gt", "contains"]
    value: str | int | float


# (annotation source, default source or None); defaults only where they make sense.
_TYPES: tuple[tuple[str, str | None], ...] = (
    ("str", '"default"'),
    ("int", "10"),
    ("float", "0.5"),
    ("bool", "False"),
    ("Annotated[int, Ge(1), Le(100)]", "20"),
    ("Annotated[str, MinLen(1), MaxLen(80)]", None),
    ("Annotated[float, Gt(0)]", None),
    ('Literal["asc", "desc"]', '"asc"'),
    ('Literal["low", "medium", "high"]', None),
    ("Color", "Color.RED"),
    ("Priority", None),
    ("list[str]", None),
    ("list[int]", None),
    ("set[str]", None),
    ("tuple[int, int]", None),
    ("dict[str, int]", None),
    ("str | None", "None"),
    ("int | None", "None"),
    ("int | str", None),
    ("datetime.date", None),
    ("datetime.datetime", None),
    ("uuid.UUID", None),
    ("decimal.Decimal", None),
    ("Point", None),
    ("LineItem", None),
    ("list[LineItem]", None),
    ("Address", None),
    ("Customer", None),
    ("DateRange | None", "None"),
    ("list[Filter]", None),
    ('Annotated[str, Field(description="A free-text query.")]', None),
)
_RETURNS = ("str", "dict[str, Any]", "list[str]", "Point", "None", "list[LineItem]")
_VERBS = ("find", "get", "list", "create", "update", "delete", "search", "count", "export", "check")
_NOUNS = (
    "orders",
    "customers",
    "places",
    "invoices",
    "tickets",
    "files",
    "events",
    "users",
    "notes",
    "routes",
)
_PARAMS = (
    "query",
    "limit",
    "order",
    "since",
    "until",
    "owner",
    "status",
    "region",
    "tags",
    "items",
    "customer",
    "point",
    "priority",
    "color",
    "ids",
    "note",
    "amount",
    "range",
    "filters",
    "address",
    "enabled",
    "page",
    "scale",
    "label",
)
_STYLES = ("google", "numpy", "sphinx", "none")


def _docstring(summary: str, params: list[str], style: str) -> list[str]:
    if style == "none":
        return []
    lines = [f'    """{summary}', ""]
    if style == "google" and params:
        lines.append("    Args:")
        lines += [f"        {p}: The {p.replace('_', ' ')} to use." for p in params]
    elif style == "numpy" and params:
        lines += ["    Parameters", "    ----------"]
        for p in params:
            lines += [f"    {p}", f"        The {p.replace('_', ' ')} to use."]
    elif style == "sphinx":
        lines += [f"    :param {p}: The {p.replace('_', ' ')} to use." for p in params]
    if lines[-1] == "":
        lines.pop()
    lines.append('    """')
    return lines


def _generate(size: int, seed: int) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    for index in range(size):
        name = f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}_{index:03d}"
        count = rng.choice((0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 8))
        names = rng.sample(_PARAMS, count)
        required: list[str] = []
        optional: list[str] = []
        for param in names:
            annotation, default = rng.choice(_TYPES)
            if default is not None and rng.random() < 0.6:
                optional.append(f"{param}: {annotation} = {default}")
            else:
                required.append(f"{param}: {annotation}")
        prefix = "async def" if index % 3 == 0 else "def"
        returns = rng.choice(_RETURNS)
        signature = ", ".join(required + optional)
        out.append(f"{prefix} {name}({signature}) -> {returns}:")
        summary = f"{name.split('_')[0].capitalize()} {name.split('_')[1]} (tool {index})."
        out += _docstring(summary, names, _STYLES[index % len(_STYLES)])
        out += ["    raise NotImplementedError", "", ""]
    return "\n".join(out)


SOURCE = _generate(SIZE, SEED)
"""The generated source (kept for inspection)."""

_namespace = globals()
exec(compile(SOURCE, __file__ + ":generated", "exec"), _namespace)

FUNCTIONS: tuple[Callable[..., Any], ...] = tuple(
    value
    for key, value in list(_namespace.items())
    if callable(value)
    and getattr(value, "__code__", None) is not None
    and value.__code__.co_filename.endswith(":generated")
)
"""The 200 functions, in generation order."""


def functions(size: int = SIZE) -> tuple[Callable[..., Any], ...]:
    """The first `size` functions of the corpus."""
    return FUNCTIONS[:size]


__all__ += ()  # the generated names stay importable but are not the module's API
_ = (datetime, decimal, uuid, Annotated, Any, Literal, Ge, Gt, Le, MaxLen, MinLen, Field)


def many(size: int) -> tuple[Callable[..., Any], ...]:
    """`size` freshly generated functions (any size; the first 200 match the corpus).

    Each call executes the generated source again, so the functions are new objects
    (no cache of a previous build applies to them); the classes are the corpus's own.
    """
    namespace = dict(_namespace)
    source = _generate(size, SEED)
    exec(compile(source, __file__ + ":many", "exec"), namespace)
    return tuple(
        value
        for value in namespace.values()
        if callable(value)
        and getattr(value, "__code__", None) is not None
        and value.__code__.co_filename.endswith(":many")
    )
