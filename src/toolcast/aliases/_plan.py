"""Where a schema's aliased ids are: a plan compiled from the `x-toolcast-alias` marks.

A `Plan` mirrors only the parts of a schema that lead to a marked fragment
(properties, items, dict values, union branches merged, `$defs` references,
recursive ones included), so walking a value visits nothing else. The same plan
drives both directions: the model's arguments (aliases to resolve) and a tool's
structured result (UUIDs to register). Values are plain JSON data.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Mapping
from typing import Any

from toolcast.aliases._declare import ALIAS_KEYWORD, has_marks

__all__ = (
    "UUID_IN_TEXT",
    "UUID_TEXT",
    "Leaf",
    "Plan",
    "compile_plan",
    "inbound_leaves",
    "leaf_paths",
    "outbound_leaves",
)

UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z"
)
"""A whole string that is one UUID, in either case (8-4-4-4-12 hex digits)."""
UUID_IN_TEXT = re.compile(
    r"(?<![0-9A-Za-z-])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
    r"-[0-9a-fA-F]{12}(?![0-9A-Za-z-])"
)
"""A whole UUID inside text (not part of a longer run of letters, digits or dashes)."""


class Plan:
    """The marked parts of one schema node."""

    __slots__ = ("_split", "items", "prefix", "prefix_items", "props", "values")

    def __init__(self) -> None:
        self._split: tuple[tuple[tuple[str, str], ...], tuple[tuple[str, Plan], ...]] | None = None
        self.prefix: str | None = None
        self.props: dict[str, Plan] = {}
        self.items: Plan | None = None
        self.prefix_items: dict[int, Plan] = {}
        self.values: Plan | None = None

    def split(self) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, Plan], ...]]:
        """`(key, prefix)` of the marked properties, `(key, plan)` of those with marks below."""
        if self._split is None:
            leaf = tuple((k, p.prefix) for k, p in self.props.items() if p.prefix is not None)
            deep = tuple((k, p) for k, p in self.props.items() if p.prefix is None)
            self._split = (leaf, deep)
        return self._split

    def empty(self) -> bool:
        return not (self.prefix or self.props or self.items or self.prefix_items or self.values)

    def prefixes(self) -> set[str]:
        """Every prefix this plan can meet (for a lookup that also counts them)."""
        seen: set[int] = set()
        out: set[str] = set()
        stack: list[Plan] = [self]
        while stack:
            plan = stack.pop()
            if id(plan) in seen:
                continue
            seen.add(id(plan))
            if plan.prefix:
                out.add(plan.prefix)
            stack.extend(plan.props.values())
            stack.extend(plan.prefix_items.values())
            stack.extend(p for p in (plan.items, plan.values) if p is not None)
        return out


def compile_plan(schema: Mapping[str, Any] | None) -> Plan | None:
    """The plan for `schema`, or None when it marks nothing."""
    if not isinstance(schema, Mapping) or not has_marks(schema):
        return None
    defs = schema.get("$defs") or schema.get("definitions") or {}
    refs: dict[str, Plan] = {}
    token = _MARKED_DEFS.set(_marked_defs(defs))
    try:
        plan = _compile(schema, defs, refs)
    finally:
        _MARKED_DEFS.reset(token)
    return None if plan is None or plan.empty() else plan


_MARKED_DEFS: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "toolcast_marked_defs", default=frozenset()
)
"""While a plan compiles (per thread and task): the definitions that mark a
fragment, through `$ref`s too."""


def _refs_in(node: Any) -> set[str]:
    """The local definition names `node` refers to (iterative: no recursion limit)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, Mapping):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
                found.add(ref.rsplit("/", 1)[1])
            stack.extend(v for k, v in item.items() if k not in ("enum", "const", "default"))
    return found


def _marked_defs(defs: Mapping[str, Any]) -> frozenset[str]:
    """Definitions with a mark of their own or behind a `$ref` (a recursive type's id).

    Issue 21, defect 6: a self-referencing model's nested ids sit behind `$ref`s
    (`"children": {"items": {"$ref": "#/$defs/Node"}}`), which `has_marks` does not
    follow; without this the plan stopped at the first `$ref`. A fixpoint over the
    reference graph: it ends on cycles, each definition scanned once.
    """
    uses = {name: _refs_in(body) for name, body in defs.items()}
    marked = {name for name, body in defs.items() if has_marks(body)}
    changed = True
    while changed:
        changed = False
        for name, targets in uses.items():
            if name not in marked and targets & marked:
                marked.add(name)
                changed = True
    return frozenset(marked)


def _marked(node: Any) -> bool:
    return has_marks(node) or bool(_refs_in(node) & _MARKED_DEFS.get())


def _compile(node: Any, defs: Mapping[str, Any], refs: dict[str, Plan]) -> Plan | None:
    if not isinstance(node, Mapping):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
        name = ref.rsplit("/", 1)[1]
        if name in refs:
            return refs[name]
        target = defs.get(name)
        if not _marked(target):
            return None
        plan = refs[name] = Plan()  # placeholder first: the definition may recurse
        found = _compile(target, defs, refs)
        if found is not None:
            _merge(plan, found)
        return plan
    if not _marked(node):
        return None
    plan = Plan()
    prefix = node.get(ALIAS_KEYWORD)
    if isinstance(prefix, str):
        plan.prefix = prefix
    for key, sub in (node.get("properties") or {}).items():
        found = _compile(sub, defs, refs)
        if found is not None:
            plan.props[key] = found
    items = node.get("items")
    if isinstance(items, Mapping):
        plan.items = _compile(items, defs, refs)
    for index, sub in enumerate(node.get("prefixItems") or ()):
        found = _compile(sub, defs, refs)
        if found is not None:
            plan.prefix_items[index] = found
    extra = node.get("additionalProperties")
    if isinstance(extra, Mapping):
        plan.values = _compile(extra, defs, refs)
    branches = [
        found
        for keyword in ("anyOf", "oneOf", "allOf")
        for branch in node.get(keyword) or ()
        if (found := _compile(branch, defs, refs)) is not None
    ]
    if len(branches) == 1 and plan.empty():
        # `T | None` around a recursive `$ref`: share the definition's plan, which
        # may still be filling in (a copy taken now would miss the deeper levels).
        return branches[0]
    for found in branches:
        _merge(plan, found)
    return plan


