"""The cache's index of unchanged files (`cache.Unchanged`): a warm `check` does not read a file a run found
nothing in when its size, times and inode are those recorded; any change, a file modified too shortly before
it was read, a forged index or an editor's buffer under the same name is read and analysed again."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import Candidate, discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.run import batch
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.run.cache import RACY_NS, Cache, Unchanged
from fsdp_unpatch.run.cache_key import describe

PATCH = (
    "import torch.distributed.fsdp._fully_shard._fsdp_param_group as g\n\n\n"
    'def install(f):\n    setattr(g.FSDPParamGroup, "post_backward", f)\n'
)
PLAIN = "def train(model):\n    return model\n"  # rejected by the prefilter
# the same size as PATCH, so that only the content differs
PLAIN_SAME_SIZE = "#" * (len(PATCH) - len(PLAIN) - 1) + "\n" + PLAIN


def _age(path: Path, seconds: float = 60) -> None:
    """Give the file an mtime long enough ago that its record is trusted (git's racy rule)."""
    past = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(past, past))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    for n in range(5):
        (tmp_path / f"plain{n}.py").write_text(PLAIN)
    (tmp_path / "patch.py").write_text(PATCH)
    for path in tmp_path.glob("*.py"):
        _age(path)
    time.sleep(0.01)  # the ctime of the files is now older than the reads below...
    return tmp_path


def _check(project: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch, candidates=None) -> list:
    real = batch._read

    def counting(candidate):
        reads.append(candidate.path.name)
        return real(candidate)

    monkeypatch.setattr(batch, "_read", counting)
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")))
    cache = Cache(project, describe(options))
    result = run(candidates or discover([str(project)]), load_catalog(), options, cache=cache)
    monkeypatch.undo()
    return [(f.path, f.code, f.span.line) for f in result.findings]


def _trusted_ctimes(monkeypatch: pytest.MonkeyPatch) -> None:
    """utime() sets a file's ctime to now: let records of files changed just now be trusted anyway, as they
    would be a few seconds later."""
    monkeypatch.setattr("fsdp_unpatch.run.cache.RACY_NS", -RACY_NS)


def test_a_warm_run_reads_only_what_may_hold_a_finding(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _trusted_ctimes(monkeypatch)
    cold: list[str] = []
    first = _check(project, cold, monkeypatch)
    _trusted_ctimes(monkeypatch)
    warm: list[str] = []
    assert _check(project, warm, monkeypatch) == first
    assert len(cold) == 6 and first  # every file read once, and the patch found
    assert warm == ["patch.py"]  # the plain files are unchanged: not read


def test_a_changed_file_is_read_again(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _trusted_ctimes(monkeypatch)
    (project / "plain0.py").write_text(PLAIN_SAME_SIZE)
    _age(project / "plain0.py")
    _check(project, [], monkeypatch)
    # now the same size, the same modification time, other bytes: the inode's change time gives it away
    path = project / "plain0.py"
    info = os.stat(path)
    path.write_text(PATCH)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert os.stat(path).st_size == info.st_size and os.stat(path).st_mtime_ns == info.st_mtime_ns
    monkeypatch.setattr("fsdp_unpatch.run.cache.RACY_NS", RACY_NS)
    reads: list[str] = []
    found = _check(project, reads, monkeypatch)
    assert "plain0.py" in reads
    assert any(path == str(project / "plain0.py") for path, _, _ in found)


def test_a_file_modified_just_before_it_was_read_is_not_trusted(project: Path, monkeypatch) -> None:
    (project / "plain0.py").write_text(PLAIN)  # modified now: racy
    _check(project, [], monkeypatch)
    reads: list[str] = []
    _check(project, reads, monkeypatch)
    assert "plain0.py" in reads


def test_a_forged_index_is_ignored(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _trusted_ctimes(monkeypatch)
    _check(project, [], monkeypatch)
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")))
    cache = Cache(project, describe(options))
    key = cache.unchanged_key()
    entry_path = cache.entries / key[:2] / key
    entry = json.loads(entry_path.read_text())
    assert entry["value"]["kind"] == "unchanged"
    # claim that the patch file is unchanged and empty
    entry["value"]["files"][str(project / "patch.py")] = entry["value"]["files"][str(project / "plain0.py")]
    entry_path.write_text(json.dumps(entry))
    assert isinstance(cache.get(key), type(None))
    _trusted_ctimes(monkeypatch)
    reads: list[str] = []
    assert _check(project, reads, monkeypatch)
    assert sorted(reads) == sorted(p.name for p in project.glob("*.py"))


def test_a_buffer_under_a_recorded_name_is_analysed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _trusted_ctimes(monkeypatch)
    _check(project, [], monkeypatch)
    name = str(project / "plain0.py")
    buffer = [Candidate(Path(name), name, explicit=True, data=PATCH.encode())]
    _trusted_ctimes(monkeypatch)
    assert _check(project, [], monkeypatch, candidates=buffer)


def test_the_record_of_a_file_read_now() -> None:
    class Source:
        inode, device, size = 5, 1, 10
        read_ns = 10 * RACY_NS
        mtime_ns = ctime_ns = read_ns - 2 * RACY_NS

    assert Unchanged.stat_of(Source) == (10, Source.mtime_ns, Source.ctime_ns, 5, 1)
    Source.mtime_ns = Source.read_ns - RACY_NS // 2
    assert Unchanged.stat_of(Source) is None  # modified within the racy window
    Source.mtime_ns, Source.inode = 0, 0
    assert Unchanged.stat_of(Source) is None  # not a file on disk


@pytest.mark.parametrize("aged", [False, True], ids=["just-written", "grown-old-in-between"])
def test_a_warm_linked_group_loads_no_libcst(tmp_path: Path, aged: bool) -> None:
    """The example's patch module and its caller form a linked group; warm, its result comes from the cache
    and libcst is never imported (`python -X importtime` lists every module loaded). Also when the files were
    written just before the cold run and are old enough to be trusted by their stat in the warm one: a key
    that depended on that (`held_back.verdict_key` did) missed once and ran the fixes again (CI saw it)."""
    import shutil
    import subprocess
    import sys
    import time

    from fsdp_unpatch.run.cache import RACY_NS

    root = Path(__file__).resolve().parent.parent
    project = tmp_path / "legacy_project"
    shutil.copytree(root / "examples" / "legacy_project", project)
    environment = dict(os.environ, PYTHONPATH=str(root))
    command = [sys.executable, "-X", "importtime", "-m", "fsdp_unpatch", "check", "."]
    cold = subprocess.run(command, cwd=project, capture_output=True, text=True, env=environment)
    if aged:
        time.sleep(RACY_NS / 1e9 + 0.2)
    warm = subprocess.run(command, cwd=project, capture_output=True, text=True, env=environment)
    assert cold.returncode == warm.returncode == 1 and cold.stdout.splitlines()[:-1] == warm.stdout.splitlines()[:-1]
    assert "libcst" in cold.stderr
    assert "libcst" not in warm.stderr
