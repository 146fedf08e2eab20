"""`toolcast serve TARGET`: the tools of TARGET as an MCP server, over stdio or HTTP.

The command module (`_main`) owns TARGET loading and hands its loader in, so
this module never imports it. stdout belongs to the protocol on stdio; every
message of ours goes to stderr. SIGINT and SIGTERM stop the server cleanly
(exit 0).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = ("add_parser", "run")

_DESCRIPTION = (
    "Serve the tools of TARGET to MCP clients: over stdio (for desktop clients) or, "
    "with --http, over streamable HTTP on 127.0.0.1. Each client session sees its own "
    "tools: toolboxes show as selector tools that add their members when called."
)


def _names(value: str) -> list[str]:
    found = [part.strip() for part in value.split(",") if part.strip()]
    if not found:
        msg = "expected a comma-separated list, e.g. search,orders"
        raise argparse.ArgumentTypeError(msg)
    return found


def add_parser(commands: Any, target_help: str) -> None:
    """Register `serve` on the `toolcast` subcommands."""
    serve = commands.add_parser(
        "serve", help="serve tools to MCP clients (stdio or HTTP)", description=_DESCRIPTION
    )
    serve.add_argument("target", metavar="TARGET", help=target_help)
    serve.add_argument("--http", action="store_true", help="serve streamable HTTP, not stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP interface (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=int, default=8765, help="HTTP port; 0 picks one (default 8765)"
    )
    serve.add_argument("--path", default="/mcp", help="HTTP endpoint path (default /mcp)")
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="accept this Host header too (DNS-rebinding protection stays on), e.g. example.com:*",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="accept this Origin too, e.g. https://app.example.com",
    )
    serve.add_argument(
        "--categories", type=_names, metavar="A,B", help="serve only tools in these categories"
    )
    serve.add_argument(
        "--names", type=_names, metavar="X,Y", help="serve only these tools or toolboxes"
    )
    serve.add_argument(
        "--toolboxes",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="show toolboxes as selectors to open (default) or list their members directly",
    )
    serve.add_argument(
        "--policy",
        metavar="MODULE:ATTRIBUTE",
        help="a toolcast.policy.Policy (or a factory) deciding each call; pending calls "
        "are put to the user through MCP elicitation",
    )
    serve.add_argument("--name", default="toolcast", help="server name announced to clients")
    serve.add_argument(
        "--version",
        dest="server_version",
        metavar="VERSION",
        help="server version announced to clients (default: toolcast's version)",
    )
    serve.add_argument(
        "--redis",
        metavar="URL",
        default=os.environ.get("TOOLCAST_MCP_REDIS"),
        help="a Redis shared by the replicas (2026-07-28 aliases, spent approvals); "
        "env TOOLCAST_MCP_REDIS",
    )
    serve.add_argument(
        "--state-key-file",
        metavar="PATH",
        default=os.environ.get("TOOLCAST_MCP_STATE_KEY_FILE"),
        help="file with the key (>= 32 bytes) the replicas share to seal requestState; "
        "env TOOLCAST_MCP_STATE_KEY_FILE",
    )
    serve.add_argument(
        "--task",
        action="append",
        type=_task,
        default=[],
        metavar="NAME[=required|off]",
        help="run the tool NAME as a task for 2026-07-28 clients with the Tasks extension "
        "(repeatable; =required refuses clients without it; long_running tools are tasks "
        "already, =off makes one a plain call)",
    )
    serve.add_argument(
        "--max-sessions",
        type=int,
        default=10_000,
        metavar="N",
        help="most handshake-era HTTP sessions at once (default 10000; 0: no limit)",
    )
    serve.add_argument(
        "--session-idle-timeout",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="close a handshake-era HTTP session idle this long (default 1800; 0: never)",
    )
    serve.add_argument(
        "-r", "--recursive", action="store_true", help="scan a package's submodules too"
    )


def run(args: argparse.Namespace, load: Callable[..., Any], usage: type[Exception]) -> int:
    """Serve until the client leaves (stdio) or a signal arrives; returns the exit code."""
    import anyio

    from toolcast._catalog._catalog import Catalog
    from toolcast.providers import mcp

    source = load(args.target, recursive=args.recursive).source
    chosen = args.categories is not None or args.names is not None
    if isinstance(source, Catalog):
        tools: Any = source.select(
            categories=args.categories, names=args.names, include_selectors=args.toolboxes
        )
    elif chosen:
        msg = (
            f"{args.target} is a ToolSet, already selected: --categories and --names "
            "need a module or a Catalog."
        )
        raise usage(msg)
    else:
        tools = source
    if not len(tools.tools()):
        raise usage(f"{args.target}: nothing to serve with this selection.")
    policy = _policy(args.policy, usage) if args.policy else None
    options: dict[str, Any] = {
        "name": args.name,
        "version": args.server_version,
        "policy": policy,
        "handle_signals": True,
        "redis_url": args.redis,
        "state_keys": _keys(args.state_key_file, usage),
        "tasks": dict(args.task),
    }
    summary = _summary(tools, args.toolboxes)
    if args.http:

        def ready(url: str) -> None:
            print(f"toolcast: serving {summary} on {url}", file=sys.stderr, flush=True)

        anyio.run(
            lambda: mcp.serve_http(
                tools,
                host=args.host,
                port=args.port,
                path=args.path,
                allowed_hosts=args.allow_host,
                allowed_origins=args.allow_origin,
                on_ready=ready,
                max_sessions=args.max_sessions or None,
                session_idle_timeout=args.session_idle_timeout or None,
                **options,
            )
        )
    else:
        print(f"toolcast: serving {summary} on stdio", file=sys.stderr, flush=True)
        anyio.run(lambda: mcp.serve_stdio(tools, **options))
    return 0


def _summary(tools: Any, toolboxes: bool) -> str:
    count = len(tools.tools())
    text = f"{count} tool{'s' if count != 1 else ''}"
    boxes = [box.name for box in tools.toolboxes()] if toolboxes else []
    if boxes:
        text += f" (toolboxes: {', '.join(boxes)})"
    return text


def _task(text: str) -> tuple[str, str]:
    name, _, support = text.partition("=")
    support = support or "optional"
    if not name or support not in ("optional", "required", "off"):
        msg = f"{text!r}: give NAME, NAME=required or NAME=off"
        raise argparse.ArgumentTypeError(msg)
    return name, support


def _keys(path: str | None, usage: type[Exception]) -> list[bytes] | None:
    from toolcast.providers._mcp_stateless import read_key_file

    if not path:
        return None
    try:
        return [read_key_file(path)]
    except ValueError as exc:
        raise usage(f"--state-key-file: {exc}") from None


def _policy(spec: str, usage: type[Exception]) -> Any:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise usage(f"--policy takes MODULE:ATTRIBUTE, not {spec!r}.")
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise usage(f"--policy: cannot import {module_name!r}: {exc}") from None
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise usage(f"--policy: {module_name} has no attribute {attribute!r}.")
        value = getattr(value, part)
    if not hasattr(value, "evaluate") and callable(value):
        value = value()
    if not callable(getattr(value, "evaluate", None)):
        raise usage(f"--policy {spec} is not a toolcast.policy.Policy (no evaluate method).")
    return value
