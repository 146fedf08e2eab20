"""The `toolcast` command: inspect tools, call one, lock and check them, run the demo.

A TARGET names tools the way a host would: `module` (scanned like
`Catalog.from_modules`), `module:attribute`, or a file path (`tools.py`,
`tools.py:attribute`). The attribute may be a function, a `Tool`, a list of them,
a `Catalog`, a `ToolSet`, or a zero-argument factory returning one of those.
Results go to stdout (JSON when piped), diagnostics to stderr. Exit codes: 0 ok,
1 a tool or schema error, 2 a usage error; every error message names the fix.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib
import importlib.util
import inspect
import json
import os
import pkgutil
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from toolcast._cli import _person
from toolcast._cli._layout import Style, compact_json, render, use_color
from toolcast._define._decorator import options_of
from toolcast._frozen import thaw
from toolcast._spec import ToolCall, ToolSpec
from toolcast._tool import Tool
from toolcast.aliases import RAW_IDS
from toolcast.errors import ToolcastError

# Style, compact_json and use_color live in _layout; the demo imports them from here.
__all__ = ("Style", "compact_json", "main", "use_color")

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2

_KINDS = "a function, a Tool, a list of them, a Catalog, a ToolSet, or a factory"
_TARGET_HELP = "module, module:attribute, or path/to/file.py[:attribute]"
_EPILOG = """\
examples:
  toolcast demo
  toolcast inspect toolcast.examples:catalog --provider anthropic
  toolcast call toolcast.examples.places find_places '{"query": "Paris"}'
  toolcast lock myapp.tools -o tools.lock.json
  toolcast check myapp.tools tools.lock.json
  toolcast serve myapp.tools --http --port 8765

