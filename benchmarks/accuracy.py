"""Tool-calling accuracy of a local model, native vs constrained, on public problems.

    pip install -e '.[model]'
    python -m benchmarks.accuracy                      # both servers, every problem
    python -m benchmarks.accuracy --server llama-cpp-python --limit 20
    python -m benchmarks.accuracy --server llama-cpp-python \
        --slice multiple=100:115 --slice irrelevance=50:60    # held-out problems

The problems are a subset of the Berkeley Function Calling Leaderboard
(`benchmarks/data/bfcl/`, Apache-2.0): 200 "multiple" problems (2-4 functions,
one right call) and 100 "irrelevance" problems (no function fits: the right
answer is text). Each problem is one model turn through the public API,
`openai_chat.Model(client, ..., profile=SERVER, constrain=MODE)`, on Gemma 3 270M
(the `model` extra) behind llama-cpp-python's server and upstream `llama-server`,
started here on 127.0.0.1 exactly as the `model` test suite starts them.

Scoring is BFCL's AST idea, written here: the right function; every required
argument present; every value among the accepted ones (strings compared without
case, spaces and punctuation, as BFCL does; an int accepted for a float). Per-problem
results go to `benchmarks/results/accuracy.json` and the table to stdout (pasted
into `docs/local-models.md`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.local_servers import running_server  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "bfcl"
RESULTS = ROOT / "benchmarks" / "results" / "accuracy.json"
_TYPES = {"dict": "object", "float": "number", "tuple": "array"}


def to_json_schema(node: Any) -> Any:
    """BFCL's parameter dialect (`dict`, `float`, `tuple`, `any`) as JSON Schema."""
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and value == "any":
            continue
        if key == "type" and isinstance(value, str):
            out[key] = _TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            out[key] = to_json_schema(value)
        else:
            out[key] = value
    return out


def tool_name(name: str) -> str:
    """BFCL names like `math.factorial` in the tool-name alphabet (as BFCL's OpenAI handler)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]


SETS = ("multiple", "irrelevance")
MODES = ("native", "constrained")


def problems(
    limit: int | None, offset: int = 0, slices: dict[str, slice] | None = None
) -> Iterator[dict[str, Any]]:
    """The problems of each set: `[offset:offset + limit]`, or the set's own slice."""
    for name in SETS:
        rows = (DATA / f"{name}.jsonl").read_text().splitlines()
        end = None if limit is None else offset + limit
        chosen = (slices or {}).get(name, slice(offset, end))
        for row in rows[chosen]:
            problem = json.loads(row)
            problem["kind"] = name
            yield problem


def tools_of(problem: dict[str, Any]) -> list[Any]:
    from toolcast import Tool

    found = []
    for function in problem["function"]:
        schema = to_json_schema(function["parameters"])
        schema.setdefault("type", "object")
        found.append(
            Tool.from_schema(
                tool_name(function["name"]),
                function.get("description", ""),
                schema,
                lambda **_: None,
            )
        )
    return found


def _plain(text: Any) -> Any:
    if isinstance(text, str):
        return re.sub(r"[ ,./\-_*^]", "", text).lower()
    if isinstance(text, list):
        return [_plain(item) for item in text]
    if isinstance(text, dict):
        return {key: _plain(value) for key, value in text.items()}
    return text


def _same(value: Any, accepted: Any) -> bool:
    if isinstance(accepted, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value) == accepted
    return bool(_plain(value) == _plain(accepted))


def score(problem: dict[str, Any], calls: list[tuple[str, Any]]) -> dict[str, bool]:
    """Right tool chosen first, and the whole call right (AST), for one problem."""
    if problem["kind"] == "irrelevance":
        return {"choice": not calls, "ast": not calls}
    (expected,) = problem["ground_truth"]
    ((function, accepted),) = expected.items()
    if not calls:
        return {"choice": False, "ast": False}
    name, arguments = calls[0]
    if name != tool_name(function):
        return {"choice": False, "ast": False}
    if not isinstance(arguments, dict):
        return {"choice": True, "ast": False}
    spec = next(f for f in problem["function"] if f["name"] == function)
    required = set(spec["parameters"].get("required", ()))
    ok = set(arguments) <= set(accepted) and required <= set(arguments)
    for key, options in accepted.items():
        if key in arguments:
            ok = ok and any(_same(arguments[key], option) for option in options)
        else:
            ok = ok and "" in options
    return {"choice": True, "ast": ok}


