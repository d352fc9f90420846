"""The install paths of the README, for real: `python -m build`, `twine check --strict`, the wheel and the
sdist in clean virtual environments, pipx from the wheel, uvx from the wheel and from a git tag, and the
metadata (SPDX license, LICENSE file, project URLs, classifiers, py.typed)."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from fsdp_unpatch import HOMEPAGE, README_URL, __version__
from tests.integration import make_project
from tests.packaging import ROOT, TAG, clean_env, make_venv, pip_install, tagged_repo

pytestmark = pytest.mark.slow  # builds, checks and installs the wheel and sdist

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(archive.read(name).decode()), archive.namelist()


def test_twine_check_strict_passes_for_wheel_and_sdist(dists) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(dists.wheel), str(dists.sdist)],
        capture_output=True,
        text=True,
        env=clean_env(NO_COLOR="1"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2


def test_wheel_metadata_and_contents(dists) -> None:
    metadata, names = _metadata(dists.wheel)
    assert dists.wheel.name == f"fsdp_unpatch-{__version__}-py3-none-any.whl"
    assert metadata["Version"] == __version__
    assert metadata["License-Expression"] == "BSD-3-Clause"
    assert metadata["License-File"] == "LICENSE"
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL"))
    assert urls["Homepage"] == HOMEPAGE and urls["Documentation"] == README_URL
    assert metadata["Description-Content-Type"] == "text/markdown"
    for expected in (
        "fsdp_unpatch/py.typed",
        "fsdp_unpatch/data/catalog.toml",
        "fsdp_unpatch/data/upstream.json",
        # the compiled forms a run reads (scripts/compile_data.py)
        "fsdp_unpatch/data/compiled_catalog.py",
        "fsdp_unpatch/data/compiled_symbols.py",
        "fsdp_unpatch/data/compiled_upstream.py",
        "fsdp_unpatch/codemods/unpatch.py",
        # the Chinese catalog the tool reads at run time, and its source (scripts/i18n_catalog.py)
        "fsdp_unpatch/locale/zh_CN/LC_MESSAGES/fsdp_unpatch.mo",
        "fsdp_unpatch/locale/zh_CN/LC_MESSAGES/fsdp_unpatch.po",
        f"fsdp_unpatch-{__version__}.dist-info/licenses/LICENSE",
    ):
        assert expected in names, expected
    # Nothing installs at the top level but the package: no `codemods` to clash with a project's own.
    assert {n.split("/", 1)[0] for n in names} == {"fsdp_unpatch", f"fsdp_unpatch-{__version__}.dist-info"}
    # Every package of the source tree is declared (pyproject's explicit list) and so shipped.
    shipped = {n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py")}
    on_disk = {p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "fsdp_unpatch").rglob("__init__.py")}
    assert on_disk | {"fsdp_unpatch/codemods"} == shipped
    with tarfile.open(dists.sdist) as archive:
        members = {
            Path(m).relative_to(f"fsdp_unpatch-{__version__}").as_posix() for m in archive.getnames() if "/" in m
        }
    assert {"LICENSE", "README.md", "pyproject.toml", "fsdp_unpatch/py.typed"} <= members


def test_declared_pythons_are_the_tested_ones() -> None:
    """Every `Programming Language :: Python :: X.Y` classifier names an interpreter `.ci/run` tests on:
    the one running this suite (no other interpreter can be had from this project's package registries)."""
    declared = {
        c.rsplit(" :: ", 1)[1]
        for c in PYPROJECT["project"]["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    assert declared == {f"{sys.version_info.major}.{sys.version_info.minor}"}
    assert "BSD 3-Clause License" in (ROOT / "LICENSE").read_text()
    assert PYPROJECT["project"]["license"] == "BSD-3-Clause"


def _checks_the_example(script: Path, tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    version = subprocess.run([str(script), "--version"], capture_output=True, text=True, env=clean_env())
    assert version.stdout.strip() == f"fsdp-unpatch, version {__version__}"
    check = subprocess.run(
        [str(script), "check", "--output-format", "concise", "pkg"],
        cwd=project,
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert check.returncode == 1 and "pkg/patch.py" in check.stdout and "FSU001" in check.stdout, check.stderr


def test_sdist_installs_into_a_clean_venv(dists, tmp_path: Path) -> None:
    bin_dir = make_venv(tmp_path / "venv")
    pip_install(bin_dir, str(dists.sdist))
    _checks_the_example(bin_dir / "fsdp-unpatch", tmp_path)
    # the API and its type marker come with it
    typed = subprocess.run(
        [
            str(bin_dir / "python"),
            "-c",
            "import importlib.resources as r, fsdp_unpatch.api as a; "
            "print(r.files('fsdp_unpatch').joinpath('py.typed').is_file(), a.check_paths.__name__)",
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
    )
    assert typed.stdout.split() == ["True", "check_paths"], typed.stderr


def test_pipx_installs_the_wheel(dists, tmp_path: Path) -> None:
    env = clean_env(
        PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "bin"), PIPX_MAN_DIR=str(tmp_path / "man")
    )
    result = subprocess.run(
        [sys.executable, "-m", "pipx", "install", str(dists.wheel)], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stdout + result.stderr
    _checks_the_example(tmp_path / "bin" / "fsdp-unpatch", tmp_path)


def test_uvx_runs_from_the_wheel_and_from_a_git_tag(dists, tmp_path: Path) -> None:
    """`uvx --from WHEEL` and `uvx --from git+URL@TAG`; the tag is made here, in a throwaway repository."""
    repo = tagged_repo(tmp_path / "repo")
    env = clean_env(
        UV_CACHE_DIR=str(tmp_path / "uv-cache"), UV_PYTHON_DOWNLOADS="never", UV_TOOL_DIR=str(tmp_path / "uv-tools")
    )
    uvx = [sys.executable, "-m", "uv", "tool", "run"]
    project = make_project(tmp_path / "project")
    for source in (str(dists.wheel), f"git+{repo.as_uri()}@{TAG}"):
        result = subprocess.run(
            [*uvx, "--from", source, "fsdp-unpatch", "check", "--output-format", "concise", "pkg"],
            cwd=project,
            capture_output=True,
            text=True,
            env=env,
        )
        assert result.returncode == 1 and "FSU001" in result.stdout, source + result.stderr


def test_the_documented_release_tag_is_this_version() -> None:
    """Where the README, docs/, the pre-commit example and the CI templates name a release tag (beside the
    commit they tell to pin while no tag is published), it is `v<version>`, the tag of this release."""
    tag = re.compile(r"\bv\d+\.\d+\.\d+\b")
    # The README tells to pin a commit (no tag is published yet) and names a tag only as `vVERSION`.
    assert set(tag.findall((ROOT / "README.md").read_text())) <= {TAG}
    for page in [ROOT / "docs" / "integrations.md", ROOT / "templates" / "gitlab-ci.yml"]:
        text = page.read_text()
        assert tag.findall(text) and set(tag.findall(text)) == {TAG}, page
    # development.md shows how the *next* release is made (`release.py 0.3.0` tags v0.3.0): not an install pin
    docs = "".join(page.read_text() for page in (ROOT / "docs").glob("*.md") if page.name != "development.md")
    assert set(tag.findall(docs)) == {TAG}
    assert re.search(rf"rev: {re.escape(TAG)}\b", (ROOT / "examples" / "pre-commit-config.yaml").read_text())
