"""What a file's `__all__` lists, and the entries a fix deletes with a function, are read from the `ast` model
(`analysis/exports.py`), not from libcst (issue 32 item 4: libcst only writes); the libcst nodes of the entries
are found by their places (`FileAnalysis.dunder_all_entries`). The libcst reading they replace is kept here as
the oracle (`_OldReader`, as `collect.py` had it): the names, the entries' places and the libcst node each
entry maps to equal the oracle's on every fixture, rule case and example file, on every real torch-npu release
source in the cache, and on hostile spellings written here."""

from __future__ import annotations

import hashlib
import re
import types
import unicodedata
import warnings
from pathlib import Path
from typing import Optional

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis.collect import Facts, collect
from fsdp_unpatch.analysis.file_analysis import FileAnalysis
from fsdp_unpatch.analysis.patterns import dotted_name
from fsdp_unpatch.analysis.plan import Options, analyze_module
from fsdp_unpatch.analysis.planned import Edit, Located
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.fixes.edits import unused_imports
from fsdp_unpatch.semantic.model import build
from fsdp_unpatch.semantic.names import ImportTable

ROOT = Path(__file__).resolve().parent.parent
RELEASES = Path.home() / ".cache" / "fsdp-unpatch" / "torch-npu"


# The oracle: the libcst reading as it was --------------------------------------------------------------------


class _OldReader(cst.CSTVisitor):
    """What `collect.Collector` recorded as `Facts.dunder_all` and `Facts.dunder_all_entries`."""

    def __init__(self) -> None:
        self.dunder_all: set[str] = set()
        self.entries: dict[str, list[cst.CSTNode]] = {}
        self._scopes: list[Optional[cst.ClassDef]] = []  # a function's body: None
        self._line: Optional[cst.SimpleStatementLine] = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(None)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._line = node

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._line = None

    def _statement(self, small: cst.BaseSmallStatement) -> cst.CSTNode:
        line = self._line
        if line is not None and len(line.body) == 1:
            return line
        return small

    def visit_Assign(self, node: cst.Assign) -> None:
        for assign_target in node.targets:
            target = assign_target.target
            if isinstance(target, cst.Attribute):
                continue
            elif isinstance(target, cst.Name) and dotted_name(node.value) is not None:
                continue
            elif isinstance(target, cst.Name) and target.value == "__all__":
                self._read(node.value)

    def _read(self, value: cst.BaseExpression, statement: Optional[cst.CSTNode] = None) -> None:
        elements = value.elements if isinstance(value, (cst.List, cst.Tuple)) else ()
        entries = [(e.value, e) for e in elements] if statement is None else [(value, statement)]
        for string, entry in entries:
            if isinstance(string, cst.SimpleString):
                literal = string.evaluated_value
                if isinstance(literal, str):
                    self.dunder_all.add(literal)
                    if not self._scopes:
                        self.entries.setdefault(literal, []).append(entry)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if (
            isinstance(node.target, cst.Name)
            and node.target.value == "__all__"
            and isinstance(node.operator, cst.AddAssign)
        ):
            self._read(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.target.value == "__all__" and node.value is not None:
            self._read(node.value)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) or len(call.args) != 1:
            return
        owner, method = call.func.value, call.func.attr.value
        if not (isinstance(owner, cst.Name) and owner.value == "__all__" and method in ("append", "extend")):
            return
        self._read(call.args[0].value, self._statement(node) if method == "append" else None)


# What is compared --------------------------------------------------------------------------------------------

_KINDS = {cst.Element: "element", cst.SimpleStatementLine: "line", cst.Expr: "statement"}


def _light(data: bytes, name: str = "pkg.mod", collected: bool = False) -> FileAnalysis:
    """A file's analysis as far as `__all__` needs it: the libcst module and the `ast` model (no planner;
    `collected`: with the libcst facts)."""
    module = cst.parse_module(data)
    facts = collect(module, ImportTable(name)) if collected else Facts(table=ImportTable(name))
    analysis = FileAnalysis(module=module, module_name=name, facts=facts, data=data)
    try:
        model = build(analysis.text(), name)
    except (SyntaxError, ValueError):
        return analysis
    analysis.model = model
    analysis.statement_lines = model.statement_lines
    return analysis


