"""FSU304 reads string literals from the `ast` model, not from libcst (issue 32 item 4: libcst only writes):
the parts it reads (each literal of a concatenation, each stretch of an f-string's text, `semantic/literals.py`),
the docstrings it skips and the deleted code it skips (as places) are libcst's, so every finding stands where
the libcst reader placed it, with its message. `_oracle` below is the libcst reader the rule was; it is compared
over the strings subjects of every fixture, rule case and example that spells a patch name, over every string of
every fixture and example file (each word a removed name), and over hostile spellings. Without a model (syntax
newer than the running Python) the rule reports nothing."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import libcst as cst
import pytest
from libcst.metadata import CodePosition, CodeRange

from fsdp_unpatch.analysis.plan import FileAnalysis, Options, analyze_module
from fsdp_unpatch.api import check_paths
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.rules.removed_name_in_string import REMOVED_NAME_IN_STRING, name_pattern, plan_strings
from fsdp_unpatch.run import linking
from fsdp_unpatch.semantic.literals import parts, string_nodes, string_span
from tests.test_rule_cases import RULES, prepare

ROOT = Path(__file__).resolve().parent.parent
Found = list[tuple[str, int, int, int, int, str]]


def _docstring_nodes(body) -> list[cst.CSTNode]:
    statements = body.body if isinstance(body, (cst.IndentedBlock, cst.Module)) else []
    if statements and isinstance(statements[0], cst.SimpleStatementLine):
        first = statements[0].body[0] if statements[0].body else None
        if isinstance(first, cst.Expr) and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString)):
            return [first.value]
    return []


def _occurrences(raw: str, start: CodePosition, pattern: re.Pattern) -> list[tuple[str, CodeRange]]:
    found = []
    for match in pattern.finditer(raw):
        index = match.start(1)
        newlines = raw.count("\n", 0, index)
        if newlines:
            column = index - raw.rindex("\n", 0, index) - 1
        else:
            column = start.column + index
        line = start.line + newlines
        name = match.group(1)
        found.append((name, CodeRange(CodePosition(line, column), CodePosition(line, column + len(name)))))
    return found


def _oracle(analysis: FileAnalysis, removed: Mapping[str, str], skipped: Iterable[cst.CSTNode] = ()) -> Found:
    """The libcst reader: each finding as (code, line, column, end line, end column, message)."""
    if not removed:
        return []
    pattern = name_pattern(removed)
    skip = {id(n) for n in skipped}
    parts: list = []

    class _Visitor(cst.CSTVisitor):
        def _skip_docstring(self, body) -> None:
            skip.update(id(n) for n in _docstring_nodes(body))

        def visit_Module(self, node: cst.Module) -> None:
            self._skip_docstring(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            self._skip_docstring(node.body)
            return id(node) not in skip

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            self._skip_docstring(node.body)
            return id(node) not in skip

        def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> bool:
            return id(node) not in skip

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            if id(node) not in skip and pattern.search(node.value):
                parts.append(node)

        def visit_FormattedString(self, node: cst.FormattedString) -> bool:
            return id(node) not in skip

        def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
            if pattern.search(node.value):
                parts.append(node)

    analysis.module.visit(_Visitor())
    found = []
    for part in parts:
        for name, where in _occurrences(part.value, analysis.position(part).start, pattern):
            message = REMOVED_NAME_IN_STRING.message(name=name, replacement=removed[name])
            found.append((REMOVED_NAME_IN_STRING.code, *_span(where), message))
    return found


def _span(where: CodeRange) -> tuple[int, int, int, int]:
    return where.start.line, where.start.column, where.end.line, where.end.column


def _read(analysis: FileAnalysis, removed: Mapping[str, str], skipped: Sequence[cst.CSTNode] = ()) -> Found:
    """The rule: the same fields, the skipped nodes handed over as the run's linking hands them (places)."""
    planned = plan_strings(analysis, removed, linking.deleted_places(analysis, skipped))
    return [(p.code, *_span(analysis.position(p.node)), p.message) for p in planned]


