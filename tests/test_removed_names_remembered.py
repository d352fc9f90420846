"""Names a fix removed stay known on later runs (issue 12, finding 4; README, "What fix remembers").

torch-npu's own test `test/test_torch_npu_init.py` runs code in a subprocess that imports
`_patched_all_gather_copy_in`: FSU304 before the fix. After `fix` deleted the function, a second `check` must
still report those strings (that test would fail), even though the patch module is in the run and no longer
defines the name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration import cli as run_cli

PATCH = (
    Path(__file__).resolve().parent.parent / "examples/legacy_project/legacy_npu/distributed/fsdp/_add_fsdp_patch.py"
)

SUBPROCESS_TEST = """import subprocess
import sys


def test_patch_is_importable():
    code = "from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in"
    subprocess.check_call([sys.executable, "-c", code])
"""


def _torch_npu(root: Path) -> Path:
    package = root / "torch_npu" / "distributed" / "fsdp"
    package.mkdir(parents=True)
    for folder in (root / "torch_npu", root / "torch_npu" / "distributed", package):
        (folder / "__init__.py").write_text("")
    # the collectives patch alone: once fixed, nothing FSDP-related is left for the prefilter to see
    collectives = PATCH.read_text().split("# ----------")[0]
    (package / "_add_fsdp_patch.py").write_text(collectives.replace("legacy_npu", "torch_npu"))
    (root / "test").mkdir()
    (root / "test" / "test_torch_npu_init.py").write_text(SUBPROCESS_TEST)
    return root


def _run(root: Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", command, "--isolated", "--no-cache", "--output-format", "json", "."],
        cwd=root,
        capture_output=True,
        text=True,
    )


def _strings(done: subprocess.CompletedProcess) -> list[tuple[str, int]]:
    return [(f["path"], f["line"]) for f in json.loads(done.stdout) if f["code"] == "FSU304"]


def test_strings_naming_a_function_the_fix_removed_are_still_reported_afterwards(tmp_path: Path) -> None:
    root = _torch_npu(tmp_path)
    assert "def _patched_all_gather_copy_in(" in PATCH.read_text()
    before = _strings(_run(root, "check"))
    assert before == [("test/test_torch_npu_init.py", 6)]
    fixed = _run(root, "fix")
    assert "_patched_all_gather_copy_in" not in (root / "torch_npu/distributed/fsdp/_add_fsdp_patch.py").read_text()
    assert _strings(fixed) == before
    again = _run(root, "check")
    assert _strings(again) == before and again.returncode == 1


# A downstream project's own copy of the patch, under a module name the catalog does not know.
DOWNSTREAM_TEST = """import subprocess
import sys


def test_patch_is_importable():
    code = "from trainer.npu_fsdp import _trainer_all_gather_copy_in"
    subprocess.check_call([sys.executable, "-c", code])
