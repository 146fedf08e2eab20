"""Python annotation -> canonical JSON Schema fragment *and* the validator that agrees with it.

One walk over a type produces a `Node`: the JSON Schema (2020-12) fragment the model
sees and the pydantic-core schema that validates and converts arguments. Building
both from the same walk is what keeps "accepted exactly when the schema accepts"
true. pydantic is never imported unless a type comes from it.

Problems are collected (never raised one by one); `ToolDefinitionError` reports
them all at once.

The walk leans on a few neighbours, one concept each: `_node` (the `Node` pair and
canonical keyword order), `_annotations` (`Annotated` metadata and defaults),
`_formats` (exact integer and string-format validators), `_fields` (fields of
dataclasses, TypedDicts, NamedTuples and pydantic models), `_constraints`
(constraint keywords) and `_scalars` (the leaves: scalars, enums, literals).
Names other modules import from here are re-exported.
"""

from __future__ import annotations

import dataclasses
import types
import typing
import weakref
from collections import abc
from collections.abc import Callable
from typing import Any

import typing_extensions
from pydantic_core import PydanticCustomError
from pydantic_core import core_schema as cs

from toolcast._define._annotations import (
    MISSING,
    Meta,
    exact_in_json,
    json_default,
    split_annotated,
)
from toolcast._define._constraints import constrain
from toolcast._define._docstring import parse_docstring
from toolcast._define._fields import (
    FieldDef,
    class_doc,
    constructor_of,
    fields_of,
    guided_field,
    is_model,
    is_namedtuple,
    is_typeddict_class,
    own_model_schema,
    post_object,
)
from toolcast._define._formats import ANY, STR
from toolcast._define._jsonvalue import is_json_value_alias
from toolcast._define._node import (
    KEY_ORDER,
    Node,
    Path,
    array_node,
    depth_below,
    describe_json,
    json_accepts_null,
    max_node_depth,
    nullable_json,
    ordered,
)
from toolcast._define._pytypes import typed
from toolcast._define._scalars import literal_node, scalar_node
from toolcast._frozen import freeze
from toolcast.aliases._declare import described, marked
from toolcast.errors import DefinitionProblem

__all__ = (
    "KEY_ORDER",
    "MISSING",
    "FieldDef",
    "Meta",
    "Node",
    "SchemaBuilder",
    "json_default",
    "ordered",
    "split_annotated",
)


def _unique(kind: Callable[[Any], Any]) -> Callable[[list[Any]], Any]:
    def check(items: list[Any]) -> Any:
        result = kind(items)
        if len(result) != len(items):
            raise PydanticCustomError("unique", "must not contain duplicate items")
        return result

    return check


_CLASS_NODES: weakref.WeakKeyDictionary[type, dict[tuple[bool, ...], tuple[Node, bool, bool]]] = (
    weakref.WeakKeyDictionary()
)
"""Self-contained class nodes shared by every tool that uses the class:
{class: {(lenient_nulls, output, python_types): (node, needs_python_regex, exact_output)}}."""


