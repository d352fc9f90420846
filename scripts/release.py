#!/usr/bin/env python3
"""Make a release: bump the version, date the CHANGELOG's Unreleased section, build and check the wheel and
the sdist, commit, and make the annotated tag `vVERSION`.

    python scripts/release.py 0.3.0              # the release commit and tag v0.3.0; dists in dist/
    python scripts/release.py 0.3.0 --dry-run    # the same checks and build; the repository is left as it is

Steps, in this order, so that a failure leaves the repository as it was:

1. refuse a version that is not PEP 440, not newer than `fsdp_unpatch.__version__`, or already tagged; a
   working tree with uncommitted changes; a CHANGELOG without entries under `## [Unreleased]`;
2. export HEAD (`git archive`) to a temporary folder and write the new version (`fsdp_unpatch/__init__.py`;
   pyproject.toml reads it from there) and the dated CHANGELOG section there;
3. `python -m build` (the sdist, then the wheel from it), `twine check --strict` on both, and the wheel
   installed in a fresh virtual environment, whose `fsdp-unpatch --version` must print the version;
4. (not with --dry-run) write the same two files in the repository, commit them ("Release X") and make the
   annotated tag `vX`; copy the wheel and sdist to `--outdir`. Pushing the commit and the tag is left to you.

Exit status: 0 done, 1 a build or check failed, 2 the version or the repository is not ready.
"""

from __future__ import annotations

import argparse
import datetime
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import venv
from pathlib import Path

from packaging.version import InvalidVersion, Version

INIT = Path("fsdp_unpatch") / "__init__.py"
CHANGELOG = Path("CHANGELOG.md")
UNRELEASED = "## [Unreleased]\n"
VERSION_LINE = re.compile(r'^__version__ = "([^"]+)"$', re.M)


class NotReady(Exception):
    """The version or the repository is not ready for a release (exit 2)."""


class CheckFailed(Exception):
    """Building or checking the distributions failed (exit 1)."""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if done.returncode:
        raise NotReady(f"git {' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def current_version(init_text: str) -> str:
    found = VERSION_LINE.search(init_text)
    if found is None:
        raise NotReady(f'{INIT}: no `__version__ = "..."` line')
    return found.group(1)


def bumped(init_text: str, version: str) -> str:
    """The package's `__init__.py` with the new version; nothing else changes."""
    return VERSION_LINE.sub(f'__version__ = "{version}"', init_text, count=1)


def dated(changelog: str, version: str, date: str) -> str:
    """CHANGELOG.md with the Unreleased entries under `## [VERSION] - DATE`, and a new empty Unreleased."""
    head, found, rest = changelog.partition(UNRELEASED)
    if not found:
        raise NotReady(f"{CHANGELOG}: no `{UNRELEASED.strip()}` heading")
    following = rest.find("\n## ")
    entries = rest if following < 0 else rest[: following + 1]
    if not entries.strip():
        raise NotReady(f"{CHANGELOG}: the `{UNRELEASED.strip()}` section is empty: nothing to release")
    tagged = f"Tagged `v{version}` (scripts/release.py).\n"
    return f"{head}{UNRELEASED}\n## [{version}] - {date}\n\n{tagged}{rest}"


def check_ready(repo: Path, version: str) -> str:
    """The current version; NotReady when the new one or the repository is not ready."""
    try:
        new = Version(version)
    except InvalidVersion:
        raise NotReady(f"{version!r} is not a PEP 440 version (such as 0.3.0)") from None
    if str(new) != version or new.local is not None:
        raise NotReady(f"{version!r}: write the version in its normal form, {new.public!r}")
    current = current_version((repo / INIT).read_text(encoding="utf-8"))
    if new <= Version(current):
        raise NotReady(f"{version} is not newer than the current version {current} ({INIT})")
    if git(repo, "tag", "--list", f"v{version}").strip():
        raise NotReady(f"the tag v{version} exists already")
    dirty = git(repo, "status", "--porcelain", "--untracked-files=no").strip()
    if dirty:
        raise NotReady("the working tree has uncommitted changes; commit or stash them first:\n" + dirty)
    return current


def export_head(repo: Path, folder: Path) -> Path:
    """The committed tree (HEAD) in `folder`, without the repository's history or untracked files."""
    data = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=repo, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(data.stdout)) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(folder, filter="data")
        else:  # pragma: no cover - Python < 3.11.4
            archive.extractall(folder)  # our own HEAD
    return folder