exit codes: 0 ok, 1 a tool or schema error, 2 a usage error.
"""


class _Usage(Exception):
    """The command line asks for something that cannot be (exit 2)."""


class _Failed(Exception):
    """The tools themselves are at fault (exit 1)."""


# --------------------------------------------------------------------------- targets


@dataclass(frozen=True, slots=True)
class _Entry:
    """One tool as the CLI lists it."""

    tool: Tool
    toolbox: str | None
    selector: bool


@dataclass(frozen=True, slots=True)
class _Source:
    """What a TARGET resolved to: a catalog or a tool set, and its entries in order."""

    label: str
    source: Any  # Catalog | ToolSet; both have resolve/get/toolboxes
    entries: tuple[_Entry, ...]

    def find(self, name: str) -> Tool | None:
        return self.source.get(name)  # type: ignore[no-any-return]


def _import_module(name: str) -> ModuleType:
    # Console scripts do not put the working directory on sys.path, `python -m`
    # does; add it so both spellings find the user's modules alike.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            msg = (
                f"cannot import {name!r}: no module named {exc.name!r}. Run toolcast "
                "from the directory that holds it, install its package, or pass a "
                "file path (path/to/tools.py)."
            )
            raise _Usage(msg) from None
        raise _Failed(_import_failed(name, exc)) from exc
    except ToolcastError:
        raise
    except Exception as exc:
        raise _Failed(_import_failed(name, exc)) from exc


def _import_failed(name: str, exc: BaseException) -> str:
    return f"importing {name!r} failed: {type(exc).__name__}: {exc}"


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        msg = f"no such file: {path}. Check the path, or name a module instead."
        raise _Usage(msg)
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not name.isidentifier():
        msg = f"cannot load {path} as a Python module: name it like `tools.py`."
        raise _Usage(msg)
    module = importlib.util.module_from_spec(spec)
    # Registered before running, as `import` would, so dataclasses and
    # `from __future__ import annotations` can find the module's namespace.
    sys.modules[name] = module
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except ToolcastError:
        raise
    except Exception as exc:
        raise _Failed(_import_failed(str(path), exc)) from exc
    return module


def _split_target(target: str) -> tuple[str, str]:
    # `C:\tools.py` must not split at the drive letter's colon.
    head, sep, attribute = target.rpartition(":")
    if not sep or not head or "/" in attribute or "\\" in attribute:
        return target, ""
    return head, attribute


def _default_resolver() -> Any:
    from toolcast._catalog._discovery import FactoryResolver

    # Method tools need an instance; from the command line the natural one is
    # the class built with no arguments, one per class for the whole run.
    return FactoryResolver(lambda cls: cls(), per_call=False)


def load_source(target: str, *, recursive: bool = False, grpc: str | None = None) -> _Source:
    """Resolve a TARGET into the catalog or tool set it names (`grpc`: a server address)."""
    from toolcast._catalog._catalog import Catalog, ToolSet
    from toolcast._cli._grpc import DESCRIPTOR_SUFFIXES, grpc_tools_of, is_grpc_module

    if target.endswith(DESCRIPTOR_SUFFIXES):  # a FileDescriptorSet from protoc or buf
        if not Path(target).is_file():
            raise _Usage(f"no such file: {target}. Build it with protoc --descriptor_set_out.")
        found = Catalog(grpc_tools_of(Path(target).read_bytes(), grpc))
        return _Source(target, found, tuple(_entries(found)))
    where, attribute = _split_target(target)
    is_file = where.endswith(".py") or os.sep in where or "/" in where
    module = _import_file(Path(where)) if is_file else _import_module(where)
    source: Any
    if not attribute and is_grpc_module(module):
        source = Catalog(grpc_tools_of(module, grpc))
    elif not attribute:
        source = Catalog.from_modules(
            module, recursive=recursive, resolver=_default_resolver(), cache=False
        )
        if not len(source):
            msg = (
                f"{where} defines no tools. Mark functions with @toolcast.tool, "
                f"or point at one with {where}:NAME ({_KINDS})."
            )
            raise _Usage(msg)
    else:
        value = _attribute(module, where, attribute)
        if not isinstance(value, (Catalog, ToolSet)):
            value = _as_catalog(value, target)
        source = value
    return _Source(target, source, tuple(_entries(source)))


def _attribute(module: ModuleType, where: str, attribute: str) -> Any:
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            found = sorted(n for n, v in vars(module).items() if options_of(v) is not None)
            hint = f" It defines these tools: {', '.join(found)}." if found else ""
            msg = f"{where} has no attribute {attribute!r}.{hint}"
            raise _Usage(msg)
        value = getattr(value, part)
    if (
        inspect.isfunction(value)
        and options_of(value) is None
        and not inspect.signature(value).parameters
    ):
        # An undecorated function with no parameters is a factory, as for
        # `toolcast lock`: its result is the target.
        value = value()
    return value


def _as_catalog(value: Any, target: str) -> Any:
    from toolcast._catalog._catalog import Catalog

    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for item in items:
        if not (isinstance(item, Tool) or callable(item)) or isinstance(item, (str, bytes)):
            msg = f"{target} is a {type(item).__name__}; point TARGET at {_KINDS}."
            raise _Usage(msg)
    return Catalog(items, resolver=_default_resolver())


def _entries(source: Any) -> Iterator[_Entry]:
    """Every tool in the order a model meets it: each selector, then its members."""
    from toolcast._catalog._catalog import Catalog

    boxes = {box.name: box for box in source.toolboxes()}
    if isinstance(source, Catalog):
        visible = source.primary(include_deprecated=True)
    else:
        visible = source.tools()
    seen: set[str] = set()
    for tool in visible:
        box = boxes.get(tool.name)
        if box is not None and tool is box.selector:
            seen.add(tool.name)
            yield _Entry(tool, None, selector=True)
            for member in box.members:
                if member.name not in seen:
                    seen.add(member.name)
                    yield _Entry(member, box.name, selector=False)
        elif tool.name not in seen:
            seen.add(tool.name)
            owner = source.toolbox_of(tool.name)
            yield _Entry(tool, owner.name if owner else None, selector=False)


# --------------------------------------------------------------------------- providers


def provider_names() -> list[str]:
    """The provider modules `--provider` accepts (`toolcast.providers.<name>`)."""
    import toolcast.providers

    return sorted(
        info.name
        for info in pkgutil.iter_modules(toolcast.providers.__path__)
        if not info.name.startswith("_")
    )


def _provider(name: str) -> ModuleType:
    return importlib.import_module(f"toolcast.providers.{name}")


def _takes(function: Callable[..., Any], keyword: str) -> bool:
    return keyword in inspect.signature(function).parameters


def project(provider: str, tool: Tool, *, strict: bool | None) -> Any:
    """The provider's `Projection` of `tool`; `strict` only where the target has it."""
    module = _provider(provider)
    if strict is not None and _takes(module.project, "strict"):
        return module.project(tool, strict=strict)
    return module.project(tool)


# --------------------------------------------------------------------------- inspect


_DEFAULTS = {f.name: f.default for f in dataclasses.fields(ToolSpec)}
_SHOWN = ("name", "description", "input_schema", "output_schema", "extra")


