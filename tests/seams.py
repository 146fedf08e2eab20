"""What a model decoding under a target's projection sends, and the wire it comes in.

Shared by tests/test_seams_agreement.py and tests/test_real_corpus.py. `spell` turns a
value the canonical schema accepts into the value a model constrained by the target's
projected schema must send (under strict: every declared key present, null for the
optional ones left out); `response` wraps arguments in the target's own response
shape, so the target's `parse_calls` reads them as it reads a real reply.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

import jsonschema_rs

from toolcast import ToolCall
from toolcast._define._nulls import accepts_null, local_ref
from toolcast.providers import (
    anthropic,
    bedrock,
    gemini,
    hermes,
    mcp,
    mistral,
    ollama,
    openai_chat,
    openai_realtime,
    openai_responses,
)
from toolcast.providers._projection import Projection

TARGETS: dict[str, Any] = {
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "openai_realtime": openai_realtime,
    "anthropic": anthropic,
    "gemini": gemini,
    "bedrock": bedrock,
    "mistral": mistral,
    "ollama": ollama,
    "mcp": mcp,
    "hermes": hermes,
}
# Targets whose strict form lists every property as required (nullable when optional).
ALL_REQUIRED = ("openai_chat", "openai_responses", "openai_realtime", "mistral")


def parameters(projection: Projection) -> Mapping[str, Any]:
    """The projected input schema inside the target's wire definition."""
    d = projection.definition
    target = projection.target
    if target in ("openai_chat", "mistral", "ollama"):
        return d["function"]["parameters"]  # type: ignore[no-any-return]
    if target in ("openai_responses", "openai_realtime"):
        return d["parameters"]  # type: ignore[no-any-return]
    if target == "anthropic":
        return d["input_schema"]  # type: ignore[no-any-return]
    if target == "gemini":
        return d.get("parametersJsonSchema") or d.get("parameters") or {}
    if target == "bedrock":
        return d["toolSpec"]["inputSchema"]["json"]  # type: ignore[no-any-return]
    if target == "mcp":
        return d["inputSchema"]  # type: ignore[no-any-return]
    if target == "hermes":
        return d.get("parameters") or d["function"]["parameters"]  # type: ignore[no-any-return]
    raise AssertionError(target)


def response(target: str, name: str, arguments: Any) -> Any:
    """A response of `target`'s own shape holding one call of `name` with `arguments`."""
    text = json.dumps(arguments, ensure_ascii=False)
    if target in ("openai_chat", "mistral"):
        call = {"id": "call_a1b2c3d4e", "type": "function"}
        call["function"] = {"name": name, "arguments": text}  # type: ignore[assignment]
        return {"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [call]}}]}
    if target == "openai_responses":
        item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": name}
        return {"output": [{**item, "arguments": text}]}
    if target == "openai_realtime":
        item = {"type": "function_call", "id": "item_1", "call_id": "call_1", "name": name}
        return {"type": "conversation.item.done", "item": {**item, "arguments": text}}
    if target == "anthropic":
        block = {"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments}
        return {"role": "assistant", "content": [block]}
    if target == "gemini":
        part = {"functionCall": {"name": name, "args": arguments}}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}}]}
    if target == "bedrock":
        use = {"toolUseId": "tooluse_1", "name": name, "input": arguments}
        return {"output": {"message": {"role": "assistant", "content": [{"toolUse": use}]}}}
    if target == "ollama":
        call = {"function": {"name": name, "arguments": arguments}}
        return {"message": {"role": "assistant", "tool_calls": [call]}}
    if target == "mcp":
        params = {"name": name, "arguments": arguments}
        return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    if target == "hermes":
        body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
        return f"<tool_call>\n{body}\n</tool_call>"
    raise AssertionError(target)


def one_call(target: str, name: str, arguments: Any) -> ToolCall:
    """The single call the target's `parse_calls` reads from its own response shape."""
    calls = TARGETS[target].parse_calls(response(target, name, arguments))
    assert len(calls) == 1, calls
    assert calls[0].name == name
    return calls[0]  # type: ignore[no-any-return]


class Schema:
    """A projected schema: validation, and the walk from a value to its strict spelling."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.root = json.loads(json.dumps(schema))
        self.validator = jsonschema_rs.validator_for(self.root)
        self._branches: dict[int, Any] = {}

    def accepts(self, value: Any) -> bool:
        """Whether the projected schema accepts `value` (jsonschema-rs, 2020-12)."""
        return bool(self.validator.is_valid(value))

    def _resolve(self, node: Any) -> Any:
        for _ in range(32):
            if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
                return node
            target = self.root
            for part in node["$ref"].lstrip("#/").split("/"):
                if part:
                    target = target[part.replace("~1", "/").replace("~0", "~")]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def _branch_accepts(self, branch: Any, value: Any) -> bool:
        key = id(branch)
        if key not in self._branches:
            whole = {k: v for k, v in self.root.items() if k in ("$defs", "definitions")}
            self._branches[key] = (branch, jsonschema_rs.validator_for({**whole, **branch}))
        return bool(self._branches[key][1].is_valid(value))

    def with_nulls(self, value: Any, node: Any = None) -> Any:
        """`value` with null for each optional key left out whose schema accepts null.

        Read on a canonical schema: what a strict model sends for such a key (it must
        send the key, and null is a value there), as a canonical value.
        """
        node = self._resolve(self.root if node is None else node)
        if not isinstance(node, dict):
            return value
        for keyword in ("anyOf", "oneOf"):
            for branch in node.get(keyword) or ():
                if self._branch_accepts(self._resolve(branch), value):
                    return self.with_nulls(value, branch)
        if isinstance(value, dict) and isinstance(node.get("properties"), dict):
            props = node["properties"]
            out = {k: self.with_nulls(v, props[k]) if k in props else v for k, v in value.items()}
            resolve = functools.partial(local_ref, self.root)
            for key, sub in props.items():
                if key not in out and accepts_null(sub, resolve):
                    out[key] = None
            return out
        if isinstance(value, list):
            prefix = node.get("prefixItems") or []
            items = node.get("items")
            return [
                self.with_nulls(v, prefix[i] if i < len(prefix) else items)
                for i, v in enumerate(value)
            ]
        return value

    def spell(self, value: Any, node: Any = None) -> Any:
        """`value` with every declared key present (null when left out), as strict asks."""
        node = self._resolve(self.root if node is None else node)
        if not isinstance(node, dict):
            return value
        for keyword in ("anyOf", "oneOf"):
            for branch in node.get(keyword) or ():
                spelled = self.spell(value, branch)
                if self._branch_accepts(self._resolve(branch), spelled):
                    return spelled
        if isinstance(value, dict) and isinstance(node.get("properties"), dict):
            props = node["properties"]
            out = {k: self.spell(v, props[k]) if k in props else v for k, v in value.items()}
            for key in node.get("required") or ():
                if key in props and key not in out:
                    out[key] = None
            return out
        if isinstance(value, list):
            prefix = node.get("prefixItems") or []
            items = node.get("items")
            return [
                self.spell(v, prefix[i] if i < len(prefix) else items) for i, v in enumerate(value)
            ]
        return value


def recording(store: list[Any]) -> Callable[[Any], Any]:
    """A `from_schema` handler that records the arguments it was handed."""

    def handler(arguments: Any) -> str:
        store.append(arguments)
        return "ok"

    return handler
