#!/usr/bin/env python3
"""Fetch the FSDP2 python sources of several torch releases, without installing torch.

For each requested version, ``pip download`` fetches one wheel (the macOS arm64 wheels
are CPU builds, about 60-80 MB instead of ~800 MB for x86_64+CUDA; the python sources
are the same on every platform); the FSDP2
python files are extracted with :mod:`zipfile` into ``<dest>/<version>/`` keeping
their path below ``torch/``; the wheel is deleted afterwards.  A version already
extracted is skipped.  The torch installed in the running environment (if any) is
copied from disk instead of being downloaded.

Stdlib only.  Usage::

    python scripts/fetch_torch_sources.py                       # default versions
    python scripts/fetch_torch_sources.py 2.6.0 2.7.1 --dest /tmp/up
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# Every release (patch releases too) from the first FSDP2 release (2.4) to the newest on PyPI.
DEFAULT_VERSIONS = (
    "2.4.0",
    "2.4.1",
    "2.5.0",
    "2.5.1",
    "2.6.0",
    "2.7.0",
    "2.7.1",
    "2.8.0",
    "2.9.0",
    "2.9.1",
    "2.10.0",
    "2.11.0",
    "2.12.0",
    "2.12.1",
    "2.13.0",
    "2.14.0",
    "2.14.1",
)
# Directories (below the wheel root) holding FSDP2 python files.
FSDP2_DIRS = (
    "torch/distributed/fsdp/_fully_shard/",  # torch >= 2.6
    "torch/distributed/_composable/fsdp/",  # torch 2.4, 2.5 (a shim afterwards)
)
# Single files of FSDP2's family outside those directories (built on FSDP2's private modules).
FSDP2_FAMILY_FILES = (
    "torch/distributed/_composable/replicate_with_fsdp.py",  # replicate() on FSDP2's state (torch >= 2.9)
)
# What a SOURCE.json records it holds: a tree extracted with another filter is extracted again.
WANTED = sorted(FSDP2_DIRS + FSDP2_FAMILY_FILES)
# Wheel platforms to try, in order (small CPU builds first).
PLATFORMS = ("macosx_11_0_arm64", "manylinux_2_28_aarch64", "manylinux2014_aarch64")
# Shared by every engineer of the machine: each version is downloaded once.
DEFAULT_DEST = Path.home() / ".cache" / "fsdp-unpatch" / "torch"


def _wanted(name: str) -> bool:
    return (
        name in FSDP2_FAMILY_FILES
        or name.endswith(".py")
        and any(name.startswith(d) and "/" not in name[len(d) :] for d in FSDP2_DIRS)
    )


def extract_wheel(wheel: Path, out_dir: Path) -> list[str]:
    """Extract the FSDP2 python files of ``wheel`` into ``out_dir``; return their names."""
    names = []
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if _wanted(name):
                target = out_dir / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(name))
                names.append(name)
    return sorted(names)


def download_wheel(version: str, python_version: str, tmp: Path) -> Path | None:
    for platform in PLATFORMS:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            f"torch=={version}",
            "--no-deps",
            "--only-binary=:all:",
            "--platform",
            platform,
            "--python-version",
            python_version,
            "-d",
            str(tmp),
            "-q",
        ]
        print("+", " ".join(cmd), flush=True)
        if subprocess.run(cmd).returncode == 0:
            wheels = sorted(tmp.glob(f"torch-{version}*.whl"))
            if wheels:
                return wheels[0]
    return None


def installed_torch() -> tuple[str, Path] | None:
    """(version, site-packages root) of the installed torch, found without importing it."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    version = importlib.metadata.version("torch").split("+")[0]
    return version, Path(list(spec.submodule_search_locations)[0]).parent


def copy_installed(root: Path, out_dir: Path) -> list[str]:
    names = []
    for d in FSDP2_DIRS:
        src = root / d
        if src.is_dir():
            for f in sorted(src.glob("*.py")):
                rel = f"{d}{f.name}"
                target = out_dir / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, target)
                names.append(rel)
    for rel in FSDP2_FAMILY_FILES:
        if (root / rel).is_file():
            target = out_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rel, target)
            names.append(rel)
    return sorted(names)


def fetch(version: str, dest: Path, python_version: str, keep_wheel: bool = False) -> dict:
    out_dir = dest / version
    if (out_dir / "SOURCE.json").exists():
        info = json.loads((out_dir / "SOURCE.json").read_text())
        if info.get("wanted") == WANTED:
            print(f"{version}: already in {out_dir}")
            return info
    inst = installed_torch()
    if inst and inst[0] == version:
        names = copy_installed(inst[1], out_dir)
        info = {"version": version, "source": f"installed torch at {inst[1]}", "files": names, "wanted": WANTED}
    else:
        with tempfile.TemporaryDirectory(dir=dest) as tmp:
            wheel = download_wheel(version, python_version, Path(tmp))
            if wheel is None:
                print(f"{version}: no wheel found", file=sys.stderr)
                return {"version": version, "source": None, "files": []}
            names = extract_wheel(wheel, out_dir)
            info = {"version": version, "source": wheel.name, "files": names, "wanted": WANTED}
            if keep_wheel:
                shutil.copy(wheel, dest / wheel.name)
    (out_dir / "SOURCE.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"{version}: {len(names)} files from {info['source']}")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("versions", nargs="*", default=list(DEFAULT_VERSIONS))
    ap.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    ap.add_argument("--python-version", default="3.11")
    ap.add_argument("--keep-wheel", action="store_true")
    args = ap.parse_args(argv)
    args.dest.mkdir(parents=True, exist_ok=True)
    missing = [v for v in args.versions if not fetch(v, args.dest, args.python_version, args.keep_wheel)["files"]]
    if missing:
        print("not available:", ", ".join(missing), file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
