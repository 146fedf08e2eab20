"""Issue 21, defect 6: id aliases on recursive types, at every depth, both ways."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Annotated, Any
from uuid import UUID

from pydantic import BaseModel

from toolcast import Alias, Catalog, ToolCall
from toolcast.aliases import AliasSession


@dataclass
class Node:
    id: Annotated[UUID, Alias("link")]
    children: list[Node] = field(default_factory=list)


class Tree(BaseModel):
    id: Annotated[UUID, Alias("link")]
    child: Tree | None = None


IDS = [uuid.uuid4() for _ in range(4)]
SEEN: list[Any] = []


def chain(depth: int) -> Node:
    node = Node(IDS[depth])
    return node if depth == 0 else Node(IDS[depth], [chain(depth - 1)])


def get_nodes() -> Node:
    """A tree of nodes four deep."""
    return chain(3)


def get_tree() -> Tree:
    """A pydantic chain four deep."""
    tree = Tree(id=IDS[0])
    for u in IDS[1:]:
        tree = Tree(id=u, child=tree)
    return tree


def put_nodes(node: Node) -> str:
    """Take a tree back."""
    SEEN.append(node)
    return "ok"


def put_tree(tree: Tree) -> str:
    """Take a pydantic chain back."""
    SEEN.append(tree)
    return "ok"


def _ids(value: Any, key: str) -> list[str]:
    out = []
    while value:
        out.append(value["id"])
        nested = value.get(key)
        value = nested[0] if isinstance(nested, list) and nested else nested
        if isinstance(value, list):
            value = None
    return out


def test_defect_6_nested_ids_of_a_recursive_dataclass_are_aliased_both_ways() -> None:
    tools = Catalog([get_nodes, put_nodes]).select()
    session = AliasSession("c")
    out = tools.invoke_sync(ToolCall("1", "get_nodes", "{}"), aliases=session)
    ids = _ids(json.loads(out.text), "children")
    assert len(ids) == 4  # every depth, not only the root
    assert all(i.startswith("link-") for i in ids), ids
    sent = {"node": {"id": ids[0], "children": [{"id": ids[1], "children": [{"id": ids[3]}]}]}}
    back = tools.invoke_sync(ToolCall("2", "put_nodes", json.dumps(sent)), aliases=session)
    assert back.text == "ok", back.text
    node = SEEN[-1]
    assert node.id == IDS[3]
    assert node.children[0].id == IDS[2]
    assert node.children[0].children[0].id == IDS[0]


def test_defect_6_nested_ids_of_a_recursive_model_are_aliased_both_ways() -> None:
    tools = Catalog([get_tree, put_tree]).select()
    session = AliasSession("c")
    out = tools.invoke_sync(ToolCall("1", "get_tree", "{}"), aliases=session)
    ids = _ids(json.loads(out.text), "child")
    assert len(ids) == 4
    assert all(i.startswith("link-") for i in ids), ids
    sent = {"tree": {"id": ids[0], "child": {"id": ids[1], "child": {"id": ids[2]}}}}
    back = tools.invoke_sync(ToolCall("2", "put_tree", json.dumps(sent)), aliases=session)
    assert back.text == "ok", back.text
    tree = SEEN[-1]
    assert [tree.id, tree.child.id, tree.child.child.id] == [IDS[3], IDS[2], IDS[1]]
    invented = {"tree": {"id": ids[0], "child": {"id": "link-99"}}}
    refused = tools.invoke_sync(ToolCall("3", "put_tree", json.dumps(invented)), aliases=session)
    assert refused.is_error
    assert "link-99" in refused.text
