"""Remote MCP tools as toolcast `Tool`s: `connect_stdio`, `connect_http`, `tools_from_session`.

Each remote tool is compiled with `Tool.from_schema`, so its arguments are
validated on this host before anything is sent. A tool whose schema toolcast
cannot validate exactly (or whose name is not a toolcast name) is left out and
reported in `RemoteTools.problems` and the `toolcast.mcp` log, never trusted
silently; `unsupported="raise"` makes it an error instead. The handler calls
the remote tool: an `isError` result stays an error result (its content kept),
and a transport failure becomes an error result naming the server's failure.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from toolcast._content import TextPart, ToolResult
from toolcast._tool import Tool
from toolcast.aliases._declare import has_marks, strip_marks
from toolcast.errors import DefinitionProblem, ToolcastError, ToolDefinitionError, ToolError
from toolcast.providers._mcp_blocks import part_of

if TYPE_CHECKING:
    from toolcast._context import ToolContext

__all__ = (
    "RemoteToolProblem",
    "RemoteTools",
    "connect_http",
    "connect_stdio",
    "tools_from_session",
)

logger = logging.getLogger("toolcast.mcp")

_HINT = "Remote MCP tools need the MCP SDK: pip install 'toolcast[mcp]'"
# Refetching a listing stops after this many pages, so a server whose cursor never
# ends cannot hang the host.
_MAX_PAGES = 100
# Where a toolcast server puts its 2026-07-28 toolbox handle (`_mcp_stateless`).
_TOOLBOXES_META_KEY = "io.toolcast/toolboxes"
# (SDK attribute, wire name) of the MCP tool annotations a remote tool keeps.
_HINT_FIELDS = (
    ("title", "title"),
    ("read_only_hint", "readOnlyHint"),
    ("destructive_hint", "destructiveHint"),
    ("idempotent_hint", "idempotentHint"),
    ("open_world_hint", "openWorldHint"),
)


@dataclass(frozen=True, slots=True)
class RemoteToolProblem:
    """A remote tool that was left out, and why."""

    name: str
    """The tool's name on the remote server."""
    message: str
    """What toolcast cannot take from it (e.g. a schema keyword it cannot validate)."""


class RemoteTools(Sequence[Tool]):
    """The tools of one remote MCP server, kept in step with it.

    A sequence of `Tool`s (pass it to `Catalog(...)`); `refresh()` refetches the
    listing, and on a session opened with `connect_stdio`/`connect_http` a
    `notifications/tools/list_changed` from the server refreshes it by itself.
    `on_change` callbacks run after each refresh; a `Catalog` is built once, so
    rebuild it there from `remote.tools()`.
    """

    def __init__(
        self,
        session: Any,
        *,
        prefix: str = "",
        unsupported: Literal["skip", "raise"] = "skip",
        timeout: float | None = None,
    ) -> None:
        """Tools of `session`, empty until `refresh()` (use `tools_from_session`)."""
        if unsupported not in ("skip", "raise"):
            msg = f"unsupported must be 'skip' or 'raise', not {unsupported!r}."
            raise ValueError(msg)
        self._session = session
        self._prefix = prefix
        self._unsupported = unsupported
        self._timeout = timeout
        self._tools: tuple[Tool, ...] = ()
        # 2026-07-28: the sealed handle a toolcast server gave for the opened toolboxes.
        self._handle: str | None = None
        self.problems: tuple[RemoteToolProblem, ...] = ()
        """The remote tools left out by the last refresh."""
        self._callbacks: list[Callable[[RemoteTools], object]] = []

    def tools(self) -> tuple[Tool, ...]:
        """The remote tools as of the last refresh, in the server's order."""
        return self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools)

    def __getitem__(self, index: Any) -> Any:
        return self._tools[index]

    def __repr__(self) -> str:
        return f"RemoteTools({[t.name for t in self._tools]!r})"

    def on_change(self, callback: Callable[[RemoteTools], object]) -> None:
        """Call `callback(self)` after every refresh (awaited when it is async)."""
        self._callbacks.append(callback)

    async def refresh(self) -> None:
        """Refetch the remote listing and rebuild the tools.

        Raises:
            ToolDefinitionError: with `unsupported="raise"`, a remote tool cannot be
                taken exactly.
        """
        meta = None if self._handle is None else {_TOOLBOXES_META_KEY: self._handle}
        listed = await _list_all(self._session, meta)
        tools: list[Tool] = []
        problems: list[RemoteToolProblem] = []
        for remote in listed:
            try:
                _check_execution(remote)
                tools.append(self._tool(remote))
            except ToolcastError as exc:
                name = str(getattr(remote, "name", "?"))
                if self._unsupported == "raise":
                    raise
                problems.append(RemoteToolProblem(name, str(exc)))
                logger.warning("remote MCP tool %r left out: %s", name, exc)
        self._tools = tuple(tools)
        self.problems = tuple(problems)
        for callback in list(self._callbacks):
            done = callback(self)
            if hasattr(done, "__await__"):
                await done

    def _tool(self, remote: Any) -> Tool:
        remote_name = str(remote.name)
        name = self._prefix + remote_name
        schema = _plain(remote.input_schema)
        output = _plain(remote.output_schema) if remote.output_schema is not None else None
        if not isinstance(schema, dict):
            problem = DefinitionProblem("root-not-object", "", "the input schema is not an object.")
            raise ToolDefinitionError(name, [problem])
        schema.setdefault("type", "object")
        # A toolcast server's `x-toolcast-alias` marks are its own: it aliases the ids
        # already, so the imported tool sends and returns its `link-1`s as they are.
        if has_marks(schema):
            schema = strip_marks(schema)
        if output is not None and has_marks(output):
            output = strip_marks(output)
        session, timeout = self._session, self._timeout

        async def call_remote(arguments: dict[str, Any], context: ToolContext) -> Any:
            result, handle = await _call(session, remote_name, arguments, context)
            if handle is not None and handle != self._handle:
                # A toolcast server answered a 2026-07-28 selector call: list anew
                # with the handle, so the opened members join (no list_changed then).
                self._handle = handle
                await _refresh_quietly(self)
            return result

        metadata: dict[str, Any] = {"extra": {"mcp_remote": remote_name}}
        hints = _hints(getattr(remote, "annotations", None))
        if hints:
            metadata["extra"]["mcp_annotations"] = hints
        if hints.get("idempotentHint") is True:
            metadata["idempotent"] = True  # what toolcast.temporal retries on
        if timeout is not None:
            metadata["timeout"] = timeout
        title = getattr(remote, "title", None)
        if title:
            metadata["extra"]["title"] = title
        return Tool.from_schema(
            name,
            remote.description or "",
            schema,
            call_remote,
            output_schema=output,
            **metadata,
        )


