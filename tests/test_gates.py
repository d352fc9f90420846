"""The gates that spare files a parse are compiled from what the registered rules declare makes a file their
candidate (`registry.Candidate`, issue 32 item 2): the prefilter's byte search and shape test
(`analysis/prefilter.py`), the ast screen (`analysis/screen.py`) and the `ast` findings
(`analysis/ast_findings.py`). A shape that some rule declares keeps the files that hold it; a shape that no
rule declares is not looked for. The soundness of the gates over every fixture is `tests/test_prefilter.py`'s
and `tests/test_tiers.py`'s."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fsdp_unpatch.analysis.prefilter import Prefilter, Vocabulary, prefilter_for
from fsdp_unpatch.analysis.screen import Screen, screen_for
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.rules import registry

REPO = Path(__file__).resolve().parent.parent
CATALOG = load_catalog()
PATCH_PART = sorted(Vocabulary.from_catalog(CATALOG).patch_names)[0]

# A file that holds one shape (and no other that a rule declares), for each shape.
SAMPLES = {
    "fsdp2-store": (
        "import torch\n\n\ndef _post_backward(self):\n    return None\n\n\n"
        "torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPParamGroup.post_backward = _post_backward\n"
    ),
    "fsdp2-patch": (
        "import torch\n\n\ndef _post_backward(self):\n    return None\n\n\n"
        "setattr(torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPParamGroup, "
        '"post_backward", _post_backward)\n'
    ),
    "kernel-registration": (REPO / "tests/rules/FSU103/private_use1_kernel/npu_kernels.py").read_text(),
    "op-definition": 'import torch\n\ntorch.library.define("fsdp::my_copy", "(Tensor x) -> Tensor")\n',
    "fsdp2-class": '"""A copy of FSDP2\'s parameter group."""\n\n\nclass FSDPParamGroup:\n    pass\n',
    "fsdp2-subclass": (
        "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n\n"
        "class Mine(FSDPParamGroup):\n    pass\n"
    ),
    "module-entry": 'import sys\n\nsys.modules["torch.distributed.fsdp._fully_shard._fsdp_collectives"] = object()\n',
    "same-device-copy": (REPO / "tests/rules/FSU005/special_case_in_a_helper/buffers.py").read_text(),
    "patch-part": f"from adapter import {PATCH_PART}\n\n{PATCH_PART}()\n",
    "suppression": "x = 1  # noqa: FSU101\n",
    "unparsable": "import torch.distributed.fsdp\n\n\ndef broken(:\n    pass\n",
}
NAMED = {
    "word": (registry.word("sharded_block"), "sharded_block = 4\n"),
    "call": (
        registry.call("fully_shard"),
        "from torch.distributed.fsdp import fully_shard\n\n\ndef shard(model):\n    fully_shard(model)\n",
    ),
}
# Spelled in a docstring only: the prefilter keeps it (bytes), the screen drops it (no such call in the tree).
CALL_IN_A_DOCSTRING = '"""Shard each block: call fully_shard(block) first."""\n\nBLOCKS = 4\n'
UNRELATED = registry.word("zz_unrelated_word")


def _only(monkeypatch: pytest.MonkeyPatch, *candidates: registry.Candidate, subject: str = "site") -> None:
    """The registry holds one rule (FSU101's, with its checks), declaring only `candidates`."""
    rule = registry.rule("FSU101")
    if subject != "site":
        rule = dataclasses.replace(rule, subject=subject, also=())  # type: ignore[arg-type]
    one = {rule.code: dataclasses.replace(rule, candidates=tuple(candidates))}
    monkeypatch.setattr(registry, "all_rules", lambda: one)


def _kept(data: str, tmp_path: Path) -> tuple[bool, bool]:
    """(the prefilter keeps the file, the ast screen leaves it undecided), with the registry as it stands."""
    path = tmp_path / "sample.py"
    path.write_text(data, encoding="utf-8")
    prefilter, screen = prefilter_for(CATALOG), screen_for(CATALOG)
    return prefilter.worth_parsing(data.encode(), str(path)), not screen.holds_no_finding(data.encode(), path)


