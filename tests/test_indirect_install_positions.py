"""Overrides installed in shapes no install site stands for (`analysis/indirect_installs.py`), and FSU105's
`setattr` calls with a computed name, are read from the `ast` model, not from libcst (issue 32 item 4: libcst
only writes). Each stands where libcst places what it points at and is quoted as libcst's `code_for_node` gives
it, in every spelling that moves a column, a line or the quoted text. libcst is the oracle: `_Oracle` below is
the libcst reader the module was, with two deliberate differences: a name written as string literals side by
side (`"fin" "alize"`) is a literal, and an attribute of an owner looked up at run time
(`sys.modules[m].FSDPParamGroup`) an owner (the libcst reader missed both overrides and let the planner delete a
direct site of the same target; `test_what_the_libcst_reader_missed_is_found`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis.indirect_installs import MOCK_ROOTS, find
from fsdp_unpatch.analysis.patterns import dotted_name, qualify
from fsdp_unpatch.analysis.plan import Options, analyze_module
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.semantic.names import ImportTable, is_fsdp2_private, target_id

ROOT = Path(__file__).resolve().parent.parent


class _Oracle:
    """The libcst reader: (start, end, code, target, how, loop, reported, arguments) of each override."""

    def __init__(self, module: cst.Module, table: ImportTable) -> None:
        self.module, self.table, self.catalog = module, table, load_catalog()
        self.positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.found: list[tuple] = []
        for statement in self._statements(module):
            node = statement.value if isinstance(statement, cst.Expr) else statement
            method = getattr(self, f"visit_{type(node).__name__}", None)
            if method is not None:
                method(node)

    def _statements(self, node: cst.CSTNode):
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                continue
            if isinstance(child, cst.SimpleStatementLine):
                yield from child.body
            elif isinstance(child, cst.BaseSmallStatement):
                yield child
            else:
                if isinstance(child, (cst.BaseCompoundStatement, cst.Decorator)):
                    yield child
                yield from self._statements(child)

    def visit_Assign(self, node: cst.Assign) -> None:
        for assign_target in node.targets:
            stored = assign_target.target
            if isinstance(stored, (cst.Tuple, cst.List)):
                values = _elements(node.value)
                for index, element in enumerate(stored.elements):
                    value = values[index] if values is not None and len(values) == len(stored.elements) else None
                    if isinstance(element.value, cst.Attribute):
                        self._attribute(element.value, value, "unpacked from a tuple", always=True)
            elif isinstance(stored, cst.Attribute):
                self._attribute(stored, node.value, "on an owner looked up at run time", always=False)
            elif isinstance(stored, cst.Subscript):
                self._namespace_store(stored, node.value)

    def visit_Call(self, node: cst.Call) -> None:
        args = _plain_args(node)
        if _callee(node) != "setattr" or args is None or len(args) != 3 or dotted_name(args[0]) is not None:
            return
        name, owner = _literal(args[1]), self.owner_of(args[0])
        if name is not None and owner is not None:
            self._add(node, f"{owner}.{name}", args[2], "by `setattr` on an owner looked up at run time")

    def visit_For(self, node: cst.For) -> None:
        names = [e.value if isinstance(e, cst.Name) else None for e in _elements(node.target) or ()]
        rows = _elements(node.iter)
        if not names or rows is None:
            return
        body = node.body
        if isinstance(body, cst.IndentedBlock):
            smalls = [s for line in body.body if isinstance(line, cst.SimpleStatementLine) for s in line.body]
        else:
            smalls = list(body.body)
        calls = [s.value for s in smalls if isinstance(s, cst.Expr) and isinstance(s.value, cst.Call)]
        for call in (c for c in calls if _callee(c) == "setattr"):
            args = _plain_args(call)
            if args is None or len(args) != 3:
                continue
            for row in rows:
                row_values = _elements(row)
                if row_values is None or len(row_values) != len(names):
                    continue
                picked = [
                    row_values[names.index(a.value)] if isinstance(a, cst.Name) and a.value in names else a
                    for a in args
                ]
                owner, name = self.owner_of(picked[0]), _literal(picked[1])
                if owner is not None and name is not None:
                    fixed_owner = dotted_name(args[0]) is not None and args[0] is picked[0]
                    spelled = tuple(self.module.code_for_node(a) for a in args[:2])
                    self._add(call, f"{owner}.{name}", picked[2], "by `setattr` in a loop", True, fixed_owner, spelled)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        call = node.decorator
        if not isinstance(call, cst.Call):
            return
        callee = dotted_name(call.func)
        if (self.table.qualify_dotted(callee) if callee else "").startswith(MOCK_ROOTS):
            return
        values = [arg.value for arg in call.args if not arg.star]
        for owner_node, name_node in zip(values, values[1:]):
            owner, name = self.owner_of(owner_node), _literal(name_node)
            if owner is not None and name is not None:
                self._add(node, f"{owner}.{name}", None, f"by decorator `@{callee or '...'}`")

    def _attribute(self, stored: cst.Attribute, value, how: str, *, always: bool) -> None:
        if not always and dotted_name(stored.value) is not None:
            return
        owner = self.owner_of(stored.value)
        if owner is not None:
            self._add(stored, f"{owner}.{stored.attr.value}", value, how)

    def _namespace_store(self, stored: cst.Subscript, value) -> None:
        if len(stored.slice) != 1 or not isinstance(stored.slice[0].slice, cst.Index):
            return
        name, namespace, owner_node, how = _literal(stored.slice[0].slice.value), stored.value, None, ""
        if isinstance(namespace, cst.Call) and _callee(namespace) == "vars":
            args = _plain_args(namespace)
            owner_node, how = (args[0] if args is not None and len(args) == 1 else None), "through `vars()`"
        elif isinstance(namespace, cst.Attribute) and namespace.attr.value == "__dict__":
            owner_node, how = namespace.value, "through `__dict__`"
        owner = self.owner_of(owner_node) if owner_node is not None else None
        if owner is not None and name is not None:
            self._add(stored, f"{owner}.{name}", value, how)

    def owner_of(self, node) -> Optional[str]:
        name = dotted_name(node)
        if name is not None:
            return self.table.qualify_dotted(name)
        if isinstance(node, cst.Attribute):  # the second difference: an attribute of an owner looked up at run time
            owner = self.owner_of(node.value)
            return f"{owner}.{node.attr.value}" if owner is not None else None
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            base = dotted_name(node.value)
            if base is not None and self.table.qualify_dotted(base) == "sys.modules":
                return _literal(node.slice[0].slice.value)
        if isinstance(node, cst.Call):
            args, callee = _plain_args(node), dotted_name(node.func)
            if (self.table.qualify_dotted(callee) if callee else None) == "importlib.import_module":
                return _literal(args[0]) if args and len(args) == 1 else None
            if callee == "getattr" and args is not None and len(args) == 2:
                owner, attribute = self.owner_of(args[0]), _literal(args[1])
                return f"{owner}.{attribute}" if owner is not None and attribute is not None else None
        return None

    def _add(self, node, qualified, value, how, loop=False, reported=False, arguments=()) -> None:
        target = target_id(qualified, self.catalog)
        if target is None or not is_fsdp2_private(target, self.catalog):
            return
        releases = load_symbols().releases(target)
        if releases is not None and not releases:
            return
        held = self.table.qualify_dotted(dotted_name(value)) if value is not None and dotted_name(value) else None
        if held is not None and (held == qualified or target_id(held, self.catalog) == target):
            return
        where = self.positions[node]
        span = (where.start.line, where.start.column, where.end.line, where.end.column)
        self.found.append((span, self.module.code_for_node(node), target, how, loop, reported, arguments))


def _elements(node):
    if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        return [e.value for e in node.elements]
    return None


def _plain_args(call: cst.Call):
    return None if any(a.keyword is not None or a.star for a in call.args) else [a.value for a in call.args]


def _callee(call: cst.Call) -> Optional[str]:
    return call.func.value if isinstance(call.func, cst.Name) else None


def _literal(node) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):  # the one difference: side by side too
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _analysis(data: bytes, name: str = "otherfw.overrides"):
    options = Options(target_torch=Version.parse("2.13"))
    return analyze_module(cst.parse_module(data), name, False, load_catalog(), options, data=data)


def _both(data: bytes, name: str = "otherfw.overrides") -> tuple[list, list]:
    analysis = _analysis(data, name)
    return _read(analysis), _Oracle(analysis.module, analysis.table).found


def _read(analysis) -> list[tuple]:
    """What `find` reads of the analysed file, in the oracle's shape."""
    assert analysis.model is not None and analysis.model.tree is not None
    found = find(analysis.model.tree, analysis.node_text, analysis.table, load_catalog())
    return [
        (
            (f.at.line, f.at.column, f.at.end_line, f.at.end_column),
            f.code,
            f.target,
            f.how,
            f.loop,
            f.reported,
            f.arguments,
        )
        for f in found
    ]


