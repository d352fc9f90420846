"""Run the shell steps of the composite GitHub Action (`action.yml`) the way a runner does."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

from tests.packaging import ROOT, clean_env

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def evaluate(text: str, context: dict) -> str:
    """GitHub's `${{ ... }}` substitution, for the plain names the action uses."""

    def value(match: re.Match) -> str:
        name = match.group(1)
        assert name in context, f"expression {name!r} not covered by the test"
        return context[name]

    return EXPRESSION.sub(value, text)


def run_action_steps(project: Path, venv_bin: Path, inputs: dict, summary: Path) -> list[subprocess.CompletedProcess]:
    defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    context = {f"inputs.{k}": v for k, v in {**defaults, **inputs}.items()}
    context["github.action_path"] = str(ROOT)
    results = []
    for step in ACTION["runs"]["steps"]:
        if "run" not in step:
            continue
        assert step["shell"] == "bash"
        env = clean_env(
            PATH=f"{venv_bin}{os.pathsep}{os.environ['PATH']}",
            GITHUB_STEP_SUMMARY=str(summary),
            **{k: evaluate(str(v), context) for k, v in step.get("env", {}).items()},
        )
        # GitHub runs `shell: bash` steps as `bash --noprofile --norc -eo pipefail {0}`
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", evaluate(step["run"], context)],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
        )
        results.append(result)
        if result.returncode:
            break
    return results
