"""An aliased tool needs a session: the refusal, and `RAW_IDS` to send raw ids on purpose.

A tool whose schemas carry `x-toolcast-alias` marks, invoked with `aliases=None`,
would hand the model raw UUIDs (and take them back): `Tool.invoke` refuses that
with `TypeError(unaliased_message(...))`. `aliases=RAW_IDS` says it is meant.
"""

from __future__ import annotations

from typing import Any, Final, final

from toolcast.aliases._plan import Plan, compile_plan

__all__ = ("RAW_IDS", "RawIds", "marked_paths", "unaliased_message")


@final
class RawIds:
    """The type of `RAW_IDS`: `aliases=RAW_IDS` sends an aliased tool's raw ids.

    There is one instance; compare with `is`.
    """

    __slots__ = ()
    _instance: RawIds | None = None

    def __new__(cls) -> RawIds:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "toolcast.aliases.RAW_IDS"

    def __reduce__(self) -> str:
        return "RAW_IDS"


RAW_IDS: Final = RawIds()
"""`aliases=RAW_IDS`: invoke an aliased tool without a session, raw UUIDs in and out."""


def _plan_paths(plan: Plan, root: str, limit: int) -> list[str]:
    """Up to `limit` paths of marked fragments under `plan`, breadth first."""
    out: list[str] = []
    seen: set[int] = set()
    queue: list[tuple[Plan, str]] = [(plan, root)]
    while queue and len(out) < limit:
        node, path = queue.pop(0)
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.prefix is not None:
            out.append(path)
        queue.extend((sub, f"{path}.{key}") for key, sub in node.props.items())
        queue.extend((sub, f"{path}[{i}]") for i, sub in node.prefix_items.items())
        if node.items is not None:
            queue.append((node.items, f"{path}[]"))
        if node.values is not None:
            queue.append((node.values, f"{path}.*"))
    return out


def marked_paths(spec: Any, limit: int = 3) -> list[str]:
    """Where `spec`'s aliased ids are (`input.link_id`, `output.id`), up to `limit`."""
    out: list[str] = []
    for root, schema in (("input", spec.input_schema), ("output", spec.output_schema)):
        plan = compile_plan(schema)
        if plan is not None:
            out.extend(_plan_paths(plan, root, limit - len(out)))
    return out


def unaliased_message(spec: Any) -> str:
    """Why an aliased tool invoked without `aliases=` is refused, naming its marks."""
    paths = marked_paths(spec)
    where = ", ".join(paths[:2]) + (", ..." if len(paths) > 2 else "")
    return (
        f"Tool '{spec.name}' aliases ids ({where}) but was invoked without aliases=: "
        "pass aliases=AliasSession(...) (docs/aliases.md), or "
        "aliases=toolcast.aliases.RAW_IDS to send raw ids deliberately."
    )


def is_aliased(spec: Any) -> bool:
    """True when the tool with `spec` aliases ids in its input or its output."""
    return (
        compile_plan(spec.input_schema) is not None or compile_plan(spec.output_schema) is not None
    )