HEAD = (
    "import importlib\nimport sys\n"
    "from torch.distributed.fsdp._fully_shard import _fsdp_param_group as pg\n"
    "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n"
    "def _npu_finalize(self):\n    pass\n\n"
)
MODULE = '"torch.distributed.fsdp._fully_shard._fsdp_param_group"'
SPELLINGS = {
    "unpacked": HEAD + "FSDPParamGroup.finalize_backward, pg.FSDPParamGroup.post_forward = _npu_finalize, print\n"
    "(FSDPParamGroup.pre_forward), *rest = [_npu_finalize, 1, 2]\n"
    "[FSDPParamGroup.post_backward, (pg).FSDPParamGroup.lazy_init] = a = (_npu_finalize,\n    print)\n",
    "looked up at run time": HEAD + f"sys.modules[{MODULE}].FSDPParamGroup.finalize_backward = _npu_finalize\n"
    f"importlib.import_module({MODULE}).FSDPParamGroup.post_forward = _npu_finalize\n"
    "getattr(pg, 'FSDPParamGroup').pre_forward = _npu_finalize\n"
    "getattr(pg, 'FSDPParamGroup').post_backward = getattr(pg, 'FSDPParamGroup').post_backward  # restores\n",
    "namespaces": HEAD + 'vars(FSDPParamGroup)["finalize_backward"] = _npu_finalize\n'
    "FSDPParamGroup.__dict__['post_forward'] = _npu_finalize\n"
    'vars(FSDPParamGroup)[b"pre_forward"] = _npu_finalize  # bytes: no name\n'
    'vars(FSDPParamGroup)["pre" "_forward":] = _npu_finalize  # a slice\n',
    "setattr": HEAD + f"setattr(sys.modules[{MODULE}].FSDPParamGroup, 'finalize_backward', _npu_finalize)\n"
    "setattr(getattr(pg, 'FSDPParamGroup'),\n        'post_forward',\n        _npu_finalize)\n"
    "setattr(FSDPParamGroup, 'pre_forward', _npu_finalize)  # an install site: not here\n"
    "setattr(importlib.import_module(name=MODULE), 'x', f)  # a keyword: no owner\n",
    "loops": HEAD
    + "if True:\n    for owner, name, fn in [\n        (FSDPParamGroup, 'finalize_backward', _npu_finalize),\n"
    "        (pg.FSDPParamGroup, 'post_forward', _npu_finalize),\n    ]:\n        setattr(owner, name, fn)\n"
    "        if owner:\n            setattr(owner, name, fn)  # not the loop's own statement\n"
    "for name, fn in (('pre_forward', _npu_finalize),): setattr(FSDPParamGroup, name, fn); print(name)\n"
    "async def later():\n    async for o, n, f in [(FSDPParamGroup, 'post_backward', _npu_finalize)]:\n"
    "        setattr(o,\n            n, f)\n",
    "decorators": HEAD + "class Holder:\n    @staticmethod\n    # a comment between decorators\n\n"
    '    @install_over( FSDPParamGroup ,\n        "finalize_backward")  # tail\n    def a(self): ...\n\n'
    "    @(install_over(pg.FSDPParamGroup, name='post_forward'))\n    async def b(self): ...\n\n"
    "@install_over(FSDPParamGroup, *names)\n@mock.patch.object(FSDPParamGroup, 'pre_forward')\n"
    "@ register(\n    FSDPParamGroup, 'post_backward')\nclass C: ...\n",
    "nested blocks": HEAD + "try:\n    vars(FSDPParamGroup)['finalize_backward'] = _npu_finalize\nexcept ImportError:\n"
    "    with open('x') as f:\n        while True:\n            sys.modules["
    + MODULE
    + "].FSDPParamGroup.post_forward = f\n"
    "else:\n    pass\nfinally:\n    def g():\n        @install_over(FSDPParamGroup, 'pre_forward')\n        def h(): ...\n",
    "not ascii before it": HEAD + "été = 1; vars(FSDPParamGroup)['finalize_backward'] = _npu_finalize\n"
    "label = '世界'; setattr(getattr(pg, 'FSDPParamGroup'), 'post_forward', _npu_finalize)\n",
}
SPELLINGS["crlf"] = (SPELLINGS["decorators"] + SPELLINGS["loops"][len(HEAD) :]).replace("\n", "\r\n")
if hasattr(__import__("ast"), "Match"):
    SPELLINGS["match"] = (
        HEAD + "match x:\n    case 1:\n        vars(FSDPParamGroup)['finalize_backward'] = _npu_finalize\n"
    )


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_spelling_stands_and_reads_as_libcst_places_and_writes_it(name: str) -> None:
    read, oracle = _both(SPELLINGS[name].encode())
    assert len(oracle) >= 2 or name == "match"
    assert read == oracle