def _libcst_parts(analysis: FileAnalysis) -> list[tuple[str, int, int]]:
    """Every `SimpleString` and `FormattedStringText` of the module: (value, line, column), in source order."""
    found = []

    class _Visitor(cst.CSTVisitor):
        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            found.append((node.value, *_span(analysis.position(node))[:2]))

        def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
            found.append((node.value, *_span(analysis.position(node))[:2]))

    analysis.module.visit(_Visitor())
    return sorted(found, key=lambda f: f[1:])


def _parts(analysis: FileAnalysis) -> list[tuple[str, int, int]]:
    assert analysis.model is not None and analysis.model.tree is not None
    text = analysis.node_text
    found = []
    for node in string_nodes(analysis.model.tree):
        lexed = parts(text.text, *string_span(text, node))
        assert lexed is not None, ast.dump(node)
        found += [(part.text, *text.place(part.offset)) for part in lexed.parts]
    return sorted(found, key=lambda f: f[1:])


def _analysis(data: bytes) -> FileAnalysis:
    options = Options(target_torch=Version.parse("2.13"))
    return analyze_module(cst.parse_module(data), "otherfw.strings", False, load_catalog(), options, data=data)


REMOVED = {"_patched_x": "native: `torch.x`", "apply_patch": "nothing replaces it"}
SPELLINGS = {
    "quotes": 'a = \'_patched_x\'\nb = "_patched_x"\nc = """\n  _patched_x\n  y = _patched_x()  apply_patch\n"""\n'
    "d = '''_patched_x''' + '''a\n\tb _patched_x'''\n",
    "prefixes": "a = r\"\\_patched_x\"\nb = R'\\\\_patched_x'\nc = rb\"_patched_x\"\nd = Rb'_patched_x'\n"
    'e = b"_patched_x"\nf = B\'_patched_x\'\ng = br"_patched_x"\nh = u"_patched_x"\ni = U\'_patched_x\'\n',
    "escapes": 'a = "\\t_patched_x"\nb = "\\N{EM DASH}_patched_x"\nc = "\\\\_patched_x"\nd = "\\x41 _patched_x"\n'
    'e = "\\u00e9 _patched_x"\nf = "a\\\n_patched_x"\ng = "\\"_patched_x\\""\nh = \'\\\'_patched_x\'\n',
    "boundaries": 'a = "x_patched_x"\nb = "_patched_xy"\nc = "a._patched_x."\nd = "(_patched_x)"\n'
    'e = "apply_patch_patched_x apply_patch"\n',
    "concatenation": 'x = ("a" "_patched_x"\n     \'_patched_x\'  # "_patched_x"\n     f"{y}_patched_x" "b")\n'
    'y = "a" \\\n    "_patched_x" \\\n    "" if 0 else b"_patched_x" b"apply_patch"\n',
    "f-strings": 'a = f"_patched_x{y}"\nb = f"{y}_patched_x"\nc = f"{a}_patched_x{b} apply_patch"\n'
    'd = f"{a!r:>10}_patched_x{b:{w}_patched_x}"\ne = F"{\'_patched_x\'}"\nf = f"{d[\'_patched_x\']}"\n'
    'g = f"{f\'{x}_patched_x\'}"\nh = f"{_patched_x}"\ni = f"{{_patched_x}}"\nj = f"{x=}_patched_x{x = !r}"\n'
    "k = f\"{ {'k': '_patched_x'}['k'] }\"\nm = f\"{x:%Y _patched_x}\"\n"
    "n = f\"{'a' if x else '_patched_x'}\"\no = f\"{x if y else'_patched_x'}\"\np = rf\"\\N{_patched_x}\\{x}_patched_x\"\n"
    'q = f"\\N{EM DASH}_patched_x{x:{{}}}\\{x}_patched_x"\nr = f"{x:{y}{z}_patched_x}_patched_x"\n'
    "s = f\"{x!s}_patched_x\" f'{x}' '_patched_x'\nt = f\"{x != 1}_patched_x{x:=^9}\"\n"
    "u = f\"{(lambda: '_patched_x')()}{x[1:2]}_patched_x\"\nv = f\"{rb'_patched_x'}{fr'{x}_patched_x'}\"\n",
    "triple-quoted f-strings": 'a = f"""_patched_x\n{x\n}_patched_x {{\n}}_patched_x{y:\n>{w}}\n"""\n'
    "b = f'''\n  {x} _patched_x\n  {f\"{y}\"}  _patched_x'''\n",
    "docstrings": '"""_patched_x in the module docstring."""\n"_patched_x in a second string statement"\n\n'
    'class C:\n    "_patched_x" "b"\n    s = "_patched_x"\n\n\n'
    'def f():\n    """_patched_x"""\n    return "_patched_x"\n\n\n'
    "async def g():\n    '''_patched_x\n    _patched_x'''\n    \"_patched_x\"\n\n\n"
    'def h(): "_patched_x"\n\n\nclass D: "_patched_x"; x = "_patched_x"\n\n\n'
    'def i():\n    f"_patched_x"\n\n\ndef j():\n    "a" f"_patched_x{y}"\n\n\n'
    'def k():\n    b"_patched_x"\n\n\ndef m():\n    ("_patched_x")\n\n\n'
    'def n():  # a comment \\\n    "_patched_x"\n\n\ndef o(): \\\n    "_patched_x"\n\n\n'
    'def p():\n    x = 1\n    "_patched_x"\n\n\nif x:\n    "_patched_x"\n',
    "module docstring, then code": '"_patched_x"; x = "_patched_x"\n',
    "module f-string first": 'f"_patched_x{x}"\n',
    "module concatenation with an f-string first": '"a" f"_patched_x{x}"\nx = "a" f"_patched_x{x}"\n',
    "comments before the module docstring": '#!/usr/bin/env python\n# _patched_x\n\n"""_patched_x"""\nx = "_patched_x"\n',
    "deleted code": "from unittest import mock\n\n\n"
    '@mock.patch("a._patched_x")\n@mock.patch(\n    "b._patched_x"\n)\ndef deleted_test():\n'
    '    s = "_patched_x"\n\n    def inner():\n        return f"{x}_patched_x"\n\n\n'
    'def kept(p="_patched_x"):\n    s = "_patched_x"\n\n\n'
    '@decorate("_patched_x")\nclass deleted_case:\n    x = "_patched_x"\n\n\n'
    'class KeptCase:\n    def deleted_method(self):\n        return "_patched_x"\n\n    y = "_patched_x"\n\n\n'
    '__all__ = ["_patched_x", "apply_patch", "other"]\n',
    "crlf": 'x = "_patched_x"\r\ny = """\r\n_patched_x\r\n  _patched_x"""\r\nz = f"{a}"  # _patched_x\r\n'
    'def f():\r\n    """_patched_x"""\r\n    return f"""\r\n{x}_patched_x"""\r\n',
    "lone cr": 'x = 1\ry = "_patched_x"\rz = """a\r_patched_x"""\r',
    "not ascii": 's = "\u4e2d\u6587"; t = "_patched_x"\nu = "\u65e5\u672c _patched_x \u00e9"\n'
    'v = f"\u00e9{x}\u00e9 _patched_x"\n\u00e9 = "_patched_x"\nw = {"\u00e9": "_patched_x"}\n',
    "tabs and form feeds": 'def f():\n\tx = "_patched_x"\n\tif x:\n\t\ty = "\t_patched_x"\n\x0c\nz = "_patched_x"\n',
    "annotations and defaults": 'def f(x: "_patched_x" = "_patched_x") -> "_patched_x":\n    pass\n\n\n'
    'y: "_patched_x" = lambda s="_patched_x": s\nz = {"_patched_x": ["_patched_x"][0]}["_patched_x"]\n'
    'w = "%s _patched_x" % "_patched_x"\n',
    "no final newline": 'x = "_patched_x"',
}
if sys.version_info >= (3, 10):
    SPELLINGS["match"] = 'match x:\n    case "_patched_x":\n        pass\n    case {"_patched_x": y}:\n        pass\n'
