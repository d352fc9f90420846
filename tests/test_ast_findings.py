"""Files whose findings are all review or keep get them from the `ast` model, without libcst
(`analysis/ast_findings.py`, `run/on_ast.py`), and `check` reports exactly what the libcst analysis reports.

The same `check --output-format json` (and SARIF, `--show-fixes`, each file alone, the engine over all files at
once) with the model's tier forced on and forced off, over every rule case, every fixture and both examples,
and over hand-written modules that put a review-only site beside each other way to a finding (each must be
left to libcst). The JSON must be byte-identical. The torch sources and the real releases are compared in
`tests/test_tiers.py` (there the tier is off with the screen).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import libcst as cst
import pytest

from fsdp_unpatch.analysis.ast_findings import findings_on_ast
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.run import on_ast
from fsdp_unpatch.run.engine import run_together
from tests.integration import cli
from tests.test_rule_cases import prepare, rule_cases
from tests.upstream import expanded_copy

ROOT = Path(__file__).resolve().parent.parent
FSDP = "torch.distributed.fsdp._fully_shard"

# A test helper of the kind torch's own `common_fsdp.py` holds: an override that stays (review), scoped by a
# restore of the saved original; nothing else of this tool's concern.
SCOPED_HELPER = f"""import contextlib

import torch


@contextlib.contextmanager
def gather_with(replacement):
    kept = {FSDP}._fsdp_param_group.foreach_all_gather
    {FSDP}._fsdp_param_group.foreach_all_gather = replacement
    try:
        yield
    finally:
        {FSDP}._fsdp_param_group.foreach_all_gather = kept


def record_unshard(calls):
    saved = {FSDP}._fsdp_param_group.FSDPParamGroup.unshard

    def counting(self, *args, **kwargs):
        calls.append(args)
        return saved(self, *args, **kwargs)

    {FSDP}._fsdp_param_group.FSDPParamGroup.unshard = counting
    return saved