def _files() -> list[Path]:
    trees = [ROOT / "tests" / "fixtures", ROOT / "tests" / "rules", ROOT / "examples"]
    return sorted(p for tree in trees for p in tree.rglob("*.py"))


def test_every_fixture_rule_case_and_example_file() -> None:
    """Every file of the repository's trees that both libcst and the running Python parse; not vacuous."""
    compared = with_overrides = 0
    for path in _files():
        data = path.read_bytes()
        try:
            analysis = _analysis(data, path.stem)
        except Exception:
            continue  # the error fixtures: neither reads them
        if analysis.model is None or analysis.model.tree is None:
            continue
        compared += 1
        oracle = _Oracle(analysis.module, analysis.table).found
        assert _read(analysis) == oracle, path
        with_overrides += bool(oracle)
    assert compared >= 200 and with_overrides >= 3


def test_what_the_libcst_reader_missed_is_found(tmp_path: Path) -> None:
    """`"finalize" "_backward"` is the string Python gives `setattr`, and `sys.modules[m].FSDPParamGroup` the class:
    both overrides are found and FSU101 reports them (the libcst reader saw neither: `_literal` took one literal
    only, `owner_of` no attribute of a looked-up owner)."""
    source = (
        HEAD
        + "vars(FSDPParamGroup)['finalize' '_backward'] = _npu_finalize\n"
        + f"sys.modules[{MODULE}].FSDPParamGroup.post_forward = _npu_finalize\n"
    )
    read, _ = _both(source.encode())
    assert [f[2:4] for f in read] == [
        ("_fsdp_param_group.FSDPParamGroup.finalize_backward", "through `vars()`"),
        ("_fsdp_param_group.FSDPParamGroup.post_forward", "on an owner looked up at run time"),
    ]
    assert [f[:2] for f in _findings(source, tmp_path)] == [("FSU101", 9), ("FSU101", 10)]


