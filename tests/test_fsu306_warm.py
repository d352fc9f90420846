"""A warm FSU306 over a tree whose every file is unchanged (issue 23 item 4): the run's findings come from one
cache entry keyed by the stat of every project file, without decoding the per-file facts; any change to a
file, or a file changed too recently to trust its stat, goes back to the facts."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsdp_unpatch import api
from fsdp_unpatch.project import import_facts
from fsdp_unpatch.rules import broken_import

USER = "from tools.paths import helper, missing\n\n\nprint(helper('a/b'), missing)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "tools" / "__init__.py").write_text("")
    (root / "tools" / "paths.py").write_text(  # a patch module (it installs over FSDP2): FSU306 judges it
        "import os\nfrom torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n\n"
        "def helper(path):\n    return os.path.basename(path)\n\n\nFSDPParamGroup.post_forward = helper\n"
    )
    (root / "app.py").write_text(USER)
    return root


def _broken(root: Path) -> list[tuple[str, int, str]]:
    found = api.check_paths([str(root)], select="FSU306", use_cache=True, jobs=1)
    return [(Path(f.path).name, f.span.line, f.message) for f in found]


def _decoded(monkeypatch) -> list[int]:
    decoded: list[int] = []
    real = import_facts.decode
    monkeypatch.setattr(import_facts, "decode", lambda data: decoded.append(1) or real(data))
    return decoded


def test_a_warm_run_over_unchanged_files_decodes_no_facts(project: Path, monkeypatch) -> None:
    monkeypatch.setattr(import_facts, "RACY_NS", -(10**12))  # every file's stat is trusted at once
    first = _broken(project)
    assert [(name, line) for name, line, _ in first] == [("app.py", 1)]
    decoded = _decoded(monkeypatch)
    assert _broken(project) == first
    assert decoded == []


def test_an_edit_goes_back_to_the_facts_and_shows(project: Path, monkeypatch) -> None:
    monkeypatch.setattr(import_facts, "RACY_NS", -(10**12))
    assert len(_broken(project)) == 1
    decoded = _decoded(monkeypatch)
    (project / "app.py").write_text(USER.replace(", missing", "").replace(", missing)", ")"))
    assert _broken(project) == []
    assert decoded == [1]  # the facts of the unchanged module served


def test_files_too_fresh_to_trust_are_not_settled(project: Path, monkeypatch) -> None:
    first = _broken(project)  # just written: within RACY_NS of the walk
    read: list[str] = []
    real = broken_import.read_regular
    monkeypatch.setattr(broken_import, "read_regular", lambda path: read.append(Path(path).name) or real(path))
    assert _broken(project) == first and len(first) == 1
    assert "paths.py" in read  # the module is read again to decide
