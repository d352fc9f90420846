"""Run the steps of the composite GitHub Action (`action.yml`) the way a runner does: `shell: bash` steps as
`bash --noprofile --norc -eo pipefail {0}`, `shell: python` steps as `python {0}`, `${{ ... }}` expressions
substituted, each step's `GITHUB_OUTPUT` file read back into `steps.<id>.outputs`, and the action's outputs
evaluated from them. `uses:` steps (upload-sarif) need GitHub itself: they are skipped."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

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


def read_outputs(path: Path) -> dict[str, str]:
    """A `GITHUB_OUTPUT` file: `name=value` lines, or `name<<DELIMITER` ... `DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    while lines:
        line = lines.pop(0)
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            while lines and lines[0] != delimiter:
                value.append(lines.pop(0))
            lines.pop(0)
            outputs[name] = "\n".join(value)
        else:
            name, _, value_text = line.partition("=")
            outputs[name] = value_text
    return outputs


@dataclass
class ActionRun:
    steps: list[subprocess.CompletedProcess] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # the action's `outputs:`, evaluated


def run_action_steps(
    project: Path, venv_bin: Path, inputs: dict, summary: Path, path_prefix: Optional[Path] = None
) -> ActionRun:
    defaults = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    context = {f"inputs.{k}": v for k, v in {**defaults, **inputs}.items()}
    context["github.action_path"] = str(ROOT)
    path = f"{venv_bin}{os.pathsep}{os.environ['PATH']}"
    if path_prefix is not None:
        path = f"{path_prefix}{os.pathsep}{path}"
    temp = summary.parent / "runner-temp"
    temp.mkdir(exist_ok=True)
    run = ActionRun()
    for index, step in enumerate(ACTION["runs"]["steps"]):
        if "run" not in step:
            continue
        if "if" in step:  # the action's shell steps run unconditionally
            raise AssertionError(f"step {step.get('name')!r} has a condition the test does not evaluate")
        output_file = summary.parent / f"output-{index}"
        env = clean_env(
            PATH=path,
            GITHUB_STEP_SUMMARY=str(summary),
            GITHUB_OUTPUT=str(output_file),
            RUNNER_TEMP=str(temp),
            **{k: evaluate(str(v), context) for k, v in step.get("env", {}).items()},
        )
        script = evaluate(step["run"], context)
        if step["shell"] == "bash":
            command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script]
        else:
            assert step["shell"] == "python", step["shell"]
            script_file = summary.parent / f"step-{index}.py"
            script_file.write_text(script)
            command = ["python", str(script_file)]  # the `python` on PATH, as `python {0}` on the runner
        result = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
        run.steps.append(result)
        if "id" in step:
            for name, value in read_outputs(output_file).items():
                context[f"steps.{step['id']}.outputs.{name}"] = value
        if result.returncode:
            break
    for name, spec in ACTION.get("outputs", {}).items():
        try:
            run.outputs[name] = evaluate(spec["value"], context)
        except AssertionError:  # the step that sets it did not run
            continue
    return run
