"""`scripts/release.py VERSION [--dry-run]`, run in a temporary git repository made of this checkout's files:
the bump, the dated CHANGELOG section, the build and its checks, the commit and the annotated tag; and every
refusal leaves the repository as it was."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fsdp_unpatch import __version__
from tests.packaging import clean_env

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "release.py"


def _script():
    spec = importlib.util.spec_from_file_location("release", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository of this checkout's tracked files as they are on disk, one commit, no tags."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the release script works on one")
    copy = tmp_path / "repo"
    for name in git(ROOT, "ls-files", "-z").split("\0"):
        if name and (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    git(copy, "init", "-q")
    git(copy, "config", "user.name", "Release Test")
    git(copy, "config", "user.email", "release@example.invalid")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "the checkout")
    return copy


def release(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(repo / "scripts" / "release.py"), *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env=clean_env(),
    )


def state(repo: Path) -> tuple[str, str, str]:
    return git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain"), git(repo, "tag", "--list")


def next_version() -> str:
    major, minor, *_ = __version__.split(".")
    return f"{major}.{int(minor) + 1}.0"


def test_dated_moves_the_unreleased_entries_and_keeps_every_other_byte() -> None:
    script = _script()
    text = "# Changelog\n\nintro\n\n## [Unreleased]\n\n### Added\n- a thing\n\n## [0.2.0] - 2026-12-01\n\nold\n"
    assert script.dated(text, "0.3.0", "2027-01-02") == (
        "# Changelog\n\nintro\n\n## [Unreleased]\n\n## [0.3.0] - 2027-01-02\n\nTagged `v0.3.0` (scripts/release.py).\n"
        "\n### Added\n- a thing\n\n## [0.2.0] - 2026-12-01\n\nold\n"
    )
    with pytest.raises(script.NotReady, match="CHANGELOG.md: the `## \\[Unreleased\\]` section is empty"):
        script.dated("## [Unreleased]\n\n\n## [0.2.0] - x\n", "0.3.0", "d")
    with pytest.raises(script.NotReady, match="CHANGELOG.md: no `## \\[Unreleased\\]` heading"):
        script.dated("# Changelog\n", "0.3.0", "d")
    assert script.bumped('"""doc"""\n\n__version__ = "0.2.0"\nX = 1\n', "0.3.0") == (
        '"""doc"""\n\n__version__ = "0.3.0"\nX = 1\n'
    )


@pytest.mark.parametrize(
    "version, says",
    [
        ("banana", "'banana' is not a PEP 440 version"),
        ("v0.9.0", "write the version in its normal form, '0.9.0'"),
        (__version__, f"{__version__} is not newer than the current version {__version__}"),
        ("0.0.1", "is not newer than the current version"),
    ],
)
def test_a_bad_version_is_refused_and_nothing_changes(repo: Path, version: str, says: str) -> None:
    before = state(repo)
    done = release(repo, version)
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert state(repo) == before


def test_an_unready_repository_is_refused_and_nothing_changes(repo: Path) -> None:
    version = next_version()
    git(repo, "tag", "-a", f"v{version}", "-m", "taken")
    before = state(repo)
    done = release(repo, version)
    assert done.returncode == 2 and f"the tag v{version} exists already" in done.stderr
    assert state(repo) == before
    git(repo, "tag", "-d", f"v{version}")
    (repo / "README.md").write_text("changed\n")
    done = release(repo, version)
    assert done.returncode == 2 and "uncommitted changes" in done.stderr and "README.md" in done.stderr
    git(repo, "checkout", "--", "README.md")
    changelog = (repo / "CHANGELOG.md").read_text(encoding="utf-8")
    head, _, rest = changelog.partition("## [Unreleased]\n")
    (repo / "CHANGELOG.md").write_text(head + "## [Unreleased]\n\n" + rest[rest.index("## [") :], encoding="utf-8")
    git(repo, "commit", "-q", "-am", "nothing unreleased")
    before = state(repo)
    done = release(repo, version)
    assert done.returncode == 2 and "the `## [Unreleased]` section is empty" in done.stderr
    assert state(repo) == before


def _tree_digest(folder: Path) -> str:
    """A digest of every file's path and bytes under `folder`: equal digests, equal build inputs."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _build_once(script, kept: Path, built: list[str]):
    """`build_and_check` answering a source tree it has built and checked already from a copy of those dists.

    The dry run and the real release export the same HEAD with the same version and date: their build inputs
    are byte-identical (the memo's key says so, it is not assumed), so the second build, twine check and
    virtual environment would prove nothing the first did not."""
    real = script.build_and_check
    memo: dict[tuple[str, str], list[Path]] = {}

    def build_and_check(source: Path, outdir: Path, version: str) -> list[Path]:
        key = (_tree_digest(source), version)
        if key not in memo:
            dists = real(source, outdir, version)
            keep = kept / str(len(memo))
            keep.mkdir(parents=True)
            memo[key] = [Path(shutil.copy2(d, keep / d.name)) for d in dists]
            built.append(version)
        outdir.mkdir(parents=True, exist_ok=True)
        return [Path(shutil.copy2(d, outdir / d.name)) for d in memo[key]]

    return build_and_check


