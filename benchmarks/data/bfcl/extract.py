"""Rebuild this folder's problem set from the `bfcl-eval` wheel (Apache-2.0).

    pip download --no-deps -d /tmp/bfcl bfcl-eval==2026.3.23
    python benchmarks/data/bfcl/extract.py /tmp/bfcl/bfcl_eval-2026.3.23-py3-none-any.whl

Keeps the first 200 problems of `BFCL_v4_multiple` (2-4 functions, one right
answer: tool choice and arguments) and the first 100 of `BFCL_v4_irrelevance`
(no function fits: the right answer is text), each with its ground truth, as
they are in the wheel.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETS = {"multiple": 200, "irrelevance": 100}


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as archive:
        for name, count in SETS.items():
            rows = archive.read(f"bfcl_eval/data/BFCL_v4_{name}.json").decode().splitlines()
            problems = [json.loads(row) for row in rows[:count]]
            answers: dict[str, object] = {}
            if name != "irrelevance":
                path = f"bfcl_eval/data/possible_answer/BFCL_v4_{name}.json"
                for row in archive.read(path).decode().splitlines():
                    item = json.loads(row)
                    answers[item["id"]] = item["ground_truth"]
            with (HERE / f"{name}.jsonl").open("w") as out:
                for problem in problems:
                    problem["ground_truth"] = answers.get(problem["id"], [])
                    out.write(json.dumps(problem, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
