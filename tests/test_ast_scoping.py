"""Scoping on the `ast` model (`semantic/ast_scoping.py`): which install sites are overrides, in which
releases, and where a saved original is put back. The expected verdicts of the edge cases written here are
what the planner has always given them (they were checked against the former libcst scoping)."""

from __future__ import annotations

from typing import Optional

import pytest

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.semantic import ast_scoping
from fsdp_unpatch.semantic.ast_sites import AstJudge
from fsdp_unpatch.semantic.model import build

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
    "naming_fstring_side_by_side": (
        f"from {FSDP} import _fsdp_param_group as G\nG.FSDPParamGroup.__module__ = 'a' f'{{G}}'\n"
    ),
}


EXPECTED: dict[str, Verdicts] = {
    "finally": [(True, "", [13]), (False, "", [])],
    "kept_on_owner": [
        (False, "", []),
        (True, "", [5]),
        (False, "", []),
        (True, "", [7]),
        (False, "", []),
        None,
        (True, "", [13]),
        (False, "", []),
    ],
    "naming_fstring": [(True, "", [])],  # a lone f-string is no plain string: an override
    "naming_fstring_side_by_side": [(False, "", [])],  # literals side by side rename, as plain strings do
    "odd": [
        (True, "", []),
        (True, "", []),
        (True, "", []),
        (True, "", []),
        (False, "", []),
        (False, "", []),
        (False, "", []),
        (False, "", []),
        (True, "", []),
        (True, "", []),
        (True, "", []),
        (False, "", []),
        (True, "", []),
    ],
    "wrapped": [(True, "", [17]), (True, "", [18]), (False, "", []), (False, "", []), (True, "", [])],
}


def _verdicts(text: str) -> Verdicts:
    catalog = load_catalog()
    model = build(text, MODULE)
    judge = AstJudge(model, MODULE, catalog, Options(Version.parse("2.9")), lambda torch, imports: None)
    found = ast_scoping.verdicts(model, text, catalog, load_symbols(), judge.fsdp2_target)
    return [None if v is None else (v.override, v.releases, v.restored_at) for v in found]


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_scoping_on_the_model(name: str) -> None:
    assert _verdicts(EDGE_CASES[name]) == EXPECTED[name]
