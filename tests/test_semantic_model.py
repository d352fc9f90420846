"""The `ast` model of a file (`semantic/model.py`) holds the same install sites and functions as the libcst
facts (`analysis/collect.py`), in the same order and at the same positions (libcst's: columns in
characters), on every rule case, fixture and example of the repository, and on edge cases written here."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis.collect import collect
from fsdp_unpatch.analysis.patterns import dotted_name
from fsdp_unpatch.semantic.model import Span, build
from fsdp_unpatch.semantic.names import ImportTable
from tests.upstream import expand

ROOT = Path(__file__).resolve().parent.parent
MODULE = "project.sub.module"  # deep enough for `from .. import x`


def _libcst_facts(module: cst.Module) -> tuple:
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    facts = collect(module, ImportTable(MODULE, False))

    def span(node: cst.CSTNode) -> Span:
        where = positions[node]
        return Span(where.start.line, where.start.column, where.end.line, where.end.column)

    order = [node for definitions in facts.functions.values() for node, _ in definitions]
    order.sort(key=lambda node: (positions[node].start.line, positions[node].start.column))
    index = {id(node): i for i, node in enumerate(order)}
    parents = {id(node): parent for definitions in facts.functions.values() for node, parent in definitions}

    def where(function: Optional[cst.FunctionDef]) -> Optional[int]:
        return None if function is None else index[id(function)]

    functions = [
        (
            node.name.value,
            span(node),
            span(node.name) if positions[node.name].start.line == positions[node].start.line else None,
            where(parents[id(node)]),
            id(node) in facts.methods,
            module.code_for_node(node),
            positions[node].start.line - len(node.leading_lines),  # as the planner counts it
        )
        for node in order
    ]
    installs = [
        (
            module.code_for_node(i.owner),
            dotted_name(i.owner),
            module.code_for_node(i.report),
            i.value.value if isinstance(i.value, cst.Name) else None,
            isinstance(i.value, cst.Call),
            i.attribute,
            module.code_for_node(i.value),
            span(i.report),
            None if isinstance(i.value, (cst.Tuple, cst.GeneratorExp)) else span(i.value),
            where(i.function),
            i.via_setattr,
            i.partial,
        )
        for i in facts.installs
    ]
    aliases = [(local, dotted_name(value), where(function), span(value)) for local, value, function in facts.aliases]
    table = facts.table
    return functions, installs, aliases, table.bindings, set(table.sources)


def _ast_facts(text: str) -> tuple:
    model = build(text, MODULE)
    functions = [(f.name, f.span, f.name_at, f.parent, f.method, f.source, f.first_line) for f in model.functions]
    installs = [
        (
            i.owner,
            i.owner_name,
            i.text,
            i.value_name,
            i.value_is_call,
            i.attribute,
            i.value,
            i.report,
            i.value_at,
            i.function,
            i.via_setattr,
            i.partial,
        )
        for i in model.installs
    ]
    table = model.table
    aliases = [(*alias, value) for alias, value in zip(model.aliases, model.alias_values, strict=True)]
    return functions, installs, aliases, table.bindings, set(table.sources)


EDGE_CASES = {
    "chained": "import m\n\n\ndef f(): pass\n\n\nm.a.x = m.b.y = f\nm.c = f; m.d = f\n",
    "setattr": (
        "import m\nsetattr(m, 'x', f)\nsetattr(m, 'a' 'b', f)\nsetattr(m, f'{x}', f)\nsetattr(m, b'x', f)\n"
        "setattr(m, 'x', f, 1)\nsetattr(m, *args)\nsetattr(m, 'x', value=f)\nsetattr(m, ('x'), f)\n"
    ),
    "scopes": (
        "@decorate(1)\n@other\ndef outer():\n    class Inner:\n        def method(self):\n"
        "            m.y = 1\n\n        if flag:\n            def also(self): pass\n    m.x = outer\n\n\n"
        "class Top:\n    def meth(self):\n        def inner():\n            self.z = 2\n\n\n"
        "async def coroutine():\n    m.q = 1\n"
    ),
    "characters": "m.ünïcode = 'é'  # ∂\nm.x = 'ä'; m.ÿ = ('a',\n    'b')\n",
    "parentheses": "(m.x) = f\n((m).y) = (f)\nm.z = (\n    f\n)\n",
    "continuations": (
        "def f():\n    if x:\n        m.x = (\n            g(\n"
        '                """a\n        b"""\n            )\n        )\n'
        "    m.y = h(\n        # a note\n        1,\n    )\n    setattr(\n        m, 'z', (\n            k\n        )\n    )\n"
        "    m.w = \\\n        v\n"
    ),
    "comments": (
        "# header\n\ndef first():\n    pass\n    # its footer\n\n# above second\n\n@decorated\n# between\n"
        "def second():\n    if x:\n        y = 1\n        # inner footer\n    # second's footer\n# above third\n"
        "class C:\n    x = 1\n\n    # above method\n    def method(self):\n        '''doc\n    at column 4'''\n"
        "        total = 1 + \\\n                2\n        return total\n\n        # method footer\n\n    # class level\n\n\n"
        "def last(): return 1\n# trailing\n"
    ),
    "imports": (
        "import a.b.c\nimport torch.distributed as dist\nfrom .. import sibling\nfrom ...too.far import x\n"
        "from .near import y as z\nfrom torch.distributed.fsdp import _fully_shard as fs\nC = fs._fsdp_collectives\n"
        "orig = C.foreach_reduce\nlocal = other.thing\n\n\ndef helper():\n    import later\n    from m import n\n"
        "    inner = dist.all_gather\n\n\nclass K:\n    def meth(self): pass\n\n\n"
        "try:\n    from x import y\nexcept ImportError:\n    y = None\nfrom star import *\n"
    ),
    "bindings": (
        "a = b = 1\nc, (d, *e) = f\n[g] = h\ni: int = 1\nj: int\nk += 1\nif x:\n    l = 1\nelif y:\n    m = 1\n"
        "else:\n    n = 1\nif x:\n    o = 1\nelse:\n    if y:\n        p = 1\n    else:\n        q = 1\n"
        "if x: r = 1\ntry:\n    s = 1\nexcept E:\n    t = 1\nelse:\n    u = 1\nfinally:\n    v = 1\n"
        "for w in z:\n    w2 = 1\nelse:\n    w3 = 1\nwith cm() as x1:\n    x2 = 1\nwhile c:\n    x3 = 1\n"
        "match v:\n    case 1:\n        x4 = 1\nclass Y:\n    inner = 1\ndef a(): pass\n"
    ),
    # Python ends lines at \n, \r\n and \r only; str.splitlines also at a form feed, \x1c and \u2028.
    "line_ends": (
        "import m\r\n\x0c\r\ndef f():\r\n    '''a\x0cb\u2028c'''  # \x1c\r\n    return 1\r\n\r\n\r\nm.x = f\r\n"
        "def g():\r    pass\rm.y = g\r"
    ),
    "def_headers": "async  def a(): pass\ndef \\\n  b(): pass\nasync \\\n def c(): pass\nclass K:\n\tdef\x0cd(self): pass\n",
    "no_final_newline": "import m\r\n\r\ndef h():\r\n    pass\r\n    # footer",
    "annotated": "m.x: int = 1\nm.y += 1\n(m.a, m.b) = f, g\nm[0].x = 1\nf().x = 1\n",
}


def _corpus() -> list[Path]:
    found = []
    for folder in ("tests/rules", "tests/fixtures", "examples"):
        found.extend(sorted((ROOT / folder).rglob("*.py")))
    return found


def _same(text: str) -> None:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return  # a case about a file that does not parse
    assert _ast_facts(text) == _libcst_facts(module)


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_the_ast_model_equals_the_libcst_facts_on_edge_cases(name: str) -> None:
    _same(EDGE_CASES[name])


def test_the_ast_model_equals_the_libcst_facts_on_the_repositorys_sources() -> None:
    paths = _corpus()
    assert len(paths) > 100, "the corpus was found"
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
            compile(text, str(path), "exec")
        except (UnicodeDecodeError, SyntaxError, ValueError):
            continue  # cases about unreadable or broken files
        _same(text)
        if "# @upstream" in text:
            _same(expand(text))