def run_step(what: str, command: list[str], **kwargs) -> str:
    print(f"release: {what}", flush=True)
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode:
        raise CheckFailed(f"{what} failed:\n{done.stdout}{done.stderr}".rstrip())
    return done.stdout


def build_and_check(source: Path, outdir: Path, version: str) -> list[Path]:
    """Build the sdist and wheel of `source` into `outdir`, check them, and run the installed wheel."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    run_step("python -m build", [sys.executable, "-m", "build", "--outdir", str(outdir), str(source)], env=env)
    wheels, sdists = sorted(outdir.glob("*.whl")), sorted(outdir.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1 or version not in wheels[0].name or version not in sdists[0].name:
        raise CheckFailed(f"expected one wheel and one sdist of {version} in {outdir}, found {os.listdir(outdir)}")
    dists = [wheels[0], sdists[0]]
    run_step("twine check --strict", [sys.executable, "-m", "twine", "check", "--strict", *map(str, dists)], env=env)
    environment = outdir.parent / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(environment)
    bin_dir = environment / ("Scripts" if os.name == "nt" else "bin")
    pip = [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheels[0])]
    run_step("the wheel in a fresh virtual environment", pip, env=env)
    said = run_step("fsdp-unpatch --version", [str(bin_dir / "fsdp-unpatch"), "--version"], env=env)
    if said.split()[-1:] != [version]:
        raise CheckFailed(f"the installed wheel says {said.strip()!r}, not version {version}")
    return dists


def commit(repo: Path, texts: dict[Path, str], version: str) -> None:
    """Write `texts`, commit them and tag the commit; on a failure the files are put back as they were."""
    before = {path: (repo / path).read_bytes() for path in texts}
    try:
        for path, text in texts.items():
            (repo / path).write_text(text, encoding="utf-8")
        git(repo, "commit", "-q", "-m", f"Release {version}", "--", *map(str, texts))
    except (NotReady, OSError):
        for path, data in before.items():
            (repo / path).write_bytes(data)
        raise
    git(repo, "tag", "-a", f"v{version}", "-m", f"fsdp-unpatch {version}")


def release(repo: Path, version: str, dry_run: bool, outdir: Path, date: str) -> list[Path]:
    current = check_ready(repo, version)
    new_init = bumped((repo / INIT).read_text(encoding="utf-8"), version)
    new_changelog = dated((repo / CHANGELOG).read_text(encoding="utf-8"), version, date)
    with tempfile.TemporaryDirectory(prefix="fsdp-unpatch-release-") as temporary:
        source = export_head(repo, Path(temporary) / "source")
        (source / INIT).write_text(new_init, encoding="utf-8")
        (source / CHANGELOG).write_text(new_changelog, encoding="utf-8")
        built = Path(temporary) / "dist"
        dists = build_and_check(source, built, version)
        if dry_run:
            print(f"release: dry run: would change {INIT} ({current} -> {version}) and {CHANGELOG} ({date}),")
            print(f"release: commit them as 'Release {version}' and make the annotated tag v{version}")
            print(f"release: built and checked {', '.join(d.name for d in dists)} (not kept)")
            return []
        commit(repo, {INIT: new_init, CHANGELOG: new_changelog}, version)
        outdir.mkdir(parents=True, exist_ok=True)
        kept = [Path(shutil.copy2(d, outdir / d.name)) for d in dists]
    print(f"release: committed 'Release {version}' and tagged v{version}; {', '.join(str(k) for k in kept)}")
    print(f"release: push them: git push origin HEAD v{version}")
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="the new version, PEP 440 (such as 0.3.0)")
    parser.add_argument("--dry-run", action="store_true", help="check and build, but change nothing")
    parser.add_argument("--outdir", type=Path, default=Path("dist"), help="where the wheel and sdist go (dist/)")
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="the CHANGELOG date (today)")
    args = parser.parse_args(argv)
    try:
        repo = Path(git(Path.cwd(), "rev-parse", "--show-toplevel").strip())
        outdir = args.outdir if args.outdir.is_absolute() else repo / args.outdir
        release(repo, args.version, args.dry_run, outdir, args.date)
    except NotReady as error:
        print(f"release: error: {error}", file=sys.stderr)
        return 2
    except CheckFailed as error:
        print(f"release: error: {error}\nrelease: nothing was committed or tagged", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
