"""Patch texts for the safety and property tests, built from the installed torch's real FSDP2 source.

`REMOVABLE` is a whole removable patch: its imports, the upstream copy with the NPU tweak, and an
installer. `fix` deletes all of it, so a file `head + removable() + tail` becomes `head + tail`
exactly; the tests use that to state what a fix must give without computing it with the tool.
`GUARDED` leaves `pass` behind in blocks the fix empties: it shows which line ending new lines get.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

from tests.upstream import expand

REMOVABLE = """\
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
from typing import cast

# @upstream _fsdp_collectives._get_param_all_gather_inputs _patched_inputs same-device


def _apply_fsdp_patch():
    C._get_param_all_gather_inputs = _patched_inputs
"""

GUARDED = """\
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
from typing import cast

# @upstream _fsdp_collectives._get_param_all_gather_inputs _patched_inputs same-device


def setup(flag):
    print("setting up")
    if flag:
        C._get_param_all_gather_inputs = _patched_inputs
    try:
        C._get_param_all_gather_inputs = _patched_inputs
    finally:
        print("done")
"""

GUARDED_FIXED = """\


def setup(flag):
    print("setting up")
    if flag:
        pass
    try:
        pass
    finally:
        print("done")
"""

# What a file needs to pass the prefilter (an install site) without holding a removable patch.
PREFILTER_BAIT = "from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C\nC.foreach_reduce = None\n"


@functools.cache
def removable() -> str:
    return expand(REMOVABLE)


@functools.cache
def guarded() -> str:
    return expand(GUARDED)


def cli(*args: str, cwd: Path, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """`fsdp-unpatch ARGS` in a subprocess, configuration files and cache ignored."""
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", *args[:1], "--isolated", "--no-cache", *args[1:]],
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
        **kwargs,
    )