"""


def _downstream(root: Path) -> Path:
    package = root / "trainer"
    root.mkdir(exist_ok=True)
    package.mkdir()
    (package / "__init__.py").write_text("")
    collectives = PATCH.read_text().split("# ----------")[0]
    # its own names too: nothing of torch-npu's (which the catalog knows) is left to match
    copy = collectives.replace("legacy_npu.distributed.fsdp", "trainer").replace("_patched_", "_trainer_")
    assert "_patched_" not in copy and "torch_npu" not in copy
    (package / "npu_fsdp.py").write_text(copy)
    (root / "tests").mkdir()
    (root / "tests" / "test_npu_fsdp.py").write_text(DOWNSTREAM_TEST)
    (root / "pyproject.toml").write_text("[project]\nname = 'trainer'\n")
    return root


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    """The command line run in this process (`tests.integration.cli`, about 1 s of CPU less per run than a new
    interpreter): each run reads the record from the cache folder afresh (`run/memory.py` keeps nothing in
    memory between runs). That a new process remembers is shown with real processes by the first test
    above and by `test_without_a_project_nothing_is_remembered`."""
    done = run_cli(*args, "--output-format", "json", ".", cwd=root)
    return subprocess.CompletedProcess(list(args), done.returncode, done.stdout.decode(), done.stderr.decode())


def test_a_downstream_copy_of_the_patch_is_remembered_after_the_fix(tmp_path: Path) -> None:
    """Not torch-npu's module: the catalog does not know `trainer.npu_fsdp`; what `fix` removed from it is
    recorded (`removed.json` in the cache folder) and the names are still reported by every later run."""
    root = _downstream(tmp_path)
    before = _strings(_cli(root, "check"))
    assert before == [("tests/test_npu_fsdp.py", 6)]
    fixed = _cli(root, "fix")
    assert fixed.returncode == 1, fixed.stderr
    assert "def _trainer_all_gather_copy_in(" not in (root / "trainer" / "npu_fsdp.py").read_text()
    assert _strings(fixed) == before  # reported by the fix itself, with the lines as they are now
    for args in (("check",), ("check", "--no-cache")):
        again = _cli(root, *args)
        assert _strings(again) == before and again.returncode == 1, args
    folder = root / ".fsdp_unpatch_cache"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"  # never committed by accident
    record = json.loads((folder / "removed.json").read_text())
    modules = record["projects"][str(root.resolve())]
    assert modules["trainer.npu_fsdp"]["replacements"]["_trainer_all_gather_copy_in"] == "ops.fsdp.all_gather_copy_in"


def test_fix_no_cache_writes_nothing_to_the_cache_folder(tmp_path: Path) -> None:
    root = _downstream(tmp_path)
    fixed = _cli(root, "fix", "--no-cache")
    assert fixed.returncode == 1 and _strings(fixed) == [("tests/test_npu_fsdp.py", 6)]  # the fix still knows
    assert not (root / ".fsdp_unpatch_cache").exists()


def test_a_name_defined_again_is_no_longer_removed(tmp_path: Path) -> None:
    """The record says what was removed; the module says what is there now: a name its module defines
    again (here a plain helper, installed nowhere) is not removed, and the string naming it is fine."""
    root = _downstream(tmp_path)
    assert _cli(root, "fix").returncode == 1
    module = root / "trainer" / "npu_fsdp.py"
    module.write_text(module.read_text() + "\n\ndef _trainer_all_gather_copy_in(*args):\n    return args\n")
    findings = json.loads(_cli(root, "check").stdout)
    assert not any(f["code"] == "FSU304" for f in findings), findings


def test_a_forged_record_is_ignored(tmp_path: Path) -> None:
    """The record is signed with this user's key: a committed or edited one adds nothing."""
    root = _downstream(tmp_path)
    assert _cli(root, "fix").returncode == 1
    path = root / ".fsdp_unpatch_cache" / "removed.json"
    record = json.loads(path.read_text())
    modules = record["projects"][str(root.resolve())]
    modules["trainer.npu_fsdp"]["replacements"]["_innocent"] = "ops.fsdp.all_gather_copy_in"
    path.write_text(json.dumps(record))
    (root / "tests" / "test_other.py").write_text('CODE = "from trainer.npu_fsdp import _innocent"\n')
    findings = json.loads(_cli(root, "check").stdout)
    assert not any(f["code"] == "FSU304" for f in findings), findings


def test_a_cache_folder_shared_by_projects_keeps_their_records_apart(tmp_path: Path) -> None:
    """One `--cache-dir` for two projects whose modules have the same names: what the fix removed in one is
    not "removed" in the other, which still defines it as a plain function."""
    shared = tmp_path / "cache"
    one = _downstream(tmp_path / "one")
    other = tmp_path / "other"
    (other / "trainer").mkdir(parents=True)
    (other / "trainer" / "__init__.py").write_text("")
    (other / "trainer" / "npu_fsdp.py").write_text("def unrelated():\n    return 1\n")
    (other / "tests").mkdir()
    (other / "tests" / "test_npu_fsdp.py").write_text(DOWNSTREAM_TEST)
    (other / "pyproject.toml").write_text("[project]\nname = 'other'\n")
    assert _cli(one, "fix", "--cache-dir", str(shared)).returncode == 1
    assert _strings(_cli(one, "check", "--cache-dir", str(shared))) == [("tests/test_npu_fsdp.py", 6)]
    assert _strings(_cli(other, "check", "--cache-dir", str(shared))) == []


@pytest.mark.parametrize(
    "binding",
    ["from trainer.compat import _trainer_all_gather_copy_in", "_trainer_all_gather_copy_in = len"],
)
def test_a_name_the_module_binds_again_by_import_or_assignment_is_not_removed(tmp_path: Path, binding: str) -> None:
    """Bound again in its module (re-exported, assigned): working code that uses it is not rewritten."""
    root = _downstream(tmp_path)
    assert _cli(root, "fix").returncode == 1
    (root / "trainer" / "compat.py").write_text("def _trainer_all_gather_copy_in(*a):\n    return a\n")
    module = root / "trainer" / "npu_fsdp.py"
    module.write_text(module.read_text() + f"\n{binding}\n")
    use = "from trainer.npu_fsdp import _trainer_all_gather_copy_in\n\nprint(_trainer_all_gather_copy_in(1))\n"
    (root / "trainer" / "use.py").write_text(use)
    findings = json.loads(_cli(root, "check").stdout)
    assert not any(f["code"].startswith("FSU3") for f in findings), findings
    _cli(root, "fix")
    assert (root / "trainer" / "use.py").read_text() == use


def test_a_partial_run_reads_the_remembered_module_where_it_lies(tmp_path: Path) -> None:
    """pre-commit checks only the files it is given: the module outside the run still decides what it binds."""
    root = _downstream(tmp_path)
    assert _cli(root, "fix").returncode == 1
    assert _strings(_cli(root, "check", "tests/test_npu_fsdp.py")) == [("tests/test_npu_fsdp.py", 6)]
    module = root / "trainer" / "npu_fsdp.py"
    module.write_text(module.read_text() + "\n\ndef _trainer_all_gather_copy_in(*args):\n    return args\n")
    assert _strings(_cli(root, "check", "tests/test_npu_fsdp.py")) == []
    module.unlink()  # the module is gone: so is every name it had
    assert _strings(_cli(root, "check", "tests/test_npu_fsdp.py")) == [("tests/test_npu_fsdp.py", 6)]


