"""The torch a project declares decides what is safe to remove (issue 21, item 1).

The project is the bundled legacy example (three collectives overrides: removable from torch 2.6, 2.7 and
2.8) with its declaration rewritten; the reader is also tested alone on the files a project declares torch in.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.api import check_paths
from fsdp_unpatch.catalog.versions import Version, known_releases
from fsdp_unpatch.config import target_torch
from fsdp_unpatch.config.declared_torch import declared_torch
from tests.helpers import cli_runner

ROOT = Path(__file__).resolve().parent.parent
KNOWN = known_releases("2.4", "2.13")
PATCH = "legacy_npu/distributed/fsdp/_add_fsdp_patch.py"


def _releases(*minors: int) -> frozenset[Version]:
    return frozenset(Version(2, m) for m in minors)


def _example(tmp_path: Path, pyproject_dependencies: str = "[]") -> Path:
    """The legacy example, declaring `pyproject_dependencies` as its [project] dependencies."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples" / "legacy_project", project, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "legacy-npu"\nversion = "0"\ndependencies = {pyproject_dependencies}\n'
    )
    return project


def _seen(findings) -> list[tuple]:
    return [(f.code, f.path, f.span.line, f.span.column, f.message) for f in findings]


def _codes_at(findings, path: str) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for f in findings:
        if f.path.endswith(path):
            out.setdefault(f.span.line, set()).add(f.code)
    return out


# --- what a declaration changes --------------------------------------------------------------------------


def test_a_pinned_torch_gives_exactly_the_findings_of_target_torch(tmp_path: Path, monkeypatch) -> None:
    project = _example(tmp_path, '["torch==2.7.1"]')
    monkeypatch.chdir(tmp_path)
    declared = check_paths(["project"])
    flagged = check_paths(["project"], target_torch="2.7")
    assert _seen(declared) == _seen(flagged)
    # and 2.7 is not the newest: all_gather_copy_in (native from 2.8) stays, the two others go
    codes = {f.code for f in declared}
    assert "FSU102" in codes and "FSU001" in codes
    assert _seen(declared) != _seen(check_paths(["project"], target_torch="2.13"))
    assert project.is_dir()


def test_a_range_removes_only_what_is_safe_on_its_lowest_release_and_names_the_floor(
    tmp_path: Path, monkeypatch
) -> None:
    _example(tmp_path, '["torch>=2.6"]')
    monkeypatch.chdir(tmp_path)
    findings = check_paths(["project"])
    too_old = [f for f in findings if f.code == "FSU102"]
    floors = sorted({f.message.rsplit("raise torch to >= ", 1)[1] for f in too_old})
    assert floors == ["2.7 to remove it", "2.8 to remove it"]
    assert all("the lowest release the project allows (torch 2.6 to 2.14)" in f.message for f in too_old)
    removed = {f.target for f in findings if f.code == "FSU001"}
    assert removed == {"_fsdp_collectives._get_param_all_gather_inputs"}  # native from 2.6


def test_a_range_whose_floor_is_safe_removes_all_of_it(tmp_path: Path, monkeypatch) -> None:
    _example(tmp_path, '["torch>=2.8,<3"]')
    monkeypatch.chdir(tmp_path)
    # The same findings and verdicts; only the release a proof names differs (the newest match in the target).
    ranged, floor = check_paths(["project"]), check_paths(["project"], target_torch="2.8")
    verdicts = [(f.code, f.path, f.span.line, f.span.column, f.category, f.fix is not None) for f in ranged]
    assert verdicts == [(f.code, f.path, f.span.line, f.span.column, f.category, f.fix is not None) for f in floor]
    assert not [f for f in ranged if f.code == "FSU102"]


def test_a_range_checks_by_name_twins_on_every_release_it_allows(tmp_path: Path, monkeypatch) -> None:
    """`compiled_autograd_enabled` was imported by name into `_fsdp_param_group` in torch 2.6 to 2.11 only."""
    project = tmp_path / "twins"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "t"\nversion = "0"\ndependencies = ["torch>=2.10"]\n')
    (project / "compile_flags.py").write_text(
        "from torch.distributed.fsdp._fully_shard import _fsdp_common\n\n\n"
        "def _never_compiled():\n    return False\n\n\n"
        "_fsdp_common.compiled_autograd_enabled = _never_compiled\n"
    )
    monkeypatch.chdir(tmp_path)
    assert not [f for f in check_paths(["twins"], target_torch="2.13") if f.code == "FSU401"]
    stale = [f for f in check_paths(["twins"]) if f.code == "FSU401"]
    assert stale and all("(torch 2.10)" in f.message for f in stale), _seen(stale)


# --- the summary, --show-settings and warnings -----------------------------------------------------------


