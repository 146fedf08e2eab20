"""The methods a client expects of any MCP server besides tools.

`logging/setLevel` (handshake era: the session's floor for the tools' log
entries; 2026-07-28 opts in per request through `_meta` instead) and empty
`resources/list`, `resources/templates/list` and `prompts/list` answers: toolcast
serves tools only, and a client listing everything at start-up should get an
empty list, not `-32601`.
"""

from __future__ import annotations

from typing import Any

__all__ = ("add_housekeeping",)


def add_housekeeping(server: Any, sessions: Any) -> None:
    """Register logging and the empty resource and prompt lists on `server`."""
    import mcp.types as mcp_types

    async def set_level(ctx: Any, params: mcp_types.SetLevelRequestParams) -> mcp_types.EmptyResult:
        sessions.of(ctx).log_level = params.level
        return mcp_types.EmptyResult()

    async def no_resources(ctx: Any, params: Any) -> mcp_types.ListResourcesResult:
        return mcp_types.ListResourcesResult(resources=[])

    async def no_templates(ctx: Any, params: Any) -> mcp_types.ListResourceTemplatesResult:
        return mcp_types.ListResourceTemplatesResult(resource_templates=[])

    async def no_prompts(ctx: Any, params: Any) -> mcp_types.ListPromptsResult:
        return mcp_types.ListPromptsResult(prompts=[])

    # Registered by method, not by the deprecated constructor keyword, so serving
    # the handshake era's logging raises no deprecation warning.
    server.add_request_handler("logging/setLevel", mcp_types.SetLevelRequestParams, set_level)
    paginated = mcp_types.PaginatedRequestParams
    server.add_request_handler("resources/list", paginated, no_resources)
    server.add_request_handler("resources/templates/list", paginated, no_templates)
    server.add_request_handler("prompts/list", paginated, no_prompts)
