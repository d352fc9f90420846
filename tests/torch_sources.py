"""The FSDP2 sources of released torch wheels, fetched from the package registry at test time and cached in
``~/.cache/fsdp-unpatch/torch/<version>/`` (shared with scripts/fetch_torch_sources.py: each version is
downloaded once). Nothing of torch is kept in this repository."""

from __future__ import annotations

import fcntl
import importlib.util
import os
from pathlib import Path

import pytest

CACHE = Path.home() / ".cache" / "fsdp-unpatch" / "torch"
SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fetch_torch_sources.py"


def torch_sources(version: str) -> Path:
    """The folder holding ``torch/`` (FSDP2 files only) of a torch release; skipped (failed on CI) offline."""
    if not (CACHE / version / "SOURCE.json").is_file():
        spec = importlib.util.spec_from_file_location("fetch_torch_sources", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        CACHE.mkdir(parents=True, exist_ok=True)
        with open(CACHE / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            info = module.fetch(version, CACHE, "3.11")
        if not info.get("files"):
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"CI must fetch torch {version}")
            pytest.skip(f"torch {version} could not be fetched")
    return CACHE / version
