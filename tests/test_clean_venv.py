"""toolcast as a person first meets it: a clean venv, the installed `toolcast` script.

The slow test runs the README's own fresh-machine command verbatim (`python3 -m
venv .venv && ... && pip install -e . && toolcast demo`) in a copy of the project,
downloading dependencies as a new user would. The fast test, run by default,
checks the same promise in seconds: it builds the wheel, installs it without
dependencies into a new venv (which sees this environment's dependencies through a
`.pth` file, never its editable toolcast), and runs the installed script there, so
a file missing from the wheel (the recorded conversation, a module) fails it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_PROJECT_FILES = ("pyproject.toml", "README.md", "LICENSE")


def readme_command(marker: str) -> str:
    """The README's one-line bash command that contains `marker`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL):
        if marker in block:
            return str(block.strip())
    pytest.fail(f"README.md has no bash command containing {marker!r}")


def copy_project(dest: Path) -> Path:
    """The files a user gets from a checkout, without caches or venvs."""
    dest.mkdir(parents=True)
    for name in _PROJECT_FILES:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, dest / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "src", dest / "src", ignore=ignore)
    return dest


def clean_env(extra_path: Path | None = None) -> dict[str, str]:
    """This process's environment without any sign of the active venv."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "FORCE_COLOR"}
    }
    active = str(Path(sys.prefix) / "bin")
    parts = [p for p in env.get("PATH", "").split(os.pathsep) if p != active]
    if extra_path is not None:
        parts.insert(0, str(extra_path))
    env["PATH"] = os.pathsep.join(parts)
    env["NO_COLOR"] = "1"
    return env


def run(args: list[str], cwd: Path, env: dict[str, str], timeout: float) -> str:
    result = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def check_installed_script(bin_dir: Path, cwd: Path, env: dict[str, str]) -> None:
    """What the README promises: `toolcast demo` and `toolcast --help` work."""
    script = str(bin_dir / "toolcast")
    demo = run([script, "demo"], cwd, env, timeout=120)
    assert demo.startswith("toolcast demo: no network and no API keys.")
    assert "Done: 6 calls in 6 turns; 2 came back as error results" in demo
    assert "\x1b[" not in demo
    usage = run([script, "--help"], cwd, env, timeout=60)
    assert usage.startswith("usage: toolcast")
    for command in ("inspect", "call", "lock", "check", "demo"):
        assert f"    {command}" in usage


def _dependencies_view(target: Path) -> Path:
    """A folder of links to this environment's packages, toolcast's own left out."""
    target.mkdir()
    for key in ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        for entry in site.iterdir():
            lowered = entry.name.lower()
            if "toolcast" in lowered or entry.suffix == ".pth" or (target / entry.name).exists():
                continue
            (target / entry.name).symlink_to(entry)
    return target


def test_built_wheel_installs_into_a_clean_venv_and_its_script_runs(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    dist = tmp_path / "dist"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist)]
    if importlib.util.find_spec("hatchling") is not None:
        # No network needed when the build backend is already here.
        build.append("--no-build-isolation")
    run([*build, str(project)], tmp_path, clean_env(), timeout=300)
    (wheel,) = dist.glob("toolcast-*.whl")

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, clean_env(), 120)
    python = venv / "bin" / "python"
    site = run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        tmp_path,
        clean_env(),
        timeout=60,
    ).strip()
    deps = _dependencies_view(tmp_path / "deps")
    Path(site, "toolcast_test_deps.pth").write_text(f"{deps}\n", encoding="utf-8")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"]
    run([*install, "--no-deps", "--no-index", str(wheel)], tmp_path, clean_env(), 300)

    env = clean_env(venv / "bin")
    where = run([str(python), "-c", "import toolcast; print(toolcast.__file__)"], tmp_path, env, 60)
    assert where.startswith(site), "the venv must import the installed wheel"
    check_installed_script(venv / "bin", tmp_path, env)


@pytest.mark.slow
def test_readme_demo_command_runs_verbatim_on_a_fresh_checkout(tmp_path: Path) -> None:
    """Downloads toolcast's dependencies from the package index, as a new user does."""
    project = copy_project(tmp_path / "project")
    command = readme_command("toolcast demo")
    assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    output = run(["bash", "-c", command], project, clean_env(), timeout=900)
    assert "Done: 6 calls in 6 turns" in output
    check_installed_script(project / ".venv" / "bin", tmp_path, clean_env())
