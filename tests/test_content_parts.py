"""Audio, embedded-resource and resource-link parts (issue 28, item 4).

A tool returns them in a `ToolResult`; MCP carries each as its own content block
(the SDK's `AudioContent`, `EmbeddedResource`, `ResourceLink`), in both
directions, and every other target shows the model what was there as text. The
blocks are checked against the official SDK's own types, and the conformance
suite (tests/serving/test_conformance.py) checks the served wire form.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import mcp.types as mcp_types
import pytest
from mcp import Client
from pydantic import TypeAdapter

from toolcast import (
    AudioPart,
    ImagePart,
    JsonPart,
    Limits,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    Tool,
    ToolResult,
)
from toolcast.loop._conversation import outcome_from_dict, outcome_to_dict
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

WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(28)
AUDIO = AudioPart(WAV, "audio/wav")
TEXT_RESOURCE = ResourcePart("file:///notes/q3.csv", "region,total\nnorth,12\n", "text/csv")
BLOB_RESOURCE = ResourcePart("file:///scans/page1.pdf", b"%PDF-1.7 \x00\x01", "application/pdf")
LINK = ResourceLinkPart(
    "file:///reports/q3.pdf",
    "q3.pdf",
    title="Q3 report",
    description="Quarterly figures",
    mime_type="application/pdf",
    size=48213,
)
NEW_PARTS = (AUDIO, TEXT_RESOURCE, BLOB_RESOURCE, LINK)


def media() -> ToolResult:
    """Return one part of every kind."""
    return ToolResult(
        [TextPart("Here:"), AUDIO, TEXT_RESOURCE, BLOB_RESOURCE, LINK, ImagePart(b"\x89PNG")]
    )


MEDIA = Tool.from_function(media)


def _outcome() -> Any:
    return MEDIA.invoke_sync("{}", call_id="call_1")


def test_each_new_part_says_in_text_what_it_is() -> None:
    assert AUDIO.text == f"[audio: audio/wav, {len(WAV)} bytes, not shown]"
    assert TEXT_RESOURCE.text == "region,total\nnorth,12\n"
    assert BLOB_RESOURCE.text == (
        "[resource file:///scans/page1.pdf: application/pdf, 11 bytes, not shown]"
    )
    assert LINK.text == "[resource link: Q3 report <file:///reports/q3.pdf>: Quarterly figures]"
    assert ResourceLinkPart("s3://b/k", "k").text == "[resource link: k <s3://b/k>]"


def test_a_tool_result_takes_every_part_and_its_text_names_each() -> None:
    outcome = _outcome()
    assert not outcome.is_error
    assert outcome.content[1:5] == NEW_PARTS
    for part in NEW_PARTS:
        assert part.text in outcome.text
    assert ToolResult(AUDIO).content == (AUDIO,)  # type: ignore[arg-type]  # one part, as for text


def test_a_tool_result_still_refuses_what_is_not_a_part() -> None:
    with pytest.raises(TypeError, match="AudioPart, ResourcePart or ResourceLinkPart"):
        ToolResult([TextPart("a"), b"bytes"])  # type: ignore[list-item]


def test_a_tool_annotated_with_a_new_part_returns_it_as_sent() -> None:
    def speak() -> AudioPart:
        """Say hello."""
        return AUDIO

    spoken = Tool.from_function(speak)
    outcome = spoken.invoke_sync("{}")
    assert outcome.content == (AUDIO,)
    assert spoken.spec.output_schema is None  # parts are sent, not described


def test_a_result_cap_cuts_text_and_keeps_audio_and_links_whole() -> None:
    def long() -> ToolResult:
        """A long text resource, then audio and a link."""
        return ToolResult([ResourcePart("file:///a.txt", "x" * 500, "text/plain"), AUDIO, LINK])

    capped = Tool.from_function(long, limits=Limits(max_result_chars=40))
    outcome = capped.invoke_sync("{}")
    kinds = [type(part).__name__ for part in outcome.content]
    assert kinds == ["TextPart", "AudioPart", "ResourceLinkPart", "TextPart"]
    assert outcome.content[0] == TextPart("x" * 40)
    assert "Result truncated" in outcome.text


def test_a_saved_conversation_keeps_every_part() -> None:
    outcome = _outcome()
    again = outcome_from_dict(json.loads(json.dumps(outcome_to_dict(outcome))), "call_1")
    assert again.content == outcome.content
    assert again.text == outcome.text


# -- MCP: the SDK's own block types ----------------------------------------------------

_BLOCK = TypeAdapter(mcp_types.ContentBlock)


def test_mcp_serves_each_part_as_the_sdks_own_block() -> None:
    (result,) = mcp.format_results([_outcome()])
    blocks = [_BLOCK.validate_python(block) for block in result["content"]]
    assert [type(b).__name__ for b in blocks] == [
        "TextContent",
        "AudioContent",
        "EmbeddedResource",
        "EmbeddedResource",
        "ResourceLink",
        "ImageContent",
    ]
    audio, text_res, blob_res, link = blocks[1:5]
    assert isinstance(audio, mcp_types.AudioContent)
    assert base64.b64decode(audio.data) == WAV
    assert audio.mime_type == "audio/wav"
    assert isinstance(text_res, mcp_types.EmbeddedResource)
    assert isinstance(text_res.resource, mcp_types.TextResourceContents)
    assert text_res.resource.text == TEXT_RESOURCE.contents
    assert str(text_res.resource.uri) == TEXT_RESOURCE.uri
    assert isinstance(blob_res, mcp_types.EmbeddedResource)
    assert isinstance(blob_res.resource, mcp_types.BlobResourceContents)
    assert base64.b64decode(blob_res.resource.blob) == BLOB_RESOURCE.contents
    assert isinstance(link, mcp_types.ResourceLink)
    assert (link.name, link.title, link.size) == ("q3.pdf", "Q3 report", 48213)


async def test_parts_survive_a_round_trip_through_a_real_mcp_server() -> None:
    """toolcast serves them, the official client reads them, toolcast imports them back."""
    server = mcp.create_server([MEDIA])
    async with Client(server, mode="legacy") as client:
        raw = await client.call_tool("media", {})
        imported = {t.name: t for t in await mcp.tools_from_session(client)}
        again = await imported["media"].invoke("{}")
    assert [block.type for block in raw.content] == [
        "text",
        "audio",
        "resource",
        "resource",
        "resource_link",
        "image",
    ]
    assert not again.is_error
    assert again.content[1:5] == NEW_PARTS


async def test_a_remote_block_with_bad_base64_becomes_a_note_not_an_exception() -> None:
    from toolcast.providers._mcp_blocks import part_of

    bad = mcp_types.AudioContent(type="audio", data="not base64!", mime_type="audio/wav")
    assert part_of(bad) == TextPart("[audio content the remote server sent was not valid base64]")
    blob = mcp_types.EmbeddedResource(
        type="resource",
        resource=mcp_types.BlobResourceContents(uri="file:///x", blob="%%%"),
    )
    assert part_of(blob) == TextPart("[resource file:///x: its contents were not valid base64]")


# -- every other target: the model is told what was there -------------------------------


def _texts(value: Any) -> str:
    return json.dumps(value, default=str)


@pytest.mark.parametrize(
    "format_results",
    [
        anthropic.format_results,
        bedrock.format_results,
        gemini.format_results,
        mistral.format_results,
        ollama.format_results,
        openai_chat.format_results,
        openai_realtime.format_results,
        openai_responses.format_results,
        hermes.format_results,
    ],
    ids=lambda f: f.__module__.rsplit(".", 1)[-1],
)
def test_every_other_target_shows_each_part_as_text(format_results: Any) -> None:
    sent = _texts(format_results([_outcome()]))
    for part in (AUDIO, BLOB_RESOURCE, LINK):
        assert json.dumps(part.text)[1:-1] in sent, part
    assert "north,12" in sent  # a text resource's own text


def test_a_json_part_is_still_a_text_block_for_mcp() -> None:
    outcome = Tool.from_function(lambda: {"a": 1}, name="f").invoke_sync("{}")
    (result,) = mcp.format_results([outcome])
    assert result["content"] == [{"type": "text", "text": '{"a":1}'}]
    assert isinstance(outcome.content[0], JsonPart)
