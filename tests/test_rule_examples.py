"""Each rule module's examples, as Fixit runs them: every `VALID` sample checked clean of the rule, every
`INVALID` sample fires it and, when it carries `fixed`, `fix --unsafe-fixes` leaves exactly that file.

A sample is one file of a project (`# @upstream` lines are expanded from the installed torch, as in the
rule cases); the multi-file situations of a rule are its cases under `tests/rules/<CODE>/`."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Union

import pytest

from fsdp_unpatch.api import check_paths, fix_paths
from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import all_rules
from tests.upstream import PLACEHOLDER, upstream_copy

# Rules whose subject no single file of code shows: the file cannot be read or written, or is too large
# (their cases set that up), the finding depends on the torch the project declares (a pyproject beside it),
# or it needs another file of the run (their cases hold both).
NOT_ONE_FILE = {
    "native-path-too-old",
    "read-error",
    "fix-not-written",
    "file-too-large",
    "removed-symbol-reference",
    "patch-identity-assertion",
    "removed-function-test",
    "removed-name-in-string",
    "removed-function-test-module",
    "broken-import",
}

Example = Union[Valid, Invalid]


def module_examples() -> list[tuple[str, str, Example]]:
    found = []
    for rule in all_rules().values():
        module = importlib.import_module(f"fsdp_unpatch.rules.{rule.module}")
        for kind in ("VALID", "INVALID"):
            for index, example in enumerate(getattr(module, kind, [])):
                found.append((rule.code, f"{rule.module}/{kind.lower()}{index}", example))
    return found


def expand(text: str) -> str:
    return PLACEHOLDER.sub(lambda m: upstream_copy(m[1], m[2], m[3]), text)


@pytest.mark.parametrize("code, name, example", module_examples(), ids=[name for _, name, _ in module_examples()])
def test_rule_example(code: str, name: str, example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "project" / example.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(expand(example.code), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    fired = [f"{f.span.line}: {f.message}" for f in check_paths(["project"]) if f.code == code]
    if isinstance(example, Valid):
        assert fired == [], f"{code} must not fire on {name}"
        return
    assert fired, f"{code} must fire on {name}"
    if example.fixed is not None:
        fix_paths(["project"], unsafe_fixes=True)
        assert path.read_text(encoding="utf-8") == expand(example.fixed)


def test_every_rule_has_examples_that_fire_and_that_must_not() -> None:
    missing = []
    for rule in all_rules().values():
        module = importlib.import_module(f"fsdp_unpatch.rules.{rule.module}")
        has = {kind for kind in ("VALID", "INVALID") if getattr(module, kind, [])}
        if rule.name not in NOT_ONE_FILE and has != {"VALID", "INVALID"}:
            missing.append(f"{rule.code} ({rule.module}.py) has no {' or '.join({'VALID', 'INVALID'} - has)}")
    assert missing == []
