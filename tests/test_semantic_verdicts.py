"""The verdict on an install site is made once, as data, below the rules (`fsdp_unpatch/semantic/`).

`Judge.verdict` (`AstJudge`, on the `ast` model) decides what a site is; FSU001, FSU101, FSU102 and FSU201
each say the verdicts of their kinds (`report(site, verdict)`). The sources here are small patch modules
written for these tests;
`# @upstream` lines expand to a copy of the installed torch's function, as in the rule cases."""

from __future__ import annotations

import subprocess
import sys
from typing import Optional

import libcst as cst
import pytest

from fsdp_unpatch.analysis import fallbacks
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.semantic.ast_sites import AstJudge
from fsdp_unpatch.semantic.model import build
from fsdp_unpatch.semantic.verdicts import SiteVerdict
from tests.upstream import expand

GROUP = "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n"
COLLECTIVES = "from torch.distributed.fsdp._fully_shard import _fsdp_collectives\n"
FINALIZE = "_fsdp_param_group.FSDPParamGroup.finalize_backward"


def verdicts(
    source: str, target_torch: str = "2.9", keep: frozenset[str] = frozenset(), releases: tuple[str, ...] = ()
) -> list[Optional[SiteVerdict]]:
    text = expand(source)
    model, catalog = build(text, "project.patch"), load_catalog()
    options = Options(Version.parse(target_torch), keep, tuple(Version.parse(r) for r in releases))

    def never_running(torch: Version, imports: bool):
        assert model.tree is not None
        return fallbacks.resolved_fallbacks(model.tree, catalog, load_symbols(), torch, imports)

    judge = AstJudge(model, "project.patch", catalog, options, never_running)
    return [judge.verdict(site) for site in model.installs]


def only(source: str, **kwargs) -> SiteVerdict:
    """The verdict on the one site that overrides FSDP2 (an upstream copy stores into `self.x` too)."""
    [verdict] = [v for v in verdicts(source, **kwargs) if v is not None]
    return verdict


PROVEN = (
    "import torch\nimport torch.distributed as dist\n"
    + GROUP
    + "\n\n# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _npu_finalize "
    "npu-stream\n\n\nFSDPParamGroup.finalize_backward = _npu_finalize\n"
)


def test_a_proven_copy_is_proven_with_its_evidence() -> None:
    verdict = only(PROVEN)
    assert (verdict.kind, verdict.target, verdict.site) == ("proven", FINALIZE, "FSDPParamGroup.finalize_backward")
    assert verdict.comparison is not None and verdict.comparison.name == "_npu_finalize"
    assert verdict.comparison.evidence.matched and not verdict.replacement_kept


def test_a_proven_copy_below_the_native_release_is_too_old_and_names_it() -> None:
    verdict = only(PROVEN, target_torch="2.6")
    assert verdict.kind == "too_old" and verdict.since == Version.parse("2.7")
    assert verdict.target_torch == Version.parse("2.6") and verdict.replacement_kept


def test_what_stands_in_the_way_of_a_removal_is_the_reason() -> None:
    factory = GROUP + "FSDPParamGroup.finalize_backward = make_finalize(1)\n"
    assert (only(factory).kind, only(factory).reason, only(factory).value) == (
        "unproven",
        "not-a-function",
        "make_finalize(1)",
    )
    twice = (
        GROUP
        + "def _fin(self):\n    pass\n\n\ndef _fin(self):\n    pass\n\n\nFSDPParamGroup.finalize_backward = _fin\n"
    )
    assert (only(twice).reason, only(twice).replacement) == ("bound-twice", "_fin")
    wrapper = (
        GROUP + "_saved = FSDPParamGroup.finalize_backward\n\n\ndef _logged(self):\n    print('x')\n"
        "    return _saved(self)\n\n\nFSDPParamGroup.finalize_backward = _logged\n"
    )
    assert only(wrapper).reason == "wraps-original"
    differs = (
        GROUP + "\n# a comment above\ndef _other(self):\n    return 1\n\n\nFSDPParamGroup.finalize_backward = _other\n"
    )
    verdict = only(differs)
    assert verdict.reason == "differs" and verdict.comparison is not None
    assert verdict.comparison.first_line == 2  # the blank and comment lines above the `def` count
    assert not verdict.comparison.evidence.matched and verdict.comparison.evidence.differences


