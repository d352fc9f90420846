"""`fsdp_unpatch.api`: the same findings, as the same typed objects, as the command line's JSON contract."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fsdp_unpatch.api import (
    Finding,
    FixedSource,
    FixResult,
    Span,
    UsageError,
    check_paths,
    check_source,
    fix_paths,
    fix_source,
)
from tests.integration import cli, make_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_check_paths_equals_the_json_output(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = json.loads(cli("check", "--output-format", "json", "pkg", cwd=project).stdout)
    monkeypatch.chdir(project)
    findings = check_paths(["pkg"])
    assert all(isinstance(f, Finding) and isinstance(f.span, Span) for f in findings)
    assert [f.to_dict() for f in findings] == expected
    assert check_paths("pkg") == findings  # one path as a string
    assert [f.code for f in check_paths(Path("pkg"), select="FSU2")] == ["FSU201"]
    assert {f.code for f in check_paths(["pkg"], ignore=["FSU2", "FSU00"])} == set()


def test_configuration_applies_and_keywords_win(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\ntarget-torch = "2.5"\n')
    monkeypatch.chdir(project)
    assert {f.code for f in check_paths("pkg/patch.py")} == {"FSU102"}  # below 2.6: review
    assert {f.code for f in check_paths("pkg/patch.py", target_torch="2.13")} == {"FSU001", "FSU002", "FSU003"}
    assert {f.code for f in check_paths("pkg/patch.py", isolated=True)} == {"FSU001", "FSU002", "FSU003"}


def test_check_source_is_the_stdin_filename_run(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = (project / "pkg" / "patch.py").read_bytes()
    expected = json.loads(
        cli(
            "check", "--output-format", "json", "--stdin-filename", "pkg/patch.py", "-", cwd=project, stdin=source
        ).stdout
    )
    monkeypatch.chdir(project)
    assert [f.to_dict() for f in check_source(source, "pkg/patch.py")] == expected
    assert [f.to_dict() for f in check_source(source.decode(), "pkg/patch.py")] == expected
    broken = check_source("import torch\ndef f(:\ntorch.ops.fsdp.x = 1\n", "bad.py")
    assert [(f.code, f.category) for f in broken] == [("FSU901", "error")]


def test_fix_source_is_the_stdin_filename_fix(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "project"\n')  # a root to look for importers in
    source = (project / "pkg" / "patch.py").read_bytes()
    printed = cli("fix", "--stdin-filename", "pkg/patch.py", "-", cwd=project, stdin=source).stdout
    monkeypatch.chdir(project)
    done = fix_source(source, "pkg/patch.py")
    assert isinstance(done, FixedSource) and done.source == printed != source
    assert done.remaining == [] and fix_source(source.decode(), "pkg/patch.py") == done
    assert (project / "pkg" / "patch.py").read_bytes() == source  # the file is never written
    kept = (project / "pkg" / "enhance.py").read_bytes()
    assert fix_source(kept, "pkg/enhance.py").source == kept  # nothing to fix: the same bytes back
    assert [f.code for f in fix_source(kept, "pkg/enhance.py").remaining] == ["FSU201"]
    with pytest.raises(UsageError, match="unknown rule code or prefix 'NOPE'"):
        fix_source(source, "pkg/patch.py", select="NOPE")


def test_a_source_in_its_project_is_what_check_and_fix_make_of_its_file(tmp_path: Path, monkeypatch) -> None:
    """`in_project=True`: the source is planned as the file it names, with the rest of its project around it
    (an editor's buffer), as `check .` and `fix .` in the project's root plan it: another file calls the
    example's installer, and the fix deletes both (`fix FILE` keeps the installer for now); the caller's part
    is in `elsewhere`."""
    import shutil

    example = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"
    patch, caller = "legacy_npu/distributed/fsdp/_add_fsdp_patch.py", "legacy_npu/_api_patches.py"
    checked, fixed = shutil.copytree(example, tmp_path / "checked"), shutil.copytree(example, tmp_path / "fixed")
    source = (checked / patch).read_bytes()
    (checked / patch).write_text("# what the file on disk holds is not read\n")
    everything = json.loads(cli("check", "--output-format", "json", "--no-cache", ".", cwd=fixed).stdout)
    expected = [f for f in everything if f["path"] == patch]
    assert cli("fix", "--no-cache", ".", cwd=fixed).returncode == 0
    monkeypatch.chdir(checked)
    assert [f.to_dict() for f in check_source(source, patch, in_project=True)] == expected
    done = fix_source(source, patch, in_project=True)
    assert done.source == (fixed / patch).read_bytes() != source
    assert b"def _apply_fsdp_patch" not in done.source
    (other,) = done.elsewhere
    assert (other.path, other.original, other.deleted) == (caller, (checked / caller).read_bytes(), False)
    assert other.source == (fixed / caller).read_bytes() != other.original
    alone = fix_source(source, patch)  # a module alone: the installer's caller holds the group back
    assert alone.source == source and [f.code for f in alone.remaining if f.category == "error"] == ["FSU903"]
    assert alone.elsewhere == ()


def test_fix_paths_dry_run_then_fix(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    twin = make_project(tmp_path / "twin")
    expected_diff = cli("fix", "--diff", "pkg", cwd=twin).stdout
    assert cli("fix", "pkg", cwd=twin).returncode == 0
    monkeypatch.chdir(project)
    before = _tree(project)
    preview = fix_paths("pkg", dry_run=True)
    assert isinstance(preview, FixResult) and not preview.written
    assert _tree(project) == before and preview.changed == ["pkg/patch.py"]
    assert preview.diff() == expected_diff
    assert sorted(f.code for f in preview.fixed) == ["FSU001", "FSU002", "FSU003"]
    done = fix_paths(["pkg"])
    assert done.written and _tree(project) == _tree(twin)
    assert done.changed == ["pkg/patch.py"] and done.diff() == expected_diff  # what was written, as a diff
    assert [f.code for f in done.remaining] == ["FSU201"]
    # what is left is reported as the fixed tree holds it (its line now), as a fresh check sees it
    assert [f.to_dict() for f in done.remaining] == [f.to_dict() for f in check_paths(["pkg"])]
    assert fix_paths(["pkg"]).changed == []  # idempotent


def test_bad_input_raises_usage_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    with pytest.raises(UsageError, match="unknown rule code or prefix 'NOPE'"):
        check_paths("pkg", select="NOPE")
    with pytest.raises(UsageError, match="missing.py: no such file or directory"):
        check_paths(["pkg", "missing.py"])
    with pytest.raises(UsageError, match="missing.py: no such file or directory"):
        fix_paths(["missing.py"])
    assert _tree(project) == _tree(make_project(Path(os.fspath(project.parent / "again"))))


def test_fix_paths_reports_what_is_left_as_the_fixed_tree_holds_it(tmp_path: Path, monkeypatch) -> None:
    """The kept enhance patch of the example moves up when the collectives patch above it goes: what is left
    is reported at its new lines, as a fresh check of the fixed tree reports it (issue 12, finding 3)."""
    import shutil

    example = tmp_path / "legacy_project"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "legacy_project", example)
    monkeypatch.chdir(example)
    before = {(f.code, f.span.line) for f in check_paths(".") if f.category == "keep"}
    done = fix_paths(".")
    after = [f.to_dict() for f in check_paths(".")]
    assert [f.to_dict() for f in done.remaining] == after
    assert {(f["code"], f["line"]) for f in after if f["category"] == "keep"} != before  # the lines did move
