"""The example GitHub Actions workflow runs commands that exist and do what its comments say."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import yaml

from tests.integration import cli, make_project

WORKFLOW = Path(__file__).resolve().parent.parent / "examples" / "github-actions.yml"


def test_workflow_steps_run_against_a_patched_project(tmp_path: Path) -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps = workflow["jobs"]["fsdp-unpatch"]["steps"]
    commands = [s["run"] for s in steps if "run" in s and s["run"].startswith("fsdp-unpatch ")]
    assert len(commands) == 2
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    project = make_project(tmp_path)

    annotate = shlex.split(commands[0])
    assert "--output-format" in annotate and annotate[annotate.index("--output-format") + 1] == "github"
    result = cli(*annotate[1:], cwd=project)
    assert result.returncode == 1  # the job fails on findings
    assert result.stdout.decode().startswith("::")

    command, redirect = commands[1].split(" > ")
    assert redirect == upload["with"]["sarif_file"]
    result = cli(*shlex.split(command)[1:], cwd=project)
    assert result.returncode == 0  # --exit-zero: the report is uploaded whatever it found
    assert json.loads(result.stdout)["runs"][0]["results"]
    assert upload.get("if") == "always()"
