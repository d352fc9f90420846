"""The CI snippets a user copies (issue 31, item 9): the Action uploads SARIF by default, so every snippet of
it grants `security-events: write`; the GitLab template runs `check` once and writes the code quality report
from that run (`--extra-output`). (tests/test_ci_templates.py runs them from a built wheel, slowly.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION_USE = re.compile(r"uses: OWNER/fsdp-unpatch@")


def _yaml_blocks(path: Path) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", path.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.parametrize("page", ["README.md", "README.zh-CN.md", "docs/integrations.md"])
def test_every_action_snippet_grants_the_sarif_upload(page: str) -> None:
    snippets = [block for block in _yaml_blocks(ROOT / page) if ACTION_USE.search(block)]
    assert snippets, page
    for block in snippets:
        parsed = yaml.safe_load(block)
        jobs = parsed["jobs"] if "jobs" in parsed else {}
        job = next(iter(jobs.values()), {})
        permissions = parsed.get("permissions") or job.get("permissions") or {}
        assert permissions.get("security-events") == "write", block
        assert any(ACTION_USE.search(f"uses: {step.get('uses', '')}") for step in job.get("steps", [])), block


def test_the_gitlab_template_runs_check_once_with_an_extra_output() -> None:
    job = yaml.safe_load((ROOT / "templates" / "gitlab-ci.yml").read_text())["fsdp-unpatch"]
    checks = [line for line in job["script"] if re.search(r"\bfsdp-unpatch check\b", line)]
    assert len(checks) == 1, checks
    report = job["artifacts"]["reports"]["codequality"]
    assert f"--extra-output gitlab:{report}" in checks[0]
    assert "--exit-zero" not in checks[0]  # the one run fails the job on findings
