"""SIGKILL mid-group: the intent journal lets the next run finish the group (issue 25, item 4; docs/safety.md).

A real `fix` runs in a subprocess and kills itself with SIGKILL at one step of writing a three-file group
(after the journal, before the first, second and third rename or in-place write, and after the last one). The
next `fix` (or `check`) must leave the group all-new, say what it did, and a `check` must then agree with a
check of a tree fixed without a crash. Hard-linked files (written in place) too.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.patch_texts import removable

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")

JOURNAL = ".fsdp-unpatch-journal."  # the name's start (`fsdp_unpatch/fixes/journal.py`)
TAIL = "\n\ndef helper():\n    return 1\n"
CALLER = "from patchmod import _apply_fsdp_patch\n\n_apply_fsdp_patch()\nVALUE = {n}\n"
FILES = ("caller_a.py", "caller_b.py", "patchmod.py")

# Runs `fix` with SIGKILL at step K: K-th write of a group file (0 = right after the journal is flushed), or
# once every file is written but before the journal is removed (K = 3).
KILLER = """
import os, signal, sys
from fsdp_unpatch.fixes import transaction
journal = getattr(transaction, "journal", transaction)  # (a build without a journal: the kill points still hold)
kill_at, group = int(sys.argv[1]), set(sys.argv[2].split(os.pathsep))
steps = [0]
def step():
    if steps[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    steps[0] += 1
real_replace, real_overwrite = os.replace, transaction.overwrite
real_remove = getattr(journal, "remove", lambda path: None)
def replace(source, target, *args, **kwargs):
    if os.path.realpath(target) in group:
        step()
    return real_replace(source, target, *args, **kwargs)
def overwrite(source, path, data):
    step()
    return real_overwrite(source, path, data)
def remove(path):
    if path is not None and steps[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    return real_remove(path)
os.replace, transaction.overwrite, journal.remove = replace, overwrite, remove
from fsdp_unpatch.cli import main
sys.argv = ["fsdp-unpatch", "fix", "--isolated", "--no-cache", "--jobs", "1", "."]
main()
"""


def _environment(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}  # the user's signing key lives here


def _project(folder: Path, linked: bool = False) -> Path:
    folder.mkdir(parents=True)
    (folder / "patchmod.py").write_text(removable() + TAIL)
    for n, name in enumerate(FILES[:2]):
        (folder / name).write_text(CALLER.format(n=n))
    if linked:  # a second name outside the tree for each file: written in place, behind a backup
        links = folder.parent / f"{folder.name}-links"
        links.mkdir()
        for name in FILES:
            os.link(folder / name, links / name)
    return folder


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _run(tmp_path: Path, project: Path, *args: str, path: str = ".") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", args[0], "--isolated", "--no-cache", *args[1:], path],
        cwd=project,
        env=_environment(tmp_path),
        capture_output=True,
        timeout=60,
    )


def _killed_fix(tmp_path: Path, project: Path, step: int, files: tuple[str, ...] = FILES) -> None:
    group = os.pathsep.join(os.path.realpath(project / name) for name in files)
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, str(step), group],
        cwd=project,
        env=_environment(tmp_path),
        capture_output=True,
        timeout=60,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], dict[str, bytes], bytes]:
    """The tree before and after an uninterrupted fix, and what `check` then says (the same for every test:
    made once per module)."""
    tmp_path = tmp_path_factory.mktemp("journal-reference")
    project = _project(tmp_path / "reference")
    before = _tree(project)
    fixed = _run(tmp_path, project, "fix")
    assert fixed.returncode == 0, fixed.stderr.decode()
    after = _tree(project)
    assert all(before[name] != after[name] for name in FILES)  # the three files are one group, all changed
    checked = _run(tmp_path, project, "check", "--output-format", "concise", "--quiet")
    assert checked.returncode == 0 and "killed" not in checked.stderr.decode(), checked.stderr.decode()
    return before, after, checked.stdout


def _assert_finished(tmp_path: Path, project: Path, reference, next_command: str) -> None:
    """The repairing run said so and left the tree of an uninterrupted fix. A `check` of the repaired tree then
    agrees with the reference's `check` (exit 0, the same report, nothing left to finish) without running it
    again: the folder holds the reference's files byte for byte and nothing else (a journal, temporary or backup
    lies in the folder of the group's files, `fixes/journal.py`, and `_tree` reads hidden files too)."""
    _, after, _ = reference
    again = _run(tmp_path, project, next_command)
    err = again.stderr.decode()
    assert "Traceback" not in err, err
    assert "finished a fix that was killed mid-group" in err, err
    assert _tree(project) == after  # all-new, nothing left behind: no journal, temporary or backup
    assert [p.name for p in project.iterdir() if not p.is_file()] == []  # nothing beside the files either


def test_sigkill_after_the_first_rename_is_finished_by_the_next_fix(tmp_path: Path, reference) -> None:
    project = _project(tmp_path / "project")
    _killed_fix(tmp_path, project, 1)
    now = _tree(project)
    assert sum(now[name] == reference[1][name] for name in FILES) == 1  # half-migrated: one file new
    _assert_finished(tmp_path, project, reference, "fix")


@pytest.mark.parametrize("command", [("check",), ("fix", "--diff")], ids=["check", "fix --diff"])
def test_check_and_diff_report_an_interrupted_group_and_write_nothing(tmp_path: Path, reference, command) -> None:
    """`check` and `fix --diff` never write (issue 34, item 3): `fix --diff` used to roll the journal forward,
    rewriting the group's files and then printing an empty diff. They name the group's files, say that `fix`
    will finish it and exit 1, as for any fix left to make."""
    project = _project(tmp_path / "project")
    _killed_fix(tmp_path, project, 1)
    before = _tree(project)
    run = _run(tmp_path, project, *command)
    err = run.stderr.decode()
    assert "Traceback" not in err, err
    assert _tree(project) == before  # the journal, the old and the new files: all as the killed run left them
    assert run.returncode == 1, err
    assert "interrupted" in err and "`fsdp-unpatch fix` will finish it" in err, err
    assert all(name in err for name in FILES), err
    assert "finished a fix" not in err


NESTED = ("caller_a.py", "caller_b.py", "pkg/patchmod.py")  # one group over two folders


def _nested_project(folder: Path) -> Path:
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "patchmod.py").write_text(removable() + TAIL)
    for n, name in enumerate(NESTED[:2]):
        (folder / name).write_text(CALLER.replace("from patchmod", "from pkg.patchmod").format(n=n))
    return folder


@pytest.mark.parametrize("member", NESTED)
def test_a_fix_of_a_member_in_another_folder_finds_the_groups_journal(tmp_path: Path, member: str) -> None:
    """A group spans two folders: a `fix` named only on a member whose folder did not hold the journal did not
    see it, wrote a partial fix over the half-written group, and the journal was then refused for good. Every
    folder of the group now holds its journal: a run over any member finishes the whole group first."""
    reference = _nested_project(tmp_path / "reference")
    before = {name: (reference / name).read_bytes() for name in NESTED}
    assert _run(tmp_path, reference, "fix").returncode == 0
    after = {name: (reference / name).read_bytes() for name in NESTED}
    assert all(after[name] != before[name] for name in NESTED)  # one group of three
    project = _nested_project(tmp_path / "project")
    _killed_fix(tmp_path, project, 1, NESTED)
    assert sum((project / name).read_bytes() == after[name] for name in NESTED) == 1  # half written
    run = _run(tmp_path, project, "fix", path=member)
    err = run.stderr.decode()
    assert "finished a fix that was killed mid-group" in err, err
    assert {name: (project / name).read_bytes() for name in NESTED} == after
    assert not list(project.rglob(f"{JOURNAL}*"))  # every copy of the journal went with the group
    assert run.returncode == 0, err


def _left_journal(tmp_path: Path, reference) -> tuple[Path, Path]:
    project = _project(tmp_path / "project")
    _killed_fix(tmp_path, project, 1)
    [name] = [n for n in os.listdir(project) if n.startswith(JOURNAL)]
    return project, project / name


def test_a_forged_journal_is_not_acted_on(tmp_path: Path, reference) -> None:
    project, path = _left_journal(tmp_path, reference)
    record = json.loads(path.read_text())
    victim = tmp_path / "victim.py"
    victim.write_text("SAFE = 1\n")
    entry = dict(record["entries"][0])
    entry.update(path=str(victim), old="U0FGRSA9IDEK", old_sha256=hashlib.sha256(b"SAFE = 1\n").hexdigest())
    record["entries"].append(entry)  # the signature no longer covers the entries
    path.write_text(json.dumps(record))
    before = _tree(project)
    run = _run(tmp_path, project, "check")
    assert run.returncode == 2
    assert "not acted on: it is not signed with your key" in run.stderr.decode()
    assert victim.read_text() == "SAFE = 1\n" and _tree(project) == before
    fixed = _run(tmp_path, project, "fix")
    assert fixed.returncode == 2 and _tree(project) == before
    # nothing was written, and the summary says so (it used to say "Fixed 9, changed 2 files")
    assert "Fixed 0, changed 0 files" in fixed.stdout.decode(), fixed.stdout.decode()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give the file away")
def test_a_journal_of_another_user_is_not_acted_on(tmp_path: Path, reference) -> None:
    project, path = _left_journal(tmp_path, reference)
    os.chown(path, 65534, 65534)
    before = _tree(project)
    run = _run(tmp_path, project, "fix")
    assert run.returncode == 2 and "not acted on: it belongs to another user" in run.stderr.decode()
    assert _tree(project) == before


def test_a_file_edited_after_the_crash_stops_the_repair(tmp_path: Path, reference) -> None:
    project, path = _left_journal(tmp_path, reference)
    (project / "caller_b.py").write_text("EDITED = True\n")
    before = _tree(project)
    run = _run(tmp_path, project, "check")
    assert run.returncode == 2 and "changed since (neither its old nor its new content)" in run.stderr.decode()
    assert _tree(project) == before and path.exists()


def test_a_journal_through_a_symbolic_link_is_not_followed(tmp_path: Path, reference) -> None:
    project, path = _left_journal(tmp_path, reference)
    pending = [n for n in FILES if (project / n).read_bytes() != reference[1][n]]
    outside = tmp_path / "outside.py"
    outside.write_bytes((project / pending[0]).read_bytes())
    (project / pending[0]).unlink()
    (project / pending[0]).symlink_to(outside)
    run = _run(tmp_path, project, "check")
    assert run.returncode == 2 and "not acted on" in run.stderr.decode()
    assert outside.read_bytes() == reference[0][pending[0]]


def test_a_journal_its_run_never_finished_writing_is_removed(tmp_path: Path, reference) -> None:
    """Killed while writing the journal, a run had renamed nothing: its temporary journal is simply removed."""
    project = _project(tmp_path / "project")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    unfinished = project / f"{JOURNAL}{dead.stdout.strip()}.abc123.tmp"
    unfinished.write_text('{"format": "fsdp-unpa')
    before = _tree(project)
    checked = _run(tmp_path, project, "check")  # a check writes nothing, not even that
    assert checked.returncode == 1 and "Traceback" not in checked.stderr.decode()
    assert _tree(project) == before
    run = _run(tmp_path, project, "fix")
    assert run.returncode == 0 and "Traceback" not in run.stderr.decode()
    assert not unfinished.exists()
    assert _tree(project) == reference[1]  # fixed as usual, and nothing left behind


def test_a_journal_whose_process_id_was_reused_is_finished(tmp_path: Path, reference) -> None:
    """After a power loss the writer's process id can name another process: one that started after the journal
    was written is not the writer, so the journal is acted on."""
    project, path = _left_journal(tmp_path, reference)
    os.utime(path, (path.stat().st_atime, path.stat().st_mtime - 30))  # written well before the process below
    newcomer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        prefix, _, rest = path.name[len(JOURNAL) :].partition(".")
        path.rename(project / f"{JOURNAL}{newcomer.pid}.{rest}")
        _assert_finished(tmp_path, project, reference, "fix")
    finally:
        newcomer.kill()
        newcomer.wait()


def test_a_journal_of_an_earlier_run_with_this_process_id_is_finished(tmp_path: Path, reference, monkeypatch) -> None:
    """In a container every run can get the same process id (often 1): a journal left by a killed earlier run
    then names the id of the run that reads it. It was taken for that run's own and skipped, run after run, and
    the half-written group was checked as it stood."""
    from fsdp_unpatch.api import fix_paths

    project, path = _left_journal(tmp_path, reference)
    path.rename(project / f"{JOURNAL}{os.getpid()}.{path.name[len(JOURNAL) :].partition('.')[2]}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(project)
    fix_paths(["."], isolated=True)
    assert _tree(project) == reference[1]  # all-new; the journal is gone


def test_a_journal_copied_with_its_tree_is_not_acted_on_from_the_copy(tmp_path: Path, reference) -> None:
    """A tree copied after a crash carries the journal, which names the original's files: a run over the copy
    finished the original (writing outside the run) and removed the journal, so the copy's own half-written
    group was left with none."""
    import shutil

    project, path = _left_journal(tmp_path, reference)
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    original, copied = _tree(project), _tree(copy)
    run = _run(tmp_path, copy, "check")
    assert run.returncode == 2 and "not acted on" in run.stderr.decode(), run.stderr.decode()
    assert _tree(project) == original and _tree(copy) == copied
