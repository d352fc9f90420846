"""The composite GitHub Action (`action.yml`) and the GitLab CI template (`templates/gitlab-ci.yml`): their
shell steps, run by bash as the runners run them, in a clean virtual environment, with the wheel that
`python -m build` makes as the package. Only what needs GitHub or GitLab themselves (upload-sarif, the
code quality widget) is checked by its configuration instead."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.ci_steps import ACTION, run_action_steps
from tests.integration import make_project
from tests.packaging import ROOT, action_venv, clean_env

pytestmark = pytest.mark.slow  # runs the CI templates' shell steps

GITLAB = yaml.safe_load((ROOT / "templates" / "gitlab-ci.yml").read_text())
GITLAB_SCHEMA = json.loads((ROOT / "tests" / "data" / "gitlab-code-quality.schema.json").read_text())


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean virtual environment without fsdp-unpatch: the install steps install it (shared with
    tests/test_examples_ci.py)."""
    return action_venv(tmp_path_factory)


def _counting_shim(folder: Path, venv_bin: Path, log: Path) -> Path:
    """An `fsdp-unpatch` ahead of the installed one on PATH that logs each call, then runs the real one."""
    folder.mkdir()
    shim = folder / "fsdp-unpatch"
    shim.write_text(f'#!/bin/bash\necho "$*" >> "{log}"\nexec "{venv_bin / "fsdp-unpatch"}" "$@"\n')
    shim.chmod(0o755)
    return folder


def test_action_checks_once_and_reports_everything_from_that_run(dists, venv_bin: Path, tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    summary = tmp_path / "step-summary.md"
    calls = tmp_path / "calls.log"
    run = run_action_steps(
        project,
        venv_bin,
        {"version": str(dists.wheel), "args": "pkg", "target-torch": "2.9"},
        summary,
        path_prefix=_counting_shim(tmp_path / "shim", venv_bin, calls),
    )
    install, check = run.steps
    assert install.returncode == 0, install.stderr
    assert (venv_bin / "fsdp-unpatch").is_file()  # the console script of the installed wheel
    assert len(calls.read_text().splitlines()) == 1  # one run of check for every report
    assert check.returncode == 1, check.stderr  # the job fails on findings, after writing every report
    sarif_path = project / "fsdp-unpatch.sarif"
    sarif = json.loads(sarif_path.read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"FSU001", "FSU002", "FSU003"}
    assert summary.read_text().startswith("## fsdp-unpatch\n") and "target torch 2.9" in summary.read_text()
    assert re.search(r"^::error file=pkg/patch\.py,line=\d+,.*title=fsdp-unpatch \(FSU001\)::", check.stdout, re.M)
    # outputs: what fails the run (keep findings aside), the safe fixes, and where the SARIF file is
    assert run.outputs == {"findings": "3", "fixable": "3", "held-back": "0", "sarif-file": str(sarif_path)}

    upload = next(
        s for s in ACTION["runs"]["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    )
    assert upload["uses"] == "github/codeql-action/upload-sarif@v4"  # v3 is deprecated at the end of 2026
    assert "always()" in upload["if"] and upload["with"]["sarif_file"] == "${{ steps.check.outputs.sarif-file }}"


def test_action_arguments_are_split_as_a_shell_would_and_never_run(dists, venv_bin: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    make_project(project / "my pkg")  # a folder name with a space
    marker = tmp_path / "pwned"
    args = f"'my pkg' --select FSU0 $(touch {marker}) *"
    run = run_action_steps(project, venv_bin, {"version": str(dists.wheel), "args": args}, tmp_path / "summary.md")
    check = run.steps[-1]
    assert not marker.exists()  # nothing in the arguments is executed
    # `$(touch ...)` and `*` reach the tool as the words they are: paths that do not exist, said so
    assert check.returncode == 2 and "no such file or directory" in check.stderr, check.stderr
    run = run_action_steps(
        project, venv_bin, {"version": str(dists.wheel), "args": "'my pkg' --select FSU0"}, tmp_path / "summary.md"
    )
    assert run.steps[-1].returncode == 1, run.steps[-1].stderr
    results = json.loads((project / "fsdp-unpatch.sarif").read_text())["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"my%20pkg/pkg/patch.py"} and run.outputs["findings"] == "3"


def test_action_version_input_is_a_pip_spec_and_defaults_to_the_actions_own_checkout() -> None:
    install = ACTION["runs"]["steps"][0]
    assert install["env"]["VERSION"] == "${{ inputs.version }}" and ACTION["inputs"]["version"]["default"] == ""
    assert "${VERSION:-$ACTION_PATH}" in install["run"]
    assert {"findings", "fixable", "sarif-file"} <= set(ACTION["outputs"])
    for step in ACTION["runs"]["steps"]:  # no input reaches a shell by substitution, only through env
        assert "${{ inputs." not in step.get("run", "")


def test_action_passes_on_a_clean_tree(dists, venv_bin: Path, tmp_path: Path) -> None:
    project = tmp_path / "clean"
    project.mkdir()
    (project / "ok.py").write_text("import torch\n")
    summary = tmp_path / "summary.md"
    run = run_action_steps(project, venv_bin, {"version": str(dists.wheel), "sarif-file": "out.sarif"}, summary)
    assert [r.returncode for r in run.steps] == [0, 0], [r.stderr for r in run.steps]
    assert json.loads((project / "out.sarif").read_text())["runs"][0]["results"] == []
    assert ":white_check_mark: nothing to fix" in summary.read_text()
    assert run.outputs == {"findings": "0", "fixable": "0", "held-back": "0", "sarif-file": str(project / "out.sarif")}


def test_gitlab_template_writes_a_valid_code_quality_report(dists, venv_bin: Path, tmp_path: Path) -> None:
    job = GITLAB["fsdp-unpatch"]
    report_name = job["artifacts"]["reports"]["codequality"]
    assert job["artifacts"]["when"] == "always"
    project = make_project(tmp_path / "project")
    # the template's default package is the tagged release on the project's git host; here: the wheel
    variables = {**job["variables"], "FSDP_UNPATCH_PACKAGE": str(dists.wheel), "FSDP_UNPATCH_ARGS": "pkg"}
    env = clean_env(PATH=f"{venv_bin}{os.pathsep}{os.environ['PATH']}", **variables)
    codes = []
    for line in job["script"]:
        codes.append(
            subprocess.run(["bash", "-e", "-c", line], cwd=project, env=env, capture_output=True, text=True).returncode
        )
    assert codes == [0, 1]  # install, then the one check: the report, the log and the failing verdict
    report = json.loads((project / report_name).read_text())
    jsonschema.Draft7Validator(GITLAB_SCHEMA).validate(report)
    assert {issue["check_name"] for issue in report} >= {"FSU001", "FSU201"}
