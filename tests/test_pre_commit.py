"""The hooks of `.pre-commit-hooks.yaml`, run by the real pre-commit (`try-repo`) on a throwaway git repo.

pre-commit builds a virtual environment and pip-installs the hook repository into it, about 25 s each time
(try-repo installs into a store of its own; `run` into PRE_COMMIT_HOME, a session-wide temporary folder,
never ~/.cache): the test does it twice, so it takes about a minute. The hook repository is a
snapshot of this checkout as it is on disk, committed to a temporary git repo: try-repo on the checkout
itself would take HEAD plus the changes to tracked files only, and miss new files.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration import cli, make_project
from tests.packaging import GIT_ENV, TAG, git, tagged_repo

pytestmark = pytest.mark.slow  # installs and runs the hooks with pre-commit

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot of this checkout committed and tagged as the release (`v<version>`)."""
    return tagged_repo(tmp_path_factory.mktemp("hook-repo") / "repo")


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(*args: str, project: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("CI", None)
    return subprocess.run(["pre-commit", *args], cwd=project, capture_output=True, text=True, env=env)


def example_config(hook_repo: Path, project: Path) -> Path:
    """examples/pre-commit-config.yaml, pointed at the snapshot; its `rev` (the release tag) stays as written."""
    text = (ROOT / "examples" / "pre-commit-config.yaml").read_text()
    assert f"rev: {TAG}\n" in text
    text = re.sub(r"repo: \S+", f"repo: {hook_repo}", text, count=1)
    config = project / ".pre-commit-config.yaml"
    config.write_text(text)
    return config


def test_check_fails_fix_rewrites_then_both_pass(tmp_path: Path, hook_repo: Path, pre_commit_home: Path) -> None:
    project = make_project(tmp_path / "project")
    excluded = project / "build" / "generated.py"  # pre-commit names it; --force-exclude skips it
    excluded.parent.mkdir()
    shutil.copy2(project / "pkg" / "patch.py", excluded)
    git("init", "-q", cwd=project)
    git("add", ".", cwd=project)
    reference = tmp_path / "reference"
    shutil.copytree(project / "pkg", reference / "pkg")
    assert cli("fix", "pkg", cwd=reference).returncode == 0
    before = (project / "pkg" / "patch.py").read_bytes()

    # Both hooks of the manifest, in its order: the check sees the patch, then the fix removes it.
    first = pre_commit("try-repo", str(hook_repo), "--all-files", project=project, home=pre_commit_home)
    assert first.returncode == 1, first.stdout + first.stderr
    check, fix = first.stdout.split("fsdp-unpatch (fix)")
    assert re.search(r"fsdp-unpatch \(check\)\.+Failed", check), check
    assert "pkg/patch.py" in check and "FSU001" in check
    assert "build/generated.py" not in check
    assert fix.lstrip(".").startswith("Failed"), fix  # a hook that changes files fails the commit
    assert "files were modified by this hook" in fix
    assert (project / "pkg" / "patch.py").read_bytes() == (reference / "pkg" / "patch.py").read_bytes() != before
    assert excluded.read_bytes() == before
    for name in ("enhance.py", "clean.py", "__init__.py"):
        assert (project / "pkg" / name).read_bytes() == (reference / "pkg" / name).read_bytes()

    # Afterwards both pass, run the usual way from the example configuration.
    config = example_config(hook_repo, project)
    git("add", ".", cwd=project)
    again = pre_commit("run", "--config", str(config), "--all-files", project=project, home=pre_commit_home)
    assert again.returncode == 0, again.stdout + again.stderr
    assert re.search(r"fsdp-unpatch \(fix\)\.+Passed", again.stdout), again.stdout
    assert re.search(r"fsdp-unpatch \(check\)\.+Passed", again.stdout), again.stdout
