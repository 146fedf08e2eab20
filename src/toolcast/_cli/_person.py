"""What `toolcast` prints for a person: indented results, a tool's cause, missing extras."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = (
    "add_output_options",
    "extra_missing",
    "for_a_person",
    "missing_extra",
    "outcome_json",
    "write_result",
    "show_cause",
    "traceback_frames",
)


def for_a_person(text: str) -> str:
    """A JSON result indented for reading; any other text as it is."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(value, indent=2, ensure_ascii=False)


def outcome_json(outcome: Any) -> dict[str, Any]:
    """The outcome as one JSON object, for scripts (`toolcast call --json`)."""
    try:
        result: Any = json.loads(outcome.text)
    except ValueError:
        result = outcome.text
    failure = outcome.error
    return {
        "tool": outcome.tool_name,
        "call_id": outcome.call_id,
        "is_error": outcome.is_error,
        "error_kind": failure.kind if failure else None,
        "result": result,
        "text": outcome.text,
    }


def show_cause(exception: BaseException | None, *, whole: bool) -> None:
    """What the tool raised: the model never sees it, the person at the terminal should."""
    from toolcast.errors import ToolError

    if exception is None or isinstance(exception, ToolError):
        return  # bad arguments or a ToolError: the result above says it all
    if whole:
        import traceback

        traceback.print_exception(exception, file=sys.stderr)
        return
    frames = traceback_frames(exception)
    where = f" (at {frames[-1]})" if frames else ""
    print(
        f"toolcast: the tool raised {type(exception).__name__}: {exception}{where}; "
        "--traceback shows the whole trace.",
        file=sys.stderr,
    )


def traceback_frames(exception: BaseException) -> list[str]:
    """`file:line in function` for each frame of the exception's traceback."""
    import traceback

    return [
        f"{Path(f.filename).name}:{f.lineno} in {f.name}"
        for f in traceback.extract_tb(exception.__traceback__)
    ]


# The extra that brings each optional top-level package a subcommand may import.
_EXTRA_OF = {
    "anyio": "mcp",
    "mcp": "mcp",
    "starlette": "mcp",
    "uvicorn": "mcp",
    "grpc": "grpc",
    "google.protobuf": "grpc",
    "google": "grpc",
    "openai": "openai",
    "anthropic": "anthropic",
    "botocore": "bedrock",
    "mistralai": "mistral",
    "ollama": "ollama",
    "redis": "redis",
    "pydantic": "pydantic",
}


def missing_extra(exc: ImportError, command: str) -> str | None:
    """One line naming the `pip install` that fixes a missing optional package, or None."""
    text = str(exc)
    if "pip install 'toolcast[" in text:  # toolcast's own extras already say it
        return text.splitlines()[0]
    name = exc.name or ""
    for module in (name, name.split(".", 1)[0]):
        extra = _EXTRA_OF.get(module)
        if extra is not None:
            return (
                f"`toolcast {command}` needs the {extra} extra ({module} is not installed): "
                f"pip install 'toolcast[{extra}]'"
            )
    return None


def add_output_options(call: argparse.ArgumentParser) -> None:
    """`toolcast call --json` and `--traceback`."""
    call.add_argument(
        "--json",
        action="store_true",
        help="print the outcome as one JSON object (tool, is_error, error_kind, result, text)",
    )
    call.add_argument(
        "--traceback",
        action="store_true",
        help="when the tool raises, print the whole traceback to stderr",
    )


def extra_missing(exc: ImportError, command: str, code: int) -> int:
    """Print the `pip install` that brings what `exc` misses and return `code`; else re-raise."""
    hint = missing_extra(exc, command)
    if hint is None:
        raise exc
    print(f"toolcast: {hint}", file=sys.stderr)
    return code


def write_result(out: Any, outcome: Any, *, as_json: bool, indent: bool) -> None:
    """The result as the model receives it, indented on a terminal, or `--json`'s object."""
    if as_json:
        text = json.dumps(outcome_json(outcome), indent=2, ensure_ascii=False)
    else:
        text = for_a_person(outcome.text) if indent else outcome.text
    out.write(text + ("\n" if not text.endswith("\n") else ""))