async def one(model: Any, problem: dict[str, Any], reverse: bool = False) -> dict[str, Any]:
    from toolcast.loop import ModelRequest

    tools = tools_of(problem)
    if reverse:  # the same problem with its tools listed the other way round
        tools.reverse()
    question = problem["question"][0][-1]["content"]
    request = ModelRequest(
        messages=model.user_message(question), tools=[t.spec for t in tools], tool_choice="auto"
    )
    started = time.perf_counter()
    try:
        turn = await model.complete(request)
    except Exception as exc:  # a server error is a result of its own, counted
        return {"error": f"{type(exc).__name__}: {exc}"[:300], "choice": False, "ast": False}
    calls: list[tuple[str, Any]] = []
    unreadable = 0
    for call in turn.calls:
        try:
            calls.append((call.name, json.loads(call.arguments)))
        except (TypeError, ValueError):
            unreadable += 1
            calls.append((call.name, call.arguments))
    names = [t.name for t in tools]
    return {
        **score(problem, calls),
        # Where the first call's tool was in the list the model was given (0 = first),
        # and where the right one was: a model biased to the first tool shows as many
        # 0s among the first and few among the second.
        "called_position": names.index(calls[0][0]) if calls and calls[0][0] in names else None,
        "right_position": _right_position(problem, names),
        "calls": calls,
        "text": turn.text[:300],
        "finish_reason": turn.finish_reason,
        "cut_off": turn.finish_reason == "length",
        "unreadable": unreadable,
        "seconds": round(time.perf_counter() - started, 3),
    }


def _right_position(problem: dict[str, Any], names: list[str]) -> int | None:
    if problem["kind"] != "multiple":
        return None
    (expected,) = problem["ground_truth"]
    right = tool_name(next(iter(expected)))
    return names.index(right) if right in names else None


async def run_server(
    server: str,
    limit: int | None,
    output: Path,
    offset: int = 0,
    slices: dict[str, slice] | None = None,
    modes: tuple[str, ...] = MODES,
    reverse: bool = False,
    label: str = "",
) -> list[dict[str, Any]]:
    import openai

    from toolcast.providers import openai_chat

    rows: list[dict[str, Any]] = []
    with running_server(server) as url:
        client = openai.AsyncOpenAI(base_url=url, api_key="local", max_retries=0, timeout=120)
        models = {
            mode: openai_chat.Model(
                client, "gemma", profile=server, constrain=mode == "constrained", temperature=0
            )
            for mode in modes
        }
        for problem in problems(limit, offset, slices):
            for mode, model in models.items():
                result = await one(model, problem, reverse)
                rows.append({"id": problem["id"], "kind": problem["kind"], "server": server,
                             "mode": mode + label, "reversed": reverse, **result})  # fmt: skip
                print(json.dumps({k: rows[-1][k] for k in ("id", "mode", "choice", "ast")}))
                with output.with_suffix(".partial.jsonl").open("a") as log:
                    log.write(json.dumps(rows[-1], ensure_ascii=False) + "\n")
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| server | mode | right tool first (multiple) | whole call right (multiple) "
        "| text answer (irrelevance) | first-listed tool called (multiple; right: R) "
        "| cut off | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    keys = sorted({(r["server"], r["mode"]) for r in rows})
    for server, mode in keys:
        mine = [r for r in rows if (r["server"], r["mode"]) == (server, mode)]
        multiple = [r for r in mine if r["kind"] == "multiple"]
        irrelevant = [r for r in mine if r["kind"] == "irrelevance"]

        def share(part: list[dict[str, Any]], key: str) -> str:
            hits = sum(1 for r in part if r[key])
            return f"{hits}/{len(part)} ({100 * hits / max(len(part), 1):.0f}%)"

        first = sum(1 for r in multiple if r.get("called_position") == 0)
        right = sum(1 for r in multiple if r.get("right_position") == 0)
        cut = sum(1 for r in mine if r.get("cut_off"))
        errors = sum(1 for r in mine if r.get("error"))
        lines.append(
            f"| {server} | {mode} | {share(multiple, 'choice')} | {share(multiple, 'ast')} "
            f"| {share(irrelevant, 'choice')} | {first}/{len(multiple)} (R {right}) "
            f"| {cut} | {errors} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=["llama-cpp-python", "llama-server"], action="append")
    parser.add_argument("--limit", type=int, default=None, help="problems per set")
    parser.add_argument("--offset", type=int, default=0, help="first problem of each set")
    parser.add_argument(
        "--slice",
        action="append",
        default=[],
        metavar="SET=START:END",
        help="problems START to END-1 of one set (e.g. multiple=100:140); overrides the others",
    )
    parser.add_argument("--mode", choices=MODES, action="append", help="default: both")
    parser.add_argument("--reverse", action="store_true", help="list each problem's tools reversed")
    parser.add_argument("--label", default="", help="appended to the mode in rows and table")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    slices = {}
    for item in args.slice:
        name, _, bounds = item.partition("=")
        start, _, end = bounds.partition(":")
        if name not in SETS:
            parser.error(f"--slice: unknown set {name!r} (one of {', '.join(SETS)})")
        slices[name] = slice(int(start or 0), int(end) if end else None)
    rows: list[dict[str, Any]] = []
    args.output.parent.mkdir(parents=True, exist_ok=True)
    # Each result is also appended as it comes, so a run cut short keeps what it measured.
    args.output.with_suffix(".partial.jsonl").unlink(missing_ok=True)
    modes = tuple(args.mode or MODES)
    for server in args.server or ["llama-cpp-python", "llama-server"]:
        rows += asyncio.run(
            run_server(
                server,
                args.limit,
                args.output,
                args.offset,
                slices,
                modes,
                args.reverse,
                args.label,
            )
        )
    args.output.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
