"""Ctrl-C in the middle of a multi-file fix: every file is wholly old or wholly new, nothing is left behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.patch_texts import removable

pytestmark = pytest.mark.slow  # sends real signals to runs at random points

FILES = 8
# Enough code after the patch that writing the files takes a while (each fix is re-parsed before its write).
TAIL = "\n\n" + "".join(f"def helper_{i}(x):\n    return [x, {i}, 'text {i}']\n\n\n" for i in range(60))


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signals")
def test_sigint_mid_run_leaves_every_file_wholly_old_or_wholly_new(tmp_path: Path) -> None:
    old = (removable() + TAIL).encode()
    new = TAIL.encode()
    files = [tmp_path / f"module_{i:02d}.py" for i in range(FILES)]
    for path in files:
        path.write_bytes(old)
    before = {path: path.stat().st_mtime_ns for path in files}
    process = subprocess.Popen(
        [sys.executable, "-m", "fsdp_unpatch", "fix", "--isolated", "--no-cache", "--jobs", "1", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if any(path.stat().st_mtime_ns != before[path] for path in files):
            process.send_signal(signal.SIGINT)  # the first file was written: interrupt the run
            break
        time.sleep(0.001)
    _, stderr = process.communicate(timeout=120)
    contents = [path.read_bytes() for path in files]
    fixed = sum(content == new for content in contents)
    untouched = sum(content == old for content in contents)
    assert fixed + untouched == FILES, "a file is neither wholly old nor wholly new"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary, no backup
    assert fixed >= 1
    assert untouched >= 1, f"the run finished before the interrupt (exit {process.returncode}): enlarge TAIL"
    assert process.returncode == 130
    assert b"interrupted; every file is either wholly fixed or untouched" in stderr
    assert b"Traceback" not in stderr