def test_the_summary_and_show_settings_name_the_declaration(tmp_path: Path) -> None:
    from fsdp_unpatch.cli import main

    project = _example(tmp_path, '["torch==2.7.1"]')
    done = cli_runner().invoke(main, ["check", "--no-cache", str(project)])
    assert "Target torch 2.7 (pyproject.toml: torch==2.7.1)." in done.output
    shown = cli_runner().invoke(main, ["check", "--show-settings", str(project)])
    assert 'target-torch = "2.7 (pyproject.toml: torch==2.7.1)"' in shown.output
    (project / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\ndependencies = ["torch>=2.6"]\n')
    ranged = cli_runner().invoke(main, ["check", "--no-cache", str(project)])
    assert "Target torch 2.6 to 2.14 (pyproject.toml: torch>=2.6)." in ranged.output


def test_an_installed_torch_outside_the_declaration_is_one_warning(tmp_path: Path, monkeypatch) -> None:
    from fsdp_unpatch.cli import main

    monkeypatch.setattr(target_torch, "installed_version", lambda: "2.13.0+cpu")
    project = _example(tmp_path, '["torch==2.7.1"]')
    done = cli_runner().invoke(main, ["fix", "--no-cache", str(project)])  # fix analyses twice
    assert done.stderr.count("warning: the installed torch 2.13.0+cpu is outside") == 1, done.stderr
    assert "(pyproject.toml: torch==2.7.1)" in done.stderr
    inside = _example(tmp_path / "inside", '["torch>=2.7"]')
    assert "outside" not in cli_runner().invoke(main, ["check", "--no-cache", str(inside)]).stderr


@pytest.mark.parametrize(
    "dependencies, problem",
    [
        ('["torch>=two"]', "pyproject.toml:4: cannot read the requirement `torch>=two`"),
        ('["torch>=3.0"]', "pyproject.toml:4: `torch>=3.0` allows no torch release the catalog knows (2.4 to 2.14)"),
    ],
)
def test_a_bad_declaration_is_a_message_and_the_next_source_decides(
    dependencies: str, problem: str, tmp_path: Path, monkeypatch
) -> None:
    from fsdp_unpatch.cli import main

    monkeypatch.setattr(target_torch, "installed_version", lambda: "2.9.0")
    project = _example(tmp_path, dependencies)
    done = cli_runner().invoke(main, ["check", "--no-cache", str(project)])
    assert done.exit_code == 1 and done.exception is None or isinstance(done.exception, SystemExit)
    assert "Traceback" not in done.stderr
    assert problem in done.stderr, done.stderr
    assert "Target torch 2.9 (installed torch)." in done.output


# --- precedence ------------------------------------------------------------------------------------------


def test_precedence_option_then_declaration_then_installed_then_newest(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "requirements.txt").write_text("torch==2.7.1\n")
    installed = {"version": "2.9.0"}
    monkeypatch.setattr(target_torch, "installed_version", lambda: installed["version"])

    def chosen(requested=None, flag=False, root=tmp_path):
        found, _ = target_torch.choose(requested, flag, root, "2.4", "2.13")
        return str(found), found.origin

    assert chosen("2.10", True) == ("2.10", "--target-torch")
    assert chosen("2.11", False) == ("2.11", "configuration")
    assert chosen() == ("2.7", "requirements.txt: torch==2.7.1")
    (tmp_path / "requirements.txt").unlink()
    assert chosen() == ("2.9", "installed torch")
    installed["version"] = None
    assert chosen() == ("2.13", "newest known")
    assert chosen(root=None) == ("2.13", "newest known")


# --- where a declaration is read -------------------------------------------------------------------------


def test_optional_dependencies_are_alternatives_and_markers_too(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "0"\ndependencies = ["numpy"]\n'
        '[project.optional-dependencies]\nverify = ["torch>=2.10"]\ntest = ["torch==2.7.1"]\n'
    )
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert declared is not None and problems == []
    assert declared.releases == _releases(7, 10, 11, 12, 13)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "0"\ndependencies = [\n'
        "  \"torch==2.7.1; platform_machine == 'aarch64'\",\n  \"torch==2.9.0; platform_machine == 'x86_64'\",\n]\n"
    )
    declared, _ = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.releases == _releases(7, 9)
    assert declared.where == "pyproject.toml:5, pyproject.toml:6"


def test_requirements_files_with_includes_comments_continuations_extras_and_options(tmp_path: Path) -> None:
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements-dev.txt").write_text(
        "# development\n-r requirements/base.txt\n--index-url https://example.invalid/simple\n-e .\n"
    )
    (tmp_path / "requirements" / "base.txt").write_text(
        "numpy>=1.24  # torch needs it\n"
        "torch[opt] \\\n"
        "    >=2.8 ; python_version >= '3.9' --hash=sha256:0123  # the floor\n"
        "-c constraints.txt\n"
    )
    (tmp_path / "requirements" / "constraints.txt").write_text("torch<2.11\n")
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert problems == []
    assert declared is not None and declared.releases == _releases(8, 9, 10)
    assert declared.where == "requirements/base.txt:2, requirements/constraints.txt:1"
    assert declared.origin == (
        "requirements/base.txt: torch[opt] >=2.8 ; python_version >= '3.9'; requirements/constraints.txt: torch<2.11"
    )