class SchemaBuilder:
    """Walks annotations of one tool, collecting `$defs` and problems."""

    python_types = False  # write `x-python-type` on every fragment (set by `analyse`)

    def __init__(self, owner: str, *, lenient_nulls: bool = False, output: bool = False) -> None:
        self.owner = owner
        self.lenient_nulls = lenient_nulls
        """Fields with defaults also take `null`, meaning "use the default"."""
        self.output = output
        """Describing a return value: pydantic `Field(exclude=True)` fields are left out,
        as serialising leaves them out."""
        self.problems: list[DefinitionProblem] = []
        self.exact_output = False
        """A value of these types needs `exact_json` (Decimal, bytes, NamedTuple inside)."""
        self.defs: dict[str, dict[str, Any]] = {}
        self.core_defs: list[cs.CoreSchema] = []
        self.needs_python_regex = False
        self._stack: list[type] = []
        self._recursive: set[type] = set()
        self._names: dict[type, str] = {}
        self._done: dict[type, Node] = {}
        self._ref_uses = 0
        """`$ref`s handed out; a class node built while one was is not self-contained."""

    def problem(self, code: str, path: str, message: str) -> Node:
        """Record a problem; return a placeholder node so the walk can go on."""
        self.problems.append(DefinitionProblem(code, path, message))
        return Node({}, ANY)

    # -- dispatch --------------------------------------------------------------------

    def node(self, tp: Any, path: str, meta: Meta | None = None) -> Node:
        """The node for annotation `tp` at parameter path `path`."""
        tp, meta = split_annotated(tp, meta)
        if meta.injected is not None:
            return self.problem(
                "injected-nested", path, "Injected(...) is only allowed on a parameter itself."
            )
        node = self._dispatch(tp, path, meta)
        inexact = [f"{k}={v}" for k, v in meta.constraints.items() if not exact_in_json(v)]
        if inexact:  # the schema would show a rounded bound the validator does not use
            message = f"{', '.join(inexact)} has no exact JSON Schema number; use fewer digits."
            return self.problem("inexact-bound", path, message)
        if meta.constraints:
            node = constrain(self, node, tp, path, meta.constraints)
        if meta.description:  # the field's own words over its type's docstring
            node.json = ordered({**node.json, "description": meta.description})
        if meta.id_alias:  # the model sees `link-1`, the code the UUID (toolcast.aliases)
            json = marked(node.json, meta.id_alias, path, self.problems)
            node = Node(json, node.core, node.depth, node.guards)
        node = typed(node, tp) if self.python_types else node
        return node

    def _dispatch(self, tp: Any, path: str, meta: Meta) -> Node:
        origin = typing_extensions.get_origin(tp)
        args = typing_extensions.get_args(tp)
        if tp is typing.Any or tp is typing_extensions.Any or is_json_value_alias(tp):
            return Node({}, ANY, depth=None)
        if tp is None or tp is type(None):
            return Node({"type": "null"}, cs.none_schema())
        if origin is typing.Literal or origin is typing_extensions.Literal:
            return literal_node(self, args, path)
        if origin is typing.Union or origin is types.UnionType:
            return self._union(args, path, meta)
        if isinstance(tp, typing.TypeVar):
            return self.problem(
                "type-var",
                path,
                f"type variable {tp.__name__} cannot become a schema; "
                "use a concrete type (generic functions are not tools).",
            )
        if isinstance(tp, typing_extensions.TypeAliasType):
            return self.node(tp.__value__, path, meta)
        if hasattr(tp, "__supertype__"):  # NewType
            return self.node(tp.__supertype__, path, meta)
        if isinstance(tp, (str, typing.ForwardRef)):
            return self.problem(
                "unresolved-annotation",
                path,
                f"annotation {tp!r} could not be resolved; define the type at module level.",
            )
        scalar = scalar_node(self, tp, path, meta)
        if scalar is not None:
            return scalar
        container = self._container(tp, origin, args, path)
        if container is not None:
            return container
        if (
            is_typeddict_class(tp)
            or dataclasses.is_dataclass(tp)
            or is_namedtuple(tp)
            or is_model(tp)
        ):
            return self._object(tp, path)
        return self.problem(
            "unsupported-type",
            path,
            f"type {_type_name(tp)} has no JSON Schema; use a dataclass, TypedDict, "
            "pydantic model, or a builtin type.",
        )

    def _union(self, args: tuple[Any, ...], path: str, meta: Meta) -> Node:
        # `T | SkipJsonSchema[None]`: the hidden member is not part of the contract
        # (the schema leaves it out, so the validator does too).
        args = tuple(a for a in args if not split_annotated(a)[1].hidden)
        if not args:
            return self.problem("hidden-field", path, "every member of the union is hidden.")
        members = [a for a in args if a is not type(None) and a is not None]
        nullable = len(members) < len(args)
        if len(members) == 1:
            inner = self.node(members[0], path, Meta(constraints=dict(meta.constraints)))
            meta.constraints.clear()
        else:
            if meta.constraints:
                self.problem(
                    "constraint-mismatch",
                    path,
                    "constraints on a union are ambiguous; put them on one member.",
                )
                meta.constraints.clear()
            nodes = [self.node(m, path) for m in members]
            names = ", ".join(describe_json(n.json) for n in nodes)
            inner = Node(
                {"anyOf": [n.json for n in nodes]},
                cs.union_schema(
                    [n.core for n in nodes],
                    custom_error_type="union_mismatch",
                    custom_error_message=f"must be one of: {names}",
                ),
                depth=max_node_depth(nodes),
            )
        if not nullable:
            return inner
        return Node(
            nullable_json(inner.json), cs.nullable_schema(inner.core), inner.depth, inner.guards
        )

    def _container(self, tp: Any, origin: Any, args: tuple[Any, ...], path: str) -> Node | None:
        kind = origin if origin is not None else tp
        if kind in (
            list,
            abc.Sequence,
            abc.MutableSequence,
            abc.Iterable,
            abc.Collection,
            typing.Sequence,
        ):
            item = self.node(args[0] if args else typing.Any, f"{path}[]")
            return array_node(item, cs.list_schema(item.core, strict=True), {"items": item.json})
        if kind is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                item = self.node(args[0], f"{path}[]")
                core: cs.CoreSchema = cs.tuple_schema(
                    [item.core], variadic_item_index=0, strict=True
                )
                return array_node(item, core, {"items": item.json})
            if args == ((),) or (not args and origin is tuple and tp is not tuple):
                # tuple[()]: Python 3.11+ reports no args, 3.10 reports ((),).
                return Node(
                    {"type": "array", "maxItems": 0}, cs.tuple_schema([], strict=True), depth=1
                )
            if not args:
                item = self.node(typing.Any, f"{path}[]")
                core = cs.tuple_schema([item.core], variadic_item_index=0, strict=True)
                return array_node(item, core, {"items": item.json})
            items = [self.node(a, f"{path}[{i}]") for i, a in enumerate(args)]
            json = {
                "type": "array",
                "prefixItems": [n.json for n in items],
                "minItems": len(items),
                "maxItems": len(items),
            }
            guards = tuple((i, *g) for i, n in enumerate(items) for g in n.guards)
            return Node(
                json,
                cs.tuple_schema([n.core for n in items], strict=True),
                depth_below(items),
                guards,
            )
        if kind in (set, frozenset, abc.Set, abc.MutableSet):
            item = self.node(args[0] if args else typing.Any, f"{path}[]")
            if item.depth is None or (
                item.depth > 0 and not _is_hashable_shape(args[0] if args else None)
            ):
                return self.problem(
                    "unhashable-set", path, "set items must be scalars (str, int, enums, ...)."
                )
            build = frozenset if kind is frozenset else set
            core = cs.no_info_after_validator_function(
                _unique(build), cs.list_schema(item.core, strict=True)
            )
            return array_node(item, core, {"items": item.json, "uniqueItems": True})
        if kind in (dict, abc.Mapping, abc.MutableMapping):
            key_tp = args[0] if args else str
            key_base, _ = split_annotated(key_tp)
            if key_base is not str:
                return self.problem(
                    "non-str-dict-key",
                    path,
                    "dict keys must be str (JSON object keys are strings), "
                    f"got {_type_name(key_tp)}.",
                )
            value = self.node(args[1] if len(args) > 1 else typing.Any, f"{path}{{}}")
            core = cs.dict_schema(STR, value.core, strict=True)
            guards = tuple(("*", *g) for g in value.guards)
            depth = None if value.depth is None else value.depth + 1
            return Node({"type": "object", "additionalProperties": value.json}, core, depth, guards)
        if kind in (abc.Callable, typing.Callable) or (callable(tp) and origin is abc.Callable):
            return self.problem("unsupported-type", path, "callables cannot be sent by a model.")
        return None

    # -- objects ---------------------------------------------------------------------

    def _object(self, cls: type, path: str) -> Node:
        cached = self._done.get(cls)
        if cached is not None:
            if "$ref" in cached.json:
                self._ref_uses += 1
            return cached
        if cls in self._stack:
            self._recursive.add(cls)
            return self._ref(cls)
        key = (self.lenient_nulls, self.output, self.python_types)
        shared = _CLASS_NODES.get(cls, {}).get(key)
        if shared is not None:
            node, regex, exact = shared
            self.needs_python_regex |= regex
            self.exact_output |= exact
            node = Node(node.json, node.core, node.depth, node.guards)
            self._done[cls] = node
            return node
        marks = (len(self.defs), len(self.core_defs), len(self.problems), self._ref_uses)
        flags_before = (self.needs_python_regex, self.exact_output)
        self.needs_python_regex, self.exact_output = False, is_namedtuple(cls)
        self._stack.append(cls)
        try:
            fields_ = list(fields_of(cls, path, self.problems))
            doc = class_doc(cls)
            description = parse_docstring(doc).description if doc else None
            # pydantic `extra="allow"` keeps unknown keys: the schema says so.
            open_ = is_model(cls) and getattr(cls, "model_config", {}).get("extra") == "allow"
            node = self.object_node(
                fields_,
                path,
                construct=constructor_of(cls),
                description=description,
                open_=open_,
                model=cls if is_model(cls) else None,
            )
        finally:
            self._stack.pop()
            flags = (self.needs_python_regex, self.exact_output)
            self.needs_python_regex = flags[0] or flags_before[0]
            self.exact_output = flags[1] or flags_before[1]
        if marks == (len(self.defs), len(self.core_defs), len(self.problems), self._ref_uses):
            # Self-contained (no $defs, refs or problems): the same for every tool, so
            # a class used by many tools is walked once (the schemas are never mutated).
            # Frozen here, so every tool's published schema holds this one copy.
            node.json = freeze(node.json)
            shared_node = Node(node.json, node.core, node.depth, node.guards)
            _CLASS_NODES.setdefault(cls, {})[key] = (shared_node, *flags)
        if cls in self._recursive:
            ref = self._ref(cls)
            self.defs[self._names[cls]] = node.json
            node.core = {**node.core, "ref": self._names[cls]}
            self.core_defs.append(node.core)
            node = ref
        self._done[cls] = node
        return node

    def _ref(self, cls: type) -> Node:
        self._ref_uses += 1
        name = self._names.get(cls)
        if name is None:
            name = cls.__name__
            if name in self._names.values():
                name = cls.__qualname__.replace(".", "_").replace("<locals>_", "")
            self._names[cls] = name
        return Node({"$ref": f"#/$defs/{name}"}, cs.definition_reference_schema(name), depth=None)

    def _left_out(self, f: FieldDef, path: str) -> bool:
        """Whether field `f` is not part of this schema (hidden, or excluded from results)."""
        _, inner = split_annotated(f.annotation)
        hidden = inner.hidden or (f.meta is not None and f.meta.hidden)
        excluded = inner.excluded or (f.meta is not None and f.meta.excluded)
        if hidden and not self.output and f.required:
            where = f"{path}.{f.key}" if path else f.key
            self.problem(
                "hidden-field",
                where,
                "SkipJsonSchema or Param(hidden=True) hides a required field: the model "
                "could never send it. Give it a default, or show it.",
            )
        return hidden or (excluded and self.output)

    def object_node(
        self,
        fields_: list[FieldDef],
        path: str,
        *,
        construct: Callable[[dict[str, Any]], Any] | None,
        description: str | None = None,
        open_: bool = False,
        model: type | None = None,
    ) -> Node:
        """An object node from field definitions (also used for parameter lists).

        Closed unless `open_` (a pydantic model with `extra="allow"`): then any other
        key is accepted and handed to the model, which keeps it.
        """
        properties: dict[str, Any] = {}
        core_fields: dict[str, cs.TypedDictField] = {}
        required: list[str] = []
        depths: list[Node] = []
        guards: list[Path] = []
        null_defaults: list[str] = []
        for f in fields_:
            meta = None if f.meta is None else f.meta.for_type()
            if self._left_out(f, path):
                continue
            sub = self.node(f.annotation, f"{path}.{f.key}" if path else f.key, meta)
            json = sub.json
            if f.description:
                json = described(json, f.description)
            json = guided_field(f, json, path, self.problems)
            if not f.required and f.default is not MISSING:
                ok, value = json_default(f.default)
                if ok:
                    json = {**json, "default": value}
            properties[f.key] = ordered(json)
            field_core = sub.core
            if self.lenient_nulls and not f.required and not json_accepts_null(sub.json):
                field_core = cs.nullable_schema(field_core)
                null_defaults.append(f.key)
            core_fields[f.key] = cs.typed_dict_field(
                field_core, required=f.required, serialization_alias=f.attr
            )
            if f.required:
                required.append(f.key)
            depths.append(sub)
            guards.extend((f.key, *g) for g in sub.guards)
        json_obj: dict[str, Any] = {"type": "object"}
        if description:
            json_obj["description"] = description
        json_obj["properties"] = properties
        if required:
            json_obj["required"] = required
        json_obj["additionalProperties"] = open_
        core: cs.CoreSchema = cs.typed_dict_schema(
            core_fields, extra_behavior="allow" if open_ else "forbid", strict=True
        )
        renames = {f.key: f.attr for f in fields_ if f.key != f.attr}
        own = own_model_schema(model) if model and not (renames or null_defaults) else None
        post = None if own else post_object(construct, renames, tuple(null_defaults))
        if own is not None:  # a pydantic `model` builds itself, validators included
            core = cs.chain_schema([core, own])
        elif post is not None:
            core = cs.no_info_after_validator_function(post, core)
        depth = None if open_ else depth_below(depths)  # extra values may nest freely
        return Node(json_obj, core, depth, tuple(guards))


# -- helpers ---------------------------------------------------------------------------


def _type_name(tp: Any) -> str:
    return getattr(tp, "__qualname__", None) or repr(tp)


def _is_hashable_shape(tp: Any) -> bool:
    base, _ = split_annotated(tp)
    return (
        isinstance(base, type)
        and getattr(base, "__hash__", None) is not None
        and not dataclasses.is_dataclass(base)
    )
