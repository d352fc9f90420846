"""The real torch-npu releases, fetched from the package registry at test time and cached.

Nothing of them is kept in this repository: `pip download --no-deps` fetches the wheel into a cache
(``$FSDP_UNPATCH_RELEASES`` or the user cache folder), the ``torch_npu/**/*.py`` files are extracted once
per release, and each test works on a fresh copy in a temporary git repository.

Also used by ``scripts/real_releases.py`` (the table of docs/real-releases.md).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Optional

# Releases that ship the collectives patch, and releases that ship the hand-migrated module.
PATCHED = ("2.7.1.post11", "2.8.0", "2.8.0.post5", "2.9.1", "2.10.0.post7")
MIGRATED = ("2.11.0.post3", "2.12.0.post3", "2.13.0", "2.14.0")
PATCH_MODULE = "torch_npu/distributed/fsdp/_add_fsdp_patch.py"


def cache_root() -> Path:
    configured = os.environ.get("FSDP_UNPATCH_RELEASES")
    if configured:
        return Path(configured)
    # Not $XDG_CACHE_HOME: the test session points that at a temporary folder (tests/conftest.py).
    return Path.home() / ".cache" / "fsdp-unpatch" / "torch-npu"


class Unavailable(Exception):
    """The release could not be fetched (offline, registry refused)."""


def _download(version: str, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    wheels = sorted(into.glob("torch_npu-*.whl"))
    if wheels:
        return wheels[0]
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--platform",
        "manylinux_2_28_x86_64",
        "--platform",  # the 2.6 releases ship manylinux2014 wheels only
        "manylinux2014_x86_64",
        "--python-version",
        "3.11",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(into),
        f"torch-npu=={version}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    wheels = sorted(into.glob("torch_npu-*.whl"))
    if done.returncode != 0 or not wheels:
        raise Unavailable(f"pip download torch-npu=={version} failed: {done.stderr.strip()[-400:]}")
    return wheels[0]


def sources(version: str) -> Path:
    """The folder holding ``torch_npu/`` (its .py files only) of a release, extracted once (under a lock:
    the suite's workers, `pytest -n`, may ask for one release at the same time)."""
    root = cache_root() / version
    extracted = root / "src"
    marker = root / "extracted.ok"
    if marker.is_file():
        return extracted
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file():  # another worker extracted it meanwhile
            return extracted
        return _extract(version, root, extracted, marker)


def _extract(version: str, root: Path, extracted: Path, marker: Path) -> Path:
    wheel = _download(version, root / "wheel")
    if extracted.exists():
        shutil.rmtree(extracted)
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith("torch_npu/") and name.endswith(".py"):
                archive.extract(name, extracted)
    marker.write_text(wheel.name + "\n", encoding="utf-8")
    return extracted


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def working_copy(version: str, dest: Path, rename: Optional[str] = None) -> Path:
    """A temporary git repository holding the release's ``torch_npu`` (or the same folder under ``rename``)."""
    shutil.copytree(sources(version) / "torch_npu", dest / (rename or "torch_npu"))
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", f"torch-npu {version}")
    return dest