def test_without_a_project_nothing_is_remembered(tmp_path: Path) -> None:
    """No `pyproject.toml` or `.git` above the paths: no identity to keep a record under (the current folder
    would mix unrelated trees checked from it), so nothing is remembered."""
    one = _downstream(tmp_path / "one")
    (one / "pyproject.toml").unlink()
    other = _downstream(tmp_path / "other")
    (other / "pyproject.toml").unlink()
    (other / "trainer" / "npu_fsdp.py").write_text("def unrelated():\n    return 1\n")
    run = [sys.executable, "-m", "fsdp_unpatch"]
    done = subprocess.run([*run, "fix", "one"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert not (tmp_path / ".fsdp_unpatch_cache" / "removed.json").exists()
    again = subprocess.run([*run, "check", "--output-format", "json", "other"], cwd=tmp_path, capture_output=True)
    assert not any(f["code"] == "FSU304" for f in json.loads(again.stdout))


def test_a_copy_of_the_catalogs_module_is_left_to_the_catalog(tmp_path: Path) -> None:
    """The example's `legacy_npu/.../_add_fsdp_patch.py` is torch-npu's module under another folder name: the
    catalog already knows it (file name and installer), so the record keeps nothing of it."""
    import shutil

    root = tmp_path / "legacy_project"
    shutil.copytree(PATCH.parents[3], root)
    (root / "pyproject.toml").write_text("[project]\nname = 'legacy'\n")
    assert _cli(root, "fix").returncode in (0, 1)
    record = root / ".fsdp_unpatch_cache" / "removed.json"
    assert not record.exists() or json.loads(record.read_text())["projects"].get(str(root.resolve()), {}) == {}


# Several `fix` runs sharing one cache folder at once (pre-commit hooks in parallel, CI jobs on one runner):
# each adds its modules to the record with a read-modify-write. Each worker below waits for the others, then
# remembers ENTRIES modules of its own one by one, as that many fixes would.
WORKER = """import sys, time
from pathlib import Path
from fsdp_unpatch.run.memory import Memory

folder, project, worker, entries, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5])
memory = Memory(Path(folder), project)
while not go.exists():
    time.sleep(0.001)
for i in range(entries):
    name = f"w{worker}.m{i}"
    memory.remember({name: {"path": name.replace(".", "/") + ".py", "replacements": {}, "installers": {"f": ""}}})
"""


def _remember_at_once(folder: Path, project: str, workers: int, entries: int, tmp_path: Path) -> set[str]:
    from fsdp_unpatch.run.cache import user_secret
    from fsdp_unpatch.run.memory import Memory

    assert user_secret() is not None  # made before the workers start: they race for the record, not the key
    go = tmp_path / "go"
    processes = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(folder), project, str(w), str(entries), str(go)])
        for w in range(workers)
    ]
    go.touch()
    assert [p.wait(timeout=300) for p in processes] == [0] * workers
    return set(Memory(folder, project).read())


def test_fixes_sharing_a_cache_folder_at_once_lose_no_entry(tmp_path: Path) -> None:
    """The record's read-modify-write holds a lock (`removed.lock` in the cache folder). Without it, most of
    these entries were lost (156 to 202 of 240 in three runs): one worker's write replaced the record that
    another had just extended."""
    folder = tmp_path / "cache"
    workers, entries = 6, 40
    kept = _remember_at_once(folder, "/project", workers, entries, tmp_path)
    expected = {f"w{w}.m{i}" for w in range(workers) for i in range(entries)}
    assert not expected - kept, f"{len(expected - kept)} of {len(expected)} entries lost"
    assert kept == expected
    assert sorted(os.listdir(folder)) == [".gitignore", "CACHEDIR.TAG", "removed.json", "removed.lock"]
    from fsdp_unpatch.run.cache import clear

    assert clear(tmp_path, folder) == (True, f"Removed {folder}")  # the lock is the cache's own file too


def test_without_fcntl_the_record_is_still_updated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where there is no `fcntl` (Windows), the update runs unlocked, as before there was a lock."""
    from fsdp_unpatch.run.memory import Memory

    monkeypatch.setitem(sys.modules, "fcntl", None)  # `import fcntl` raises ImportError
    folder = tmp_path / "cache"
    entry = {"path": "trainer/npu_fsdp.py", "replacements": {}, "installers": {"_apply": ""}}
    assert Memory(folder, "/project").remember({"trainer.npu_fsdp": entry}) == {"trainer.npu_fsdp": entry}
    assert Memory(folder, "/project").read() == {"trainer.npu_fsdp": entry}
    assert not (folder / "removed.lock").exists()