def test_a_source_that_allows_nothing_is_named_and_the_others_decide(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==2.9.0\n")
    (tmp_path / "setup.cfg").write_text("[options]\ninstall_requires =\n    torch>=3.1\n")
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.releases == _releases(9)
    assert declared.origin == "requirements.txt: torch==2.9.0"
    assert problems == ["setup.cfg:3: `torch>=3.1` allows no torch release the catalog knows; it is not used"]


def test_a_missing_include_is_named(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch>=2.9\n-r missing.txt\n")
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.releases == _releases(9, 10, 11, 12, 13)
    assert problems == ["requirements.txt:2: `-r missing.txt`: no such file; it is not used"]


def test_setup_cfg_and_setup_py_are_read_never_run(tmp_path: Path) -> None:
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nname = x\n\n[options]\ninstall_requires =\n    numpy\n    torch~=2.9.0  # pinned minor\n"
    )
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert problems == [] and declared is not None and declared.releases == _releases(9)
    assert declared.origin == "setup.cfg: torch~=2.9.0"
    (tmp_path / "setup.cfg").unlink()
    marker = tmp_path / "RAN"
    (tmp_path / "setup.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nfrom setuptools import setup\n"
        "REQUIRES = ['numpy', 'torch>=2.11']\n"
        "setup(name='x', install_requires=REQUIRES, extras_require={'dev': ['torch==2.12.0']})\n"
    )
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert problems == [] and declared is not None and declared.releases == _releases(11, 12, 13)
    assert declared.where == "setup.py:3"
    assert not marker.exists()


def test_torch_npu_pairs_with_the_torch_of_its_minor_release(tmp_path: Path) -> None:
    (tmp_path / "torch_npu").mkdir()
    (tmp_path / "version.txt").write_text("2.8.0.post5\n")
    declared, _ = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.releases == _releases(8)
    assert declared.origin == "version.txt: torch-npu 2.8.0.post5"
    (tmp_path / "torch_npu" / "version.py").write_text('__version__ = "2.7.1.post11"\ngit_version = "abc"\n')
    (tmp_path / "requirements.txt").write_text("torch>=2.4\n")  # torch-npu's own version decides for it
    declared, _ = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.releases == _releases(7)
    assert declared.origin == "torch_npu/version.py: torch-npu 2.7.1.post11"


def test_a_torch_npu_dependency_declares_the_torch_of_its_minor(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch-npu==2.8.*\n")
    declared, _ = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.releases == _releases(8)
    (tmp_path / "requirements.txt").write_text("Torch_NPU>2.9.0,<2.11\n")
    declared, _ = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.releases == _releases(9, 10)


def test_a_requirement_without_a_version_declares_nothing(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch\ntorchvision>=0.20\n")
    assert declared_torch(tmp_path, KNOWN) == (None, [])


# --- the cache -------------------------------------------------------------------------------------------


def test_the_cache_does_not_outlive_a_changed_declaration(tmp_path: Path) -> None:
    from fsdp_unpatch.cli import main

    project = _example(tmp_path, '["torch>=2.8"]')
    cache = ["--cache-dir", str(tmp_path / "cache"), "--output-format", "concise"]
    first = cli_runner().invoke(main, ["check", *cache, str(project)])
    assert "FSU102" not in first.output
    (project / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\ndependencies = ["torch>=2.6"]\n')
    second = cli_runner().invoke(main, ["check", *cache, str(project)])
    assert "FSU102" in second.output


# --- special files ---------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_or_device_named_like_a_requirements_file_is_named_never_read(tmp_path: Path) -> None:
    """`requirements*.txt` is found by a glob, which does not ask whether the name is a regular file: a FIFO
    hung the run (deaf to SIGTERM) and a link to /dev/zero read without end."""
    project = _example(tmp_path, '["torch==2.7.1"]')
    os.mkfifo(project / "requirements-dev.txt")
    (project / "requirements-zero.txt").symlink_to("/dev/zero")
    run = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=project,
        capture_output=True,
        timeout=30,
    )
    stderr = run.stderr.decode()
    assert "Traceback" not in stderr and run.returncode == 1, stderr
    assert "requirements-dev.txt: cannot be read" in stderr and "requirements-zero.txt: cannot be read" in stderr
    assert "Target torch 2.7 (pyproject.toml: torch==2.7.1)" in run.stdout.decode()


def test_a_hostile_requirements_file_name_stays_on_its_line_in_the_summary_and_the_warnings(tmp_path: Path) -> None:
    """The declaration's file name reaches the summary line and standard error: raw, a newline in it started
    a line of its own there (a CI runner reads `::error ...` at the start of a line as a command)."""
    project = _example(tmp_path)
    hostile = "requirements-\n::error file=train.py::pwned\x1b[2J.txt"
    (project / hostile).write_text("torch==2.7.1\ntorch==2.7.1#not-a-comment\n")
    run = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=project,
        capture_output=True,
        timeout=60,
    )
    stdout, stderr = run.stdout.decode(), run.stderr.decode()
    assert run.returncode == 1, stderr
    assert "\x1b" not in stdout + stderr
    assert not [line for line in (stdout + stderr).splitlines() if line.startswith("::")]
    assert "Target torch 2.7 (requirements-\\n::error file=train.py::pwned\\033[2J.txt: torch==2.7.1)" in stdout
    assert "cannot read the requirement" in stderr


def test_a_huge_dependency_list_is_read_in_linear_time(tmp_path: Path) -> None:
    """Each requirement's line was searched in the whole file before asking whether it names torch: 20,000
    dependencies took about 25 s (quadratic); only torch's lines need a line number."""
    import time

    others = [f"package-number-{i}>=1.0" for i in range(20_000)]
    (tmp_path / "pyproject.toml").write_text(
        "[project]\ndependencies = [\n" + "".join(f'  "{x}",\n' for x in [*others, "torch==2.7.1"]) + "]\n"
    )
    started = time.monotonic()
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert time.monotonic() - started < 5
    assert declared is not None and declared.origin == "pyproject.toml: torch==2.7.1" and not problems
    assert declared.where == "pyproject.toml:20003"


def test_torch_npu_version_annotated_is_read_and_a_computed_one_is_named(tmp_path: Path) -> None:
    """`__version__: str = "..."` is a literal too; a computed `__version__` cannot be read without running the
    module, and was passed over in silence (the project's other declarations then decided for torch-npu itself)."""
    (tmp_path / "torch_npu").mkdir()
    (tmp_path / "requirements.txt").write_text("torch>=2.4\n")
    (tmp_path / "torch_npu" / "version.py").write_text('__version__: str = "2.7.1.post11"\n')
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.origin == "torch_npu/version.py: torch-npu 2.7.1.post11"
    assert not problems
    (tmp_path / "torch_npu" / "version.py").write_text('MAJOR = "2.7"\n__version__ = MAJOR + ".1"\n')
    declared, problems = declared_torch(tmp_path, KNOWN)
    assert declared is not None and declared.origin == "requirements.txt: torch>=2.4"
    assert problems == ["torch_npu/version.py:2: `__version__` is computed, not a string literal; it is not used"]


@pytest.mark.parametrize(
    "name",
    [
        "torch",
        "Torch",
        "TORCH",
        "torch-npu",
        "torch_npu",
        "Torch.NPU",
        "torch--_.npu",
        "torch-",
        "torchvision",
        "torch_npu2",
        "tor.ch",
        "t-orch",
        "pytorch",
        "numpy",
        "torchaudio",
        "TORCH_npu",
    ],
)
def test_a_name_is_told_torch_as_packaging_tells_it(name: str) -> None:
    # the first-five-letters test that spares packaging's import answers as `canonicalize_name` does
    from packaging.utils import canonicalize_name

    from fsdp_unpatch.config.declared_torch import TORCH_NAMES, _names_torch

    assert _names_torch(name) == (canonicalize_name(name) in TORCH_NAMES)


def test_dependencies_that_name_no_torch_are_read_without_packaging(tmp_path: Path) -> None:
    # in a fresh interpreter: a `pyproject.toml` whose dependencies name no torch declares nothing, and the
    # requirement parser is not imported for it
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["numpy>=1.2", "Click"]\n')
    code = (
        "import sys; from pathlib import Path; from fsdp_unpatch.catalog.versions import known_releases;"
        "from fsdp_unpatch.config.declared_torch import declared_torch;"
        "print(declared_torch(Path(sys.argv[1]), known_releases('2.4', '2.13')), 'packaging' in sys.modules)"
    )
    root = str(Path(__file__).resolve().parent.parent)
    environment = {**os.environ, "PYTHONPATH": root}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=environment)
    assert out.stdout.strip() == "(None, []) False", out.stderr