def _compare(analysis: FileAnalysis) -> _OldReader:
    """The model's reading equals the oracle's: names, entries (kind and place, by name, in order) and the
    libcst node each entry maps to."""
    old = _OldReader()
    MetadataWrapper(analysis.module, unsafe_skip_copy=True).visit(old)
    exports = analysis.exports
    assert exports.names == old.dunder_all
    places = {}
    if old.entries:
        places = MetadataWrapper(analysis.module, unsafe_skip_copy=True).resolve(PositionProvider)
    for name in set(old.entries) | {e.name for e in exports.entries}:
        expected = []
        for node in old.entries.get(name, []):
            where = places[node]
            at = Located(where.start.line, where.start.column, where.end.line, where.end.column)
            expected.append((_KINDS[type(node)], at))
        assert [(e.kind, e.at) for e in exports.entries if e.name == name] == expected, name
    mapped = {name: [id(n) for n in nodes] for name, nodes in analysis.dunder_all_entries.items()}
    assert mapped == {name: [id(n) for n in nodes] for name, nodes in old.entries.items()}
    return old


def _files() -> list[Path]:
    trees = [ROOT / "tests" / "fixtures", ROOT / "tests" / "rules", ROOT / "examples"]
    return sorted(p for tree in trees for p in tree.rglob("*.py"))


def test_every_fixture_rule_case_and_example_file() -> None:
    """Every file of the repository's trees that both libcst and the running Python parse; not vacuous."""
    compared = listing = with_entries = 0
    for path in _files():
        data = path.read_bytes()
        try:
            analysis = _light(data, path.stem)
        except Exception:
            continue  # the error fixtures: neither reads them
        if analysis.model is None:
            continue
        compared += 1
        old = _compare(analysis)
        listing += bool(old.dunder_all)
        with_entries += bool(old.entries)
    assert compared >= 200 and listing >= 5 and with_entries >= 5


@pytest.mark.slow
@pytest.mark.skipif(not RELEASES.is_dir(), reason="no torch-npu release sources in the cache")
def test_every_real_torch_npu_release_source() -> None:
    """Every torch-npu release source in the cache that spells `__all__` (each content once; read only). A file
    that does not spell it lists nothing to either reader (NFKC spellings aside: none there)."""
    seen: set[str] = set()
    compared = with_entries = grown = 0
    for path in sorted(RELEASES.glob("*/src/**/*.py")):
        data = path.read_bytes()
        text = data.decode("utf-8", "replace")
        if "__all__" not in unicodedata.normalize("NFKC", text):
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # their invalid escapes, to `ast.parse`
                analysis = _light(data, path.stem)
        except Exception:
            continue
        if analysis.model is None:
            continue
        compared += 1
        old = _compare(analysis)
        with_entries += bool(old.entries)
        grown += bool(re.search(rb"__all__\s*(\+=|\.extend|\.append)", data))
    assert compared >= 500 and with_entries >= 200 and grown >= 2


# Hostile spellings -------------------------------------------------------------------------------------------