def _merge(into: Plan, other: Plan) -> None:
    """Union branches: a value is walked by every branch's marks (first prefix wins)."""
    if into is other:
        return
    into.prefix = into.prefix or other.prefix
    for key, sub in other.props.items():
        into.props[key] = _merged(into.props.get(key), sub)
    for index, sub in other.prefix_items.items():
        into.prefix_items[index] = _merged(into.prefix_items.get(index), sub)
    if other.items is not None:
        into.items = _merged(into.items, other.items)
    if other.values is not None:
        into.values = _merged(into.values, other.values)


def _merged(mine: Plan | None, other: Plan) -> Plan:
    if mine is None:
        return other
    fresh = Plan()
    _merge(fresh, mine)
    _merge(fresh, other)
    return fresh


# A leaf: the container holding the string, its key or index, and the prefix. Inbound,
# a key of None stands for every string of a list (one entry, not one per item).
Leaf = tuple[Any, Any, str]


def inbound_leaves(value: Any, plan: Plan) -> list[Leaf]:
    """Every string the model sent under a marked field (a list of them: one entry)."""
    out: list[Leaf] = []
    _walk(value, plan, out, True)
    return out


def leaf_paths(value: Any, plan: Plan) -> dict[tuple[int, Any], str]:
    """The argument path of each leaf, by `(id(container), key)` (for messages only)."""
    out: dict[tuple[int, Any], str] = {}
    _paths(value, plan, "", out)
    return out


def _paths(item: Any, node: Plan, path: str, out: dict[tuple[int, Any], str]) -> None:
    pairs: Any = ()
    if isinstance(item, dict):
        pairs = (
            (k, v, node.props.get(k, node.values), f"{path}.{k}" if path else k)
            for k, v in item.items()
        )
    elif isinstance(item, list):
        pairs = (
            (i, v, node.prefix_items.get(i, node.items), f"{path}[{i}]") for i, v in enumerate(item)
        )
    for key, child, sub, where in pairs:
        if sub is None:
            continue
        if sub.prefix is not None and isinstance(child, str):
            out[(id(item), key)] = where
        elif isinstance(child, (dict, list)):
            _paths(child, sub, where, out)


def outbound_leaves(value: Any, plan: Plan) -> list[Leaf]:
    """Every UUID string under a marked field of a result, in document order."""
    out: list[Leaf] = []
    _walk(value, plan, out, False)
    if not out:
        return out
    texts = [c[k] for c, k, _ in out]
    if _ALL_UUIDS.fullmatch("\n".join(texts)):  # the usual case: one C call checks all
        return out
    return [leaf for leaf, text in zip(out, texts, strict=True) if UUID_TEXT.match(text)]


_ONE = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_ALL_UUIDS = re.compile(rf"(?:{_ONE}\n)*{_ONE}")


def _walk(item: Any, node: Plan, out: list[Leaf], whole_lists: bool) -> None:
    """Every string under a marked field (a large result's hot loop: kept flat)."""
    if item.__class__ is dict:
        _fields(item, node, out, whole_lists)
    elif item.__class__ is list:
        items = node.items
        if node.prefix_items:
            for index, child in enumerate(item):
                found = node.prefix_items.get(index, items)
                if found is not None:
                    _one(item, index, child, found, out, whole_lists)
            return
        if items is None:
            return
        prefix = items.prefix
        if prefix is not None:
            if whole_lists:
                out.append((item, None, prefix))  # the whole list: its strings are the leaves
            else:
                out.extend((item, i, prefix) for i, c in enumerate(item) if c.__class__ is str)
            return
        leaf, deep = items.split()
        plain = items.values is None
        for child in item:
            if child.__class__ is dict and plain:
                for key, prefix in leaf:
                    if child.get(key).__class__ is str:
                        out.append((child, key, prefix))
                for key, sub in deep:
                    grand = child.get(key)
                    if grand.__class__ is dict or grand.__class__ is list:
                        _walk(grand, sub, out, whole_lists)
            elif child.__class__ is dict or child.__class__ is list:
                _walk(child, items, out, whole_lists)


def _fields(item: dict[str, Any], node: Plan, out: list[Leaf], whole_lists: bool) -> None:
    leaf, deep = node.split()
    for key, prefix in leaf:
        if item.get(key).__class__ is str:
            out.append((item, key, prefix))
    for key, sub in deep:
        child = item.get(key)
        if child.__class__ is dict or child.__class__ is list:
            _walk(child, sub, out, whole_lists)
    values = node.values
    if values is not None:
        props = node.props
        for key, child in item.items():
            if key not in props:
                _one(item, key, child, values, out, whole_lists)


def _one(
    container: Any, key: Any, child: Any, sub: Plan, out: list[Leaf], whole_lists: bool
) -> None:
    if sub.prefix is not None and child.__class__ is str:
        out.append((container, key, sub.prefix))
    elif child.__class__ is dict or child.__class__ is list:
        _walk(child, sub, out, whole_lists)