def _metadata(spec: ToolSpec) -> dict[str, Any]:
    """Spec fields that differ from their defaults, JSON-ready."""
    out: dict[str, Any] = {}
    for name, default in _DEFAULTS.items():
        if name in _SHOWN:
            continue
        value = getattr(spec, name)
        if name == "blocking" and spec.is_async:
            continue  # async tools never block; the flag means nothing for them
        if value != default:
            out[name] = list(value) if isinstance(value, tuple) else value
    if spec.extra:
        out["extra"] = thaw(dict(spec.extra))
    return out


def _note_json(note: Any) -> dict[str, str]:
    return {
        "path": note.path,
        "keyword": note.keyword,
        "action": note.action,
        "detail": note.detail,
    }


def _tool_document(entry: _Entry, provider: str | None, strict: bool | None) -> dict[str, Any]:
    spec = entry.tool.spec
    doc: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "toolbox": entry.toolbox,
        "selector": entry.selector,
        "input_schema": thaw(spec.input_schema),
        "output_schema": thaw(spec.output_schema),
        "metadata": _metadata(spec),
    }
    if provider is not None:
        try:
            projection = project(provider, entry.tool, strict=strict)
        except ToolcastError as exc:
            msg = f"{spec.name}: {exc}"
            if strict:
                msg += "\nOn the command line: drop --strict, or pass --no-strict."
            raise _Failed(msg) from exc
        doc["projection"] = {
            "provider": provider,
            "strict": projection.strict,
            "definition": thaw(dict(projection.definition)),
            "notes": [_note_json(note) for note in projection.notes],
        }
    return doc


def _inspect(args: argparse.Namespace, out: TextIO) -> int:
    loaded = load_source(args.target, recursive=args.recursive)
    if args.strict is not None and args.provider is not None:
        module = _provider(args.provider)
        if not _takes(module.project, "strict"):
            print(
                f"toolcast: {args.provider} has no strict mode; --strict is ignored.",
                file=sys.stderr,
            )
    tools = [_tool_document(e, args.provider, args.strict) for e in loaded.entries]
    document = {"target": loaded.label, "provider": args.provider, "tools": tools}
    as_json = args.json or (not args.text and not _isatty(out))
    if as_json:
        out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        render(document, out, Style(color=use_color(out)), providers=provider_names())
    return EXIT_OK


def _isatty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# --------------------------------------------------------------------------- call


def _read_arguments(raw: str | None, stdin: TextIO) -> str:
    if raw == "-" or (raw is None and not _isatty(stdin)):
        return stdin.read() or "{}"
    return "{}" if raw is None else raw


def _call(args: argparse.Namespace, out: TextIO) -> int:
    loaded = load_source(args.target, recursive=args.recursive, grpc=args.grpc)
    tool = loaded.find(args.tool)
    if tool is None:
        names = ", ".join(e.tool.name for e in loaded.entries)
        see = f"See them all with `toolcast inspect {args.target}`."
        raise _Usage(f"{args.target} has no tool named {args.tool!r}. Tools: {names}. {see}")
    arguments = _read_arguments(args.arguments, sys.stdin)
    call = ToolCall(id=args.call_id, name=args.tool, arguments=arguments)
    # The person at the terminal types and reads the UUIDs: no aliases (RAW_IDS).
    outcome = asyncio.run(tool.invoke(arguments, call_id=call.id, aliases=RAW_IDS))
    if args.provider is None or args.json:
        _person.write_result(out, outcome, as_json=args.json, indent=_isatty(out))
    else:
        format_results = _provider(args.provider).format_results
        if _takes(format_results, "calls"):
            message = format_results([outcome], calls=[call])
        else:
            message = format_results([outcome])
        out.write(json.dumps(message, indent=2, ensure_ascii=False) + "\n")
    if not outcome.is_error:
        return EXIT_OK
    kind = outcome.error.kind if outcome.error else "error"
    print(
        f"toolcast: {tool.name} returned an error result ({kind}); "
        "stdout shows what the model would receive.",
        file=sys.stderr,
    )
    _person.show_cause(outcome.exception, whole=args.traceback)
    return EXIT_ERROR


# --------------------------------------------------------------------------- demo


def _demo(args: argparse.Namespace, out: TextIO) -> int:
    from toolcast._cli._demo import run_demo

    return run_demo(out, style=Style(color=use_color(out)))


# --------------------------------------------------------------------------- main


