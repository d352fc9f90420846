"""Per-rule cases, collected from the rule registry: every rule has fixtures where it fires and where it
must not, with their expected findings and fixes as reviewed snapshot files.

Layout: `tests/rules/<CODE>/<case>/` is a project before the run (`# @upstream` lines are expanded from the
installed torch, as in tests/fixtures; a `pyproject.toml` there configures the run, e.g. `target-torch`;
a `case.toml` may set up what a static file cannot hold: `read-only = [FILES]`, `[pad-to-bytes] FILE = N`).
A case named `ok_*` is one where the rule must not fire; every other case must fire it.
`tests/rules/<CODE>/<case>.snap` is the snapshot: the rule's findings (every rule selected, only this code
shown) with position, message and fix applicability, as `check` reports them and as `fix --unsafe-fixes`
leaves them (a fix error, FSU903, shows only there), then each file as `fix --unsafe-fixes` leaves it
(changed or deleted): the "after" of the case.

Snapshots are compared, never written, unless FSDP_UNPATCH_UPDATE_SNAPSHOTS=1 is set: then a snapshot that
differs is rewritten (and the test still fails, so that each rewrite is looked at and reviewed in the diff).
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.api import check_paths, fix_paths
from fsdp_unpatch.rules.registry import all_rules
from tests.upstream import PLACEHOLDER, upstream_copy

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RULES = Path(__file__).parent / "rules"
UPDATE = os.environ.get("FSDP_UNPATCH_UPDATE_SNAPSHOTS") == "1"
MUST_NOT_FIRE = "ok_"


def rule_cases() -> list[tuple[str, str]]:
    return [
        (folder.name, case.name)
        for folder in sorted(RULES.iterdir())
        if folder.is_dir() and folder.name.startswith("FSU")
        for case in sorted(folder.iterdir())
        if case.is_dir()
    ]


def prepare(code: str, case: str, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the case under tmp_path/<case>, placeholders expanded, set up as its case.toml says; and
    each expansion (upstream text -> its placeholder line), for the snapshot to show placeholders again."""
    work = tmp_path / case
    shutil.copytree(RULES / code / case, work, ignore=shutil.ignore_patterns("case.toml", "__pycache__"))
    expansions: dict[str, str] = {}
    for path in work.rglob("*.py"):
        data = path.read_bytes()
        if b"# @upstream " in data:
            text = data.decode("utf-8")
            for match in PLACEHOLDER.finditer(text):
                expansions[upstream_copy(match[1], match[2], match[3])] = match[0]
            path.write_text(PLACEHOLDER.sub(lambda m: upstream_copy(m[1], m[2], m[3]), text), encoding="utf-8")
    setup_file = RULES / code / case / "case.toml"
    setup = tomllib.loads(setup_file.read_text(encoding="utf-8")) if setup_file.exists() else {}
    for name, size in setup.get("pad-to-bytes", {}).items():
        path = work / name
        padding = size - path.stat().st_size
        with open(path, "ab") as handle:  # comment lines: the file's meaning does not change
            handle.write(b"".join(b"#" * 99 + b"\n" for _ in range(padding // 100 + 1)))
    for name in setup.get("read-only", ()):
        (work / name).chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    return work, expansions


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".fsdp_unpatch_cache" not in p.parts
    }


def render(code: str, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, int]:
    """The snapshot text of a case, and how many findings of `code` it has."""
    work, expansions = prepare(code, case, tmp_path)
    monkeypatch.chdir(tmp_path)
    before = files(work)
    checked = [f for f in check_paths([case]) if f.code == code]
    left = [f for f in fix_paths([case], unsafe_fixes=True).remaining if f.code == code]
    after = files(work)
    lines = [f"# {code} {all_rules()[code].name}: {case}"]
    for title, findings in (("check", checked), ("left by fix --unsafe-fixes", left)):
        lines += ["", f"## findings: {title}"]
        for f in findings:
            fix = f" [fix: {f.fix.applicability}]" if f.fix is not None else ""
            lines.append(f"{f.path}:{f.span.line}:{f.span.column}: {f.code} {f.message}{fix}")
        if not findings:
            lines.append("(none)")
    lines += ["", "## after fix --unsafe-fixes"]
    changed = [name for name in before if after.get(name) != before[name]]
    for name in changed:
        if name not in after:
            lines += ["", f"### {name}: deleted"]
        else:
            text = after[name].decode("utf-8", "replace")
            for upstream, placeholder in expansions.items():  # torch's own code is not copied here
                text = text.replace(upstream, placeholder)
            lines += ["", f"### {name}", text.rstrip("\n") or "(empty)"]
    if not changed:
        lines.append("(unchanged)")
    return "\n".join(lines) + "\n", len(checked) + len(left)


@pytest.mark.parametrize("code, case", rule_cases(), ids=[f"{c}/{k}" for c, k in rule_cases()])
def test_rule_case_matches_its_snapshot(code: str, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert code in all_rules(), f"tests/rules/{code}: no rule has this code"
    text, count = render(code, case, tmp_path, monkeypatch)
    if case.startswith(MUST_NOT_FIRE):
        assert count == 0, f"{code} must not fire on {case}:\n{text}"
    else:
        assert count > 0, f"{code} must fire on {case}:\n{text}"
    snapshot = RULES / code / f"{case}.snap"
    if snapshot.exists() and snapshot.read_text(encoding="utf-8") == text:
        return
    if UPDATE:
        snapshot.write_text(text, encoding="utf-8")
        pytest.fail(f"{snapshot.relative_to(RULES.parent.parent)} written: review it, then run again")
    assert snapshot.exists(), f"no snapshot {snapshot.name} (FSDP_UNPATCH_UPDATE_SNAPSHOTS=1 writes it):\n{text}"
    assert snapshot.read_text(encoding="utf-8") == text


def test_every_rule_has_cases_that_fire_and_cases_that_must_not() -> None:
    cases: dict[str, list[str]] = {}
    for code, case in rule_cases():
        cases.setdefault(code, []).append(case)
    missing = []
    for code in all_rules():
        mine = cases.get(code, [])
        if not any(not c.startswith(MUST_NOT_FIRE) for c in mine):
            missing.append(f"{code}: no case where it fires (tests/rules/{code}/<case>/)")
        if not any(c.startswith(MUST_NOT_FIRE) for c in mine):
            missing.append(f"{code}: no case where it must not fire (tests/rules/{code}/{MUST_NOT_FIRE}<case>/)")
    assert missing == []


def test_every_case_has_a_snapshot_and_every_snapshot_a_case() -> None:
    snapshots = {(p.parent.name, p.name[: -len(".snap")]) for p in RULES.glob("FSU*/*.snap")}
    assert snapshots == set(rule_cases())