def test_without_a_model_there_is_none_and_no_site_is_deleted(tmp_path: Path) -> None:
    """Syntax the running Python does not parse (libcst does): nothing is read, and no site of the file is judged."""
    source = (
        HEAD
        + "FSDPParamGroup.finalize_backward = _npu_finalize\nvars(FSDPParamGroup)['post_forward'] = _npu_finalize\n"
        + "type Alias = int\n"
    )
    analysis = _analysis(source.encode())
    assert analysis.model is None
    from fsdp_unpatch.analysis.indirect_installs import found_in

    assert found_in(analysis, load_catalog()) == []
    assert not any(p.edits for p in analysis.planned)


def _findings(text: str, tmp_path: Path) -> list[tuple[str, int, int, int, int, str]]:
    path = tmp_path / "otherfw" / "overrides.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    result = run(
        discover([str(path)]), load_catalog(), RunOptions(analysis=Options(target_torch=Version.parse("2.13")))
    )
    return [
        (f.code, f.span.line, f.span.column, f.span.end_line, f.span.end_column, f.message)
        for f in result.findings
        if f.code in ("FSU101", "FSU105")
    ]


@pytest.mark.parametrize("name", ["decorators", "loops", "looked up at run time"])
def test_fsu101_and_fsu105_report_there(name: str, tmp_path: Path) -> None:
    _, oracle = _both(SPELLINGS[name].encode())
    found = _findings(SPELLINGS[name], tmp_path)
    expected_at = sorted((line, column + 1, end, end_column + 1) for (line, column, end, end_column), *_ in oracle)
    assert sorted(f[1:5] for f in found) == expected_at
    quoted = {f[5] for f in found}
    for _, code, _, how, loop, _, arguments in oracle:
        if loop:
            assert any(f"`setattr({arguments[0]}, {arguments[1]}, ...)`" in m for m in quoted), arguments
        else:
            assert any(" ".join(code.split())[:57] in m and how in m for m in quoted), code