SPELLINGS = {
    "class and function bodies": (
        "class C:\n    __all__ = ['in_class']\n    __all__.append('in_class_too')\n"
        "def f():\n    global __all__\n    __all__ = ('in_function',)\n    __all__ += ['added']\n"
        "    __all__.extend(['extended'])\n    __all__.append('appended')\n"
        "    class D:\n        __all__ = ['nested']\n"
        "__all__ = ['top']\n"
    ),
    "annotated": "__all__: list[str] = ['a', 'b']\n__all__: list[str]\n",
    "augmented": "__all__ = []\n__all__ += ('a', 'b')\n__all__ += ['c']\n__all__ += 'd',\n__all__ -= ['e']\n",
    "extend": "__all__.extend(['a', ('b'), 'c'])\n__all__.extend(('d',))\n__all__.extend('e')\n",
    "append shapes": (
        "__all__.append('alone')\n__all__.append('semicolon');\n__all__.append('commented')  ;  # c\n"
        "y = 1; __all__.append('after')\n__all__.append('before'); y = 2\n"
        "__all__.append('continued'); \\\n    y = 3\n"
        "if y: __all__.append('suite')\nif y:\n    __all__.append('block')\n"
        "( __all__.append('parenthesized') )\n__all__ . append ( 'spaced' )\n"
        "__all__.append(['not', 'a', 'string'])\n__all__.append('two', 'args')\n"
        "__all__.append(*['starred'])\n__all__.extend(*[['starred_list']])\n"
        "__all__.extend(*['star_a', 'star_b'])\n__all__.append(x='keyword')\n"
        "x = 1  # a comment \\\n__all__.append('after_comment_backslash')\n"
        "__all__.append('last')"
    ),
    "one line": '__all__.append("x"); y = 1\n',
    "literals": (
        "__all__ = ['a' 'b', f'c', f'{y}', b'd', rb'e', u'f', r'g', 'h\\x69', '''j''', \"\"\"k\"\"\",\n"
        "    ('l' \\\n    'm'), 'n', ('o'), ((('p'))), 1, None, *other, 'q']\n"
        "__all__.append('r' 's')\n__all__.append(f'u')\n__all__.append(b'v')\n__all__.extend(['w' f'x'])\n"
    ),
    "trailing comma and comments": (
        "__all__ = [  # the names\n    'a',  # first\n    # between\n    'b'  # second\n    ,\n    'c',\n]\n"
        "__all__ = (\n    'd',\n)\n__all__ = 'e',\n__all__ = 'f', 'g'\n"
    ),
    "crlf": "__all__ = [\r\n    'a',\r\n    'b',\r\n]\r\n__all__.append('c')\r\nif 1: __all__.append('d')\r\n",
    "non-ascii": (
        "# 中文注释\n__all__ = ['ünïcode', '名字', \"ascii\"]  # 名\n"
        "x = '中'; __all__.append('after_wide')\n__all__ += ['中', 'é']\n"
    ),
    "several": "__all__ = ['a']\n__all__ = ['a', 'b']\n__all__ = __all__ = ['c']\nx = __all__ = ('d',)\n",
    "not a list": (
        "__all__ = other + ['x']\n__all__ = ['y'] + other\n__all__ = list(['z'])\n__all__ = {'s'}\n"
        "__all__ = [n for n in ['c']]\n__all__, b = ['t'], ['u']\n__all__ = module.names\n"
        "__all__[0] = 'v'\nself.__all__ = ['w']\n__all__ *= ['k']\n"
    ),
    "nested blocks": (
        "import sys\ntry:\n    __all__ = ['t']\nexcept ImportError:\n    __all__ = ['e']\nelse:\n    __all__ += ['l']\n"
        "finally:\n    __all__.append('f')\nif sys:\n    __all__.extend(['i'])\nelif sys:\n    __all__.append('elif')\n"
        "for _ in []:\n    __all__.append('loop')\nwhile 0:\n    __all__ = ['w']\nwith sys:\n    __all__ += ('h',)\n"
        "def g():\n    pass\n__all__.append('g')\n"
    ),
    "one name in every block": (
        "try:\n    __all__ = ['x']\nexcept A:\n    __all__ = ['x']\nexcept B:\n    __all__ += ['x']\nelse:\n"
        "    __all__.extend(['x'])\nfinally:\n    __all__.append('x')\nif 0:\n    __all__ = ['x']\nelse:\n"
        "    __all__ = ('x',)\nwhile 0:\n    __all__ = ['x']\nelse:\n    __all__ = ['x']\n"
    ),
    "tabs and form feeds": "if 1:\n\t__all__ = [\n\t\t'a',\n\t]\n\f\n__all__.append(\t'b'\t)\n",
}
if hasattr(__import__("ast"), "Match"):
    SPELLINGS["match"] = "match 1:\n    case 1:\n        __all__ = ['m']\n        __all__.append('n')\n"


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_spelling_reads_as_libcst_read_it(name: str) -> None:
    analysis = _light(SPELLINGS[name].encode())
    assert analysis.model is not None
    old = _compare(analysis)
    assert old.dunder_all or name == "not a list"


