"""The example GitHub Actions workflow uses the action at the release tag, with inputs the action declares,
and those inputs do what its comments say when the action's steps run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from fsdp_unpatch import __version__
from tests.ci_steps import ACTION, run_action_steps
from tests.integration import make_project
from tests.packaging import ROOT, action_venv

WORKFLOW = yaml.safe_load((ROOT / "examples" / "github-actions.yml").read_text())


def _action_step() -> dict:
    steps = WORKFLOW["jobs"]["fsdp-unpatch"]["steps"]
    (step,) = [s for s in steps if s.get("uses", "").split("@")[0].endswith("/fsdp-unpatch")]
    return step


def test_workflow_pins_the_release_tag_and_declared_inputs() -> None:
    step = _action_step()
    assert step["uses"].endswith(f"@v{__version__}")
    assert set(step["with"]) <= set(ACTION["inputs"])
    assert WORKFLOW["permissions"]["security-events"] == "write"  # upload-sarif needs it


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action's virtual environment of tests/test_ci_templates.py (`action_venv`): its install step is the
    same step with the same wheel, so a second clean venv and full install would prove nothing more."""
    return action_venv(tmp_path_factory)


def test_workflow_inputs_run_against_a_patched_project(dists, venv_bin: Path, tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    inputs = {**_action_step()["with"], "version": str(dists.wheel)}
    run = run_action_steps(project, venv_bin, inputs, tmp_path / "summary.md")
    install, check = run.steps
    assert install.returncode == 0
    assert check.returncode == 1 and check.stdout.startswith("::")  # the job fails on findings
    assert json.loads((project / "fsdp-unpatch.sarif").read_text())["runs"][0]["results"]
    assert "target torch 2.9" in (tmp_path / "summary.md").read_text()
