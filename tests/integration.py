"""A small patched project for the integration tests, and a way to run the CLI on it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from tests.helpers import cli_runner
from tests.upstream import expand

# The collectives patch in a package module: three removable parts (FSU001, FSU002, FSU003).
PATCH = """\
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
from typing import cast

# @upstream _fsdp_collectives._get_param_all_gather_inputs _patched_inputs same-device


def _apply_fsdp_patch():
    C._get_param_all_gather_inputs = _patched_inputs
"""

# The enhance patch: reported as keep (FSU201), never changed, never fails a run.
ENHANCE = """\
from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _cached_allocate(self, size, *, dtype, device):
    return self.cache.get(size, dtype, device)


def _apply_fsdp_enhance_patch():
    _fsdp_collectives.DefaultAllGather.allocate = _cached_allocate
"""

CLEAN = "import os\n\nprint(os.sep)\n"


def make_project(root: Path) -> Path:
    package = root / "pkg"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "patch.py").write_text(expand(PATCH))
    (package / "enhance.py").write_text(ENHANCE)
    (package / "clean.py").write_text(CLEAN)
    return root


@dataclass
class Outcome:
    returncode: int
    stdout: bytes
    stderr: bytes


def cli(*args: str, cwd: Path, stdin: Optional[bytes] = None, env: Optional[dict] = None) -> Outcome:
    """Run `fsdp-unpatch ARGS` in this process (much faster than a subprocess) from the folder `cwd`.

    Standard output and error are pipes, not terminals, and NO_COLOR and CI are unset unless `env` sets them.
    """
    from fsdp_unpatch.cli import main

    runner = cli_runner()
    environment: dict = {"NO_COLOR": None, "CI": None, "FSDP_UNPATCH_OUTPUT_FORMAT": None}
    environment.update(env or {})
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        result = runner.invoke(main, list(args), input=stdin or b"", env=environment, catch_exceptions=False)
    finally:
        os.chdir(previous)
    return Outcome(result.exit_code, result.stdout_bytes, result.stderr_bytes or b"")