def test_what_counts_and_what_does_not() -> None:
    """Not vacuous: the cases the oracle comparison rests on, said once."""
    exports = _light(SPELLINGS["class and function bodies"].encode()).exports
    assert exports.names == {
        "in_class",
        "in_class_too",
        "in_function",
        "added",
        "extended",
        "appended",
        "nested",
        "top",
    }
    assert [e.name for e in exports.entries] == ["top"]
    literals = _light(SPELLINGS["literals"].encode()).exports
    assert literals.names == {"f", "g", "hi", "j", "k", "n", "o", "p", "q"}
    appends = _light(SPELLINGS["append shapes"].encode())
    kinds = {e.name: e.kind for e in appends.exports.entries}
    assert kinds == {
        "alone": "line",
        "semicolon": "line",
        "commented": "line",
        "after": "statement",
        "before": "statement",
        "continued": "statement",
        "suite": "statement",
        "block": "line",
        "parenthesized": "line",
        "spaced": "line",
        "keyword": "line",
        "after_comment_backslash": "line",
        "star_a": "element",
        "star_b": "element",
        "last": "line",
    }
    assert _light(SPELLINGS["not a list"].encode()).exports.names == frozenset()
    several = _light(SPELLINGS["several"].encode())
    assert [len(several.dunder_all_entries[n]) for n in "abcd"] == [2, 1, 2, 1]


def test_a_name_is_read_as_python_reads_it() -> None:
    """The one difference: `__ａll__` is `__all__` to Python (NFKC), which libcst kept as written."""
    analysis = _light("__ａll__ = ['f']\n__all__ = ['g']\n".encode())
    assert analysis.exports.names == {"f", "g"}
    assert sorted(analysis.dunder_all_entries) == ["f", "g"]
    old = _OldReader()
    analysis.module.visit(old)
    assert old.dunder_all == {"g"}


def test_an_entry_no_libcst_node_stands_for_drops_the_name_from_the_entries() -> None:
    """Should the model place an entry where no libcst node stands, the name keeps no entries (what it names
    stays: it is listed, and `plan_installers` keeps an installer `__all__` lists without entries)."""
    analysis = _light(b"__all__ = ['a', 'b']\n__all__ += ['a']\n")
    exports = analysis.exports
    moved = types.SimpleNamespace(**{"name": "a", "kind": "element", "at": Located(1, 12, 1, 15)})
    object.__setattr__(exports, "entries", (moved, *exports.entries[1:]))
    assert sorted(analysis.dunder_all_entries) == ["b"]  # not `a` with its other entry only


# Without a model -------------------------------------------------------------------------------------------

NEWER = "type Alias = int\n"  # syntax the running Python does not parse (libcst does)


def test_without_a_model_a_file_that_spells_all_lists_every_quoted_name_and_has_no_entries() -> None:
    analysis = _light(f"import os\nimport sys\n__all__ = ['os', \"path\"]\n{NEWER}".encode())
    assert analysis.model is None
    assert analysis.exports.names is None and analysis.exports.lists("os") and analysis.exports.lists("path")
    assert not analysis.exports.lists("sys") and not analysis.exports.lists("o")
    assert analysis.dunder_all_entries == {}
    spelled_nfkc = _light(f"import os\n__ａll__ = ['x']\n{NEWER}".encode())
    assert spelled_nfkc.exports.names is None
    silent = _light(f"import os\n{NEWER}".encode())
    assert silent.exports.names == frozenset() and not silent.exports.lists("os")