def test_every_shape_of_the_catalog_is_declared_by_a_rule_and_has_a_sample() -> None:
    """The registered rules declare every shape the gates know (none is compiled for nothing), and the tests
    below cover each."""
    named = {shape for shape in registry.SHAPES if shape not in registry.NAMED_SHAPES}
    declared = {c.shape for rule in registry.all_rules().values() for c in rule.candidates}
    assert declared == named
    assert set(SAMPLES) == named and set(NAMED) == set(registry.NAMED_SHAPES)


def test_the_real_registry_compiles_the_gates_of_every_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    """The union over the registered rules is the gates of all the shapes at once: one rule declaring them
    all compiles the same byte search and shape tests."""
    real = Prefilter(CATALOG)
    everything = [registry.shape(s) for s in SAMPLES] + [c for c, _ in NAMED.values()]  # type: ignore[arg-type]
    words = [c for rule in registry.all_rules().values() for c in rule.candidates if c.shape in registry.NAMED_SHAPES]
    _only(monkeypatch, *[c for c in everything if c.shape not in registry.NAMED_SHAPES], *words)
    assert real.vocabulary.shapes == Vocabulary.from_catalog(CATALOG).shapes
    one = Prefilter(CATALOG)
    assert set(one.tokens) == set(real.tokens)
    assert [(literals, getattr(pattern, "pattern", type(pattern))) for literals, pattern in one._direct] == [
        (literals, getattr(pattern, "pattern", type(pattern))) for literals, pattern in real._direct
    ]


@pytest.mark.parametrize("shape", sorted(SAMPLES) + sorted(NAMED))
def test_a_declared_shape_keeps_its_files_and_an_undeclared_one_does_not(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    candidate, data = NAMED[shape] if shape in NAMED else (registry.shape(shape), SAMPLES[shape])  # type: ignore[arg-type]
    _only(monkeypatch, candidate)
    assert _kept(data, tmp_path) == (True, True)
    _only(monkeypatch, UNRELATED)
    prefilter, screen = _kept(data, tmp_path)
    assert not prefilter, "no rule declares the shape: the prefilter drops the file"
    if shape != "unparsable":  # without a tree the screen rules nothing out
        assert not screen, "no rule declares the shape: the screen drops the file"


def test_a_declared_call_is_tested_on_the_syntax_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`call("fully_shard")`: the prefilter keeps a file that spells `fully_shard(` (bytes), the screen only
    one that calls it."""
    _only(monkeypatch, registry.call("fully_shard"))
    assert _kept(CALL_IN_A_DOCSTRING, tmp_path) == (True, False)
    assert _kept("import torch\n\ntorch.distributed.fsdp.fully_shard (\n    model)\n", tmp_path) == (True, True)
    assert _kept("def fully_sharded(model):\n    return model\n", tmp_path) == (False, False)


def test_the_ast_findings_stand_in_for_libcst_unless_a_module_rule_declares_plain_stores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The `ast` model runs the checks of sites, patches and installer calls, not those of modules or runs:
    when a rule that checks only those declares plain stores, every file that holds one goes to libcst."""
    from fsdp_unpatch.analysis.ast_findings import findings_on_ast
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.options import Options

    options = Options(target_torch=Version.parse("2.13"))
    data, path = SAMPLES["fsdp2-store"].encode(), Path("adapter/hooks.py")
    assert Screen(CATALOG).model_stands_in
    assert findings_on_ast(data, path, CATALOG, options) is not None
    for subject in ("site", "patches"):  # the model runs those checks itself
        _only(monkeypatch, registry.shape("fsdp2-store"), subject=subject)
        assert screen_for(CATALOG).model_stands_in
    for subject in ("module", "run"):
        _only(monkeypatch, registry.shape("fsdp2-store"), subject=subject)
        assert not screen_for(CATALOG).model_stands_in
        assert findings_on_ast(data, path, CATALOG, options) is None


def test_a_candidate_is_a_known_shape_with_its_name() -> None:
    assert registry.call("fully_shard") == registry.Candidate("call", "fully_shard")
    for bad in (
        lambda: registry.Candidate("nothing"),  # type: ignore[arg-type]
        lambda: registry.Candidate("word"),
        lambda: registry.Candidate("fsdp2-store", "x"),
        lambda: registry.call("fully_shard("),
        lambda: registry.shape("call"),
    ):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError, match="candidates are"):
        registry.declare("FSU999", "x", category="review", fix="none", phase="file", summary="", messages="",
                         doc="", candidates=("fully_shard",))  # type: ignore[arg-type]  # fmt: skip
