"""FSU306 keeps what it learns of each file in the run cache (issue 23): a warm run reads no unchanged file,
and an edit to either side of an import, the importing file or the imported module, still shows at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fsdp_unpatch.project import import_facts
from fsdp_unpatch.rules import broken_import
from tests.integration import cli

# A patch module (it installs over FSDP2): FSU306 judges imports from it.
PATCH = "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n"
INSTALL = "\n\nFSDPParamGroup.post_forward = print\n"
HELPER_MODULE = PATCH + "import os\n\n\ndef helper(path):\n    return os.path.basename(path)\n" + INSTALL
WITHOUT_HELPER = PATCH + "import os\n\n\ndef other(path):\n    return os.path.dirname(path)\n" + INSTALL
USER = "from tools.paths import helper\n\n\nprint(helper('a/b'))\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setattr(import_facts, "RACY_NS", 0)  # files written just now are trusted (no 2 s wait)
    root = tmp_path / "project"
    (root / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "tools" / "__init__.py").write_text("")
    (root / "tools" / "paths.py").write_text(HELPER_MODULE)
    (root / "app.py").write_text(USER)
    return root


def _broken(root: Path) -> list[tuple[str, int, str]]:
    result = cli("check", "--output-format", "json", "--select", "FSU306", ".", cwd=root)
    assert result.returncode in (0, 1), result.stderr
    return [(f["path"], f["line"], f["message"]) for f in json.loads(result.stdout)]


def _reads(monkeypatch) -> list[str]:
    """The paths FSU306 reads from here on."""
    reads: list[str] = []
    original = broken_import.read_regular

    def counted(path):
        reads.append(Path(path).name)
        return original(path)

    monkeypatch.setattr(broken_import, "read_regular", counted)
    return reads


def test_a_warm_run_reads_no_unchanged_file(project: Path, monkeypatch) -> None:
    assert _broken(project) == []
    reads = _reads(monkeypatch)
    assert _broken(project) == []
    assert reads == []


def test_an_edit_to_the_imported_module_makes_and_clears_the_finding(project: Path, monkeypatch) -> None:
    assert _broken(project) == []
    reads = _reads(monkeypatch)
    (project / "tools" / "paths.py").write_text(WITHOUT_HELPER)
    found = _broken(project)
    assert [(path, line) for path, line, _ in found] == [("app.py", 1)]
    assert "`helper` is imported from `tools.paths`" in found[0][2]
    reads.clear()
    assert _broken(project) == found  # a warm run says the same, reading only the reported file (its noqa)
    assert reads == ["app.py"]
    (project / "tools" / "paths.py").write_text(HELPER_MODULE + "\n")
    assert _broken(project) == []


def test_an_edit_to_the_importer_makes_the_finding(project: Path) -> None:
    assert _broken(project) == []
    (project / "app.py").write_text(USER.replace("import helper", "import helper, missing"))
    assert [(path, line) for path, line, _ in _broken(project)] == [("app.py", 1)]


CHECKABLE = frozenset({"pkg.mod"})


def _suspects(source: str) -> set[tuple[str, str]]:
    return set(broken_import._suspects(source.encode(), "pkg.user", False, CHECKABLE))


def test_an_import_that_opens_a_line_is_read_even_after_a_lookalike_that_does_not() -> None:
    # the lookalike's `( ... )` would swallow the next line if it were read as an import
    assert ("pkg.mod", "c") in _suspects('x = "from a import (\nfrom pkg.mod import c)"\n')
    assert _suspects("x = 1; from pkg.mod import c\n") == set()


def test_words_in_comments_are_no_suspects() -> None:
    source = (
        "from pkg.mod import (\n    a,  # noqa: F401\n    z,\n)\nimport pkg.mod as m\n# see m.py\nm.b()\nm.__name__\n"
    )
    # `z` shares its comma-separated part with the comment: the comment's words are no suspects, `z` is (it was
    # missed before: a false negative)
    assert _suspects(source) == {("pkg.mod", "a"), ("pkg.mod", "z"), ("pkg.mod", "b")}
    assert ("pkg.mod", "py") in _suspects("import pkg.mod as m\ns = 'a' # m.py\n")  # a quote: not sure


def test_a_name_after_a_comment_inside_import_parentheses_is_checked(project: Path) -> None:
    """`from m import (a,  # noqa\n b)`: `b` shares its comma-separated part with the comment; a missing `b`
    was not reported before (the part's first word was the comment's)."""
    (project / "app.py").write_text(
        "from tools.paths import (\n    helper,  # noqa: F401\n    vanished,\n)\n\n\nprint(helper, vanished)\n"
    )
    found = _broken(project)
    assert [(path, line) for path, line, _ in found] == [("app.py", 1)]  # reported at the import statement
    assert "vanished" in found[0][2]
