"""Tool calls assembled from streamed fragments, for Anthropic and Bedrock.

Both stream a call as a start event (id and name, by block index) and argument
text in delta events; the pieces are joined per index and left as JSON text, so
malformed input becomes an error result. An event not in its format's shape
raises `ResponseFormatError` naming its path (`event[3].index is missing`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolcast._spec import ToolCall
from toolcast.providers._read import Wire, describe

__all__ = ("anthropic_calls", "bedrock_calls")

_ANTHROPIC = Wire("Anthropic stream")
_BEDROCK = Wire("Bedrock stream")


def anthropic_calls(events: list[Any]) -> list[ToolCall]:
    """The `tool_use` calls of Anthropic stream events (`content_block_*`), in index order."""
    wire = _ANTHROPIC
    started: dict[int, tuple[Mapping[str, Any], str]] = {}
    fragments: dict[int, list[str]] = {}
    for number, event in enumerate(events):
        where = f"event[{number}]"
        event = wire.obj(event, where)
        kind = event.get("type")
        if kind == "content_block_start":
            block = wire.obj(event.get("content_block"), f"{where}.content_block")
            if block.get("type") == "tool_use":
                index = wire.index(event.get("index"), f"{where}.index")
                started[index] = (block, f"{where}.content_block")
                fragments[index] = []
        elif kind == "content_block_delta":
            delta = wire.obj(event.get("delta"), f"{where}.delta")
            if delta.get("type") == "input_json_delta":
                index = wire.index(event.get("index"), f"{where}.index")
                piece = delta.get("partial_json")
                if piece is not None and not isinstance(piece, str):
                    wire.fail(f"{where}.delta.partial_json", f"is {describe(piece)}, not a string")
                if index in fragments and piece:
                    fragments[index].append(piece)
    calls = []
    for index in sorted(started):
        block, path = started[index]
        # The start event carries `input: {}`; the real input arrives as deltas.
        text = "".join(fragments[index])
        call_id = wire.text(block.get("id"), f"{path}.id")
        assert call_id is not None
        calls.append(wire.call(path, call_id, block.get("name"), text or block.get("input")))
    return calls


def bedrock_calls(events: Any) -> list[ToolCall]:
    """The `toolUse` calls of Converse stream events (`contentBlock*`), in index order."""
    wire = _BEDROCK
    if isinstance(events, (str, bytes, bytearray, Mapping)) or not isinstance(events, Iterable):
        wire.fail("stream", f"is {describe(events)}, not a list of events")
    started: dict[int, tuple[str, Any, str]] = {}
    fragments: dict[int, list[str]] = {}
    for number, event in enumerate(events):
        where = f"event[{number}]"
        event = wire.obj(event, where)
        if "contentBlockStart" in event:
            at = f"{where}.contentBlockStart"
            start = wire.obj(event["contentBlockStart"], at)
            use = wire.obj(start.get("start") or {}, f"{at}.start").get("toolUse")
            if use is not None:
                use = wire.obj(use, f"{at}.start.toolUse")
                index = wire.index(start.get("contentBlockIndex"), f"{at}.contentBlockIndex")
                call_id = wire.text(use.get("toolUseId"), f"{at}.start.toolUse.toolUseId")
                assert call_id is not None
                started[index] = (call_id, use.get("name"), f"{at}.start.toolUse")
                fragments[index] = []
        elif "contentBlockDelta" in event:
            at = f"{where}.contentBlockDelta"
            delta = wire.obj(event["contentBlockDelta"], at)
            use = wire.obj(delta.get("delta") or {}, f"{at}.delta").get("toolUse")
            if use is not None:
                use = wire.obj(use, f"{at}.delta.toolUse")
                index = wire.index(delta.get("contentBlockIndex"), f"{at}.contentBlockIndex")
                piece = use.get("input", "")
                if not isinstance(piece, str):
                    wire.fail(f"{at}.delta.toolUse.input", f"is {describe(piece)}, not a string")
                if index in fragments:
                    fragments[index].append(piece)
    return [
        wire.call(started[i][2], started[i][0], started[i][1], "".join(fragments[i]))
        for i in sorted(started)
    ]
