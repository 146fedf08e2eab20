"""Content parts as MCP content blocks, and back: the one mapping both directions use.

Serving writes each part as the wire dict of the matching `mcp.types` block
(`TextContent`, `ImageContent`, `AudioContent`, `EmbeddedResource`,
`ResourceLink`); importing a remote tool reads the SDK's block objects back into
parts. A block that cannot be read (bad base64, a kind this SDK version does not
name) becomes a text part that says so, never an exception: a peer's result must
not end the host's run.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from toolcast._content import (
    AudioPart,
    ContentPart,
    ImagePart,
    JsonPart,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
)

__all__ = ("content_block", "part_of")


def content_block(part: ContentPart) -> dict[str, Any]:
    """`part` as an MCP content block (the wire dict)."""
    if isinstance(part, (TextPart, JsonPart)):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        return {"type": "image", "data": part.base64, "mimeType": part.mime_type}
    if isinstance(part, AudioPart):
        return {"type": "audio", "data": part.base64, "mimeType": part.mime_type}
    if isinstance(part, ResourcePart):
        resource: dict[str, Any] = {"uri": part.uri}
        if part.mime_type is not None:
            resource["mimeType"] = part.mime_type
        if isinstance(part.contents, str):
            resource["text"] = part.contents
        else:
            resource["blob"] = base64.b64encode(part.contents).decode("ascii")
        return {"type": "resource", "resource": resource}
    link: dict[str, Any] = {"type": "resource_link", "uri": part.uri, "name": part.name}
    for key, value in (
        ("title", part.title),
        ("description", part.description),
        ("mimeType", part.mime_type),
        ("size", part.size),
    ):
        if value is not None:
            link[key] = value
    return link


def _bytes(data: Any) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def part_of(block: Any) -> ContentPart | None:
    """An SDK content block (`mcp.types`) as a part; None for a kind with no meaning here."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return TextPart(str(block.text))
    if kind in ("image", "audio"):
        data = _bytes(getattr(block, "data", None))
        if data is None:
            return TextPart(f"[{kind} content the remote server sent was not valid base64]")
        mime = getattr(block, "mime_type", None)
        if kind == "image":
            return ImagePart(data, mime or "image/png")
        return AudioPart(data, mime or "audio/wav")
    if kind == "resource":
        return _resource(block.resource)
    if kind == "resource_link":
        return ResourceLinkPart(
            uri=str(block.uri),
            name=str(block.name),
            title=getattr(block, "title", None),
            description=getattr(block, "description", None),
            mime_type=getattr(block, "mime_type", None),
            size=getattr(block, "size", None),
        )
    return None


def _resource(resource: Any) -> ContentPart:
    uri, mime = str(resource.uri), getattr(resource, "mime_type", None)
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return ResourcePart(uri, text, mime)
    data = _bytes(getattr(resource, "blob", None))
    if data is None:
        return TextPart(f"[resource {uri}: its contents were not valid base64]")
    return ResourcePart(uri, data, mime)
