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


def _judge_slowly(chunk):
    """Phase 1's work in a worker (`batch._judge`): the first file's takes SLOW seconds, the others' none."""
    from fsdp_unpatch.run import batch

    if chunk[0].path.name == "a_slow.py":
        time.sleep(SLOW)
    return batch.REAL_JUDGE(chunk)  # type: ignore[attr-defined]


SLOW = 4.0


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signals")
@pytest.mark.parametrize("handling", ["command", "api"])
def test_sigint_stops_phase_one_in_workers_at_once(
    handling: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd, ctrl_c_raises
) -> None:
    """Files judged in forked workers (`batch._judged`), one worker busy, one idle: Ctrl-C (SIGINT to this
    process and to its workers, as a terminal sends it) ends the run at once, not when the busy worker is done;
    no worker is left running, none prints a traceback. `command`: the commands' signal handling (acted on at
    checkpoints); `api`: Python's own (KeyboardInterrupt wherever the main thread is)."""
    import multiprocessing
    import os
    import threading
    from contextlib import ExitStack

    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.discovery import discover
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.files.signals import at_checkpoints, termination_as_interrupt
    from fsdp_unpatch.model import RunOptions
    from fsdp_unpatch.run import batch, pool

    for name in ("a_slow.py", "b_quick.py", "c_quick.py"):
        (tmp_path / name).write_text("def f():\n    return 1\n")
    monkeypatch.setattr(batch, "JUDGE_MIN_BYTES", 0)
    monkeypatch.setattr(batch, "JUDGE_MIN_FILES", 1)
    monkeypatch.setattr(batch, "JUDGE_CHUNK", 1)
    monkeypatch.setattr(pool, "idle_cpus", lambda: 2)
    monkeypatch.setattr(batch, "REAL_JUDGE", batch._judge, raising=False)
    monkeypatch.setattr(batch, "_judge", _judge_slowly)

    def control_c() -> None:
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGINT)  # type: ignore[arg-type]
        time.sleep(0.2)  # what the workers do of it shows before this process stops them
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(1.0, control_c)  # the quick files are judged by then: a worker waits for work
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")))
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), ExitStack() as handled:
        if handling == "command":
            handled.enter_context(termination_as_interrupt())
            handled.enter_context(at_checkpoints())
        timer.start()
        batch.run(discover([str(tmp_path)]), load_catalog(), options, jobs=2)
    timer.join()
    assert time.monotonic() - started < SLOW - 1  # not waiting for the slow file
    assert multiprocessing.active_children() == []
    assert "Traceback" not in capfd.readouterr().err
