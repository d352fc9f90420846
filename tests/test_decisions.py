"""Run-phase steps return decisions (add, drop, require, keep) that the engine applies in one place; no
cross-file step edits a file's plan itself."""

from __future__ import annotations

import ast
from pathlib import Path

from fsdp_unpatch.analysis.decisions import Add, Drop, Require
from fsdp_unpatch.analysis.plan import Options
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.run.engine import Run
from fsdp_unpatch.run.linking import link_references
from tests.upstream import expand

PACKAGE = Path(__file__).resolve().parent.parent / "fsdp_unpatch"

# A patch module whose replacement another module imports and calls, and a test that asserts the patch.
PATCH = """\
import torch

# @upstream ops.fsdp.all_gather_copy_in _replaced_copy_in same-device


def _install():
    torch.ops.fsdp.all_gather_copy_in.default = _replaced_copy_in
    torch.ops.fsdp.all_gather_copy_in = _replaced_copy_in
"""
CALLER = """\
from npu_hacks import _replaced_copy_in as copy_in


def gather(*args):
    return copy_in(*args)
"""


def _loaded(root: Path) -> Run:
    for name, text in {"npu_hacks.py": PATCH, "caller.py": CALLER}.items():
        (root / name).write_text(expand(text))
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")), covered=(str(root),))
    engine = Run(load_catalog(), options)
    engine.load(discover([str(root)]))
    return engine


def _plans(engine: Run) -> dict[str, list[tuple[str, int, tuple[int, ...]]]]:
    """Each file's planned findings, with what each requires, by identity."""
    return {
        unit.candidate.path.name: [(p.code, id(p), tuple(map(id, p.requires))) for p in unit.analysis.planned]
        for unit in engine.units
        if unit.analysis is not None
    }


def test_the_reference_step_yields_decisions_and_edits_no_plan(tmp_path: Path) -> None:
    engine = _loaded(tmp_path)
    before = _plans(engine)
    decisions = list(link_references(engine.units, engine.analyze, engine.catalog, engine.options.analysis))
    after = _plans(engine)  # caller.py, which has no FSDP token, is analysed now: it plans nothing itself
    assert {name: after[name] for name in before} == before and after["caller.py"] == []
    added = [(d.planned.code, Path(d.analysis.module_name).name) for d in decisions if isinstance(d, Add)]
    assert added == [("FSU301", "caller")]  # the call in caller.py is rewritten to the native op
    # the replacement's deletion (FSU002, in npu_hacks.py) requires that rewrite
    required = [d for d in decisions if isinstance(d, Require) and d.planned.code == "FSU002"]
    assert [[r.code for r in d.required] for d in required] == [["FSU301"]]


def test_the_engine_applies_the_decisions(tmp_path: Path) -> None:
    engine = _loaded(tmp_path)
    engine.link()
    plans = {name: [code for code, _, _ in planned] for name, planned in _plans(engine).items()}
    assert "FSU301" in plans["caller.py"] and "FSU002" in plans["npu_hacks.py"]
    replacement = next(p for u in engine.units if u.analysis for p in u.analysis.planned if p.code == "FSU002")
    assert [r.code for r in replacement.requires] == ["FSU001", "FSU001", "FSU301"]  # its two sites, the rewrite


def test_a_drop_removes_the_finding_and_the_replacement_it_deleted(tmp_path: Path) -> None:
    from fsdp_unpatch.analysis.decisions import apply

    engine = _loaded(tmp_path)
    analysis = next(u.analysis for u in engine.units if u.analysis and u.analysis.replacements)
    name, planned = next(iter(analysis.replacements.items()))
    apply(Drop(analysis, planned, replacement=name))
    assert planned not in analysis.planned and name not in analysis.replacements


# The modules whose steps run across the files of a run: they yield decisions, and only
# `analysis/decisions.py` changes a plan.
CROSS_FILE_STEPS = [
    "run/linking.py",
    "run/engine.py",
    "run/orphans.py",
    "run/test_plans.py",
    "rules/override_replacement.py",
    "rules/patch_installer.py",
    "rules/stale_by_name_import.py",
    "rules/removed_symbol_reference.py",
    "rules/removed_name_in_string.py",
    "rules/removed_function_test.py",
    "rules/removed_function_test_module.py",
    "rules/patch_identity_assertion.py",
    "analysis/test_modules.py",
]
PLAN_FIELDS = {"planned", "requires", "replacements", "installers", "edits", "removable"}


def _edits_of_plans(tree: ast.AST) -> list[int]:
    """Lines that change a plan's field in place: `x.planned.append(...)`, `x.requires = ...`, `del x.replacements[k]`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if (
                isinstance(owner, ast.Attribute)
                and not _is_self(owner)
                and owner.attr in PLAN_FIELDS
                and node.func.attr in ("append", "extend", "remove", "pop", "insert", "clear")
            ):
                found.append(node.lineno)
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else []
        targets += [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute) and target.attr in PLAN_FIELDS and not _is_self(target):
                found.append(node.lineno)
    return sorted(found)


def _is_self(node: ast.expr) -> bool:
    """`self.x...`: an object the step builds for itself (`analysis/test_modules.py`'s reading of a test module)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"


def test_the_plan_edit_finder_finds_them() -> None:
    source = (
        "a.planned.append(p)\nb.requires += [q]\ndel c.replacements['x']\nself.plan.planned.append(p)\n"
        "d.items.append(1)\ne.message = 'x'\n"
    )
    assert _edits_of_plans(ast.parse(source)) == [1, 2, 3]


def test_no_cross_file_step_edits_a_plan_in_place() -> None:
    found = {
        module: lines
        for module in CROSS_FILE_STEPS
        if (lines := _edits_of_plans(ast.parse((PACKAGE / module).read_bytes())))
    }
    assert found == {}