def _hints(annotations: Any) -> dict[str, Any]:
    """The remote tool's MCP annotations (hints and title) as wire-named plain values."""
    if annotations is None:
        return {}
    found: dict[str, Any] = {}
    for attribute, key in _HINT_FIELDS:
        value = getattr(annotations, attribute, None)
        if isinstance(value, bool) or (key == "title" and isinstance(value, str)):
            found[key] = value
    return found


def _check_execution(remote: Any) -> None:
    """Refuse a remote tool that can only run as a task: a plain call would fail."""
    execution = getattr(remote, "execution", None)
    support = getattr(execution, "task_support", None)
    if support == "required":
        name = str(getattr(remote, "name", "?"))
        problem = DefinitionProblem(
            "task-required",
            "",
            "the server runs it only as a task (execution.taskSupport is 'required'), "
            "and toolcast calls remote tools directly.",
        )
        raise ToolDefinitionError(name, [problem])


async def _list_all(session: Any, meta: dict[str, Any] | None = None) -> list[Any]:
    from mcp.types import PaginatedRequestParams

    found: list[Any] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        if cursor is None and meta is not None and _takes_cursor(session):
            page = await session.list_tools(meta=meta)
        elif cursor is None:
            page = await session.list_tools()
        elif _takes_cursor(session):
            page = await session.list_tools(cursor=cursor)
        else:
            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        found.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return found


def _takes_cursor(session: Any) -> bool:
    import inspect

    return "cursor" in inspect.signature(session.list_tools).parameters


async def _call(
    session: Any, name: str, arguments: dict[str, Any], context: ToolContext
) -> tuple[Any, str | None]:
    """One remote call: its result as toolcast returns it, and any toolbox handle."""

    async def progress(done: float, total: float | None, message: str | None) -> None:
        context.report_progress(done, total, message)

    try:
        result = await session.call_tool(name, arguments, progress_callback=progress)
    except Exception as exc:  # the transport or the remote protocol failed
        detail = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        msg = f"The remote MCP tool {name!r} could not be called: {detail}"
        raise ToolError(msg) from exc
    parts = [part_of(block) for block in result.content]
    content = [p for p in parts if p is not None]
    if result.is_error:
        if not content:
            content = [TextPart(f"The remote MCP tool {name!r} failed.")]
        return ToolResult(content, is_error=True), None
    handle = (getattr(result, "meta", None) or {}).get(_TOOLBOXES_META_KEY)
    handle = handle if isinstance(handle, str) else None
    if result.structured_content is not None:
        return ToolResult(content, structured=result.structured_content), handle
    return ToolResult(content), handle