def _computed_oracle(analysis) -> list[tuple]:
    """FSU105's direct findings as the libcst rule made them: (start, end, owner code, name code, target). One
    deliberate difference: a name that is an f-string beside a literal (`"pre_" f"{x}"`) is computed too."""
    positions = MetadataWrapper(analysis.module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = []
    for call, _ in analysis.facts.registrations:
        if not (isinstance(call.func, cst.Name) and call.func.value == "setattr"):
            continue
        if len(call.args) != 3 or any(a.keyword is not None or a.star for a in call.args):
            continue
        owner, name = call.args[0].value, call.args[1].value
        if isinstance(name, cst.SimpleString) or (
            isinstance(name, cst.ConcatenatedString) and "{" not in analysis.module.code_for_node(name)
        ):
            continue
        qualified = qualify(analysis.table, owner)
        target = target_id(qualified, load_catalog()) if qualified else None
        if target is None or not is_fsdp2_private(target, load_catalog()):
            continue
        where = positions[call]
        span = (where.start.line, where.start.column, where.end.line, where.end.column)
        found.append((span, analysis.code(owner), analysis.code(name), target))
    return found


def _computed(analysis) -> list[tuple]:
    from fsdp_unpatch.rules.computed_setattr import COMPUTED_SETATTR, check

    found = []
    for planned in check(analysis, load_catalog(), Options(target_torch=Version.parse("2.13"))):
        at = planned.node
        if planned.message.startswith("`setattr(") and not any(
            i.loop and i.at == at for i in analysis.indirect_installs
        ):
            owner, _, rest = planned.message[len("`setattr(") :].partition(", ")
            name = rest.split(", ...)`")[0]
            found.append(((at.line, at.column, at.end_line, at.end_column), owner, name, planned.target))
        assert planned.code == COMPUTED_SETATTR.code
    return found


COMPUTED = HEAD + (
    "NAMES = ['finalize_backward']\nfor n in NAMES:\n    setattr(FSDPParamGroup, n, _npu_finalize)\n"
    "setattr(pg.FSDPParamGroup,\n        NAMES[0] + '',\n        _npu_finalize)\n"
    "if True:\n    x = [setattr(\n        (pg), (f'{n}'\n            + ''),\n            f)]\n"
    "setattr(FSDPParamGroup, 'pre_' f'{n}', f)\n"
    "setattr(FSDPParamGroup, 'pre' '_forward', f)  # literals side by side: an install site\n"
    "setattr(FSDPParamGroup, b'x', f)  # bytes: no name\n"
    "setattr(FSDPParamGroup, *names)\nsetattr(FSDPParamGroup, n, value=f)\nobj.setattr(FSDPParamGroup, n, f)\n"
    "été = 1; setattr(FSDPParamGroup, n, f)\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_computed_names_stand_and_read_as_libcst_places_and_writes_them(newline: str) -> None:
    analysis = _analysis(COMPUTED.replace("\n", newline).encode())
    oracle = _computed_oracle(analysis)
    assert len(oracle) == 5
    assert _computed(analysis) == oracle


def test_computed_names_of_every_fixture_rule_case_and_example_file() -> None:
    compared = reported = 0
    for path in _files():
        data = path.read_bytes()
        if b"setattr" not in data:
            continue
        try:
            analysis = _analysis(data, path.stem)
        except Exception:
            continue
        if analysis.model is None:
            continue
        compared += 1
        oracle = _computed_oracle(analysis)
        assert _computed(analysis) == oracle, path
        reported += bool(oracle)
    assert compared >= 15 and reported >= 1
