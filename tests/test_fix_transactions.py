"""A fix across files is all or nothing (issue 12, finding 2; docs/safety.md).

The bundled example links two files: the patch module (`_add_fsdp_patch.py`, whose installer the fix deletes)
and `_api_patches.py` (which calls the installer). When either cannot be edited, neither is.
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fsdp_unpatch.files import writing
from fsdp_unpatch.fixes import transaction
from tests.helpers import fix_tree

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"
CALLER = Path("legacy_npu/_api_patches.py")
PATCH = Path("legacy_npu/distributed/fsdp/_add_fsdp_patch.py")
FIXED = Path(__file__).resolve().parent.parent / "examples" / "migrated_project"


def _project(root: Path, packages: int = 1) -> Path:
    """The example, with its package copied `packages` times (pkg0, pkg1...: independent linked groups)."""
    project = root / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    if packages > 1:
        for n in range(packages):
            copy = project / f"pkg{n}"
            shutil.copytree(project / "legacy_npu", copy)
            for path in copy.rglob("*.py"):
                path.write_text(path.read_text().replace("legacy_npu", f"pkg{n}"))
        shutil.rmtree(project / "legacy_npu")
    return project


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _assert_group_held_back(project: Path, before: dict[str, bytes], result, blocker: str, why: str) -> None:
    assert _tree(project) == before, "a file of the group was changed"
    assert not result.changed
    errors = {(f.path, f.message) for f in result.findings if f.category == "error"}
    held = [m for p, m in errors if p.endswith(str(PATCH))]
    assert held and blocker in held[0] and why in held[0], errors
    assert not any(f.fixed for f in result.findings)


# causes known before anything is written ------------------------------------------------------------
@pytest.mark.parametrize(
    "cause, why",
    [
        ("read-only", "read-only"),
        ("syntax error", "syntax error"),
        ("form feed", "byte for byte"),
    ],
)
def test_a_file_that_cannot_be_edited_holds_back_its_whole_group(tmp_path: Path, cause: str, why: str) -> None:
    project = _project(tmp_path)
    caller = project / CALLER
    if cause == "read-only":
        caller.chmod(0o444)
    elif cause == "syntax error":
        caller.write_text(caller.read_text() + "\ndef broken(:\n    pass\n")
    else:  # libcst drops a form feed at a line start: the file cannot be rewritten exactly
        caller.write_bytes(caller.read_bytes().replace(b"\ndef apply_api_patches", b"\n\x0cdef apply_api_patches"))
    before = _tree(project)
    result = fix_tree(project)
    _assert_group_held_back(project, before, result, "_api_patches.py", why)
    assert any(f.path.endswith(str(CALLER)) and f.category == "error" for f in result.findings)


def test_an_unreadable_file_that_may_name_the_deleted_installer_holds_back_the_group(
    tmp_path: Path, monkeypatch
) -> None:
    project = _project(tmp_path)
    caller = str(project / CALLER)
    real_open = os.open

    def refusing_open(path, *args, **kwargs):  # as root, mode 000 is still readable: refuse like the kernel would
        if os.fspath(path) == caller:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(writing.os, "open", refusing_open)
    before = _tree(project)
    result = fix_tree(project)
    _assert_group_held_back(project, before, result, "_api_patches.py", "Permission denied")


def test_a_file_changed_on_disk_after_staging_holds_back_the_group(tmp_path: Path, monkeypatch) -> None:
    project = _project(tmp_path)
    caller = project / CALLER
    real_stage = transaction._stage

    def stage_then_edit(position, change):
        staged = real_stage(position, change)
        if Path(change.source.path).name == PATCH.name:  # staged last: the caller is edited after its check
            caller.write_text(caller.read_text() + "EDITED = True\n")
        return staged

    monkeypatch.setattr(transaction, "_stage", stage_then_edit)
    result = fix_tree(project)
    assert (project / PATCH).read_bytes() == (EXAMPLE / PATCH).read_bytes()
    assert caller.read_text() == (EXAMPLE / CALLER).read_text() + "EDITED = True\n"  # the editor's, whole
    assert any("changed on disk" in f.message and f.path.endswith(str(CALLER)) for f in result.findings)
    assert not result.changed
    assert [p.name for p in project.rglob(".*") if p.is_file()] == []


def test_a_failed_rename_mid_group_restores_the_files_already_renamed(tmp_path: Path, monkeypatch) -> None:
    project = _project(tmp_path)
    before = _tree(project)
    renames = []
    real_replace = os.replace

    def second_rename_fails(source, destination):
        renames.append(destination)
        if len(renames) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(source, destination)

    monkeypatch.setattr(transaction.os, "replace", second_rename_fails)
    result = fix_tree(project)
    assert len(renames) >= 3  # the first file was renamed, the second failed, the first was put back
    assert _tree(project) == before
    assert any("No space left on device" in f.message for f in result.findings)
    assert not result.changed


def test_an_interrupt_while_staging_removes_the_temporaries_and_changes_nothing(tmp_path: Path, monkeypatch) -> None:
    project = _project(tmp_path)
    before = _tree(project)
    real_stage = transaction._stage

    def interrupted(position, change):
        if position == 1:
            raise KeyboardInterrupt
        return real_stage(position, change)

    monkeypatch.setattr(transaction, "_stage", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fix_tree(project)
    assert _tree(project) == before  # no temporary either: the tree holds exactly what it held


def test_the_cli_exits_2_and_names_the_blocking_file(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / CALLER).chmod(0o444)
    done = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "fix", "--no-cache", "--output-format", "concise", "."],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        f"{PATCH}:1:1: FSU903 [error] not fixed: this fix goes with {CALLER}, which cannot be edited "
        "(file is read-only)" in done.stdout
    )
    assert (project / PATCH).read_bytes() == (EXAMPLE / PATCH).read_bytes()


def test_leftover_temporaries_of_a_killed_run_are_removed_by_the_next_fix(tmp_path: Path) -> None:
    project = _project(tmp_path)
    folder = (project / PATCH).parent
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = folder / f".{PATCH.name}.{dead.stdout.strip()}.abc123{writing.TEMPORARY_SUFFIX}"
    leftover.write_text("half a fix")
    alive = folder / f".{PATCH.name}.{os.getpid()}.xyz789{writing.TEMPORARY_SUFFIX}"  # a live writer's
    alive.write_text("being written")
    fix_tree(project)
    assert not leftover.exists()
    assert alive.exists()


# signals at random points -----------------------------------------------------------------------------
GROUPS = 3
SEEDS = int(os.environ.get("FSDP_UNPATCH_SIGNAL_SEEDS", "6"))
EXTRA_SEEDS = 6


def _fix_command(project: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "fsdp_unpatch", "fix", "--no-cache", "--jobs", "1", "."],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_sigint_sigterm_sighup_at_random_points_leave_every_group_all_old_or_all_new(tmp_path: Path) -> None:
    template = _project(tmp_path / "template", packages=GROUPS)
    old = _tree(template)
    finished = _fix_command(template)
    started = time.monotonic()
    finished.communicate(timeout=120)
    duration = time.monotonic() - started
    new = _tree(template)
    assert old != new and finished.returncode == 0
    seen = {"old": 0, "new": 0, "mixed": 0}
    # Delays are drawn around the measured duration of a whole fix. On a loaded machine later runs are slower
    # than that measurement, so a few extra seeds with later signals make sure some land after the writes.
    for seed in range(SEEDS + EXTRA_SEEDS):
        if seed >= SEEDS and seen["old"] and seen["new"]:
            break
        chance = random.Random(seed)
        project = tmp_path / f"run{seed}"
        shutil.copytree(tmp_path / "template" / "project", project, ignore=shutil.ignore_patterns("__pycache__"))
        for name, data in old.items():
            (project / name).write_bytes(data)
        which = chance.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
        process = _fix_command(project)
        stretch = 1.0 if seed < SEEDS else 1.0 + (seed - SEEDS + 1) * 0.5
        time.sleep(chance.uniform(0.2, 1.05) * duration * stretch)
        process.send_signal(which)
        _, stderr = process.communicate(timeout=120)
        # -signal: it landed while Python was still starting, before any code of ours ran (nothing written).
        assert process.returncode in (0, 130, -which), (seed, which, process.returncode, stderr)
        assert b"Traceback" not in stderr
        if process.returncode == 130:
            assert b"interrupted" in stderr and b"every group of linked files" in stderr
        now = _tree(project)
        assert set(now) <= set(old) | set(new), f"seed {seed}: a temporary or backup survived {which.name}"
        for n in range(GROUPS):
            names = [name for name in old if name.startswith(f"pkg{n}/") and old[name] != new[name]]
            state = {
                ("old" if now[name] == old[name] else "new" if now[name] == new[name] else "torn") for name in names
            }
            assert "torn" not in state, f"seed {seed}: a file is neither wholly old nor wholly new"
            assert len(state) == 1, f"seed {seed}: group pkg{n} is half fixed after {which.name}"
            seen[state.pop()] += 1
    assert seen["old"] and seen["new"], seen  # the signals landed both before and after writes