def _plain(value: Any) -> Any:
    """A JSON value from the SDK as plain dicts and lists (a copy)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


async def tools_from_session(
    session: Any,
    *,
    prefix: str = "",
    unsupported: Literal["skip", "raise"] = "skip",
    timeout: float | None = None,
) -> RemoteTools:
    """The tools of a connected MCP client session, validated locally.

    Args:
        session: An `mcp.Client` or `mcp.ClientSession` (from `connect_stdio`,
            `connect_http`, or your own).
        prefix: Put before every remote name (`"weather_"`), to keep names apart.
        unsupported: `"skip"` leaves out (and reports) a tool toolcast cannot
            validate exactly; `"raise"` raises `ToolDefinitionError` instead.
        timeout: Seconds each remote call may take (the tools' `timeout`).
    """
    remote = RemoteTools(session, prefix=prefix, unsupported=unsupported, timeout=timeout)
    await remote.refresh()
    _watch(session, remote)
    return remote


# --------------------------------------------------------------------------- sessions

# Sessions opened here, by id, each with the RemoteTools to refresh on list_changed.
_WATCHED: dict[int, list[weakref.ref[RemoteTools]]] = {}


def _watch(session: Any, remote: RemoteTools) -> None:
    listeners = _WATCHED.get(id(session))
    if listeners is not None:
        listeners.append(weakref.ref(remote))


@contextlib.asynccontextmanager
async def _watched(make: Callable[[Any], Any]) -> AsyncIterator[Any]:
    try:
        import anyio
        import mcp.types as mcp_types
    except ImportError:
        raise ImportError(_HINT) from None

    key: list[int] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, mcp_types.ToolListChangedNotification) and key:
            for ref in list(_WATCHED.get(key[0], ())):
                remote = ref()
                if remote is not None:
                    group.start_soon(_refresh_quietly, remote)

    async with anyio.create_task_group() as group:
        client = make(on_message)
        key.append(id(client))
        _WATCHED[id(client)] = []
        ready, stop = anyio.Event(), anyio.Event()
        failure: list[BaseException] = []
        opened: list[bool] = []

        async def own() -> None:
            # The connection lives in its own task: when the SDK's transport tasks
            # fail (the server died mid-call), this task ends and the calls waiting
            # on the connection fail with an error outcome, instead of the failure
            # cancelling the caller's block.
            try:
                async with client:
                    opened.append(True)
                    ready.set()
                    await stop.wait()
            except Exception as exc:
                failure.append(exc)
                if opened:
                    logger.warning("the MCP connection failed: %s", exc)
            finally:
                ready.set()

        group.start_soon(own)
        try:
            await ready.wait()
            if not opened:
                raise failure[0] if failure else RuntimeError("the MCP connection did not open")
            yield client
        finally:
            _WATCHED.pop(id(client), None)
            stop.set()


async def _refresh_quietly(remote: RemoteTools) -> None:
    try:
        await remote.refresh()
    except Exception:  # a failed refresh keeps the previous tools
        logger.exception("refreshing remote MCP tools after list_changed failed")


def _with_tasks(client_options: dict[str, Any]) -> None:
    """Declare the Tasks extension unless the caller chose the client's extensions."""
    from toolcast.providers._mcp_task_client import TasksClient

    client_options.setdefault("extensions", [TasksClient()])


@contextlib.asynccontextmanager
async def connect_stdio(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    **client_options: Any,
) -> AsyncIterator[Any]:
    """Start `command` as an MCP server over stdio; yield a connected `mcp.Client`.

    `client_options` go to `mcp.Client` (`elicitation_callback`, `mode`, ...);
    `extensions` defaults to `[TasksClient()]`, so a call the server answers with a
    task (2026-07-28) ends as the task's result. The server process is stopped
    when the block ends.
    """
    try:
        from mcp import Client, StdioServerParameters
    except ImportError:
        raise ImportError(_HINT) from None
    if isinstance(command, str) or not command:
        msg = "command must be a non-empty list of strings, e.g. ['python', '-m', 'server']."
        raise ValueError(msg)
    params = StdioServerParameters(
        command=command[0], args=list(command[1:]), env=dict(env) if env else None, cwd=cwd
    )
    _with_tasks(client_options)
    async with _watched(
        lambda handler: Client(params, message_handler=handler, **client_options)
    ) as client:
        yield client


@contextlib.asynccontextmanager
async def connect_http(url: str, **client_options: Any) -> AsyncIterator[Any]:
    """Connect to a streamable-HTTP MCP server at `url`; yield a connected `mcp.Client`.

    `client_options` go to `mcp.Client`.
    """
    try:
        from mcp import Client
    except ImportError:
        raise ImportError(_HINT) from None
    _with_tasks(client_options)
    async with _watched(
        lambda handler: Client(url, message_handler=handler, **client_options)
    ) as client:
        yield client
