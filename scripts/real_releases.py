#!/usr/bin/env python3
"""Print the "Real releases" table of docs/real-releases.md: fsdp-unpatch on every torch-npu release, as a new user runs it.

For each release (fetched and cached as in ``tests/realworld/``): the findings of ``check`` by category,
what ``fix`` removed and changed, and the wall time of ``check --no-cache`` on the whole package (median of
``--runs`` whole-process runs). Re-run it when a new release appears (add it to
``tests/realworld/packages.py``)::

    python scripts/real_releases.py [--runs 3] [VERSION ...]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.realworld.packages import MIGRATED, PATCHED, git, working_copy  # noqa: E402

REMOVALS = {"FSU001": "install site", "FSU002": "replacement", "FSU003": "installer", "FSU004": "installer call"}


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=cwd, capture_output=True, text=True)


def measure(version: str, runs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        repo = working_copy(version, Path(tmp))
        files = sum(1 for _ in repo.rglob("*.py"))
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            done = _cli(repo, "check", "--no-cache", "--output-format", "json", ".")
            times.append(time.perf_counter() - start)
        findings = json.loads(done.stdout)
        categories = Counter(f["category"] for f in findings)
        removed = Counter(f["code"] for f in findings if f["code"] in REMOVALS)
        _cli(repo, "fix", "--no-cache", ".")
        changed = git(repo, "status", "--porcelain").splitlines()
    return {
        "version": version,
        "files": files,
        "categories": categories,
        "removed": removed,
        "changed": len(changed),
        "seconds": statistics.median(times),
    }


def table(rows: list[dict], runs: int) -> str:
    out = [
        f"Measured {date.today().isoformat()} on {platform.machine()}, Python {platform.python_version()}, "
        f"`check --no-cache` median of {runs} whole-process runs.",
        "",
        "| torch-npu | .py files | remove | what `fix` removes | review | keep | files `fix` changes | `check` time |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        removed = ", ".join(f"{n} {REMOVALS[c]}{'s' if n != 1 else ''}" for c, n in sorted(r["removed"].items()))
        c = r["categories"]
        out.append(
            f"| {r['version']} | {r['files']} | {c['remove']} | {removed or 'nothing'} | {c['review']} | {c['keep']} | "
            f"{r['changed']} | {r['seconds']:.2f} s |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="*", default=[*PATCHED, *MIGRATED])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    print(table([measure(v, args.runs) for v in args.versions], args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