def test_kept_and_reviewed_targets() -> None:
    enhance = COLLECTIVES + "\n\ndef _pooled(self, size, *, dtype, device):\n    return None\n\n\n"
    inside = enhance + "def _apply_fsdp_enhance_patch():\n    _fsdp_collectives.DefaultAllGather.allocate = _pooled\n"
    assert only(inside).kind == "enhance"
    outside = enhance + "_fsdp_collectives.DefaultAllGather.allocate = _pooled\n"
    verdict = only(outside)
    assert verdict.kind == "outside_enhance" and verdict.relation is not None
    assert verdict.relation.kind == "differs"
    reviewed = COLLECTIVES + "_fsdp_collectives.chunk_cat = make_chunk_cat()\n"
    verdict = only(reviewed)
    assert verdict.kind == "reviewed" and verdict.relation is not None
    assert (verdict.relation.kind, verdict.relation.value) == ("factory", "make_chunk_cat()")
    assert only(PROVEN, keep=frozenset({FINALIZE})).kind == "configured_keep"


def test_a_private_symbol_the_catalog_does_not_know_is_unknown() -> None:
    verdict = only(COLLECTIVES + "_fsdp_collectives._not_in_the_catalog = print\n")
    assert (verdict.kind, verdict.entry) == ("unknown", None)


def test_a_site_that_is_no_fsdp2_override_gets_no_verdict() -> None:
    assert verdicts("import os\nos.sep = '/'\n") == [None]


def _report(module: str, verdict: SiteVerdict):
    import importlib

    from fsdp_unpatch.analysis.collect import RawInstall

    site = RawInstall(cst.Name("stmt"), cst.Name("report"), cst.Name("owner"), "attribute", cst.Name("value"), None)
    return importlib.import_module(f"fsdp_unpatch.rules.{module}").report(site, verdict)


def test_each_rule_says_the_verdicts_of_its_kinds() -> None:
    proven = only(PROVEN)
    planned = _report("collective_override", proven)
    assert planned.code == "FSU001" and len(planned.edits) == 1
    assert planned.message.startswith("`FSDPParamGroup.finalize_backward` overrides `" + FINALIZE + "`")
    assert "(`_npu_finalize` matches torch " in planned.message
    too_old = only(PROVEN, target_torch="2.6", releases=("2.6", "2.8"))
    planned = _report("native_path_too_old", too_old)
    assert (planned.code, planned.edits) == ("FSU102", [])
    assert "(torch 2.6 to 2.8)" in planned.message and "raise torch to >= 2.7" in planned.message
    planned = _report("enhance_patch", only(PROVEN, keep=frozenset({FINALIZE})))
    assert (planned.code, planned.message) == (
        "FSU201",
        "`FSDPParamGroup.finalize_backward` is declared intentional in the configuration",
    )
    differs = GROUP + "def _other(self):\n    return 1\n\n\nFSDPParamGroup.finalize_backward = _other\n"
    planned = _report("unproven_override", only(differs))
    assert planned.code == "FSU101" and planned.detail
    assert (
        planned.message.startswith("`_other` differs from torch ") and "line 3: `return 1`" in planned.message
    )  # its file line


@pytest.mark.parametrize("module", ["verdicts", "sites"])
def test_the_semantic_model_loads_no_rule(module: str) -> None:
    """The decision is made below the rules: importing it (and what it imports) runs no rule module."""
    code = (
        f"import sys, fsdp_unpatch.semantic.{module}\n"
        "print(sorted(m for m in sys.modules if m.startswith('fsdp_unpatch.rules')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
