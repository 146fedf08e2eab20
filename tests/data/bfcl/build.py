"""Rebuild `corpus.json.gz` from a `bfcl-eval` wheel (not run by the tests).

Usage: `pip download --no-deps -d /tmp/bfcl bfcl-eval==2026.3.23`, unzip the wheel,
then `python tests/data/bfcl/build.py /path/to/unzipped/bfcl_eval/data`.

Keeps every function definition as BFCL ships it (its own dialect: `dict`, `float`,
`tuple`, `any`, ...), deduplicated, and the ground-truth calls of the single-turn
categories (`possible_answer/`, each argument a list of acceptable values; `""`
means "may be left out"), each pointing at the definition it calls.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

_SINGLE_TURN = (
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "irrelevance", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple", "live_irrelevance", "live_relevance",
)  # fmt: skip


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def main(data: Path) -> None:
    functions: list[dict] = []
    index: dict[str, int] = {}
    calls: list[list] = []
    seen_calls: set[str] = set()

    def add(function: dict, source: str) -> int:
        key = json.dumps(function, sort_keys=True)
        if key not in index:
            index[key] = len(functions)
            functions.append({"source": source, "function": function})
        return index[key]

    for category in _SINGLE_TURN:
        name = f"BFCL_v4_{category}.json"
        answers_path = data / "possible_answer" / name
        answers = (
            {a["id"]: a["ground_truth"] for a in _lines(answers_path)}
            if answers_path.exists()
            else {}
        )
        for entry in _lines(data / name):
            by_name = {f["name"]: add(f, name) for f in entry["function"]}
            for call in answers.get(entry["id"], ()):
                ((called, arguments),) = call.items()
                if called not in by_name:
                    continue
                key = json.dumps([by_name[called], arguments], sort_keys=True)
                if key not in seen_calls:
                    seen_calls.add(key)
                    calls.append([by_name[called], arguments])
    for path in sorted((data / "multi_turn_func_doc").glob("*.json")):
        for function in _lines(path):
            function.pop("response", None)  # the result schema: not an input
            add(function, f"multi_turn_func_doc/{path.name}")
    document = {
        "source": (
            "bfcl-eval 2026.3.23 (PyPI), bfcl_eval/data; Berkeley Function Calling Leaderboard"
        ),
        "license": "Apache-2.0",
        "functions": functions,
        "calls": calls,
    }
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    out = Path(__file__).with_name("corpus.json.gz")
    out.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    print(f"{len(functions)} functions, {len(calls)} calls, {out.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
