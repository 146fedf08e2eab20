"""`x-python-type`: the Python type behind a schema fragment, as readable text.

Opt-in (`@tool(python_types=True)`), for hosts and tooling that want the original
type next to its JSON Schema, as the .NET catalog's `x-dotnet-type`. Every
provider projection strips it; the model never sees it.
"""

from __future__ import annotations

import builtins
import types
import typing
from collections.abc import Mapping
from typing import Any

import typing_extensions

from toolcast._define._node import Node
from toolcast._frozen import thaw

__all__ = (
    "PYTHON_TYPE",
    "has_python_types",
    "python_type_name",
    "typed",
    "without_python_types",
)

PYTHON_TYPE = "x-python-type"
_UNIONS = (typing.Union, types.UnionType)
_LITERALS = (typing.Literal, typing_extensions.Literal)


def python_type_name(tp: Any) -> str:
    """`tp` as written in code, modules spelled out: `list[int]`, `datetime.datetime`.

    Builtins keep their bare names, other classes get `module.qualname`
    (`myapp.models.Link`), unions read `int | None`, `Annotated` is left out.
    """
    if tp is None or tp is type(None):
        return "None"
    if tp is typing.Any or tp is typing_extensions.Any:
        return "typing.Any"
    if tp is Ellipsis:
        return "..."
    origin = typing_extensions.get_origin(tp)
    args = typing_extensions.get_args(tp)
    if origin is typing_extensions.Annotated:
        return python_type_name(args[0])
    if origin in _UNIONS:
        return " | ".join(python_type_name(a) for a in args)
    if origin in _LITERALS:
        return f"typing.Literal[{', '.join(repr(a) for a in args)}]"
    if origin is not None:
        inner = ", ".join(_argument_name(a) for a in args)
        return f"{python_type_name(origin)}[{inner}]" if args else python_type_name(origin)
    if isinstance(tp, typing_extensions.TypeAliasType):
        return f"{tp.__module__}.{tp.__name__}"
    if hasattr(tp, "__supertype__"):  # NewType
        return f"{tp.__module__}.{tp.__qualname__}"
    if isinstance(tp, type):
        qualname: str = tp.__qualname__
        if tp.__module__ == "builtins" and getattr(builtins, tp.__name__, None) is tp:
            return qualname
        return f"{tp.__module__}.{qualname}"
    return repr(tp)


def typed(node: Node, tp: Any) -> Node:
    """A fresh node with `x-python-type` added (class nodes are shared between tools)."""
    json = {**node.json, PYTHON_TYPE: python_type_name(tp)}
    return Node(json, node.core, node.depth, node.guards)


def _argument_name(arg: Any) -> str:
    if isinstance(arg, list):  # `Callable[[int], str]`'s parameter list
        return "[" + ", ".join(python_type_name(a) for a in arg) + "]"
    return python_type_name(arg)


_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
_DATA = frozenset({"default", "const", "enum", "examples"})


def has_python_types(schema: Any) -> bool:
    """Whether `x-python-type` appears in `schema` (a quick scan, no copy)."""
    if isinstance(schema, Mapping):
        if PYTHON_TYPE in schema:
            return True
        return any(has_python_types(v) for k, v in schema.items() if k not in _DATA)
    if isinstance(schema, (list, tuple)):
        return any(has_python_types(v) for v in schema)
    return False


def without_python_types(schema: Any) -> Any:
    """A plain copy of `schema` with every `x-python-type` keyword removed.

    Property names are data, not keywords: a property called `x-python-type`
    stays. Data keywords (`default`, `enum`, ...) are copied untouched.
    """
    if isinstance(schema, Mapping):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == PYTHON_TYPE:
                continue
            if key in _SCHEMA_MAPS and isinstance(value, Mapping):
                out[key] = {name: without_python_types(sub) for name, sub in value.items()}
            elif key in _DATA:
                out[key] = thaw(value)
            else:
                out[key] = without_python_types(value)
        return out
    if isinstance(schema, (list, tuple)):
        return [without_python_types(v) for v in schema]
    return schema