def _release_in_process(script, repo: Path, capsys, monkeypatch, *args: str) -> subprocess.CompletedProcess:
    """`scripts/release.py ARGS` run in this process in `repo` (the refusals below run it as a subprocess)."""
    monkeypatch.chdir(repo)
    capsys.readouterr()
    code = script.main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["release.py", *args], code, out, err)


@pytest.mark.slow  # one build, one virtual environment
def test_dry_run_changes_nothing_and_the_release_commits_builds_and_tags(
    repo: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    """The dry run and the release run in this process, so that the release reuses the dry run's build and
    checks of the same source tree (`_build_once`); the refusal at the end runs the script as a process."""
    script = _script()
    built: list[str] = []
    monkeypatch.setattr(script, "build_and_check", _build_once(script, tmp_path / "kept", built))
    version = next_version()
    before = state(repo)
    dry = _release_in_process(script, repo, capsys, monkeypatch, version, "--dry-run", "--date", "2027-01-02")
    assert dry.returncode == 0, dry.stderr
    assert f"would change fsdp_unpatch/__init__.py ({__version__} -> {version})" in dry.stdout
    assert f"annotated tag v{version}" in dry.stdout and "twine check --strict" in dry.stdout
    assert "the wheel in a fresh virtual environment" in dry.stdout
    assert state(repo) == before and not (repo / "dist").exists()

    done = _release_in_process(script, repo, capsys, monkeypatch, version, "--date", "2027-01-02")
    assert done.returncode == 0, done.stderr
    assert built == [version], "the release built a source tree other than the dry run's"
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "log", "-1", "--format=%s") == f"Release {version}\n"
    assert set(git(repo, "diff", "--name-only", "HEAD~1").split()) == {"CHANGELOG.md", "fsdp_unpatch/__init__.py"}
    assert git(repo, "cat-file", "-t", f"v{version}") == "tag\n"  # annotated, not lightweight
    assert git(repo, "rev-parse", f"v{version}^{{commit}}") == git(repo, "rev-parse", "HEAD")
    assert f'__version__ = "{version}"' in (repo / "fsdp_unpatch" / "__init__.py").read_text()
    changelog = (repo / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [Unreleased]\n\n## [{version}] - 2027-01-02\n\nTagged `v{version}`" in changelog
    dists = sorted(p.name for p in (repo / "dist").iterdir())
    assert dists == [f"fsdp_unpatch-{version}-py3-none-any.whl", f"fsdp_unpatch-{version}.tar.gz"]
    released = state(repo)
    again = release(repo, version)  # a second run refuses and changes nothing
    assert again.returncode == 2 and f"{version} is not newer than the current version {version}" in again.stderr
    assert state(repo) == released