if sys.version_info >= (3, 12):  # PEP 701: the quotes of the f-string inside its fields, comments, backslashes
    SPELLINGS["pep 701"] = (
        'a = f"{"_patched_x"}_patched_x"\nb = f"{f"{f"_patched_x"}"}"\nc = f"{x # _patched_x\n}_patched_x"\n'
        'd = f"{"\\t_patched_x"}"\ne = f"{\'\\N{EM DASH}\'}_patched_x"\n'
    )


def _deleted(analysis: FileAnalysis) -> list[cst.CSTNode]:
    """What the spellings' fixes delete: functions and classes named `deleted*`."""
    found: list[cst.CSTNode] = []

    class _Visitor(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node.name.value.startswith("deleted"):
                found.append(node)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            if node.name.value.startswith("deleted"):
                found.append(node)

    analysis.module.visit(_Visitor())
    return found


@pytest.mark.filterwarnings("ignore:invalid escape sequence")  # `"\\{x}"`, as written in the spellings
@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_name_in_a_string_stands_where_libcst_placed_it(name: str) -> None:
    data = SPELLINGS[name].encode()
    analysis = _analysis(data)
    assert analysis.model is not None
    skipped = _deleted(analysis)
    expected = _oracle(analysis, REMOVED, skipped)
    assert expected, "each spelling names a removed name in a string that is reported"
    assert _read(analysis, REMOVED, skipped) == expected
    assert _parts(analysis) == _libcst_parts(analysis)


def test_the_spellings_hold_what_they_are_about() -> None:
    """Not vacuous: what is skipped is skipped, the rest reported."""
    docstrings = _read(_analysis(SPELLINGS["docstrings"].encode()), REMOVED)
    assert [line for _, line, *_ in docstrings] == [2, 6, 11, 17, 20, 23, 23, 27, 47, 52, 56]
    deleted = _analysis(SPELLINGS["deleted code"].encode())
    assert len(_read(deleted, REMOVED, _deleted(deleted))) == 5
    assert len(_read(deleted, REMOVED)) == 12


def test_strings_in_deleted_code_are_skipped_with_the_decorators() -> None:
    analysis = _analysis(SPELLINGS["deleted code"].encode())
    skipped = _deleted(analysis)
    places = linking.deleted_places(analysis, skipped)
    assert [(p.start.line, p.end.line) for p in places] == [(4, 12), (19, 21), (25, 26)]
    assert {line for _, line, *_ in _read(analysis, REMOVED, skipped)} == {15, 16, 28, 31}


def test_without_a_model_nothing_is_reported() -> None:
    analysis = _analysis(b'x = "_patched_x"\n')
    assert _read(analysis, REMOVED)
    analysis.model = None
    assert _read(analysis, REMOVED) == []


def _corpus() -> list[Path]:
    return [
        path for tree in ("tests/fixtures", "tests/rules", "examples") for path in sorted((ROOT / tree).rglob("*.py"))
    ]


def test_every_string_of_every_fixture_and_example_file() -> None:
    """Every word of a file a removed name: every string part of it compared, with and without deleted code."""
    compared = 0
    for path in _corpus():
        data = path.read_bytes()
        try:
            analysis = _analysis(data)
        except (cst.ParserSyntaxError, UnicodeDecodeError, SyntaxError):
            continue  # the error fixtures
        if analysis.model is None:
            continue
        removed = {w: "native: `torch.x`" for w in set(re.findall(r"[A-Za-z_]\w{2,}", data.decode("utf-8", "replace")))}
        if not removed:
            continue
        skipped = [n for n in analysis.module.body if _test(n)]
        assert _parts(analysis) == _libcst_parts(analysis), path
        for deleted in ([], skipped):
            expected = _oracle(analysis, removed, deleted)
            assert _read(analysis, removed, deleted) == expected, path
            compared += len(expected)
    assert compared > 800  # findings; and every string part of each file


def _test(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value.lower().startswith("test")


def _roots(tmp_path: Path) -> list[Path]:
    """Every rule case, fixture project and example that spells a patch name."""
    roots = []
    for case in sorted(p for p in RULES.glob("FSU*/*") if p.is_dir()):
        if any(b"patch" in f.read_bytes() for f in case.rglob("*.py")):
            roots.append(prepare(case.parent.name, case.name, tmp_path / case.parent.name)[0])
    for tree in ("tests/fixtures", "examples"):
        for folder in sorted(p for p in (ROOT / tree).iterdir() if p.is_dir()):
            if any(b"patch" in f.read_bytes() for f in folder.rglob("*.py")):
                roots.append(folder)
    return roots


def test_every_strings_subject_of_the_fixtures_cases_and_examples(tmp_path: Path, monkeypatch) -> None:
    """The subjects the run's linking builds (the names it removes, the code its fixes delete) on every rule case,
    fixture and example that spells a patch name: the rule's findings are the libcst reader's."""
    subjects: list[tuple[FileAnalysis, list[cst.CSTNode], linking.Strings]] = []
    places, strings = linking.deleted_places, linking.Strings

    def recording_places(analysis, nodes):
        subjects.append((analysis, list(nodes), None))  # type: ignore[arg-type]
        return places(analysis, nodes)

    def recording_strings(removed, skipped):
        made = strings(removed, skipped)
        analysis, nodes, _ = subjects[-1]
        subjects[-1] = (analysis, nodes, made)
        return made

    monkeypatch.setattr(linking, "deleted_places", recording_places)
    monkeypatch.setattr(linking, "Strings", recording_strings)
    for root in _roots(tmp_path):
        check_paths([str(root)], target_torch="2.13")
    found = 0
    for analysis, nodes, made in subjects:
        expected = _oracle(analysis, made.removed, nodes)
        planned = plan_strings(analysis, made.removed, made.skipped)
        assert [(p.code, *_span(analysis.position(p.node)), p.message) for p in planned] == expected
        found += len(expected)
    assert len(subjects) >= 30 and found >= 5, (len(subjects), found)


def test_the_all_entries_an_installers_fix_deletes_are_reported_as_the_libcst_reader_reported_them(
    tmp_path: Path,
) -> None:
    """The libcst reader was handed the `__all__` entries an installer's fix deletes, but skipped nodes by identity
    and only functions, classes and strings: an entry (a list's element, an `.append` statement) never was."""
    work, _ = prepare("FSU003", "installer_named_in_dunder_all", tmp_path)
    found = [(f.span.line, f.span.column) for f in check_paths([str(work)]) if f.code == "FSU304"]
    assert found == [(7, 13), (8, 14), (9, 17)]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="white space after a conversion: Python 3.12+")
def test_white_space_after_a_conversion_moves_no_name() -> None:
    """libcst drops the white space after a conversion (`f"{x!s  }"` is written back as `f"{x!s}"`) and places what
    follows on the line by the code it writes; the name stands where it is in the file (the one known difference)."""
    analysis = _analysis(b'x = f"{y!s  }_patched_x"\n')
    assert [f[1:5] for f in _read(analysis, REMOVED)] == [(1, 13, 1, 23)]
    assert [f[1:5] for f in _oracle(analysis, REMOVED)] == [(1, 11, 1, 21)]
