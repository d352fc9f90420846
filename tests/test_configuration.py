"""Configuration like a linter: [tool.fsdp-unpatch], --config, flags over the file, bad config, exclusion,
.gitignore, --statistics, and the `rules` / `explain` commands."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fsdp_unpatch.cli import main
from tests.helpers import cli_runner

# One file, three kinds of finding: a review override (FSU101 + FSU401), and a keep (FSU201 via `keep`).
SOURCE = """\
from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_state


def _my_all_gather(*args, **kwargs):
    return None


def _lazy_init(self):
    return None


_fsdp_collectives.foreach_all_gather = _my_all_gather
_fsdp_state.FSDPState._lazy_init = _lazy_init
"""


def run(*args: str, cwd: Path):
    runner = cli_runner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return result


def findings(*args: str, cwd: Path) -> list[tuple[str, str]]:
    result = run("check", "--output-format", "json", *args, cwd=cwd)
    assert result.exit_code in (0, 1), result.output
    return sorted((f["path"], f["code"]) for f in json.loads(result.stdout))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "patch.py").write_text(SOURCE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_patch.py").write_text(SOURCE)
    return tmp_path


def config(root: Path, body: str, name: str = "pyproject.toml") -> Path:
    path = root / name
    path.write_text(("[tool.fsdp-unpatch]\n" if name == "pyproject.toml" else "") + body)
    return path


ALL = [
    ("pkg/patch.py", "FSU101"),
    ("pkg/patch.py", "FSU101"),
    ("pkg/patch.py", "FSU401"),
    ("tests/test_patch.py", "FSU101"),
    ("tests/test_patch.py", "FSU101"),
    ("tests/test_patch.py", "FSU401"),
]


def test_no_configuration_reports_everything(project: Path) -> None:
    assert findings(cwd=project) == ALL


def test_select_ignore_and_extend_select_from_pyproject(project: Path) -> None:
    config(project, 'select = ["FSU4"]\n')
    assert findings(cwd=project) == [("pkg/patch.py", "FSU401"), ("tests/test_patch.py", "FSU401")]
    config(project, 'select = ["FSU4"]\nextend-select = ["FSU101"]\nignore = ["FSU401"]\n')
    assert [c for _, c in findings(cwd=project)] == ["FSU101"] * 4


def test_flags_win_over_the_file(project: Path) -> None:
    config(project, 'select = ["FSU4"]\n')
    assert [c for _, c in findings("--select", "FSU101", cwd=project)] == ["FSU101"] * 4
    assert findings("--ignore", "FSU401", cwd=project) == []


def test_per_file_ignores(project: Path) -> None:
    config(project, '[tool.fsdp-unpatch.per-file-ignores]\n"tests/*" = ["FSU1"]\n"patch.py" = ["FSU401"]\n')
    assert findings(cwd=project) == [
        ("pkg/patch.py", "FSU101"),
        ("pkg/patch.py", "FSU101"),
        ("tests/test_patch.py", "FSU401"),
    ]


def test_config_is_found_upward_from_the_first_path(project: Path) -> None:
    config(project, 'ignore = ["FSU1"]\n')
    assert findings(".", cwd=project / "pkg") == [("patch.py", "FSU401")]  # search starts at `pkg`, goes up


def test_pyproject_without_our_table_is_skipped(project: Path) -> None:
    (project / "pkg" / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    config(project, 'ignore = ["FSU1"]\n')
    assert findings("pkg", cwd=project) == [("pkg/patch.py", "FSU401")]


def test_explicit_config_file_and_isolated(project: Path, tmp_path_factory) -> None:
    elsewhere = tmp_path_factory.mktemp("conf")
    path = config(elsewhere, 'select = ["FSU401"]\n', name="fsdp-unpatch.toml")
    config(project, 'select = ["FSU101"]\n')
    assert [c for _, c in findings("--config", str(path), cwd=project)] == ["FSU401"] * 2
    assert findings("--isolated", cwd=project) == ALL


def test_keep_declares_an_override_intentional(project: Path) -> None:
    config(project, 'keep = ["_fsdp_state.FSDPState._lazy_init"]\nselect = ["FSU1", "FSU2"]\n')
    assert findings("pkg", cwd=project) == [("pkg/patch.py", "FSU101"), ("pkg/patch.py", "FSU201")]


def test_target_torch_from_the_file(project: Path) -> None:
    (project / "pkg" / "old.py").write_text(
        "from torch.distributed.fsdp._fully_shard import _fsdp_collectives\n"
        "class A:\n    pass\n"
        "_fsdp_collectives.DefaultAllGather = A\n"
    )
    config(project, 'select = ["FSU401"]\n')
    assert ("pkg/old.py", "FSU401") in findings("pkg", cwd=project)
    config(project, 'select = ["FSU401"]\ntarget-torch = "2.8"\n')
    assert ("pkg/old.py", "FSU401") not in findings("pkg", cwd=project)
    assert ("pkg/old.py", "FSU401") in findings("pkg", "--target-torch", "2.13", cwd=project)


@pytest.mark.parametrize(
    "body, named",
    [
        ('selct = ["FSU1"]\n', "unknown key `selct`"),
        ('select = "FSU1"\n', "`select` must be a list"),
        ('select = ["XYZ9"]\n', "unknown rule code or prefix 'XYZ9'"),
        ('per-file-ignores = ["x"]\n', "`per-file-ignores` must be a table"),
        ('[tool.fsdp-unpatch.per-file-ignores]\n"a.py" = ["FSU9999"]\n', "unknown rule code or prefix 'FSU9999'"),
        ('target-torch = "latest"\n', "not a torch version"),
        ("target-torch = 2.8\n", "`target-torch` must be a torch version string"),
        ('keep = ["_fsdp_collectives.nope"]\n', "unknown target id '_fsdp_collectives.nope'"),
        ('respect-gitignore = "yes"\n', "`respect-gitignore` must be true or false"),
        ("exclude = [1]\n", "`exclude` must be a list of gitwildmatch patterns"),
        ("select = [\n", "not valid TOML"),
    ],
)
def test_bad_configuration_names_key_and_file_and_exits_2(project: Path, body: str, named: str) -> None:
    path = config(project, body)
    result = run("check", cwd=project)
    assert result.exit_code == 2
    assert named in result.stderr and str(path) in result.stderr


def test_missing_config_file_exits_2(project: Path) -> None:
    result = run("check", "--config", "nope.toml", cwd=project)
    assert result.exit_code == 2


def test_exclude_and_extend_exclude(project: Path) -> None:
    config(project, 'extend-exclude = ["tests/"]\n')
    assert {p for p, _ in findings(cwd=project)} == {"pkg/patch.py"}
    config(project, 'exclude = ["patch.py"]\n')
    assert {p for p, _ in findings(cwd=project)} == {"tests/test_patch.py"}
    # `exclude` replaces the default folder names: `build` is walked then.
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text(SOURCE)
    assert "build/gen.py" in {p for p, _ in findings(cwd=project)}
    config(project, "")
    assert "build/gen.py" not in {p for p, _ in findings(cwd=project)}


def test_exclude_flag_replaces_and_explicit_files_are_still_checked(project: Path) -> None:
    assert {p for p, _ in findings("--extend-exclude", "pkg", cwd=project)} == {"tests/test_patch.py"}
    assert {p for p, _ in findings("--extend-exclude", "pkg", "pkg/patch.py", cwd=project)} == {"pkg/patch.py"}
    assert findings("--extend-exclude", "pkg", "--force-exclude", "pkg/patch.py", cwd=project) == []


def test_gitignore_is_respected_unless_told_otherwise(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("tests/\n")
    (project / "pkg" / ".gitignore").write_text("*.py\n!patch.py\n")
    (project / "pkg" / "ignored.py").write_text(SOURCE)
    assert {p for p, _ in findings(cwd=project)} == {"pkg/patch.py"}
    assert {p for p, _ in findings("--no-respect-gitignore", cwd=project)} == {
        "pkg/ignored.py",
        "pkg/patch.py",
        "tests/test_patch.py",
    }
    config(project, "respect-gitignore = false\n")
    assert len({p for p, _ in findings(cwd=project)}) == 3
    assert {p for p, _ in findings("--respect-gitignore", cwd=project)} == {"pkg/patch.py"}
    # A file named on the command line is checked even when .gitignore names it ...
    config(project, "")
    assert {p for p, _ in findings("tests/test_patch.py", cwd=project)} == {"tests/test_patch.py"}
    # ... unless --force-exclude.
    assert findings("--force-exclude", "tests/test_patch.py", cwd=project) == []


def test_statistics_per_rule_and_target(project: Path) -> None:
    result = run("check", "--statistics", "--output-format", "json", cwd=project)
    data = json.loads(result.stdout)
    assert data["rules"] == [
        {"code": "FSU101", "name": "unproven-override", "category": "review", "count": 4, "fixable": 0},
        {"code": "FSU401", "name": "stale-by-name-import", "category": "review", "count": 2, "fixable": 0},
    ]
    assert data["targets"] == [
        {"target": "_fsdp_collectives.foreach_all_gather", "count": 4, "codes": {"FSU101": 2, "FSU401": 2}},
        {"target": "_fsdp_state.FSDPState._lazy_init", "count": 2, "codes": {"FSU101": 2}},
    ]
    text = run("check", "--statistics", "--select", "FSU401", cwd=project)
    assert text.exit_code == 1
    assert text.stdout.splitlines()[:2] == ["Per rule:", "2\tFSU401\t[ ] stale-by-name-import (review)"]


def test_rules_lists_every_rule(tmp_path: Path) -> None:
    from fsdp_unpatch.catalog import load_catalog

    result = run("rules", "--output-format", "json", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert [r["code"] for r in data] == sorted(load_catalog().rules)
    assert {
        "code": "FSU001",
        "name": "collective-override",
        "category": "remove",
        "fix": "safe",
        "summary": load_catalog().rule("FSU001").summary,
    } in data
    table = run("rules", "--no-color", cwd=tmp_path)
    assert table.exit_code == 0 and "FSU401" in table.stdout and "stale-by-name-import" in table.stdout


def test_explain_rule_with_targets_and_versions(tmp_path: Path) -> None:
    result = run("explain", "fsu001", cwd=tmp_path)
    assert result.exit_code == 0
    assert "Category: remove" in result.stdout
    assert "torch.ops.fsdp.all_gather_copy_in" in result.stdout
    assert "native path serves non-CUDA devices since torch 2.8" in result.stdout
    by_name = run("explain", "stale-by-name-import", cwd=tmp_path)
    assert by_name.stdout.startswith("FSU401 (stale-by-name-import)")


def test_explain_target(tmp_path: Path) -> None:
    result = run("explain", "torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_all_gather", cwd=tmp_path)
    assert result.exit_code == 0
    assert "Also bound by name as: _fsdp_param_group.foreach_all_gather" in result.stdout
    assert "Exists: torch 2.4+" in result.stdout
    gone = run("explain", "_fsdp_state.FSDPState._finalize_backward", "--output-format", "json", cwd=tmp_path)
    assert json.loads(gone.stdout)["until"] == "2.12"


def test_explain_unknown_code_exits_2(tmp_path: Path) -> None:
    result = run("explain", "FSU777", cwd=tmp_path)
    assert result.exit_code == 2
    assert "unknown rule code or target 'FSU777'" in result.stderr


def test_summary_names_where_the_target_torch_came_from(tmp_path: Path) -> None:
    from fsdp_unpatch.cli import main

    (tmp_path / "pyproject.toml").write_text('[tool.fsdp-unpatch]\ntarget-torch = "2.8"\n')
    (tmp_path / "a.py").write_text("import os\n")
    from_file = cli_runner().invoke(main, ["check", "--no-cache", str(tmp_path)])
    assert "Target torch 2.8 (configuration)." in from_file.output
    from_flag = cli_runner().invoke(main, ["check", "--no-cache", "--target-torch", "2.9", str(tmp_path)])
    assert "Target torch 2.9 (--target-torch)." in from_flag.output
