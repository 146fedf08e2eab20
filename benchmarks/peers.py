"""Adapters that run one tool call through each peer library's own normal path.

Every adapter turns raw JSON argument text (what a model sends) into result text
(what goes back to the model), the same unit of work toolcast's `invoke` does.
Peers are imported lazily, inside the adapter: a missing peer raises
`NotInstalled` and is reported as "not installed", never a crash.

Kinds:

- `async`: an `async def` tool.
- `nonblocking`: a sync tool the host declares safe to run on the event loop.
  Each peer runs it the fastest way its documentation offers, named in the row:
  inline where it has a way (pydantic-ai's `disable_threads()`, fastmcp's
  `run_in_thread=False`, LangChain's sync `tool.invoke`); openai-agents and the
  MCP SDK always hop to a worker thread for a sync function (read in their
  source: `asyncio.to_thread` and `anyio.to_thread.run_sync`, no option).
- `blocking`: a sync tool that must not run on the event loop (a thread hop).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from benchmarks import Subject

__all__ = ("PEERS", "NotInstalled", "Peer", "ToolFunctions", "version_of")


class NotInstalled(Exception):
    """The peer library is not importable in this environment."""


@dataclass(frozen=True)
class ToolFunctions:
    """The same tool as an async and a sync function (annotated, documented)."""

    async_fn: Callable[..., Any]
    sync_fn: Callable[..., Any]


@dataclass(frozen=True)
class Peer:
    """A peer library and how to run a tool call through it."""

    key: str
    """Short id used in job names (`openai_agents`)."""
    label: str
    """Row label (`openai-agents`)."""
    distribution: str
    """The PyPI distribution, for its version and the `bench` extra."""
    module: str
    """An importable module that proves the peer is installed."""
    build: Callable[[str, ToolFunctions], Subject]
    """`build(kind, functions)` -> the subject timed for that kind."""
    path: str
    """What the timed path is, in words (for the report)."""
    inline_sync: bool
    """Whether the peer can run a sync tool without a thread hop."""


def version_of(distribution: str) -> str | None:
    """The installed version of a distribution, or None."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _require(module: str) -> None:
    if importlib.util.find_spec(module.split(".")[0]) is None:
        raise NotInstalled(module)


# -- the floor: pydantic alone ---------------------------------------------------------


def _pydantic(kind: str, fns: ToolFunctions) -> Subject:
    import asyncio

    from pydantic import TypeAdapter
    from pydantic_core import to_json

    # A TypeAdapter over a function validates the arguments *and* calls it.
    if kind == "async":
        adapter: TypeAdapter[Any] = TypeAdapter(cast("Any", fns.async_fn))

        async def call_async(text: str) -> str:
            return to_json(await adapter.validate_json(text)).decode()

        return Subject("pydantic TypeAdapter(fn)", call_async)
    adapter = TypeAdapter(cast("Any", fns.sync_fn))
    if kind == "nonblocking":

        def call_inline(text: str) -> str:
            return to_json(adapter.validate_json(text)).decode()

        return Subject("pydantic TypeAdapter(fn)", call_inline)

    async def call_thread(text: str) -> str:
        return to_json(await asyncio.to_thread(adapter.validate_json, text)).decode()

    return Subject("pydantic TypeAdapter(fn)", call_thread)


# -- openai-agents ---------------------------------------------------------------------


def _openai_agents(kind: str, fns: ToolFunctions) -> Subject:
    _require("agents")
    from agents import function_tool
    from agents.tool_context import ToolContext

    tool = function_tool(fns.async_fn if kind == "async" else fns.sync_fn)

    async def call(text: str) -> str:
        # What the runner does per call: a ToolContext, on_invoke_tool, and the
        # output stringified (ItemHelpers: `str(output)` for a plain value).
        ctx = ToolContext(
            context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=text
        )
        output = await tool.on_invoke_tool(ctx, text)
        return output if isinstance(output, str) else str(output)

    return Subject("openai-agents", call)


# -- pydantic-ai -----------------------------------------------------------------------


def _pydantic_ai(kind: str, fns: ToolFunctions) -> Subject:
    _require("pydantic_ai")
    from pydantic_ai import Tool
    from pydantic_ai.messages import ToolReturnPart

    tool = Tool(fns.async_fn if kind == "async" else fns.sync_fn, takes_ctx=False)
    schema = tool.function_schema
    validator = schema.validator

    async def call(text: str) -> str:
        args = validator.validate_json(text)
        result = await schema.call(args, None)  # type: ignore[arg-type]
        part = ToolReturnPart(tool_name=tool.name, content=result, tool_call_id="call_1")
        return part.model_response_str()

    if kind != "nonblocking":
        return Subject("pydantic-ai", call)

    from pydantic_ai._utils import _disable_threads

    async def call_inline(text: str) -> str:
        # Documented use: `with disable_threads():` around the agent run, so once for
        # all its calls, not per call. Its flag is set on the first call of the
        # measuring task (each task has its own context: nothing leaks past the run);
        # an unexited `disable_threads()` would be reset when its generator is freed.
        if not _disable_threads.get():
            _disable_threads.set(True)
        return await call(text)

    return Subject("pydantic-ai", call_inline, note="`disable_threads()`, inline")


