"""The Action's check step (`action.yml`, `shell: python`) run alone with the fsdp-unpatch on PATH, against what
a job does to it: each test failed before its fix. (tests/test_ci_templates.py runs every step from a built
wheel, slowly.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.ci_steps import ACTION, evaluate, read_outputs
from tests.integration import make_project
from tests.packaging import clean_env

CHECK = next(step for step in ACTION["runs"]["steps"] if step.get("id") == "check")
TOOL = shutil.which("fsdp-unpatch") or str(Path(sys.executable).parent / "fsdp-unpatch")


def _check_step(project: Path, temp: Path, args: str, name: str) -> tuple[subprocess.CompletedProcess, dict]:
    """One run of the step, with the job's RUNNER_TEMP and step summary shared by every run of the job."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    context = {f"inputs.{k}": v for k, v in {**inputs, "args": args}.items()}
    output = temp.parent / f"output-{name}"
    env = clean_env(
        PATH=f"{Path(TOOL).parent}{os.pathsep}{os.environ['PATH']}",
        GITHUB_STEP_SUMMARY=str(temp.parent / "summary.md"),
        GITHUB_OUTPUT=str(output),
        RUNNER_TEMP=str(temp),
        **{k: evaluate(str(v), context) for k, v in CHECK["env"].items()},
    )
    script = temp.parent / f"step-{name}.py"
    script.write_text(evaluate(CHECK["run"], context))
    result = subprocess.run([sys.executable, str(script)], cwd=project, env=env, capture_output=True, text=True)
    return result, read_outputs(output)


def test_a_second_run_in_the_job_never_reports_the_first_runs_findings(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    first, outputs = _check_step(project, temp, "pkg", "first")
    assert first.returncode == 1 and outputs["findings"] == "3", first.stderr
    summary = (tmp_path / "summary.md").read_text()
    # the same action again in the job, with a flag the tool refuses: no report of its own
    second, outputs = _check_step(project, temp, "pkg --select NOPE", "second")
    assert second.returncode == 2, second.stderr
    assert outputs == {}  # not the first run's counts and SARIF file, which upload-sarif would upload again
    assert (tmp_path / "summary.md").read_text() == summary


def test_args_a_shell_could_not_split_are_a_clear_error(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    result, outputs = _check_step(project, temp, "pkg --select 'FSU0", "unclosed")
    assert result.returncode == 2 and outputs == {}
    assert "Traceback" not in result.stderr
    assert result.stdout.startswith("::error title=fsdp-unpatch::input args: No closing quotation")
