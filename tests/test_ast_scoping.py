"""Scoping decided on the `ast` model (`semantic/ast_scoping.py`) equals scoping on the libcst facts
(`analysis/scoping.py`): for every install site of every rule case, fixture and example of the repository, and
of the edge cases written here, the same override verdict, the same releases and the same restore lines."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis import scoping, site_judging
from fsdp_unpatch.analysis.collect import collect
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.semantic import ast_scoping
from fsdp_unpatch.semantic.model import build
from fsdp_unpatch.semantic.names import ImportTable
from tests.upstream import expand

ROOT = Path(__file__).resolve().parent.parent
MODULE = "project.sub.module"
Verdicts = list[Optional[tuple[bool, str, list[int]]]]

FSDP = "torch.distributed.fsdp._fully_shard"
EDGE_CASES = {
    # a saved original in a function, put back in `finally:` (the shape of a test helper)
    "finally": (
        "import contextlib, torch\n\n\n@contextlib.contextmanager\ndef swap(new):\n"
        f"    saved = (\n        torch.{FSDP[6:]}._fsdp_param_group.foreach_all_gather\n    )\n"
        f"    torch.{FSDP[6:]}._fsdp_param_group.foreach_all_gather = new\n    try:\n        yield\n"
        f"    finally:\n        torch.{FSDP[6:]}._fsdp_param_group.foreach_all_gather = saved\n"
    ),
    # the original kept on the owner, on `self`, through getattr, imported under another name
    "kept_on_owner": (
        f"from {FSDP} import _fsdp_collectives as C\nfrom {FSDP}._fsdp_collectives import foreach_reduce as orig\n"
        "C._orig_reduce = C.foreach_reduce\nC.foreach_reduce = print\nC.foreach_reduce = C._orig_reduce\n"
        "C.foreach_reduce = len\nC.foreach_reduce = orig\n"
        "class T:\n    def setUp(self):\n        self.old = getattr(C, 'foreach_all_gather')\n"
        "        C.foreach_all_gather = id\n    def tearDown(self):\n        C.foreach_all_gather = self.old\n"
    ),
    # `functools.wraps`: the wrapper's `__wrapped__` is the original; a keyword argument; a parameter shadows
    "wrapped": (
        f"import functools\nfrom {FSDP} import _fsdp_param_group as G\n\n\n"
        "@functools.wraps(G.FSDPParamGroup.post_backward)\ndef wrapper(*a):\n    return 1\n\n\n"
        "@functools.wraps(wrapped=G.FSDPParamGroup.pre_backward)\ndef other(*a):\n    return 1\n\n\n"
        "G.FSDPParamGroup.post_backward = wrapper\nG.FSDPParamGroup.pre_backward = other\n"
        "G.FSDPParamGroup.post_backward = wrapper.__wrapped__\nG.FSDPParamGroup.pre_backward = other.__wrapped__\n\n\n"
        "def undo(orig):\n    G.FSDPParamGroup.reshard = orig\n"
    ),
    # names bound twice, by a call, strings into naming attributes, a new attribute, an earlier patch read
    "odd": (
        f"from {FSDP} import _fsdp_param_group as G\nfrom {FSDP} import _fsdp_collectives as C\n"
        "a = G.foreach_reduce\na = C.foreach_reduce\nG.foreach_reduce = print\nG.foreach_reduce = a\n"
        "b = getattr(G, 'foreach' '_all_gather')\nG.foreach_all_gather = id\nG.foreach_all_gather = b\n"
        "c = getattr(G, f'x')\nG.FSDPParamGroup.__module__ = 'x'\nG.FSDPParamGroup.__doc__ = 'y' 'z'\n"
        "G.FSDPParamGroup.__qualname__ = ('q')\nG.new_flag = True\nC.foreach_reduce = len\n"
        "G.foreach_reduce = C.foreach_reduce\nC.foreach_reduce = None\n"
        "d = getattr(G, *rest)\nG.unshard = d\n__all__ = getattr(G, 'foreach_reduce')\n"
        "G.FSDPParamGroup.unshard = __all__\n"
    ),
    "naming_fstring": f"from {FSDP} import _fsdp_param_group as G\nG.FSDPParamGroup.__module__ = f'x'\n",
}


def _options() -> Options:
    return Options(Version.parse("2.9"))


def _both(text: str) -> Optional[tuple[Verdicts, Optional[Verdicts]]]:
    """(libcst verdicts, model verdicts) per install site; None when the model's sites do not pair."""
    catalog, symbols = load_catalog(), load_symbols()
    module = cst.parse_module(text)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    facts = collect(module, ImportTable(MODULE, False))
    model = build(text, MODULE)
    judge = site_judging.on_the_model(model, module, MODULE, facts, catalog, _options())
    if isinstance(judge, str):
        return None

    def line(node: cst.CSTNode) -> int:
        return positions[node].start.line

    on_libcst = scoping.verdicts(facts, catalog, symbols, judge.fsdp2_target, line)
    expected = [_plain(on_libcst.get(id(i))) for i in facts.installs]
    on_model = ast_scoping.verdicts(model, text, catalog, symbols, judge.judge.fsdp2_target)
    return expected, None if on_model is None else [_plain(v) for v in on_model]


def _plain(verdict: Optional[scoping.Verdict]) -> Optional[tuple[bool, str, list[int]]]:
    return None if verdict is None else (verdict.override, verdict.releases, verdict.restored_at)


def _same(text: str) -> tuple[bool, bool]:
    """Whether the model decided (and then equally; False when it left the file to libcst), and whether a
    restore was paired with its install."""
    try:
        cst.parse_module(text)
        compile(text, "<case>", "exec")
    except (cst.ParserSyntaxError, SyntaxError, ValueError):
        return False, False
    both = _both(text)
    if both is None or both[1] is None:
        return False, False
    assert both[1] == both[0]
    return True, any(v is not None and v[2] for v in both[0])


@pytest.mark.parametrize("name", sorted(set(EDGE_CASES) - {"naming_fstring"}))
def test_scoping_on_the_model_equals_scoping_on_libcst_on_edge_cases(name: str) -> None:
    both = _both(EDGE_CASES[name])
    assert both is not None and both[1] is not None
    expected, found = both
    if name != "odd":  # that case is about reads that hold no original
        assert any(v is not None and v[2] for v in expected), "the case pairs a restore with its install"
    assert found == expected


def test_an_f_string_into_a_naming_attribute_is_left_undecided() -> None:
    both = _both(EDGE_CASES["naming_fstring"])
    assert both is not None and both[1] is None


def test_scoping_on_the_model_equals_scoping_on_libcst_on_the_repositorys_sources() -> None:
    paths = [
        p for folder in ("tests/rules", "tests/fixtures", "examples") for p in sorted((ROOT / folder).rglob("*.py"))
    ]
    decided = restored = 0
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for variant in (text, expand(text)) if "# @upstream" in text else (text,):
            same, paired = _same(variant)
            decided += same
            restored += paired
    assert decided > 250 and restored >= 1, (decided, restored)
