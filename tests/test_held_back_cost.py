"""What `check`'s held-back verdict costs (issue 23 against issue 24, item 7): the verdict stays what `fix` would
do (tests/test_fixable_count.py), but the check run does not analyse its files a second time, and the import
net parses only files that can import what a fix removes."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from fsdp_unpatch import api
from fsdp_unpatch.analysis import bindings
from fsdp_unpatch.run import alone, batch, engine, import_net, session
from fsdp_unpatch.run.import_net import Rewrite, breakages

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"


def _example(root: Path) -> Path:
    project = root / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    return project


def test_check_analyses_each_file_alone_once_even_with_a_safe_fix(tmp_path: Path, monkeypatch) -> None:
    project = _example(tmp_path)
    analysed: list[str] = []
    real = alone.analyze_alone

    def counted(candidate, source, catalog, options, *learned):
        analysed.append(candidate.display)
        return real(candidate, source, catalog, options, *learned)

    monkeypatch.setattr(alone, "analyze_alone", counted)
    findings = api.check_paths([str(project)], jobs=1)
    safe = [f for f in findings if f.fix is not None and f.fix.applicability == "safe"]
    assert safe and not any(f.held_back for f in safe)  # the example is fixed whole: nothing held back
    assert analysed and len(analysed) == len(set(analysed)), analysed


def test_check_analyses_a_linked_group_once_even_with_a_safe_fix(tmp_path: Path, monkeypatch) -> None:
    """The held-back pass asks the check run's own engine of the linked group for its fixes (`Run.again`):
    the group is not loaded, analysed and linked a second time, and the findings are those of a fresh dry fix."""
    project = _example(tmp_path)
    groups: list[list[str]] = []
    real = engine.Run.link

    def counted(self):
        if len(self.units) > 1:
            groups.append([unit.candidate.display for unit in self.units])
        return real(self)

    monkeypatch.setattr(engine.Run, "link", counted)
    findings = api.check_paths([str(project)], jobs=1)
    safe = [f for f in findings if f.fix is not None and f.fix.applicability == "safe"]
    assert any(f.code == "FSU004" for f in findings)  # a finding that needs two files: the group ran
    assert safe and not any(f.held_back for f in safe)
    assert len(groups) == 1, groups
    groups.clear()
    dry = session._dry_fix
    monkeypatch.setattr(session, "_dry_fix", lambda *args: dry(*args[:4]))  # no engine handed over
    fresh = api.check_paths([str(project)], jobs=1)
    assert len(groups) == 2, groups  # the dry fix ran the group again
    assert [f.to_dict() for f in fresh] == [f.to_dict() for f in findings]


def test_a_held_back_group_is_still_found_from_the_reused_analyses(tmp_path: Path, monkeypatch) -> None:
    """The import net's verdict on the reused phase-1 items: a re-export outside the group holds it back."""
    project = _example(tmp_path)
    (project / "legacy_npu" / "compat.py").write_text(
        "from legacy_npu.distributed.fsdp._add_fsdp_patch import FSDPParam\n\n__all__ = ['FSDPParam']\n"
    )
    calls: list[int] = []
    real = batch.analyze_all
    monkeypatch.setattr(batch, "analyze_all", lambda jobs, *rest: calls.append(len(jobs)) or real(jobs, *rest))
    findings = api.check_paths([str(project)], jobs=1)
    held = [f for f in findings if f.held_back]
    assert held and all("compat.py:1 imports FSDPParam" in f.held_back for f in held), held
    assert len(calls) == 1  # phase 1 ran once: the check run's


def _package(root: Path, importers: int) -> tuple[Path, Path]:
    """pkg/patch.py (not a package) loses `cast`; many modules of pkg spell `cast` and `from .` but never
    `patch`; one imports it."""
    package = root / "pkg"
    package.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    (package / "__init__.py").write_text("")
    patch = package / "patch.py"
    patch.write_text("from typing import cast\n\nVALUE = 1\n")
    for n in range(importers):
        # named to be searched before the reader: the search stops at the first importer
        (package / f"a_user{n}.py").write_text("from typing import cast\nfrom . import other\n\ncast(int, 1)\n")
    (package / "other.py").write_text("")
    (package / "reader.py").write_text("from .patch import cast\n")
    return root, patch


