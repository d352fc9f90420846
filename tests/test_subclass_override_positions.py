"""FSU106 `subclass-override` reads the `ast` model, not libcst (issue 32 item 4: libcst only writes): the
subclasses of FSDP2 classes, their methods, where each is handed to FSDP2 and the names through the import
table. Its findings are the old libcst implementation's, kept here as the oracle (`_oracle`, the rule as it
was): the same codes, places (the method's name after `def`, as libcst places it), messages (the line of the
hand-over) and targets, on every rule case, fixture and example file and on spellings that move a column, a
line or a name (a class header and a `def` over lines, CRLF, text outside ASCII, names ast normalizes, nested
classes, `async def`, decorators, methods under `if`, instances made on the spot, keyword and star
arguments, `setattr`, a hand-over before or after the class, aliased imports of FSDP2's modules)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from fsdp_unpatch.analysis.blocks import body_statements
from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_class
from fsdp_unpatch.analysis.patterns import qualify
from fsdp_unpatch.analysis.plan import FileAnalysis, Options, analyze_module
from fsdp_unpatch.catalog import Catalog, load_catalog
from fsdp_unpatch.catalog.symbols import load_symbols
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.rules import subclass_override
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.semantic.names import is_fsdp2_private, target_id
from tests.upstream import expand

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = Options(target_torch=Version.parse("2.13"))
Row = tuple[str, int, int, int, int, str, "str | None"]


def _oracle(analysis: FileAnalysis, catalog: Catalog) -> list[Row]:
    """The rule as it read libcst before (its `_installs`, `_Calls` and `check`, `Facts.subclasses` inlined)."""
    if analysis.module_name == "torch" or analysis.module_name.startswith("torch."):
        return []
    table = analysis.table

    def into_fsdp2(node: cst.BaseExpression) -> bool:
        qualified = qualify(table, node)
        target = target_id(qualified, catalog) if qualified else None
        return target is not None and is_fsdp2_private(target, catalog)

    class _Classes(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.ClassDef] = []

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            if node.bases:
                self.found.append(node)

    classes = _Classes()
    analysis.module.visit(classes)
    symbols = load_symbols()
    subclasses = []
    for cls in classes.found:
        found = [fsdp2_class(qualify(table, b.value), catalog) for b in cls.bases if b.keyword is None]
        fsdp2_bases = [b for b in found if b is not None]
        if fsdp2_bases:
            subclasses.append((cls, fsdp2_bases))
    if not subclasses:
        return []
    installed: dict[str, cst.CSTNode] = {}
    for install in analysis.facts.installs:
        if isinstance(install.value, cst.Name) and into_fsdp2(install.owner):
            installed.setdefault(install.value.value, install.report)
    module_methods = symbols.tables.get("_fully_shard.FSDPModule", {})

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            method = isinstance(func, cst.Attribute) and func.attr.value in module_methods
            if not (method or into_fsdp2(func)):
                return
            for arg in node.args:
                value = arg.value.func if isinstance(arg.value, cst.Call) else arg.value
                if isinstance(value, cst.Name):
                    installed.setdefault(value.value, node)

    analysis.module.visit(_Calls())
    rows: list[Row] = []
    for cls, bases in subclasses:
        where = installed.get(cls.name.value)
        for statement in body_statements(cls.body):
            if not isinstance(statement, cst.FunctionDef):
                continue
            name = statement.name.value
            if where is None and not subclass_override._private(name):
                continue
            base, releases = next(((b, r) for b in bases if (r := symbols.class_member(b, name))), (None, None))
            if base is None or releases is None:
                continue
            target = f"{base}.{name}"
            changed = subclass_override.changed_in(target)
            form = "changed" if changed else "default"
            message = subclass_override.SUBCLASS_OVERRIDE.message(
                form if where is not None else f"{form}-elsewhere",
                method=f"{cls.name.value}.{name}",
                target=target,
                releases=symbols.describe(releases),
                changed=", ".join(changed),
                cls=cls.name.value,
                line=analysis.position(where).start.line if where is not None else 0,
            )
            at = analysis.position(statement.name)
            rows.append(("FSU106", at.start.line, at.start.column, at.end.line, at.end.column, message, target))
    return rows


def _rule(analysis: FileAnalysis, catalog: Catalog) -> list[Row]:
    rows: list[Row] = []
    for planned in subclass_override.check(analysis, catalog, OPTIONS):
        at = analysis.position(planned.node)
        rows.append(
            (planned.code, at.start.line, at.start.column, at.end.line, at.end.column, planned.message, planned.target)
        )
    return rows


def _analysis(text: str, module_name: str = "npu_stack.hostile", is_package: bool = False) -> FileAnalysis:
    data = text.encode("utf-8")
    return analyze_module(cst.parse_module(data), module_name, is_package, load_catalog(), OPTIONS, data=data)


def _sources() -> list[tuple[Path, str, bool]]:
    """Every rule case, fixture and example file, with its module name in its project (its case's folder)."""
    found = []
    for folder, depth in (("tests/rules", 4), ("tests/fixtures", 3), ("examples", 2)):
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts[depth:]
            is_package = bool(parts) and parts[-1] == "__init__"
            parts = parts[:-1] if is_package else parts
            found.append((path, ".".join(parts) or path.stem, is_package))
    return found


def test_every_case_fixture_and_example_gets_the_libcst_implementations_findings() -> None:
    catalog = load_catalog()
    checked = reported = 0
    for path, module_name, is_package in _sources():
        try:
            text = path.read_text(encoding="utf-8")
            text = expand(text) if "# @upstream " in text else text
            compile(text, str(path), "exec")
            analysis = _analysis(text, module_name, is_package)
        except (UnicodeDecodeError, SyntaxError, ValueError, cst.ParserSyntaxError):
            continue  # cases about unreadable or broken files
        if analysis.model is None:
            continue
        expected = _oracle(analysis, catalog)
        assert _rule(analysis, catalog) == expected, path
        checked += 1
        reported += bool(expected)
    assert checked > 300 and reported == 3  # FSU106's cases: `comms.py`, `params.py`, `groups.py`
    for sample in [*subclass_override.VALID, *subclass_override.INVALID]:  # the rule's own examples
        analysis = _analysis(sample.code, "project.example")
        assert _rule(analysis, catalog) == _oracle(analysis, catalog)


IMPORTS = (
    "import functools\n"
    "import torch.distributed.fsdp._fully_shard._fsdp_param as fp\n"
    "from torch.distributed.fsdp._fully_shard import _fsdp_param_group as pg, _fsdp_state as st\n"
    "from torch.distributed.fsdp._fully_shard._fsdp_collectives import DefaultAllGather\n"
    "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup as Group\n\n\n"
)
OVER_LINES = (
    IMPORTS + "class \\\n    NpuParam(\n        fp.FSDPParam,\n    ):\n"
    "    def \\\n      init_all_gather_outputs(self, *args):\n        pass\n\n"
    "    async  \\\n    def   reset_sharded_param(self):\n        pass\n\n"
    "    @staticmethod\n    @functools.lru_cache(\n        maxsize=None,\n    )\n"
    "    def init_unsharded_param(self):\n        pass\n\n"
    "    if True:\n        def to_sharded(self):  # under `if`: not a method defined directly\n            pass\n"
    "    else:\n        def _init_extensions(self): pass\n\n\n"
    'setattr(pg, "FSDPParam", NpuParam)\n'
)
ON_THE_SPOT = (
    IMPORTS + "class NpuAllGather(DefaultAllGather):\n    def __call__(self, *args):\n        pass\n\n\n"
    "class NpuGroup(Group):\n\tdef finalize_backward(self):\n\t\tpass\n\n"
    "\tclass Inner(Group, metaclass=type):  # nested\n\t\tdef unshard(self): pass\n\n\n"
    "class Keyword(Group):\n    def pre_forward(self): ...\n\n\n"
    "class Starred(Group):\n    def post_forward(self): ...\n\n\n"
    "def enable(model):\n    model.set_custom_all_gather(NpuAllGather())\n"
    "    st.some_function(x=Keyword, *[Starred], y=Starred)\n    st.more(*Starred)\n"
    "    (\n        st.another\n    )(\n        Inner)\n    st.make(**NpuGroup)\n"
)
ORDER = (
    IMPORTS + "@st.register(Late)  # a decorator before the body's call\ndef install():\n    st.other(Late)\n\n\n"
    "class Late(Group):\n    def finalize_backward(self): pass\n\n\n"
    "class Both(Group):\n    def unshard(self): pass\n    async def lazy_init(self): pass\n\n\n"
    "st.use(Both)\nst.FSDPParamGroup = Both  # a store wins over an earlier call\n"
    "pg.FSDPParamGroup = (Early)\n\n\n"
    "def factory():\n    @functools.total_ordering\n    class Early(Group):\n"
    "        def _init_mp_dtypes(self): pass\n    return Early\n\n\n"
    "class Deep(Group):\n    def pre_backward(self): pass\n\n\n"
    "def later():\n    if True:\n        st.deeper(Deep)  # deeper in the tree, earlier in the file\n\n\n"
    "st.shallower(Deep)\nst.outer(\n    st.inner(Deep, Nested), Nested)  # the outer call first\n\n\n"
    "class Nested(Group):\n    def post_backward(self): pass\n"
)
NOT_ASCII = (
    'label = "h\u00e9llo \u4e16\u754c"\n' + IMPORTS + "class Np\u00fcGroup(Group):  # \u00fc\n"
    "    def finalize_backward(self): pass\n    def \ufb01nalize_backward(self): pass  # `finalize_backward` to ast\n\n\n"
    "class \ufb01Group(Group):\n    def unshard(self): pass\n    def _init_mp_dtypes(self): pass\n\n\n"
    "class \u00e9t\u00e9(fp.FSDPParam):\n    def init_all_gather_outputs(self): pass\n\n\n"
    "\u00e9 = 1; st.FSDPParamGroup = Np\u00fcGroup\nst.x(fiGroup)  # not the name as written\n"
    '\u00e9 = "\u4e16"; pg.y(\u00e9t\u00e9)\n'
)
SPELLINGS = {
    "over lines": OVER_LINES,
    "on the spot": ON_THE_SPOT,
    "order": ORDER,
    "not ascii": NOT_ASCII,
    "crlf": (OVER_LINES + ON_THE_SPOT[len(IMPORTS) :]).replace("\n", "\r\n"),
}
REPORTED = {  # the findings of each spelling (the oracle's too)
    "over lines": 3,
    "on the spot": 5,
    "order": 6,
    "not ascii": 3,
    "crlf": 8,
}


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_hostile_spellings_get_the_libcst_implementations_findings(name: str) -> None:
    catalog = load_catalog()
    analysis = _analysis(SPELLINGS[name])
    assert analysis.model is not None
    expected = _oracle(analysis, catalog)
    assert len(expected) == REPORTED[name]
    assert _rule(analysis, catalog) == expected


def test_each_spelling_moves_what_it_is_about() -> None:
    """The spellings hold what they are written for: a name on the line after `def`, a hand-over later than the
    class and before it, the store that wins over an earlier call, a name ast normalizes."""
    catalog = load_catalog()
    over = _rule(_analysis(OVER_LINES), catalog)
    assert [(r[1], r[2]) for r in over] == [(13, 6), (17, 10), (24, 8)]  # after `def \`, `async \`, decorators
    assert all("handed to FSDP2 at line 34:" in r[5] for r in over)
    order = {r[5].split("`")[1]: r[5] for r in _rule(_analysis(ORDER), catalog)}
    assert "at line 8:" in order["Late.finalize_backward"]  # the decorator's call, before the body's
    assert "at line 23:" in order["Both.unshard"] and "at line 23:" in order["Both.lazy_init"]
    assert "at line 24:" in order["Early._init_mp_dtypes"]  # the store is before the class
    assert "at line 40:" in order["Deep.pre_backward"] and "at line 44:" in order["Nested.post_backward"]
    names = [r[5].split("`")[1] for r in _rule(_analysis(NOT_ASCII), catalog)]
    assert names == [
        "Np\u00fcGroup.finalize_backward",
        "\ufb01Group._init_mp_dtypes",
        "\u00e9t\u00e9.init_all_gather_outputs",
    ]


def test_a_file_without_a_model_gets_no_finding() -> None:
    """Syntax the running Python does not parse (libcst does): no `ast` model, and FSU106, a review-only rule
    reading the model, says nothing of the file (as FSU103)."""
    analysis = _analysis(OVER_LINES + "type Alias = int\n")
    assert analysis.model is None
    assert _oracle(analysis, load_catalog()) and _rule(analysis, load_catalog()) == []


@pytest.mark.parametrize("name", ["over lines", "not ascii", "crlf"])
def test_the_run_reports_them_where_libcst_places_them(name: str, tmp_path: Path) -> None:
    path = tmp_path / "npu_stack" / "hostile.py"
    path.parent.mkdir()
    (path.parent / "__init__.py").write_text("")
    path.write_bytes(SPELLINGS[name].encode("utf-8"))
    expected = _oracle(_analysis(SPELLINGS[name]), load_catalog())
    result = run(discover([str(path)]), load_catalog(), RunOptions(analysis=OPTIONS))
    found = [
        (f.code, f.span.line, f.span.column - 1, f.span.end_line, f.span.end_column - 1, f.message)
        for f in result.findings
        if f.code == "FSU106"
    ]
    assert found == [row[:6] for row in expected]
