"""A gRPC service as a toolbox: the model first sees one selector per service."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from toolcast._catalog._toolbox import Toolbox, make_selector
from toolcast._tool import Tool

__all__ = ("service_toolboxes",)


def _box_name(service: str) -> str:
    simple = service.rpartition(".")[2]
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", simple).lower()


def service_toolboxes(
    tools: Iterable[Tool],
    *,
    names: Mapping[str, str] | None = None,
    descriptions: Mapping[str, str] | None = None,
) -> list[Toolbox]:
    """One toolbox per service of `tools` (from `tools_from_descriptors`), in first-seen order.

    Args:
        tools: gRPC tools; each knows its service from `spec.extra["grpc"]`.
        names: Toolbox names by service full name (default: `LinksService` ->
            `links_service`).
        descriptions: Descriptions by service full name (default: the service's
            leading comment, else a sentence naming it).

    Raises:
        ValueError: A tool did not come from a gRPC descriptor.
    """
    grouped: dict[str, list[Tool]] = {}
    comments: dict[str, str] = {}
    for tool in tools:
        info = tool.spec.extra.get("grpc")
        if not isinstance(info, Mapping):
            msg = f"tool {tool.name!r} is not a gRPC tool (no spec.extra['grpc'])."
            raise ValueError(msg)
        service = str(info["service"])
        grouped.setdefault(service, []).append(tool)
        comments.setdefault(service, str(info.get("service_description", "")))
    boxes = []
    for service, members in grouped.items():
        name = (names or {}).get(service) or _box_name(service)
        description = (descriptions or {}).get(service) or comments[service]
        description = description or f"Tools of the {service} gRPC service."
        current = [t for t in members if t.spec.deprecated is None]
        selector = make_selector(name, description, current)
        boxes.append(Toolbox(name, description, tuple(members), selector, f"grpc:{service}"))
    return boxes
