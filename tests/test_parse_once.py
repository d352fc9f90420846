"""Parse once (issue 23 item 2): what phase 1 learned about a file serves the linked phase, so that libcst
parses each file at most once per run, and the findings and fixes stay those of the plain engine."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.fixes import edits as fix_edits_module
from fsdp_unpatch.fixes import regions as fix_regions_module
from fsdp_unpatch.model import RunOptions, RunResult
from fsdp_unpatch.run import engine, learned
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.run.engine import run_together
from tests.upstream import expanded_copy

ROOT = Path(__file__).resolve().parent.parent


def _options(fix: bool) -> RunOptions:
    analysis = Options(target_torch=Version.parse("2.13"))
    return RunOptions(analysis=analysis, fix=fix, unsafe_fixes=fix, write=False)


def _plain(result: RunResult) -> list:
    return [(r.display, [json.dumps(f.to_dict(), sort_keys=True) for f in r.findings], r.fixed) for r in result.files]


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """How many times libcst parsed each file (by the path it is reported under), through the engine's entry."""
    counted: Counter = Counter()
    parse = engine.parse_source

    def counting(source):
        counted[Path(source.display).name] += 1
        return parse(source)

    monkeypatch.setattr(engine, "parse_source", counting)
    return counted


def _legacy(tmp_path: Path) -> Path:
    return expanded_copy(ROOT / "examples" / "legacy_project", tmp_path / "legacy_project")


@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix-diff"])
def test_a_linked_group_is_parsed_once(fix: bool, tmp_path: Path, parses: Counter) -> None:
    """The legacy example: the installer's module and its caller are analysed alone, then linked."""
    tree = _legacy(tmp_path)
    options = _options(fix)
    expected = _plain(run_together(discover([str(tree)]), load_catalog(), options))
    parses.clear()
    result = run(discover([str(tree)]), load_catalog(), options, jobs=1)
    assert _plain(result) == expected
    # the linked phase ran: a finding that needs two files
    assert any(f.code == "FSU004" for f in result.findings)
    assert parses, "the run must parse something for this test to mean anything"
    assert {name: n for name, n in parses.items() if n > 1} == {}


def test_trees_of_unlinked_files_beyond_the_budget_are_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(learned, "KEEP_BYTES", 10)
    known = learned.Learned()
    known.trees[("a.py", b"x = 1\n")] = {b"x = 1\n": object()}  # type: ignore[dict-item]
    known.trees[("b.py", b"y = 22\n")] = {b"y = 22\n": object()}  # type: ignore[dict-item]
    known.trees[("c.py", b"z = 333\n")] = {b"z = 333\n": object()}  # type: ignore[dict-item]
    known.settle(("a.py", b"x = 1\n"), linked=False)  # 6 bytes: within the budget
    known.settle(("b.py", b"y = 22\n"), linked=False)  # 13 bytes in all: over it
    known.settle(("c.py", b"z = 333\n"), linked=True)  # linked: kept whatever its size
    assert set(known.trees) == {("a.py", b"x = 1\n"), ("c.py", b"z = 333\n")}
    known.retain([("c.py", b"z = 333\n")])
    assert set(known.trees) == {("c.py", b"z = 333\n")}


@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix-diff"])
def test_a_linked_groups_fixes_are_computed_once(fix: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a cache, phase 1 computes no fix (its regions, the fixed text) for a file that spells a part of a
    known patch module beside another one: the linked phase runs them together and replaces that result."""
    tree = _legacy(tmp_path)
    options = replace(_options(fix), replacements=True)
    expected = _plain(run_together(discover([str(tree)]), load_catalog(), options))
    computed: Counter = Counter()  # (module, the nodes the edits change) -> times computed
    regions, apply_edits = fix_regions_module.fix_regions, fix_edits_module.apply_edits

    def key(analysis, edits) -> tuple:
        return (analysis.module_name, frozenset(id(e.node) for e in edits))

    def counted_regions(analysis, edits, facts):
        computed[("regions", *key(analysis, edits))] += 1
        return regions(analysis, edits, facts)

    def counted_apply(analysis, edits, *memo):
        computed[("fixed text", *key(analysis, edits))] += 1
        return apply_edits(analysis, edits, *memo)

    monkeypatch.setattr(fix_regions_module, "fix_regions", counted_regions)
    monkeypatch.setattr(fix_edits_module, "apply_edits", counted_apply)  # imported where a fix is applied
    result = run(discover([str(tree)]), load_catalog(), options, jobs=1)
    assert _plain(result) == expected
    assert any(f.code == "FSU004" for f in result.findings)  # the linked phase ran
    assert any(kind == "fixed text" for kind, *_ in computed) == fix
    assert computed and {k: n for k, n in computed.items() if n > 1} == {}
