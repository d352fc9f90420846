"""The prefilter is sound (never rejects a file that yields a finding) and sharp (rejects what cannot)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsdp_unpatch.analysis.prefilter import Prefilter, Vocabulary, prefilter_for
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.run.engine import run_together
from tests.upstream import expanded_copy

ROOT = Path(__file__).resolve().parent.parent
TREES = [ROOT / "tests" / "fixtures", ROOT / "examples" / "legacy_project"]
TORCH_VERSIONS = ("2.4", "2.7", "2.13")


def _files_with_findings(tree: Path, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Files with findings when every file is parsed (no prefilter), for any of several torch releases."""
    monkeypatch.setattr(Prefilter, "worth_parsing", lambda self, data, path=None, named=None: True)
    found = set()
    for torch in TORCH_VERSIONS:
        options = RunOptions(analysis=Options(target_torch=Version.parse(torch)))
        result = run_together(discover([str(tree)]), load_catalog(), options)
        found.update(f.path for f in result.findings if f.category != "error")
    monkeypatch.undo()
    return found


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_every_file_with_a_finding_passes_the_prefilter(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = expanded_copy(tree, tmp_path / tree.name)
    with_findings = _files_with_findings(copy, monkeypatch)
    assert len(with_findings) >= (20 if tree.name == "fixtures" else 2), "the trees must hold findings"
    prefilter = prefilter_for(load_catalog())
    rejected = sorted(path for path in with_findings if not prefilter.worth_parsing(Path(path).read_bytes(), path))
    assert rejected == []


def test_stage_two_rejects_files_that_only_mention_fsdp() -> None:
    prefilter = prefilter_for(load_catalog())
    rejected = [
        b"# FSDP in prose only\ndef train(model, fsdp_enabled=True):\n    model.fsdp = fsdp_enabled\n",
        b"from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\nmodel = FSDP(model)\n",
        b"import torch.distributed as dist\nfrom torch.distributed.fsdp import fully_shard\nfully_shard(m)\n",
        b"x = torch.ops.fsdp.all_gather_copy_in(a, b)  # a call, not an override\n",
        b"torch._foreach_copy_(dst, src, non_blocking=True)\n",  # no same-device test around it
        # an owner and a name only read (a real release's inductor lowering): no install
        b"if hasattr(torch.ops.fsdp, 'copy_'):\n    pass\n",
        b"from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C\nf = getattr(C, 'foreach_reduce')\n",
    ]
    for data in rejected:
        assert prefilter.has_token(data), data
        assert not prefilter.worth_parsing(data, "/project/mod.py"), data


@pytest.mark.parametrize(
    "data",
    [
        b"from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C\nD = C\nD.foreach_reduce = f\n",
        b"import torch\n(\n    torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce\n) = f\n",
        b"import torch\ntorch.distributed._composable.fsdp._fsdp_collectives \\\n    .foreach_reduce = f\n",
        b"from torch.distributed import fsdp\nsetattr(fsdp._fully_shard._fsdp_param_group.FSDPParamGroup, 'x', f)\n",
        b"with mock.patch('torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce'):\n    pass\n",
        b"lib = torch.library.Library('fsdp', 'IMPL')\n",
        b"@torch.library.impl(lib, 'all_gather_copy_in', 'PrivateUse1')\ndef k(): ...\n",
        b"from foo import copy_\nif a[0].device == b[0].device:\n    torch._foreach_copy_(a, b, True)\n",
        b"x = 1  # noqa: FSU001\n",
        b"import sys\nsys.modules['torch.distributed.fsdp._fully_shard._fsdp_param'] = m\n",
        b"monkeypatch.setitem(sys.modules, 'torch.distributed._composable.fsdp._fsdp_param', m)\n",
        b'with mock.patch.dict(sys.modules, {"x": 1, "torch.distributed.fsdp._fully_shard._fsdp_common": m}):\n',
        b"class FSDPParamGroup:\n    def finalize_backward(self):\n        pass\n",
        # installed without a plain install site (`analysis/indirect_installs.py`)
        b"from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C\nvars(C)['foreach_reduce'] = f\n",
        b"from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup as G\nG.__dict__['x'] = f\n",
        b"from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n"
        b"for o, n, f in [(FSDPParamGroup, 'finalize_backward', g)]:\n    setattr(o, n, f)\n",
        b"from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n"
        b"@install_over(FSDPParamGroup, 'finalize_backward')\ndef f(self): ...\n",
        b"import sys\nsys.modules['torch.distributed.fsdp._fully_shard._fsdp_collectives'].foreach_reduce = f\n",
        b"import importlib\nimportlib.import_module('torch.distributed.fsdp._fully_shard._fsdp_collectives').x = f\n",
        b"from torch.distributed.fsdp._fully_shard import _fsdp_param_group as g\n"
        b"getattr(g, 'FSDPParamGroup').post_backward = f\n",
    ],
)
def test_stage_two_keeps_every_override_shape(data: bytes) -> None:
    assert prefilter_for(load_catalog()).worth_parsing(data, "/project/mod.py")


def test_tokens_come_from_the_catalog() -> None:
    catalog = load_catalog()
    tokens = Vocabulary.from_catalog(catalog).tokens()
    assert b"_foreach_copy_" in tokens and b"_fully_shard" in tokens and b"fsdp" in tokens
    assert all(
        op.encode() in tokens or any(t in op.encode() for t in tokens)
        for op in Vocabulary.from_catalog(catalog).op_names
    )
    # a target module the catalog adds is searched for without touching the prefilter
    extended = type(catalog)(
        **{
            **catalog.__dict__,
            "targets": {**catalog.targets, "_new_module.thing": None},
            "fsdp2_roots": catalog.fsdp2_roots + ("torch.distributed.brand_new",),
        }
    )
    words = Vocabulary.from_catalog(extended)
    assert b"brand_new" in words.tokens() and b"_new_module" in words.tokens()


def test_files_inside_fsdp2_packages_are_kept_when_they_store_into_a_relative_import() -> None:
    prefilter = prefilter_for(load_catalog())
    package = "/venv/torch/distributed/fsdp/_fully_shard/_new.py"
    for data in (
        b"from . import _x\n_x.y = f\n",
        b"from ._x import (\n    a,\n    Klass as K,\n)\nK.m = f\n",
        b"from .. import _x\nsetattr(_x, 'y', f)\n",
    ):
        assert prefilter.worth_parsing(data, package), data
        assert not prefilter.worth_parsing(data, "/project/pkg/_new.py")
    # Upstream modules import relatively and store into `self`, never into an imported module.
    upstream = b"from ._x import helper\n\nclass A:\n    def f(self):\n        self.y = helper\n"
    assert not prefilter.worth_parsing(upstream, package)
