"""FSU306's file-wide walk for attribute reads (`analysis/bindings.py`) skips expression contexts and
`ast.walk`'s generators (issue 23 item 3): it must list exactly what the walk over every node listed, in the
same order, on every Python file of this repository and on the shapes that bind or read a name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fsdp_unpatch.analysis import bindings

ROOT = Path(__file__).resolve().parent.parent
SHAPES = """
import pkg.mod as m
import pkg.other
from pkg import sub
from . import rel


def f(m_param, *args, k=sub.default, **kw):
    global g
    x = m.read
    y = pkg.other.thing.deeper
    z = [sub.item for sub_local in args]
    del x
    try:
        pass
    except OSError as rel:
        pass
    lambda q: m.in_lambda
    with open(p) as (a, b):
        pass
    match y:
        case {"k": captured, **rest}:
            m.in_match
    return m.__name__, (w := m.walrus)


class C(m.Base):
    attr: m.Annotated = m.value
    m.class_read
"""


def _reference(tree: ast.Module, module: str, monkeypatch) -> list:
    with monkeypatch.context() as patch:
        patch.setattr(bindings, "_walk", ast.walk)
        return bindings.imports(tree, module, False)


def test_the_shapes_read_the_same(monkeypatch) -> None:
    tree = ast.parse(SHAPES)
    found = bindings.imports(tree, "pkg.user", False)
    assert found == _reference(tree, "pkg.user", monkeypatch)
    assert {(i.module, i.name) for i in found} >= {("pkg.mod", "read"), ("pkg.other", "thing"), ("pkg.mod", "Base")}


@pytest.mark.parametrize("folder", ["fsdp_unpatch", "tests", "codemods", "examples"])
def test_every_file_of_the_repository_reads_the_same(folder: str, monkeypatch) -> None:
    checked = 0
    for path in sorted((ROOT / folder).rglob("*.py")):
        tree = bindings.parse(path.read_bytes())
        if tree is None:
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        assert bindings.imports(tree, module, False) == _reference(tree, module, monkeypatch), path
        checked += 1
    assert checked > 5