"""

# Beside the review-only site above, one more thing per module: each is a way to a finding (or to a fix, or
# to a fact the model does not hold) that must leave the file to libcst.
OTHER_WAYS = {
    "tuple": f"import torch\n\n({FSDP}._fsdp_collectives.foreach_reduce, x) = (print, 1)\n",
    "vars": f"from {FSDP} import _fsdp_collectives as c\n\nvars(c)['foreach_reduce'] = print\n",
    "dunder-dict": f"from {FSDP} import _fsdp_collectives as c\n\nc.__dict__['foreach_reduce'] = print\n",
    "getattr-owner": f"from {FSDP} import _fsdp_param_group as g\n\ngetattr(g, 'FSDPParamGroup').unshard = print\n",
    "import-module": (
        f"import importlib\n\nimportlib.import_module('{FSDP}._fsdp_collectives').foreach_reduce = print\n"
    ),
    "sys-modules": f"import sys\n\nsys.modules['{FSDP}._fsdp_collectives'].foreach_reduce = print\n",
    "module-entry": f"import sys\n\nsys.modules['{FSDP}._fsdp_collectives'] = object()\n",
    "loop": (
        f"from {FSDP}._fsdp_param_group import FSDPParamGroup\n\n"
        "for owner, name, fn in [(FSDPParamGroup, 'unshard', print)]:\n    setattr(owner, name, fn)\n"
    ),
    "setattr": f"from {FSDP}._fsdp_param_group import FSDPParamGroup\n\nsetattr(FSDPParamGroup, 'unshard', print)\n",
    "annotated": f"from {FSDP}._fsdp_param_group import FSDPParamGroup\n\nFSDPParamGroup.unshard: object = print\n",
    "augmented": f"from {FSDP}._fsdp_param_group import FSDPParamGroup\n\nFSDPParamGroup.unshard += print\n",
    "code-swap": f"from {FSDP}._fsdp_param_group import FSDPParamGroup\n\nFSDPParamGroup.unshard.__code__ = len.__code__\n",
    "mock": f"from unittest import mock\n\npatcher = mock.patch('{FSDP}._fsdp_collectives.foreach_reduce', print)\n",
    "subclass": (
        f"from {FSDP}._fsdp_param_group import FSDPParamGroup\n\n\nclass Mine(FSDPParamGroup):\n"
        "    def unshard(self, async_op=False):\n        return None\n"
    ),
    "kernel": (
        "import torch\n\nlib = torch.library.Library('fsdp', 'IMPL')\n"
        "torch.library.impl(lib, 'all_gather_copy_in', 'PrivateUse1')(print)\n"
    ),
    "copy": (
        "import torch\n\n\ndef move(a, b):\n    if a[0].device == b[0].device:\n        torch._foreach_copy_(a, b, "
        "non_blocking=True)\n    else:\n        torch._foreach_copy_(a, b)\n"
    ),
    "by-name-twin": f"from {FSDP} import _fsdp_collectives as c\n\nc.foreach_reduce = print\n",
    "op": "import torch\n\ntorch.ops.fsdp.all_gather_copy_in = print\n",
    "patch-name": "from torch_npu.distributed.fsdp._add_fsdp_patch import _apply_fsdp_patch\n",
    "noqa-code": "x = 1  # noqa: FSU101\n",
    "bare-noqa": f"import torch\n\n{FSDP}._fsdp_param_group.FSDPParamGroup.reshard = print  # noqa\n",
    "fallbacks": "try:\n    import torch_npu\nexcept ImportError:\n    torch_npu = None\n",
    "exports-alias": f"from {FSDP} import _fsdp_param_group as fsdp_group\n",
    "new-attribute": f"import torch\n\n{FSDP}._fsdp_param_group.FSDPParamGroup.my_flag = True\n",
    "display-name": f"import torch\n\n{FSDP}._fsdp_param_group.FSDPParamGroup.__module__ = f'x'\n",
}

# Of those, the ones that still get only review findings from plain sites: the model decides them too (an
# f-string stored into `__module__` is an override that stays, which scoping on the model decides).
DECIDED_ALONE = frozenset({"bare-noqa", "new-attribute", "display-name"})


def _forced(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    if not on:
        monkeypatch.setattr(on_ast, "decide", lambda unit, catalog, options: False)


def _check(work: Path, monkeypatch: pytest.MonkeyPatch, on: bool, *args: str) -> tuple[int, bytes, bytes]:
    with monkeypatch.context() as patched:
        _forced(patched, on)
        done = cli("check", "--no-cache", *args, cwd=work)
    return done.returncode, re.sub(rb"Took [0-9.]+ s", b"Took _ s", done.stdout), done.stderr


def _alike(work: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> bytes:
    """The output of `check ARGS` in `work`, asserted the same with the tier on and off.

    The run with the tier off is made only when the model decided a file of the run with the tier on (a spy on
    `on_ast.decide`): when it decided none, every call returned False and left `unit.on_ast` None, which is
    all the forced-off tier does, so the second run would take the very same path (that run paid most of the
    fixture sweeps, each file alone)."""
    with monkeypatch.context() as spied:
        decided = _decided(spied)
        on = _check(work, spied, True, *args)
    if not decided:
        return on[1]
    off = _check(work, monkeypatch, False, *args)
    assert on == off, args
    return off[1]


def _decided(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the model decides from now on, as the engine asks (a spy on `on_ast.decide`)."""
    found: list[str] = []
    decide = on_ast.decide

    def spy(unit, catalog, options) -> bool:
        done = decide(unit, catalog, options)
        if done:
            found.append(str(unit.candidate.path.resolve()))
        return done

    monkeypatch.setattr(on_ast, "decide", spy)
    return found