_DELEGATED = {
    "lock": "write every tool's contract to a lock file (see `toolcast lock -h`)",
    "check": "compare tools with a lock file; exit 1 on breaking changes",
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("toolcast")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolcast",
        description="Turn Python functions into LLM tools: inspect, call, lock, check, demo.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"toolcast {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    inspect_ = commands.add_parser(
        "inspect",
        help="show tools, their schemas and a provider's wire format",
        description=(
            "Show every tool of TARGET: name, description, parameters, and with "
            "--provider the wire definition plus a note for each conversion step. "
            "Text on a terminal, JSON when piped."
        ),
    )
    inspect_.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    inspect_.add_argument(
        "-p",
        "--provider",
        choices=provider_names(),
        metavar="PROVIDER",
        help="project for this target: " + ", ".join(provider_names()),
    )
    inspect_.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="force strict decoding on or off (default: each tool's own setting)",
    )
    output = inspect_.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON (default when piped)")
    output.add_argument("--text", action="store_true", help="print text even when piped")
    inspect_.add_argument(
        "-r", "--recursive", action="store_true", help="scan a package's submodules too"
    )

    call = commands.add_parser(
        "call",
        help="run one tool and print what the model would receive",
        description=(
            "Run TOOL from TARGET with ARGS_JSON (or JSON read from stdin) and "
            "print the result exactly as a model receives it. Exit 1 when the "
            "result is an error."
        ),
    )
    call.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    call.add_argument("tool", metavar="TOOL", help="tool name or alias")
    call.add_argument(
        "arguments",
        metavar="ARGS_JSON",
        nargs="?",
        help="JSON object of arguments; '-' or omitted reads stdin (default {})",
    )
    call.add_argument(
        "-p",
        "--provider",
        choices=provider_names(),
        metavar="PROVIDER",
        help="print the provider's result message instead of the plain text",
    )
    call.add_argument("--call-id", default="call_1", help="call id for --provider output")
    _person.add_output_options(call)
    call.add_argument(
        "--grpc",
        metavar="ADDRESS",
        help="gRPC server (host:port) on which auto_execute tools of a gRPC TARGET run",
    )
    call.add_argument(
        "-r", "--recursive", action="store_true", help="scan a package's submodules too"
    )

    from toolcast._cli._serve import add_parser as add_serve

    add_serve(commands, _TARGET_HELP)

    for name, text in _DELEGATED.items():
        commands.add_parser(name, help=text, add_help=False)
    commands.add_parser(
        "demo",
        help="play a recorded model conversation through the real pipeline",
        description=(
            "Load the example tools that ship with toolcast, show them projected "
            "for three providers, then play a recorded model conversation through "
            "parse_calls, ToolSet.resolve, invoke and format_results. No network, "
            "no API keys."
        ),
    )
    return parser


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    from toolcast._cli._serve import run

    # The loader and the usage error are handed in: `_serve` must not import this module.
    return run(args, load_source, _Usage)


_COMMANDS: Mapping[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "inspect": _inspect,
    "call": _call,
    "demo": _demo,
    "serve": _serve,
}


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return EXIT_OK
    return code if isinstance(code, int) else EXIT_USAGE


def _delegate(name: str, argv: Sequence[str]) -> int:
    from toolcast._cli import _lock

    entry = _lock.lock_main if name == "lock" else _lock.check_main
    try:
        return entry(list(argv), prog=f"toolcast {name}", load=_lock_loader)
    except SystemExit as exc:  # argparse inside the delegate
        return _exit_code(exc)


def _lock_loader(target: str, recursive: bool) -> Any:
    """The catalog for `lock`/`check`: the same targets, messages and exit codes as `inspect`."""
    from toolcast._cli._lock import TargetError

    try:
        return load_source(target, recursive=recursive).source
    except _Usage as exc:
        raise TargetError(str(exc), EXIT_USAGE) from None
    except (_Failed, ToolcastError) as exc:
        raise TargetError(str(exc), EXIT_ERROR) from None


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file descriptor (captured in tests): nothing to flush


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `toolcast` command line; returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] in _DELEGATED:
        return _delegate(arguments[0], arguments[1:])
    try:
        args = _parser().parse_args(arguments)
    except SystemExit as exc:  # --help, --version and usage errors
        return _exit_code(exc)
    try:
        return _COMMANDS[args.command](args, sys.stdout)
    except BrokenPipeError:
        # `toolcast inspect x | head`: the reader left; stop quietly, as cat does.
        _silence_stdout()
        return EXIT_ERROR
    except _Usage as exc:
        print(f"toolcast: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:  # an optional package: one line with the pip install
        return _person.extra_missing(exc, args.command, EXIT_USAGE)
    except (_Failed, ToolcastError) as exc:
        print(f"toolcast: {exc}", file=sys.stderr)
        return EXIT_ERROR
