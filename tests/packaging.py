"""Build and install fsdp-unpatch the ways the README says, in temporary folders: a snapshot of this
checkout as it is on disk (new files included), a git repository of it with the release tag, the wheel
and sdist that `python -m build` makes, and clean virtual environments."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

from fsdp_unpatch import __version__

ROOT = Path(__file__).resolve().parent.parent
# What a clone holds that building and installing need (plus the hook manifest and the action).
SNAPSHOT = (
    "pyproject.toml",
    "README.md",
    "LICENSE",
    ".pre-commit-hooks.yaml",
    "action.yml",
    "fsdp_unpatch",
    "codemods",
)
TAG = f"v{__version__}"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env={**os.environ, **GIT_ENV}
    ).stdout


def snapshot(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name in SNAPSHOT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(source, dest / name)
    return dest


def tagged_repo(dest: Path) -> Path:
    """A git repository of the snapshot with one commit, tagged as the release (what the lead tags on main)."""
    snapshot(dest)
    git("init", "-q", cwd=dest)
    git("add", ".", cwd=dest)
    git("commit", "-q", "-m", "snapshot", cwd=dest)
    git("tag", TAG, cwd=dest)
    return dest


@dataclass(frozen=True)
class Dists:
    wheel: Path
    sdist: Path


def build(source: Path, outdir: Path) -> Dists:
    """`python -m build` (sdist, then the wheel from it), as the README says."""
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(outdir), str(source)],
        check=True,
        capture_output=True,
        env=clean_env(),
    )
    (wheel,) = outdir.glob("*.whl")
    (sdist,) = outdir.glob("*.tar.gz")
    return Dists(wheel, sdist)


def clean_env(**extra: str) -> dict:
    """The environment without this checkout on PYTHONPATH, so that only what was installed runs."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NO_COLOR", "FORCE_COLOR")}
    env.update(extra)
    return env


def make_venv(path: Path) -> Path:
    """A clean virtual environment (no system site-packages); its bin folder."""
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    return path / "bin"


# The virtual environment the action's install steps share (`action_venv`), one per process.
_ACTION_VENV: list[Path] = []


def action_venv(tmp_path_factory) -> Path:
    """A clean virtual environment without fsdp-unpatch, for the action's steps to install it into; its bin
    folder. Made once per process for tests/test_ci_templates.py and tests/test_examples_ci.py (one worker
    group, tests/scheduling.py): the first install step installs the wheel, the later ones find it installed,
    as the later tests of either file always did (a venv and a full install each paid nothing else)."""
    if not _ACTION_VENV:
        _ACTION_VENV.append(make_venv(tmp_path_factory.mktemp("action-venv") / "venv"))
    return _ACTION_VENV[0]


def pip_install(bin_dir: Path, *requirements: str) -> None:
    subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
        check=True,
        capture_output=True,
        env=clean_env(),
    )