def test_the_import_net_parses_only_files_that_spell_a_plain_module(tmp_path: Path, monkeypatch) -> None:
    root, patch = _package(tmp_path, importers=12)
    parsed: list[bytes] = []

    def counted(data: bytes):
        parsed.append(data)
        return bindings.parse(data)

    monkeypatch.setattr(import_net, "parse", counted)
    before = patch.read_bytes()
    found = breakages([Rewrite(0, str(patch), before, b"VALUE = 1\n")], [str(root)])
    assert len(found) == 1 and "reader.py:1 imports cast from pkg.patch" in found[0].reason
    # the reader is parsed; the twelve modules that spell `cast` and `from .` but never `patch` are not
    assert any(b"from .patch import cast" in d for d in parsed)
    assert not [d for d in parsed if b"cast(int, 1)" in d]


def test_a_package_init_is_still_searched_through_relative_imports(tmp_path: Path) -> None:
    """`from . import n` names the package without spelling it: for an `__init__`, files with `from .` are
    still parsed."""
    root = tmp_path
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    package = root / "pkg"
    package.mkdir()
    init = package / "__init__.py"
    init.write_text("VALUE = 1\nOTHER = 2\n")
    (package / "user.py").write_text("from . import VALUE\n")
    found = breakages([Rewrite(0, str(init), init.read_bytes(), b"OTHER = 2\n")], [str(root)])
    assert len(found) == 1 and "user.py:1 imports VALUE from pkg" in found[0].reason


@pytest.mark.parametrize(
    "source",
    [
        "import pkg.patch as p\nimport other as o\np.cast\no.cast\n",
        "from pkg import patch\npatch.cast\nfrom pkg.patch import VALUE\n",
        "import other\nother.cast\nfrom pkg.patch import VALUE\n",
    ],
)
def test_imports_limited_to_modules_lists_what_the_whole_list_holds_for_them(source: str) -> None:
    tree = ast.parse(source)
    every = [i for i in bindings.imports(tree, "pkg.user", False) if i.module == "pkg.patch"]
    limited = [i for i in bindings.imports(tree, "pkg.user", False, only={"pkg.patch"}) if i.module == "pkg.patch"]
    assert every and limited == every


def test_imports_skips_the_attribute_walk_when_no_alias_stands_for_a_wanted_module(monkeypatch) -> None:
    walked: list[object] = []
    real = bindings._attribute_reads
    monkeypatch.setattr(bindings, "_attribute_reads", lambda *a: walked.append(a) or real(*a))
    tree = ast.parse("import other as o\nfrom typing import cast\no.cast\n")
    found = bindings.imports(tree, "pkg.user", False, only={"pkg.patch"})
    assert not walked
    assert [(i.module, i.name) for i in found] == [("typing", "cast")]


def test_an_engine_is_asked_again_only_under_options_that_differ_in_the_fixes_alone(tmp_path: Path) -> None:
    """`Run.again` gives the same analysed files' results with fixes computed; options that would change the
    analysis or the findings reported (here: the selection) are refused, not silently answered."""
    from dataclasses import replace

    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.discovery import discover
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.model import RunOptions

    project = _example(tmp_path)
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")), write=False)
    kept: list = []
    checked = engine.run_together(discover([str(project)]), load_catalog(), options, kept=kept)
    dry = replace(options, fix=True)
    again = kept[0].again(dry)
    fresh = engine.run_together(discover([str(project)]), load_catalog(), dry)
    assert any(f.fixed for f in again.findings) and not any(f.fixed for f in checked.findings)
    assert [f.to_dict() for f in again.findings] == [f.to_dict() for f in fresh.findings]
    assert [r.fixed for r in again.files] == [r.fixed for r in fresh.files]
    with pytest.raises(ValueError, match="more than what is done with the fixes"):
        kept[0].again(replace(dry, selected=lambda code, path: code != "FSU001"))
