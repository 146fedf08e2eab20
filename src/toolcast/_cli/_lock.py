"""The schema lock commands: `toolcast lock` and `toolcast check`.

`toolcast lock TARGET -o tools.lock.json` records each tool's spec; `toolcast check
TARGET tools.lock.json` compares the code with that record and exits 1 when a
change breaks models or transcripts without a version bump. This module loads the
target, parses arguments and prints; the document and the classification of
changes live in `_lockfile.py`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcast._lock._document import (
    LOCK_FORMAT,
    LockChange,
    LockReport,
    check_lock,
    compare_locks,
    dumps_lock,
    is_version_bump,
    lock_document,
)
from toolcast.errors import CatalogError, ToolcastError

if TYPE_CHECKING:
    from toolcast._catalog._catalog import Catalog, ToolSet

# The document and comparison names are re-exported: the CLI, tests and docs
# import the whole schema lock from `toolcast._cli._lock`.
__all__ = (
    "LOCK_FORMAT",
    "Loader",
    "TargetError",
    "LockChange",
    "LockReport",
    "check_lock",
    "check_main",
    "compare_locks",
    "dumps_lock",
    "is_version_bump",
    "load_target",
    "lock_document",
    "lock_main",
)


@dataclass(frozen=True, slots=True)
class TargetError(Exception):
    """A TARGET could not be loaded; `message` is one line, `code` the exit code."""

    message: str
    code: int


Loader = Callable[[str, bool], "Catalog | ToolSet"]
"""`(target, recursive) -> catalog`; raises TargetError. The `toolcast` command
passes the one `inspect` and `call` use, so every command takes the same targets."""


def load_target(target: str, *, recursive: bool = False) -> Catalog | ToolSet:
    """Load `module` (scanned into a catalog) or `module:attribute`.

    The attribute may be a `Catalog`, a `ToolSet`, or a zero-argument callable
    returning one (a factory).

    Raises:
        ImportError: the module cannot be imported.
        CatalogError: the attribute is missing or is not a catalog.
    """
    from toolcast._catalog._catalog import Catalog, ToolSet
    from toolcast._cli._grpc import DESCRIPTOR_SUFFIXES, grpc_tools_of, is_grpc_module

    if target.endswith(DESCRIPTOR_SUFFIXES):  # a FileDescriptorSet: its gRPC tools
        return Catalog(grpc_tools_of(Path(target).read_bytes(), None))
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    if not attribute and is_grpc_module(module):
        return Catalog(grpc_tools_of(module, None))
    if not attribute:
        return Catalog.from_modules(module, recursive=recursive)
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            msg = f"Module {module_name!r} has no attribute {attribute!r}."
            raise CatalogError(msg) from None
    if not isinstance(value, (Catalog, ToolSet)) and callable(value):
        value = value()
    if not isinstance(value, (Catalog, ToolSet)):
        msg = (
            f"{target!r} is a {type(value).__name__}, not a Catalog or ToolSet "
            "(or a function returning one)."
        )
        raise CatalogError(msg)
    return value


def _parser(prog: str, *, check: bool) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Compare the tools of TARGET with a lock file; exit 1 when a change "
            "breaks models or transcripts without a version bump."
            if check
            else "Write the contract of every tool of TARGET to a lock file."
        ),
    )
    parser.add_argument(
        "target",
        metavar="TARGET",
        help="module, module:attribute, or path/to/file.py[:attribute] (as for inspect)",
    )
    if check:
        parser.add_argument("lockfile", metavar="LOCKFILE", type=Path)
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
    else:
        parser.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    parser.add_argument(
        "-r", "--recursive", action="store_true", help="scan a package's submodules too"
    )
    return parser


def _load(target: str, recursive: bool, load: Loader | None) -> Catalog | ToolSet | int:
    # Console scripts do not put the working directory on sys.path; `python -m`
    # does. Add it so `toolcast lock myapp.tools` works the same both ways.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        if load is not None:
            return load(target, recursive)
        return load_target(target, recursive=recursive)
    except TargetError as exc:
        print(f"toolcast: {exc.message}", file=sys.stderr)
        return exc.code
    except ImportError as exc:
        print(f"toolcast: cannot import {target!r}: {exc}", file=sys.stderr)
        return 2
    except ToolcastError as exc:
        print(f"toolcast: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # the module raised while importing: one line, no traceback
        print(
            f"toolcast: importing {target!r} failed: {type(exc).__name__}: {exc}", file=sys.stderr
        )
        return 1


def lock_main(
    argv: Sequence[str] | None = None, *, prog: str = "toolcast lock", load: Loader | None = None
) -> int:
    """`toolcast lock TARGET [-o FILE]`: write the lock file; returns the exit code."""
    args = _parser(prog, check=False).parse_args(argv)
    source = _load(args.target, args.recursive, load)
    if isinstance(source, int):
        return source
    text = dumps_lock(lock_document(source))
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            print(f"toolcast: cannot write {args.output}: {reason}", file=sys.stderr)
            return 2
        count = len(source.all(include_deprecated=True))
        print(f"toolcast: locked {count} tools in {args.output}", file=sys.stderr)
    return 0


def _read_lock(path: Path) -> Mapping[str, Any] | str:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    except ValueError as exc:
        return f"{path} is not JSON: {exc}"
    if not isinstance(document, dict) or document.get("format") != LOCK_FORMAT:
        return f"{path} is not a toolcast lock file (format {LOCK_FORMAT!r})"
    return document


def _print_text(report: LockReport, write: Callable[[str], object]) -> None:
    for change in report.changes:
        if not change.breaking:
            tag = "compatible"
        elif change.excused:
            tag = "breaking (version bumped)"
        else:
            tag = "BREAKING"
        write(f"{tag}: {change.tool}: {change.message} [{change.kind}]\n")
    total, broken = len(report.changes), len(report.unexcused)
    write(
        f"{total} change{'s' * (total != 1)}, {len(report.breaking)} breaking, "
        f"{broken} without a version bump.\n"
    )


def check_main(
    argv: Sequence[str] | None = None, *, prog: str = "toolcast check", load: Loader | None = None
) -> int:
    """`toolcast check TARGET LOCKFILE`: 0 ok, 1 unexcused breaking change, 2 usage."""
    parser = _parser(prog, check=True)
    args = parser.parse_args(argv)
    locked = _read_lock(args.lockfile)
    if isinstance(locked, str):
        print(f"toolcast: {locked}", file=sys.stderr)
        return 2
    source = _load(args.target, args.recursive, load)
    if isinstance(source, int):
        return source
    report = check_lock(source, locked)
    if args.json:
        sys.stdout.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        _print_text(report, sys.stdout.write)
    if report.ok:
        return 0
    print(
        "toolcast: breaking changes without a version bump. Bump each tool's "
        "`version`, keep old names as aliases, or run `toolcast lock` to accept.",
        file=sys.stderr,
    )
    return 1
