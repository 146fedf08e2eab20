"""Create the virtual environments of peers that cannot share toolcast's.

    python -m benchmarks.peer_venvs            # creates what is missing
    python -m benchmarks.peer_venvs --force    # recreates them

One venv per file in `benchmarks/peer_requirements/`, at `benchmarks/.venvs/<name>/`
(gitignored), with exactly the pins of that file. Today there is one:
`temporal-openai-agents`, for `benchmarks/temporal_openai_agents.py` —
`temporalio-openai-agents` 1.1.0 requires `openai-agents` 0.22.x, and toolcast
pins 0.24.0. `benchmarks/bench_temporal.py` runs the peer when its venv exists.

Standard library only.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "peer_requirements"
VENVS = HERE / ".venvs"


def python(name: str) -> Path:
    """The interpreter of the peer venv `name` (it may not exist)."""
    return VENVS / name / "bin" / "python"


def create(name: str, *, force: bool = False) -> Path:
    """Create (or with `force`, recreate) the venv `name` from its requirements file."""
    target = VENVS / name
    if force and target.exists():
        shutil.rmtree(target)
    if not python(name).exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(target)
    pins = REQUIREMENTS / f"{name}.txt"
    subprocess.run(
        [str(python(name)), "-m", "pip", "install", "--quiet", "-r", str(pins)], check=True
    )
    return target


def main(argv: list[str]) -> int:
    force = "--force" in argv
    for pins in sorted(REQUIREMENTS.glob("*.txt")):
        made = create(pins.stem, force=force)
        print(f"{pins.stem}: {made}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
