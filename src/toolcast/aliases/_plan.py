"""Where a schema's aliased ids are: a plan compiled from the `x-toolcast-alias` marks.

A `Plan` mirrors only the parts of a schema that lead to a marked fragment
(properties, items, dict values, union branches merged, `$defs` references,
recursive ones included), so walking a value visits nothing else. The same plan
drives both directions: the model's arguments (aliases to resolve) and a tool's
structured result (UUIDs to register). Values are plain JSON data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolcast.aliases._declare import ALIAS_KEYWORD, has_marks

__all__ = ("Plan", "compile_plan", "inbound_leaves", "outbound_leaves", "UUID_TEXT")

UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z"
)
"""A whole string that is one UUID, in either case (8-4-4-4-12 hex digits)."""


class Plan:
    """The marked parts of one schema node."""

    __slots__ = ("items", "prefix", "prefix_items", "props", "values")

    def __init__(self) -> None:
        self.prefix: str | None = None
        self.props: dict[str, Plan] = {}
        self.items: Plan | None = None
        self.prefix_items: dict[int, Plan] = {}
        self.values: Plan | None = None

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
    plan = _compile(schema, defs, refs)
    return None if plan is None or plan.empty() else plan


def _compile(node: Any, defs: Mapping[str, Any], refs: dict[str, Plan]) -> Plan | None:
    if not isinstance(node, Mapping):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
        name = ref.rsplit("/", 1)[1]
        if name in refs:
            return refs[name]
        target = defs.get(name)
        if not has_marks(target):
            return None
        plan = refs[name] = Plan()  # placeholder first: the definition may recurse
        found = _compile(target, defs, refs)
        if found is not None:
            _merge(plan, found)
        return plan
    if not has_marks(node):
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
    for keyword in ("anyOf", "oneOf", "allOf"):
        for branch in node.get(keyword) or ():
            found = _compile(branch, defs, refs)
            if found is not None:
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


# A leaf: the container holding the string, its key or index, the prefix, and
# (inbound only) the argument path for messages.
Leaf = tuple[Any, Any, str, str]


def inbound_leaves(value: Any, plan: Plan) -> list[Leaf]:
    """Every string the model sent under a marked field, with its argument path."""
    out: list[Leaf] = []
    _inbound(value, plan, "", out)
    return out


def _inbound(item: Any, node: Plan, path: str, out: list[Leaf]) -> None:
    if isinstance(item, dict):
        for key, child in item.items():
            sub = node.props.get(key, node.values)
            if sub is not None:
                _inbound_one(item, key, child, sub, f"{path}.{key}" if path else key, out)
    elif isinstance(item, list):
        for index, child in enumerate(item):
            sub = node.prefix_items.get(index, node.items)
            if sub is not None:
                _inbound_one(item, index, child, sub, f"{path}[{index}]", out)


def _inbound_one(
    container: Any, key: Any, child: Any, sub: Plan, path: str, out: list[Leaf]
) -> None:
    if sub.prefix is not None and isinstance(child, str):
        out.append((container, key, sub.prefix, path))
    elif isinstance(child, (dict, list)):
        _inbound(child, sub, path, out)


def outbound_leaves(value: Any, plan: Plan) -> list[tuple[Any, Any, str]]:
    """Every UUID string under a marked field of a result, in document order."""
    out: list[tuple[Any, Any, str]] = []
    _outbound(value, plan, out)
    return out


def _outbound(item: Any, node: Plan, out: list[tuple[Any, Any, str]]) -> None:
    # The hot loop of a large result: plain checks, no per-value function call.
    match = UUID_TEXT.match
    if isinstance(item, dict):
        props = node.props
        for key, sub in props.items():
            child = item.get(key)
            if child is None:
                continue
            if sub.prefix is not None and child.__class__ is str:
                if len(child) == 36 and match(child):
                    out.append((item, key, sub.prefix))
            elif isinstance(child, (dict, list)):
                _outbound(child, sub, out)
        values = node.values
        if values is not None:
            for key, child in item.items():
                if key not in props:
                    _one(item, key, child, values, out)
    elif isinstance(item, list):
        if node.prefix_items:
            for index, child in enumerate(item):
                sub = node.prefix_items.get(index, node.items)
                if sub is not None:
                    _one(item, index, child, sub, out)
            return
        items = node.items
        if items is None:
            return
        prefix = items.prefix
        for index, child in enumerate(item):
            if child.__class__ is str:
                if prefix is not None and len(child) == 36 and match(child):
                    out.append((item, index, prefix))
            elif isinstance(child, (dict, list)):
                _outbound(child, items, out)


def _one(container: Any, key: Any, child: Any, sub: Plan, out: list[tuple[Any, Any, str]]) -> None:
    if sub.prefix is not None and child.__class__ is str:
        if len(child) == 36 and UUID_TEXT.match(child):
            out.append((container, key, sub.prefix))
    elif isinstance(child, (dict, list)):
        _outbound(child, sub, out)
