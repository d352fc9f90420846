"""Issue 31 items 6 to 8: the stdin pipe equals `fix PATH`, an unparsable file that names FSDP2 is reported,
and ruff's command-line habits (comma lists, globs from the project root, global options, `version`, the
`--no-` forms, `--extend-ignore`, `--extend-fixable`, FSDP_UNPATCH_OUTPUT_FORMAT); `# noqa FSU101` without a
colon is FSU502's (its cases are under tests/rules/FSU502)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fsdp_unpatch import __version__
from tests.integration import cli, make_project

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_project"
PATCH = "legacy_npu/distributed/fsdp/_add_fsdp_patch.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def codes(project: Path, *args: str, where: str = "pkg") -> list[str]:
    result = cli("check", "--no-cache", "--output-format", "json", *args, where, cwd=project)
    assert result.returncode in (0, 1), result.stderr
    return sorted(f["code"] for f in json.loads(result.stdout))


# the editor's pipe


def test_fix_from_stdin_gives_what_fix_path_writes_for_every_file_of_the_example(tmp_path: Path) -> None:
    """Before: `fix --stdin-filename PATH -` held every fix back (FSU903: another file imports the installer)
    and printed the buffer unchanged, exit 2, where `fix PATH` applies seven fixes; then it planned the buffer
    with its whole project, as `fix .`, and printed `_add_fsdp_patch.py` without `_apply_fsdp_patch` while
    `_api_patches.py`, which standard output cannot carry, still imports it (issue 31, item 6). A pipe is
    `fix PATH`: byte for byte and with its exit status, for every file of the example."""
    piped, written = tmp_path / "piped", tmp_path / "written"
    shutil.copytree(EXAMPLE, piped)
    shutil.copytree(EXAMPLE, written)
    files = sorted(str(p.relative_to(piped)) for p in piped.rglob("*.py"))
    before = {name: (piped / name).read_bytes() for name in files}
    changed = []
    for name in files:
        through_stdin = cli("fix", "--no-cache", "--stdin-filename", name, "-", cwd=piped, stdin=before[name])
        by_path = cli("fix", "--no-cache", name, cwd=written)
        assert through_stdin.returncode == by_path.returncode, (name, through_stdin.stderr, by_path.stdout)
        assert through_stdin.stdout == (written / name).read_bytes(), name
        # `fix PATH` writes PATH alone (the others are outside its run); put it back for the next file
        assert {n: (written / n).read_bytes() for n in files if n != name} == {n: before[n] for n in files if n != name}
        if through_stdin.stdout != before[name]:
            changed.append((name, by_path.returncode))
        (written / name).write_bytes(before[name])
    # the one file with fixes: seven applied, the installer kept for the file outside the run that calls it
    assert changed == [(PATCH, 1)]
    fixed = cli("fix", "--no-cache", "--stdin-filename", PATCH, "-", cwd=piped, stdin=before[PATCH])
    assert b"import _apply_fsdp_patch" in before["legacy_npu/_api_patches.py"]  # which still imports ...
    assert b"def _apply_fsdp_patch" in fixed.stdout  # ... what the output keeps
    assert b"legacy_npu/_api_patches.py (not in this run) names it" in fixed.stderr
    assert b"_patched_get_param_all_gather_inputs" in before[PATCH] and b"Fixed 7," in fixed.stderr
    assert b"def _patched_get_param_all_gather_inputs" not in fixed.stdout
    assert {name: (piped / name).read_bytes() for name in files} == before  # a pipe never writes


# unparsable files


@pytest.mark.parametrize(
    "text",
    [
        "from torch.distributed.fsdp._fully_shard import _fsdp_collectives\ndef f(:\n    pass\n",
        "import torch\n_fsdp_collectives = 1\nif x\n",
    ],
    ids=["names-fsdp2-module", "names-target-module"],
)
def test_a_file_that_names_fsdp2_and_does_not_parse_is_reported(tmp_path: Path, text: str) -> None:
    """Before: the prefilter's second stage found no install-site shape and dropped the file: 0 findings, exit 0."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "broken.py").write_text(text)
    result = cli("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    found = json.loads(result.stdout)
    assert [(f["code"], f["path"]) for f in found] == [("FSU901", "broken.py")]
    assert result.returncode == 1  # a syntax error is a finding, as in ruff


BROKEN = "from torch.distributed.fsdp._fully_shard import _fsdp_collectives\ndef f(:\n    pass\n"


@pytest.mark.parametrize(
    "args",
    [
        ("check", "broken.py"),
        ("check", "."),
        ("fix", "broken.py"),
        ("fix", "--diff", "broken.py"),
        ("check", "--fix-only", "broken.py"),
        ("check", "--stdin-filename", "broken.py", "-"),
        ("fix", "--stdin-filename", "broken.py", "-"),
    ],
    ids=lambda args: " ".join(args),
)
def test_a_file_that_does_not_parse_exits_1_from_every_entry_point(tmp_path: Path, args: tuple) -> None:
    """Before: exit 2, the status of a usage error or a file that cannot be read; ruff exits 1 for syntax errors."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "broken.py").write_text(BROKEN)
    result = cli(*args, "--no-cache", cwd=tmp_path, stdin=BROKEN.encode())
    assert result.returncode == 1, (result.stdout, result.stderr)
    if "--fix-only" not in args:  # it prints only what it fixed
        assert b"broken.py:2:7: FSU901 [error] syntax error" in result.stdout + result.stderr
    if "-" in args and "fix" in args:
        assert result.stdout == BROKEN.encode()  # the buffer back, unchanged
    assert (tmp_path / "broken.py").read_text() == BROKEN


def test_a_file_that_cannot_be_read_still_exits_2(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "broken.py").write_text(BROKEN)
    (tmp_path / "binary.py").write_bytes(b"from torch.distributed.fsdp import _fsdp_collectives\nx = 1\x00\n")
    result = cli("check", "--no-cache", ".", cwd=tmp_path)
    assert b"FSU902" in result.stdout and b"FSU901" in result.stdout
    assert result.returncode == 2  # the unreadable file is an input error; the syntax error alone would be 1
    assert cli("check", "--no-cache", "--exit-zero", ".", cwd=tmp_path).returncode == 0


def test_a_file_that_names_nothing_of_fsdp2_is_not_parsed(tmp_path: Path) -> None:
    """The prefilter's promise stays: a file without an FSDP2 token is not read as Python at all."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "other.py").write_text("x = (\n")
    result = cli("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    assert (result.returncode, json.loads(result.stdout)) == (0, [])


# ruff's habits


def test_exclude_takes_a_comma_separated_list(project: Path) -> None:
    """Before: `--exclude a.py,b.py` was one pattern that matched nothing."""
    assert codes(project, "--exclude", "pkg/patch.py,pkg/enhance.py", where=".") == []
    assert codes(project, "--extend-exclude", "pkg/enhance.py,pkg/patch.py", where=".") == []
    assert codes(project, where=".") != []


def test_per_file_ignores_are_relative_to_the_project_root(project: Path) -> None:
    """Before: without a [tool.fsdp-unpatch] table, globs were matched from the current folder."""
    (project / "pyproject.toml").write_text('[project]\nname = "p"\n')
    inside = project / "pkg"
    assert codes(project, "--per-file-ignores", "pkg/*.py:FSU", where=".") == []
    assert codes(inside, "--per-file-ignores", "pkg/*.py:FSU", where=".") == []
    assert codes(inside, "--per-file-ignores", "/*.py:FSU", where=".") != []


def test_options_before_the_command_go_to_it(project: Path) -> None:
    quiet = cli("-q", "--no-cache", "check", "pkg", cwd=project)
    assert quiet.returncode == 1 and b"Found" not in quiet.stdout and b"FSU001" in quiet.stdout
    (project / "other.toml").write_text('select = ["FSU003"]\n')
    for args in (["--config", "other.toml", "check"], ["--config=other.toml", "check"], ["--isolated", "check"]):
        result = cli(*args, "--no-cache", "--output-format", "json", "pkg", cwd=project)
        assert result.returncode == 1, result.stderr
    selected = cli("--config", "other.toml", "check", "--no-cache", "--output-format", "json", "pkg", cwd=project)
    assert {f["code"] for f in json.loads(selected.stdout)} == {"FSU003"}


def test_a_global_option_before_a_command_that_does_not_take_it_is_an_error(project: Path) -> None:
    result = cli("-q", "rules", cwd=project)
    assert result.returncode == 2 and b"-q" in result.stderr and b"rules" in result.stderr


def test_version_command(project: Path) -> None:
    text = cli("version", cwd=project)
    assert (text.returncode, text.stdout.decode()) == (0, f"fsdp-unpatch {__version__}\n")
    facts = json.loads(cli("version", "--output-format", "json", cwd=project).stdout)
    assert facts["version"] == __version__ and facts["torch_known"]["newest"]


def test_the_no_forms_undo_the_flag(project: Path) -> None:
    fixes = cli("fix", "--no-cache", "--diff", "--unsafe-fixes", "--no-unsafe-fixes", "pkg", cwd=project)
    safe_only = cli("fix", "--no-cache", "--diff", "pkg", cwd=project)
    assert fixes.stdout == safe_only.stdout
    shown = cli("check", "--no-cache", "--show-fixes", "--no-show-fixes", "pkg", cwd=project)
    plain = cli("check", "--no-cache", "pkg", cwd=project)
    assert shown.stdout.split(b"Took")[0] == plain.stdout.split(b"Took")[0]


def test_extend_ignore_and_extend_fixable(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nignore = ["FSU2"]\nfixable = ["FSU002"]\n')
    assert "FSU201" not in codes(project)
    assert "FSU001" not in codes(project, "--extend-ignore", "FSU001")
    assert "FSU201" not in codes(project, "--extend-ignore", "FSU001")  # added to, not replacing, the file's
    listed = cli("check", "--no-cache", "--output-format", "json", "--extend-fixable", "FSU001", "pkg", cwd=project)
    fixable = {f["code"] for f in json.loads(listed.stdout) if f["fix"] is not None}
    assert {"FSU001", "FSU002"} <= fixable and "FSU003" not in fixable


def test_output_format_from_the_environment(project: Path) -> None:
    result = cli("check", "--no-cache", "pkg", cwd=project, env={"FSDP_UNPATCH_OUTPUT_FORMAT": "json"})
    assert isinstance(json.loads(result.stdout), list)
    environment = {"FSDP_UNPATCH_OUTPUT_FORMAT": "json"}
    flag = cli("check", "--no-cache", "--output-format", "concise", "pkg", cwd=project, env=environment)
    assert flag.stdout.startswith(b"pkg/")