# -- fastmcp ---------------------------------------------------------------------------


def _fastmcp(kind: str, fns: ToolFunctions) -> Subject:
    _require("fastmcp")
    from fastmcp.tools.function_tool import FunctionTool

    if kind == "async":
        tool = FunctionTool.from_function(fns.async_fn)
    else:
        tool = FunctionTool.from_function(fns.sync_fn, run_in_thread=kind == "blocking")

    async def call(text: str) -> str:
        result = await tool.run(json.loads(text))
        return result.content[0].text  # type: ignore[union-attr]

    note = "`run_in_thread=False`, inline" if kind == "nonblocking" else ""
    return Subject("fastmcp", call, note=note)


# -- langchain-core --------------------------------------------------------------------


def _langchain(kind: str, fns: ToolFunctions) -> Subject:
    _require("langchain_core")
    from langchain_core.tools import StructuredTool

    if kind == "async":
        tool = StructuredTool.from_function(coroutine=fns.async_fn)
    else:
        tool = StructuredTool.from_function(func=fns.sync_fn)

    def tool_call(text: str) -> dict[str, Any]:
        return {"type": "tool_call", "name": tool.name, "args": json.loads(text), "id": "call_1"}

    if kind == "nonblocking":
        # A Runnable's sync `invoke` runs the function on the caller's thread; only
        # `ainvoke` of a sync-only tool hops to a thread (`run_in_executor`).
        def call_inline(text: str) -> str:
            return tool.invoke(tool_call(text)).content  # type: ignore[no-any-return]

        return Subject("langchain-core", call_inline, note="sync `tool.invoke`, inline")

    async def call(text: str) -> str:
        message = await tool.ainvoke(tool_call(text))
        return message.content  # type: ignore[no-any-return]

    return Subject("langchain-core", call)


# -- the MCP SDK -----------------------------------------------------------------------


def _mcp(kind: str, fns: ToolFunctions) -> Subject:
    _require("mcp")
    try:
        from mcp.server.mcpserver.tools.base import Tool
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp.tools.base import (  # type: ignore[no-redef,import-not-found,unused-ignore]
            Tool,
        )

    tool = Tool.from_function(fns.async_fn if kind == "async" else fns.sync_fn)

    async def call(text: str) -> str:
        result = await tool.run(json.loads(text), None, convert_result=True)  # type: ignore[arg-type]
        return result.content[0].text  # type: ignore[no-any-return]

    return Subject("mcp (SDK)", call)


PEERS: tuple[Peer, ...] = (
    Peer(
        "pydantic",
        "pydantic alone (floor)",
        "pydantic",
        "pydantic",
        _pydantic,
        "`TypeAdapter(fn).validate_json(text)` (validates and calls), result through "
        "`pydantic_core.to_json`; blocking: the same inside `asyncio.to_thread`",
        inline_sync=True,
    ),
    Peer(
        "openai_agents",
        "openai-agents",
        "openai-agents",
        "agents",
        _openai_agents,
        "`function_tool(fn)`, then per call a `ToolContext` and `await "
        "tool.on_invoke_tool(ctx, text)`; the output stringified as the runner does. "
        "A sync function always runs in `asyncio.to_thread` (`function_tool` has no "
        "option to run it inline)",
        inline_sync=False,
    ),
    Peer(
        "pydantic_ai",
        "pydantic-ai",
        "pydantic-ai-slim",
        "pydantic_ai",
        _pydantic_ai,
        "`Tool(fn)`; `function_schema.validator.validate_json(text)`, `await "
        "function_schema.call(args, ctx)`, `ToolReturnPart(...).model_response_str()`; "
        "non-blocking: inside `disable_threads()`, entered once for the run",
        inline_sync=True,
    ),
    Peer(
        "fastmcp",
        "fastmcp",
        "fastmcp",
        "fastmcp",
        _fastmcp,
        "`FunctionTool.from_function(fn)` (non-blocking: `run_in_thread=False`); "
        "`await tool.run(json.loads(text))`, the first content block's text",
        inline_sync=True,
    ),
    Peer(
        "langchain",
        "langchain-core",
        "langchain-core",
        "langchain_core",
        _langchain,
        "`StructuredTool.from_function(...)`; `await tool.ainvoke(tool_call)` with the "
        "parsed arguments (non-blocking: the sync `tool.invoke(tool_call)`, inline), the "
        "`ToolMessage` content. It resolves the function's type "
        "hints and signature on every call (`get_type_hints`, `inspect.signature`); the "
        "tool module here uses `from __future__ import annotations`, so that includes "
        "compiling the string annotations each time",
        inline_sync=True,
    ),
    Peer(
        "mcp",
        "mcp (SDK)",
        "mcp",
        "mcp",
        _mcp,
        "`mcp.server.mcpserver` `Tool.from_function(fn)`; `await tool.run(json.loads(text), "
        "ctx, convert_result=True)`, the first content block's text. A sync function "
        "always runs in `anyio.to_thread.run_sync` (`FuncMetadata.call_fn`: no option)",
        inline_sync=False,
    ),
)
"""The floor first, then the peers in the order of the report."""