def test_without_a_model_no_import_is_dropped_that_all_may_list() -> None:
    """`unused_imports`: an import whose every use a fix deletes goes, unless `__all__` may list it; in a
    file without a model that spells `__all__`, it may list any name it quotes (and no other: an import of
    an installer another fix deletes must not stay behind to fail)."""
    for spelled, dropped in (("__all__ = ['os']\n", False), ("__all__ = ['f']\n", True), ("", True)):
        source = f"import os\nos.getcwd()\n{spelled}{NEWER}"
        analysis = _light(source.encode(), collected=True)
        assert analysis.model is None
        use = analysis.module.body[1]
        doomed, _ = unused_imports(analysis, [Edit(use)])
        assert bool(doomed) is dropped, spelled


def _orphan_deletions(source: str) -> Optional[list[cst.CSTNode]]:
    """What FSU003's orphan step deletes of an emptied installer `apply_patch` of a known patch module."""
    from fsdp_unpatch.rules.patch_installer import orphans

    options = Options(target_torch=Version.parse("2.13"))
    data = source.encode()
    analysis = analyze_module(cst.parse_module(data), "pkg.patches", False, load_catalog(), options, data=data)
    remains = types.SimpleNamespace(module=types.SimpleNamespace(installers=["apply_patch"]), patch_file=True)
    found = list(orphans(remains, analysis, load_catalog(), options))  # type: ignore[arg-type]
    if not found:
        return None
    return [e.node for e in found[0].planned.edits]  # type: ignore[attr-defined]


def test_without_a_model_an_installer_all_may_list_is_kept() -> None:
    """An emptied installer goes with its `__all__` entries; without a model its entries are not known, so it
    stays in a file that spells `__all__` (and goes, as before, in one that does not)."""
    body = "def apply_patch():\n    pass\n"
    listed = body + "__all__ = ['apply_patch', 'other']\n"
    with_model = _orphan_deletions(listed)
    assert with_model is not None and len(with_model) == 2 and isinstance(with_model[1], cst.Element)
    assert _orphan_deletions(listed + NEWER) is None
    unlisted = _orphan_deletions(body + NEWER)
    assert unlisted is not None and len(unlisted) == 1


# What the planner decides on them ------------------------------------------------------------------------------

CASE = ROOT / "tests" / "rules" / "FSU003" / "installer_named_in_dunder_all" / "npu_adapter.py"
EXPORTS = (
    '__all__ = ("apply_npu_collectives_patch", "VERSION")\n__all__ += ["apply_npu_collectives_patch"]\n'
    '__all__.append("apply_npu_collectives_patch")\n'
)


def _installers(source: str) -> list[tuple[str, bool, int]]:
    """The file's installers: name, whether the fix deletes it, and how many edits its finding makes."""
    from tests.upstream import expand

    data = expand(source).encode()
    options = Options(target_torch=Version.parse("2.13"))
    analysis = analyze_module(cst.parse_module(data), "npu_adapter", False, load_catalog(), options, data=data)
    return [
        (i.node.name.value, i.removable, len(i.finding.edits) if i.finding is not None else 0)
        for i in analysis.installers
    ]


def test_an_installer_goes_with_its_entries_and_stays_when_all_is_built_elsewhere() -> None:
    """Listed at the top level: it goes with its three entries (the rule case); listed in an `__all__` built
    in a function (no entries to delete): it stays, emptied; not listed: it goes alone."""
    source = CASE.read_text()
    assert EXPORTS in source
    assert _installers(source) == [("apply_npu_collectives_patch", True, 4)]
    in_function = source.replace(EXPORTS, 'def _export():\n    __all__ = ["apply_npu_collectives_patch"]\n')
    assert _installers(in_function) == [("apply_npu_collectives_patch", False, 0)]
    assert _installers(source.replace(EXPORTS, "")) == [("apply_npu_collectives_patch", True, 1)]
