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
from tests.packaging import ROOT, clean_env, make_venv

pytestmark = pytest.mark.slow  # runs the CI templates' shell steps

GITLAB = yaml.safe_load((ROOT / "templates" / "gitlab-ci.yml").read_text())
GITLAB_SCHEMA = json.loads((ROOT / "tests" / "data" / "gitlab-code-quality.schema.json").read_text())


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean virtual environment without fsdp-unpatch: the install steps install it."""
    return make_venv(tmp_path_factory.mktemp("ci-venv") / "venv")


def test_action_installs_reports_and_fails_on_findings(dists, venv_bin: Path, tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    summary = tmp_path / "step-summary.md"
    install, report, annotate = run_action_steps(
        project, venv_bin, {"package": str(dists.wheel), "args": "pkg", "target-torch": "2.9"}, summary
    )
    assert install.returncode == 0, install.stderr
    assert (venv_bin / "fsdp-unpatch").is_file()  # the console script of the installed wheel
    assert report.returncode == 0, report.stderr
    sarif = json.loads((project / "fsdp-unpatch.sarif").read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"FSU001", "FSU002", "FSU003"}
    assert summary.read_text().startswith("## fsdp-unpatch\n") and "target torch 2.9" in summary.read_text()
    assert annotate.returncode == 1  # the job fails on findings
    assert re.search(r"^::error file=pkg/patch\.py,line=\d+,.*title=fsdp-unpatch \(FSU001\)::", annotate.stdout, re.M)

    upload = next(
        s for s in ACTION["runs"]["steps"] if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    )
    assert "always()" in upload["if"] and upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"


def test_action_passes_on_a_clean_tree(dists, venv_bin: Path, tmp_path: Path) -> None:
    project = tmp_path / "clean"
    project.mkdir()
    (project / "ok.py").write_text("import torch\n")
    summary = tmp_path / "summary.md"
    results = run_action_steps(project, venv_bin, {"package": str(dists.wheel), "sarif-file": "out.sarif"}, summary)
    assert [r.returncode for r in results] == [0, 0, 0], [r.stderr for r in results]
    assert json.loads((project / "out.sarif").read_text())["runs"][0]["results"] == []
    assert ":white_check_mark: nothing to fix" in summary.read_text()


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
    assert codes == [0, 0, 1]  # install, report (--exit-zero), then the check that fails the job
    report = json.loads((project / report_name).read_text())
    jsonschema.Draft7Validator(GITLAB_SCHEMA).validate(report)
    assert {issue["check_name"] for issue in report} >= {"FSU001", "FSU201"}