@pytest.mark.parametrize(("code", "case"), rule_cases(), ids=[f"{c}/{n}" for c, n in rule_cases()])
def test_every_rule_case_is_reported_alike(
    code: str, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, _ = prepare(code, case, tmp_path)
    _alike(work, monkeypatch, "--output-format", "json", ".")


@pytest.mark.parametrize("tree", ["tests/fixtures", "examples/legacy_project", "examples/migrated_project"])
def test_fixtures_and_examples_are_reported_alike(tree: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole tree (JSON, SARIF with fixes, `--show-fixes`), each file alone, and the engine over all files at
    once."""
    work = expanded_copy(ROOT / tree, tmp_path / Path(tree).name)
    assert b'"code"' in _alike(work, monkeypatch, "--output-format", "json", ".")
    _alike(work, monkeypatch, "--output-format", "sarif", "--show-fixes", ".")
    _alike(work, monkeypatch, "--output-format", "full", "--show-fixes", ".")
    for path in sorted(work.rglob("*.py")):
        _alike(work, monkeypatch, "--output-format", "json", str(path.relative_to(work)))
    catalog = load_catalog()
    options = Options(target_torch=Version.parse("2.13"))
    runs = [
        run_together(discover([str(work)]), catalog, RunOptions(analysis=options, ast_findings=on))
        for on in (True, False)
    ]
    together = [[dataclasses.asdict(f) for f in result.findings] for result in runs]
    assert together[0] == together[1]


@pytest.mark.parametrize("way", sorted(OTHER_WAYS))
def test_each_other_way_to_a_finding_leaves_the_file_to_libcst(
    way: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In one file with the review-only site, and as a second file of the run beside the review-only file."""
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "helper.py").write_text(SCOPED_HELPER + "\n\n" + OTHER_WAYS[way], encoding="utf-8")
    decided = _decided(monkeypatch)
    _alike(tmp_path / "one", monkeypatch, "--output-format", "json", ".")
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "helper.py").write_text(SCOPED_HELPER, encoding="utf-8")
    (tmp_path / "two" / "other.py").write_text(OTHER_WAYS[way] + "\nfrom helper import gather_with\n", encoding="utf-8")
    _alike(tmp_path / "two", monkeypatch, "--output-format", "json", ".")
    _alike(tmp_path / "two", monkeypatch, "--output-format", "json", "--show-fixes", "other.py", "helper.py")
    assert any(d.endswith("two/helper.py") for d in decided), "the review-only file is decided on the model"
    left = not [d for d in decided if d.endswith(("one/helper.py", "two/other.py"))]
    assert left != (way in DECIDED_ALONE), decided


def test_a_review_only_file_is_not_parsed_by_libcst(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scoped helper gets its two review findings (the restore noted on the first) with no libcst parse;
    with the tier off, the same output from one parse."""
    (tmp_path / "helper.py").write_text(SCOPED_HELPER, encoding="utf-8")
    parsed: list[int] = []
    parse = cst.parse_module

    def counting(source, *args, **kwargs):
        parsed.append(len(source))
        return parse(source, *args, **kwargs)

    monkeypatch.setattr(cst, "parse_module", counting)
    on = cli("check", "--no-cache", "--output-format", "json", "helper.py", cwd=tmp_path)
    assert parsed == []
    assert on.stdout.count(b'"FSU101"') == 2 and b"scoped: the original is restored at line 13" in on.stdout
    assert b'"fix": null' in on.stdout and b'"fix": {' not in on.stdout
    with monkeypatch.context() as off:
        _forced(off, False)
        assert cli("check", "--no-cache", "--output-format", "json", "helper.py", cwd=tmp_path) == on
    assert len(parsed) == 1


def test_the_model_decides_rule_cases_with_findings(tmp_path: Path) -> None:
    """Not vacuous: rule cases whose files hold review findings only are decided on the model (the scoped test
    helpers of FSU101, the op orders FSU403/404 accept), and none whose files get a fix."""
    catalog, options = load_catalog(), Options(target_torch=Version.parse("2.13"))
    decided = []
    for code, case in rule_cases():
        work, _ = prepare(code, case, tmp_path / code)
        for path in sorted(work.rglob("*.py")):
            found = findings_on_ast(path.read_bytes(), path, catalog, options)
            if found is not None and found.planned:
                decided.append(f"{code}/{path.relative_to(tmp_path / code)}")
                assert all(planned.code in ("FSU101", "FSU201") for planned, _ in found.planned)
    assert "FSU101/scoped_by_a_restore/gather_probes.py" in decided and len(decided) >= 3, decided
