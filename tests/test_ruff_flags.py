"""The ruff flags people type: `check --fix`, `--fix-only`, `--add-noqa`, `--per-file-ignores`, `-o`,
`--show-settings`, `--show-files`, `--cache-dir`, `--color`, `rule CODE`, `audit --output-format`,
and the `fix --diff` summary."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration import cli, make_project

ROOT = Path(__file__).resolve().parent.parent
ESC = b"\x1b["


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_check_fix_is_fix(project: Path, tmp_path: Path) -> None:
    twin = make_project(tmp_path / "twin")
    by_fix = cli("fix", "pkg", cwd=twin)
    by_check = cli("check", "--fix", "pkg", cwd=project)
    assert by_check.returncode == by_fix.returncode == 0
    assert _tree(project) == _tree(twin) != _tree(make_project(tmp_path / "untouched"))
    assert b"Fixed 3, changed 1 file." in by_check.stdout


def test_check_diff_previews_like_fix_diff(project: Path) -> None:
    before = _tree(project)
    by_check = cli("check", "--diff", "pkg", cwd=project)
    by_fix = cli("fix", "--diff", "pkg", cwd=project)
    assert by_check.returncode == by_fix.returncode == 1
    assert by_check.stdout == by_fix.stdout and by_check.stdout.startswith(
        b"diff --git a/pkg/patch.py b/pkg/patch.py\n--- a/pkg/patch.py"
    )
    assert _tree(project) == before


def test_diff_summary_says_would_fix_not_fixed(project: Path) -> None:
    result = cli("fix", "--diff", "--show-fixes", "pkg", cwd=project)
    assert b"Would fix 3 in 1 file." in result.stderr
    assert b"Fixed" not in result.stderr and b"changed 1 file" not in result.stderr
    assert b"Fixed 3, changed 1 file." in cli("fix", "pkg", cwd=project).stdout


def test_fix_only_reports_no_leftovers_and_exits_0(project: Path) -> None:
    (project / "pkg" / "review.py").write_text(
        "from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C\n\n\n"
        "def _wrap(original):\n    def inner(*a, **k):\n        return original(*a, **k)\n    return inner\n\n\n"
        "C.foreach_reduce_scatter_copy_in = _wrap(C.foreach_reduce_scatter_copy_in)\n"
    )
    assert cli("check", "pkg", cwd=project).returncode == 1  # the review finding fails a plain run
    result = cli("check", "--fix-only", "pkg", cwd=project)
    assert result.returncode == 0, result.stdout
    assert result.stdout.decode().strip() == "Fixed 3, changed 1 file."
    assert cli("check", "--output-format", "concise", "pkg", cwd=project).returncode == 1  # review left
    assert cli("fix", "--fix-only", "--exit-non-zero-on-fix", "pkg", cwd=project).returncode == 0  # nothing changed


def test_add_noqa_baselines_and_is_idempotent(project: Path) -> None:
    patch = project / "pkg" / "patch.py"
    text = patch.read_text()
    # an existing comment and a noqa of another tool on lines that get a finding; CRLF endings
    text = text.replace("def _apply_fsdp_patch():", "def _apply_fsdp_patch():  # legacy\t")
    text = text.replace(
        "    C._get_param_all_gather_inputs = _patched_inputs",
        "    C._get_param_all_gather_inputs = _patched_inputs  # noqa: E501",
    )
    patch.write_bytes(text.replace("\n", "\r\n").encode())
    before = patch.read_bytes()
    enhance = (project / "pkg" / "enhance.py").read_bytes()

    first = cli("check", "--add-noqa", "pkg", cwd=project)
    assert first.returncode == 0 and first.stdout == b""
    assert b"Added 3 noqa directives to 1 file." in first.stderr
    after = patch.read_bytes()
    assert b"def _apply_fsdp_patch():  # legacy  # noqa: FSU003\r\n" in after
    assert b"= _patched_inputs  # noqa: E501, FSU001\r\n" in after
    assert b"def _patched_inputs(  # noqa: FSU002\r\n" in after
    # nothing else changed: the same lines, each old line a prefix of its new self
    old_lines, new_lines = before.split(b"\r\n"), after.split(b"\r\n")
    assert len(old_lines) == len(new_lines)
    assert sum(o != n for o, n in zip(old_lines, new_lines)) == 3
    assert all(n.startswith(o.rstrip(b" \t")) for o, n in zip(old_lines, new_lines))
    assert (project / "pkg" / "enhance.py").read_bytes() == enhance  # keep findings are not marked

    assert cli("check", "pkg", cwd=project).returncode == 0  # the baseline holds
    second = cli("check", "--add-noqa", "pkg", cwd=project)
    assert b"Added 0 noqa directives to 0 files." in second.stderr and patch.read_bytes() == after


def test_add_noqa_leaves_lines_inside_strings_alone(project: Path) -> None:
    from fsdp_unpatch.fixes.add_noqa import mark

    source = 'x = 1\ns = """\n_patched\n"""\ny = (1 +\n     2)\nz = 1 + \\\n    2\n'
    marked = mark(source.encode(), "utf-8", {1: {"FSU304"}, 3: {"FSU304"}, 5: {"FSU101"}, 7: {"FSU101"}})
    assert marked.data.decode() == source.replace("x = 1\n", "x = 1  # noqa: FSU304\n", 1).replace(
        "y = (1 +\n", "y = (1 +  # noqa: FSU101\n"
    )
    assert marked.unmarkable == (3, 7) and marked.added == 2


def test_add_noqa_usage_errors(project: Path) -> None:
    result = cli("check", "--add-noqa", "--fix", "pkg", cwd=project)
    assert result.returncode == 2 and b"--add-noqa" in result.stderr


def test_per_file_ignores_on_the_command_line(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nper-file-ignores = {"pkg/enhance.py" = ["FSU2"]}\n')

    def codes(*args: str) -> set[str]:
        result = cli("check", "--output-format", "json", *args, "pkg", cwd=project)
        return {(f["path"].split("/")[-1], f["code"]) for f in json.loads(result.stdout)}

    configured = codes()
    assert ("enhance.py", "FSU201") not in configured and ("patch.py", "FSU001") in configured
    replaced = codes("--per-file-ignores", "pkg/patch.py:FSU001,FSU002")
    assert ("enhance.py", "FSU201") in replaced  # the configured table is replaced
    assert not {c for f, c in replaced if f == "patch.py"} & {"FSU001", "FSU002"}
    extended = codes("--extend-per-file-ignores", "*/patch.py:FSU0")
    assert ("enhance.py", "FSU201") not in extended and not [1 for f, _ in extended if f == "patch.py"]
    bad = cli("check", "--per-file-ignores", "no-colon", "pkg", cwd=project)
    assert bad.returncode == 2 and b"expected GLOB:CODES" in bad.stderr
    unknown = cli("check", "--per-file-ignores", "x.py:XYZ9", "pkg", cwd=project)
    assert unknown.returncode == 2 and b"unknown rule code" in unknown.stderr


def test_output_file(project: Path) -> None:
    result = cli("check", "--output-format", "json", "-o", "report.json", "pkg", cwd=project)
    assert result.returncode == 1 and result.stdout == b""
    assert {f["code"] for f in json.loads((project / "report.json").read_text())} >= {"FSU001", "FSU201"}
    bad = cli("check", "-o", str(project / "no" / "such" / "folder" / "r.txt"), "pkg", cwd=project)
    assert bad.returncode == 2 and b"--output-file" in bad.stderr


def test_show_settings_and_show_files(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\ntarget-torch = "2.7"\nignore = ["FSU4"]\n')
    shown = cli("check", "--show-settings", "--extend-select", "FSU1", "pkg", cwd=project)
    assert shown.returncode == 0
    settings = dict(line.split(" = ", 1) for line in shown.stdout.decode().splitlines())
    assert settings["config"] == json.dumps(str(project / "pyproject.toml"))
    assert settings["target-torch"] == '"2.7 (configuration)"'
    assert settings["ignore"] == '["FSU4"]' and settings["extend-select"] == '["FSU1"]'
    files = cli("check", "--show-files", "pkg", cwd=project)
    assert files.returncode == 0
    assert files.stdout.decode().splitlines() == [
        f"pkg/{n}" for n in ("__init__.py", "clean.py", "enhance.py", "patch.py")
    ]
    assert not (project / ".fsdp_unpatch_cache").exists()  # nothing was run


def test_cache_dir_flag_and_environment(project: Path, tmp_path: Path) -> None:
    by_flag, by_env = tmp_path / "flag-cache", tmp_path / "env-cache"
    assert cli("check", "--cache-dir", str(by_flag), "pkg", cwd=project).returncode == 1
    assert cli("check", "pkg", cwd=project, env={"FSDP_UNPATCH_CACHE_DIR": str(by_env)}).returncode == 1
    for folder in (by_flag, by_env):
        assert (folder / "CACHEDIR.TAG").is_file() and any((folder / "entries").iterdir())
    assert not (project / ".fsdp_unpatch_cache").exists()
    shown = cli("check", "--show-settings", "pkg", cwd=project, env={"FSDP_UNPATCH_CACHE_DIR": str(by_env)})
    assert f'cache-dir = "{by_env}"'.encode() in shown.stdout


@pytest.mark.parametrize(
    "args, env, coloured",
    [
        ((), {}, False),  # a pipe
        (("--color", "always"), {}, True),
        ((), {"FORCE_COLOR": "1"}, True),
        ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        (("--color", "always"), {"NO_COLOR": "1"}, True),  # the flag wins
        (("--color", "never"), {"FORCE_COLOR": "1"}, False),
        (("--no-color",), {"FORCE_COLOR": "1"}, False),
    ],
)
def test_color(project: Path, args, env, coloured: bool) -> None:
    result = cli("check", *args, "pkg", cwd=project, env={"FORCE_COLOR": None, **env})
    assert (ESC in result.stdout) is coloured
    assert b"FSU001" in result.stdout


def test_color_goes_through_the_console_script(project: Path) -> None:
    script = shutil.which("fsdp-unpatch")
    assert script is not None
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    run = subprocess.run([script, "check", "--color", "always", "pkg"], cwd=project, capture_output=True, env=env)
    assert run.returncode == 1 and ESC in run.stdout
    bad = subprocess.run([script, "check", "--color", "sometimes", "pkg"], cwd=project, capture_output=True, env=env)
    assert bad.returncode == 2 and b"sometimes" in bad.stderr


def test_rule_is_explain(project: Path) -> None:
    rule, explain = cli("rule", "FSU001", cwd=project), cli("explain", "FSU001", cwd=project)
    assert rule.returncode == explain.returncode == 0 and rule.stdout == explain.stdout
    assert rule.stdout.startswith(b"FSU001 (collective-override)")
    assert cli("rule", "NOPE", cwd=project).returncode == 2


def test_audit_takes_output_format(project: Path) -> None:
    (project / "pkg" / "copy.py").write_text("import torch\n\n\ndef f(a, b):\n    torch._foreach_copy_(a, b)\n")
    new = cli("audit", "foreach-copy", "--output-format", "json", "pkg", cwd=project)
    old = cli("audit", "foreach-copy", "--format", "json", "pkg", cwd=project)
    assert new.returncode == 0 and new.stdout == old.stdout and json.loads(new.stdout)
    assert cli("audit", "foreach-copy", "--output-format", "xml", "pkg", cwd=project).returncode == 2


def test_clean_removes_a_moved_cache_and_nothing_else(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "moved-cache"
    assert cli("check", "--cache-dir", str(cache), "pkg", cwd=project).returncode == 1
    not_a_cache = tmp_path / "precious"
    not_a_cache.mkdir()
    (not_a_cache / "keep.txt").write_text("x")
    refused = cli("clean", "--cache-dir", str(not_a_cache), cwd=project)
    assert refused.returncode == 0 and b"No cache at" in refused.stdout and (not_a_cache / "keep.txt").exists()
    removed = cli("clean", cwd=project, env={"FSDP_UNPATCH_CACHE_DIR": str(cache)})
    assert removed.returncode == 0 and b"Removed" in removed.stdout and not cache.exists()
