"""The links/themes/workflow service the tests call: in memory, on 127.0.0.1."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import grpc


@dataclass
class State:
    """What the server saw and holds."""

    links: dict[str, Any] = field(default_factory=dict)
    themes: dict[str, Any] = field(default_factory=dict)
    requests: list[tuple[str, Any]] = field(default_factory=list)
    metadata: list[dict[str, str]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)

    def saw(self, method: str, request: Any, context: Any) -> None:
        self.requests.append((method, request))
        self.metadata.append(dict(context.invocation_metadata()))


async def serve(modules: dict[str, ModuleType], state: State) -> tuple[grpc.aio.Server, int]:
    """Start the three services on a random loopback port."""
    links = modules["links.v1.links_pb2"]
    links_grpc = modules["links.v1.links_pb2_grpc"]
    flow = modules["workflow.v1.workflow_pb2"]
    flow_grpc = modules["workflow.v1.workflow_pb2_grpc"]

    class Links(links_grpc.LinksServiceServicer):  # type: ignore[misc, name-defined]
        async def CreateLink(self, request: Any, context: Any) -> Any:
            state.saw("CreateLink", request, context)
            if not request.destination.startswith("https://"):
                await context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT, "destination must start with https://"
                )
            link = links.Link(
                id=str(uuid.uuid4()),
                workspace_id=str(uuid.uuid4()),
                page_theme_id=request.page_theme_id,
                destination=request.destination,
                kind=request.kind,
                clicks=1 << 40,
                tags=list(request.tags),
            )
            if request.HasField("note"):
                link.note = request.note
            if request.HasField("cache_ttl"):
                link.cache_ttl.CopyFrom(request.cache_ttl)
            link.created_at.FromSeconds(1_700_000_000)
            state.links[link.id] = link
            return links.CreateLinkResponse(link=link)

        async def GetLink(self, request: Any, context: Any) -> Any:
            state.saw("GetLink", request, context)
            if request.id not in state.links:
                await context.abort(grpc.StatusCode.NOT_FOUND, f"no link {request.id}")
            return state.links[request.id]

        async def UpdateLink(self, request: Any, context: Any) -> Any:
            state.saw("UpdateLink", request, context)
            link = state.links.get(request.link.id)
            if link is None:
                await context.abort(grpc.StatusCode.NOT_FOUND, f"no link {request.link.id}")
            request.update_mask.MergeMessage(request.link, link)
            return link

        async def ListLinks(self, request: Any, context: Any) -> Any:
            state.saw("ListLinks", request, context)
            found = list(state.links.values())[: request.page_size or None]
            return links.ListLinksResponse(links=found)

        async def Slow(self, request: Any, context: Any) -> Any:
            state.saw("Slow", request, context)
            try:
                await asyncio.sleep(request.delay.ToTimedelta().total_seconds())
            except asyncio.CancelledError:
                state.cancelled.append("Slow")
                raise
            return links.SlowResponse(done=True)

        async def Purge(self, request: Any, context: Any) -> Any:
            await context.abort(grpc.StatusCode.INTERNAL, "Traceback: secret internals")

    class Themes(links_grpc.ThemesServiceServicer):  # type: ignore[misc, name-defined]
        async def CreateTheme(self, request: Any, context: Any) -> Any:
            state.saw("CreateTheme", request, context)
            theme = links.Theme(
                id=str(uuid.uuid4()),
                name=request.name,
                canvas_color=request.canvas_color,
                container_enabled=request.container_enabled,
            )
            state.themes[theme.id] = theme
            return theme

    class Flow(flow_grpc.WorkflowServiceServicer):  # type: ignore[misc, name-defined]
        async def ListSteps(self, request: Any, context: Any) -> Any:
            state.saw("ListSteps", request, context)
            steps = [
                flow.Step(id=str(uuid.uuid4()), link_id=request.link_id, title=f"step {i}")
                for i in range(2)
            ]
            return flow.ListStepsResponse(steps=steps)

        async def AddStep(self, request: Any, context: Any) -> Any:
            state.saw("AddStep", request, context)
            return flow.Step(id=str(uuid.uuid4()), link_id=request.link_id, title=request.title)

        async def WatchSteps(self, request: Any, context: Any) -> Any:
            state.saw("WatchSteps", request, context)
            for i in range(request.count):
                yield flow.Step(id=str(uuid.uuid4()), link_id=request.link_id, title=f"s{i}")

        async def ImportTree(self, request: Any, context: Any) -> Any:
            state.saw("ImportTree", request, context)

            def count(node: Any) -> int:
                return 1 + sum(count(child) for child in node.children)

            return flow.ImportTreeResponse(count=count(request.root))

    kitchen_grpc = modules["kitchen.v1.kitchen_pb2_grpc"]

    class Kitchen(kitchen_grpc.KitchenServiceServicer):  # type: ignore[misc, name-defined]
        async def Cook(self, request: Any, context: Any) -> Any:
            state.saw("Cook", request, context)
            return request  # every shape, back as it came

    server = grpc.aio.server()
    kitchen_grpc.add_KitchenServiceServicer_to_server(Kitchen(), server)
    links_grpc.add_LinksServiceServicer_to_server(Links(), server)
    links_grpc.add_ThemesServiceServicer_to_server(Themes(), server)
    flow_grpc.add_WorkflowServiceServicer_to_server(Flow(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port
