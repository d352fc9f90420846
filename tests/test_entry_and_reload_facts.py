"""A file's `sys.modules` entries (FSU107, and FSU202 in a test module) and its `importlib.reload` calls (FSU401)
are read from the `ast` model (`analysis/module_entries.py`), not from libcst (issue 32 item 4: libcst only
writes). The libcst reading they replace is kept here as the oracle (`_old_entries`, `_old_reloaded_after`, as
`collect.py`, `fsdp2_objects.py` and `stale_by_name_import.py` had it): the findings (code, place, message) and
every answer of `reloaded_after` equal the oracle's on every rule case, fixture, example and rule example that
spells `modules[` or `reload(`, and on hostile spellings written here."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any, Callable, Optional

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

import fsdp_unpatch.rules
from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_module, in_test_module
from fsdp_unpatch.analysis.patterns import dotted_name, qualify
from fsdp_unpatch.analysis.plan import FileAnalysis, Options, analyze_module
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.rules.module_replacement import MODULE_REPLACEMENT
from fsdp_unpatch.rules.stale_by_name_import import RELOADERS, incomplete_by_name, reloaded_after
from fsdp_unpatch.rules.test_patch import TEST_PATCH, _patches
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.semantic.names import target_id

ROOT = Path(__file__).resolve().parent.parent
FSDP = "torch.distributed.fsdp._fully_shard"
CODES = ("FSU107", "FSU202", "FSU401")
Finding = tuple[str, int, int, int, int, str]


# The oracle: the libcst reading as it was --------------------------------------------------------------------


class _OldFacts(cst.CSTVisitor):
    """What `collect.Collector` recorded: `x.modules[...] = v` targets, and calls whose callee's last name is
    `reload`, each with the innermost enclosing function."""

    def __init__(self) -> None:
        self.functions: list[cst.FunctionDef] = []
        self.module_entries: list[tuple[cst.Subscript, cst.BaseExpression]] = []
        self.reloads: list[tuple[cst.Call, Optional[cst.FunctionDef]]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for assign_target in node.targets:
            target = assign_target.target
            name = dotted_name(target.value) if isinstance(target, cst.Subscript) else None
            if isinstance(target, cst.Subscript) and name is not None and name.split(".")[-1] == "modules":
                self.module_entries.append((target, node.value))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = (
            func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        )
        if last == "reload":
            self.reloads.append((node, self.functions[-1] if self.functions else None))


def _old_facts(analysis: FileAnalysis) -> _OldFacts:
    facts = _OldFacts()
    analysis.module.visit(facts)
    return facts


def _old_entries(analysis: FileAnalysis, catalog: Any) -> list[tuple[cst.Subscript, cst.BaseExpression, str]]:
    """`fsdp2_objects.fsdp2_module_entries` as it was."""
    found = []
    for target, value in _old_facts(analysis).module_entries:
        if qualify(analysis.table, target.value) != "sys.modules" or len(target.slice) != 1:
            continue
        index = target.slice[0].slice
        key = index.value if isinstance(index, cst.Index) else None
        literal = key.evaluated_value if isinstance(key, (cst.SimpleString, cst.ConcatenatedString)) else None
        module = fsdp2_module(literal if isinstance(literal, str) else None, catalog)
        if module is not None:
            found.append((target, value, module))
    return found


def _old_reloaded_after(
    analysis: FileAnalysis, catalog: Any, install: Any, missing: str, line_of: Callable[[Any], int]
) -> bool:
    """`stale_by_name_import.reloaded_after` as it was."""
    module = missing.split(".")[0]
    if not any(e.module == module and f"{e.module}.{e.name}" == missing for e in catalog.by_name_imports):
        return False
    table = analysis.facts.table
    for call, function in _old_facts(analysis).reloads:
        if function is not install.function or not call.args:
            continue
        if qualify(table, call.func) not in RELOADERS:
            continue
        reloaded = qualify(table, call.args[0].value)
        if reloaded and target_id(reloaded, catalog) == module and line_of(call) > line_of(install.report):
            return True
    return False


def _expected(analysis: FileAnalysis, catalog: Any, options: Options) -> list[Finding]:
    positions = MetadataWrapper(analysis.module, unsafe_skip_copy=True).resolve(PositionProvider)

    def line(node: Any) -> int:
        return analysis.position(node).start.line

    found = []
    for target, value, module in _old_entries(analysis, catalog):
        spelled = f"{analysis.code(target)} = {analysis.code(value)}"
        if in_test_module(analysis.module_name):
            code, message = TEST_PATCH.code, TEST_PATCH.message(call=spelled, target=module)
        else:
            code, message = MODULE_REPLACEMENT.code, MODULE_REPLACEMENT.message(spelled=spelled, module=module)
        where = positions[target]
        found.append((code, where.start.line, where.start.column, where.end.line, where.end.column, message))
    for item in incomplete_by_name(analysis.patched, catalog, options.releases):
        if not _old_reloaded_after(analysis, catalog, item.site.install, item.missing, line):
            where = analysis.position(item.site.install.report)
            found.append(
                ("FSU401", where.start.line, where.start.column, where.end.line, where.end.column, item.message)
            )
    return sorted(found)


# What the tool says now ------------------------------------------------------------------------------------------


def _analysis(text: str, module_name: str) -> tuple[FileAnalysis, Options]:
    data = text.encode()
    options = Options(target_torch=Version.parse("2.13"))
    return analyze_module(cst.parse_module(data), module_name, False, load_catalog(), options, data=data), options


def _actual(analysis: FileAnalysis) -> list[Finding]:
    calls = {at for at, _, _ in _patches(analysis, load_catalog())}
    found = []
    for planned in analysis.planned:
        if planned.code not in CODES or (planned.code == "FSU202" and planned.node in calls):
            continue  # FSU202 of a `mock.patch(...)`-like call: not an entry (`test_test_patch_positions.py`)
        where = analysis.position(planned.node)
        found.append(
            (planned.code, where.start.line, where.start.column, where.end.line, where.end.column, planned.message)
        )
    return sorted(found)


def _all_missing(catalog: Any) -> list[str]:
    """Every by-name binding and its source: what `reloaded_after` may be asked about."""
    names = {f"{e.module}.{e.name}" for e in catalog.by_name_imports} | {
        f"{e.source}.{e.name}" for e in catalog.by_name_imports
    }
    return sorted(names)


def _same(text: str, module_name: str) -> list[Finding]:
    analysis, options = _analysis(text, module_name)
    catalog = load_catalog()
    expected = _expected(analysis, catalog, options)
    assert _actual(analysis) == expected

    def line(node: Any) -> int:
        return analysis.position(node).start.line

    for install in analysis.facts.installs:
        for missing in _all_missing(catalog):
            old = _old_reloaded_after(analysis, catalog, install, missing, line)
            assert reloaded_after(analysis, catalog, install, missing) == old, (missing, analysis.code(install.report))
    return expected


# The corpus -----------------------------------------------------------------------------------------------------


def _spells(text: str) -> bool:
    return "modules[" in text or "reload(" in text


def _corpus() -> list[tuple[str, str, str]]:
    """(where, module name, text) of every rule case, fixture, example and rule example that spells an entry or
    a reload, and FSU401's rule cases (none of them reloads: the findings stay as they were)."""
    found = []
    for folder in ("tests/rules", "tests/fixtures", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            try:
                text = path.read_text(encoding="utf-8")
                compile(text, str(path), "exec")
            except (UnicodeDecodeError, SyntaxError, ValueError):
                continue
            if _spells(text) or path.is_relative_to(ROOT / "tests" / "rules" / "FSU401"):
                name = ".".join(path.relative_to(ROOT).with_suffix("").parts[-2:])
                found.append((str(path.relative_to(ROOT)), name, text))
    for info in pkgutil.iter_modules(fsdp_unpatch.rules.__path__):
        module = importlib.import_module(f"fsdp_unpatch.rules.{info.name}")
        for kind in ("VALID", "INVALID"):
            for number, sample in enumerate(getattr(module, kind, [])):
                if _spells(sample.code):
                    name = ".".join(Path(sample.path).with_suffix("").parts[-2:])
                    found.append((f"{info.name}.{kind}[{number}]", name, sample.code))
    return found


def test_entries_and_reloads_are_read_as_libcst_read_them_in_the_repositorys_sources() -> None:
    corpus = _corpus()
    assert len(corpus) >= 8, "the corpus was found"
    reported: dict[str, int] = {}
    for where, name, text in corpus:
        try:
            for finding in _same(text, name):
                reported[finding[0]] = reported.get(finding[0], 0) + 1
        except AssertionError as error:
            raise AssertionError(where) from error
    assert reported == {"FSU107": 3, "FSU202": 2, "FSU401": 1}, "the corpus holds findings of the three rules"


# Hostile spellings ------------------------------------------------------------------------------------------------

KEY = f'"{FSDP}._fsdp_param"'
ENTRY_HEAD = "import sys\nimport types\n\nstand_in = types.ModuleType('stand_in')\n"
ENTRIES = {
    "concatenated": ENTRY_HEAD + f'sys.modules["{FSDP}." "_fsdp_param"] = stand_in\n'
    f"sys.modules['{FSDP}._fsdp_' \"collectives\" '' ] = stand_in\n",
    "over lines in parentheses": ENTRY_HEAD
    + f'def install():\n    if True:\n        sys.modules[(\n            "{FSDP}."\n'
    + '                "_fsdp_param"  # the module\n        )] = types.ModuleType(\n'
    + '            "stand_in",\n        )\n',
    "f-string and bytes keys": ENTRY_HEAD
    + f"sys.modules[f{KEY}] = stand_in\nsys.modules[b{KEY}] = stand_in\n"
    + f'sys.modules["{FSDP}." f"_fsdp_param"] = stand_in\nsys.modules[f"{{FSDP}}._fsdp_param"] = stand_in\n'
    + f'sys.modules[{KEY} + ""] = stand_in\nsys.modules[(\n    b"{FSDP}." b"_fsdp_param"\n)] = stand_in\n',
    "non-literal keys": ENTRY_HEAD
    + f"NAME = {KEY}\nsys.modules[NAME] = stand_in\nsys.modules[str(NAME)] = stand_in\n"
    + "sys.modules[1:2] = stand_in\nsys.modules[None] = stand_in\n",
    "not an entry": ENTRY_HEAD
    + f"sys.modules.__setitem__({KEY}, stand_in)\nsys.modules[{KEY}]: object = stand_in\n"
    + f"sys.modules[{KEY}] += stand_in\nmodules = {{}}\nmodules[{KEY}] = stand_in\n"
    + f"other.modules[{KEY}] = stand_in\nsys.modules[{KEY}], x = stand_in, 1\ndel sys.modules[{KEY}]\n",
    "import sys as s": "import sys as s\n\n" + f"s.modules[{KEY}] = object()\n(s.modules)[{KEY}] = object()\n",
    "from sys import modules": "from sys import modules\n\n" + f"modules[{KEY}] = object()\n",
    "crlf": (
        ENTRY_HEAD + f"def install():\n    sys.modules[\n        {KEY}\n    ] = (\n        stand_in\n    )\n"
    ).replace("\n", "\r\n"),
    "not ascii before it": ENTRY_HEAD
    + f'label = "h\u00e9llo \u4e16\u754c"; sys.modules[{KEY}] = stand_in\n'
    + f"\u00e9t\u00e9 = 1; sys.modules[  {KEY}  ] = '\u00e9'\n",
    "tuple slices": ENTRY_HEAD
    + f'sys.modules[{KEY}, "x"] = stand_in\nsys.modules[{KEY},] = stand_in\nsys.modules[({KEY},)] = stand_in\n'
    + f"sys.modules[({KEY}),] = stand_in\nsys.modules[{KEY} , ] = stand_in\nsys.modules[(({KEY},)),] = stand_in\n"
    + f"sys.modules[({KEY} ,)] = stand_in\nsys.modules[{KEY},  # a comment\n] = stand_in\n",
    "parentheses and chains": ENTRY_HEAD
    + f"(sys.modules[{KEY}]) = stand_in\n( sys.modules )[{KEY}] = stand_in\n"
    + f'sys.modules[{KEY}] = sys.modules["{FSDP}._fsdp_common"] = a = stand_in\n'
    + f"sys.modules[{KEY}] = stand_in, stand_in\nsys.modules[{KEY}] = (stand_in)\n",
    "nested functions and classes": ENTRY_HEAD
    + "class Holder:\n    def install(self):\n        def inner():\n"
    + f"            sys.modules[{KEY}] = \\\n                stand_in\n        return inner\n"
    + f"    sys.modules[{KEY}] = stand_in\n",
}

RELOAD_HEAD = (
    "import importlib\n"
    f"from {FSDP} import _fsdp_collectives, _fsdp_param_group\n\n\n"
    "def _replacement(*args, **kwargs):\n    return None\n\n\n"
)
PATCH = "_fsdp_collectives.foreach_reduce = _replacement"
RELOAD = "importlib.reload(_fsdp_param_group)"
RELOADS = {
    "module level after": RELOAD_HEAD + f"{PATCH}\n{RELOAD}\n",
    "module level before": RELOAD_HEAD + f"{RELOAD}\n{PATCH}\n",
    "same line": RELOAD_HEAD + f"{PATCH}; {RELOAD}\n",
    "in the function after": RELOAD_HEAD + f"def install():\n    {PATCH}\n    {RELOAD}\n",
    "in the function before": RELOAD_HEAD + f"def install():\n    {RELOAD}\n    {PATCH}\n",
    "patched in a function, reloaded at module level": RELOAD_HEAD + f"def install():\n    {PATCH}\n\n\n{RELOAD}\n",
    "patched at module level, reloaded in a function": RELOAD_HEAD + f"{PATCH}\n\n\ndef refresh():\n    {RELOAD}\n",
    "nested functions": RELOAD_HEAD
    + f"def outer():\n    def inner():\n        {PATCH}\n        {RELOAD}\n    {PATCH}\n    inner()\n    {RELOAD}\n"
    + f"\n\ndef outer2():\n    def inner():\n        {PATCH}\n    inner()\n    {RELOAD}\n"
    + f"\n\ndef outer3():\n    {PATCH}\n\n    def inner():\n        {RELOAD}\n",
    "a class in a function": RELOAD_HEAD + f"def outer():\n    class Holder:\n        {PATCH}\n    {RELOAD}\n",
    "a method": RELOAD_HEAD + f"class Holder:\n    def install(self):\n        {PATCH}\n        {RELOAD}\n",
    "async": RELOAD_HEAD + f"async def install():\n    {PATCH}\n    await x\n    {RELOAD}\n",
    "in a decorator and a lambda": RELOAD_HEAD
    + f"def install():\n    {PATCH}\n\n    @functools.lru_cache({RELOAD})\n    def later():\n        pass\n"
    + f"\n\ndef install2():\n    {PATCH}\n    later = lambda: {RELOAD}\n"
    + f"\n\ndef install3(x=None):\n    {PATCH}\n\n    def g(y={RELOAD}):\n        pass\n",
    "from importlib import reload": "from importlib import reload\n"
    + RELOAD_HEAD
    + f"{PATCH}\nreload(_fsdp_param_group)\n",
    "imp.reload": RELOAD_HEAD + f"{PATCH}\nimp.reload(_fsdp_param_group)\n",
    "import importlib as il": "import importlib as il\n" + RELOAD_HEAD + f"{PATCH}\nil.reload(_fsdp_param_group)\n",
    "other reloads": RELOAD_HEAD
    + f"{PATCH}\nimportlib.reload(_fsdp_collectives)\nother.reload(_fsdp_param_group)\nimportlib.reload()\n"
    + "reload(_fsdp_param_group)\nimportlib.reload(*[_fsdp_param_group])\nimportlib.reload(f())\n",
    "argument spellings": RELOAD_HEAD
    + f"{PATCH}\nimportlib.reload(module=_fsdp_param_group)\n(importlib.reload)(\n    _fsdp_param_group,\n)\n"
    + f"importlib.reload(\n    {FSDP}._fsdp_param_group\n)\n",
    "starred first": RELOAD_HEAD + f"{PATCH}\nimportlib.reload(*mods)\nimportlib.reload(m=x, *mods)\n",
    "keyword before star": RELOAD_HEAD + f"{PATCH}\nimportlib.reload(m=_fsdp_param_group, *mods)\n",
    "setattr": RELOAD_HEAD + f'setattr(_fsdp_collectives, "foreach_reduce", _replacement)\n{RELOAD}\n',
    "over lines": RELOAD_HEAD + "def install():\n    (_fsdp_collectives\n        .foreach_reduce) = (\n"
    f"        _replacement)\n    {RELOAD}\n",
    "crlf": (RELOAD_HEAD + f"def install():\n    {PATCH}\n    {RELOAD}\n\n\n{PATCH}\n").replace("\n", "\r\n"),
    "not ascii before it": RELOAD_HEAD
    + f'def install():\n    label = "h\u00e9llo \u4e16\u754c"; {PATCH}\n    \u00e9t\u00e9 = 1; {RELOAD}\n',
}


@pytest.mark.parametrize("name", sorted(ENTRIES))
@pytest.mark.parametrize("module_name", ["otherfw.entries", "tests.test_entries"])
def test_entries_in_hostile_spellings_are_read_as_libcst_read_them(name: str, module_name: str) -> None:
    _same(ENTRIES[name], module_name)


@pytest.mark.parametrize("name", sorted(RELOADS))
def test_reloads_in_hostile_spellings_are_read_as_libcst_read_them(name: str) -> None:
    _same(RELOADS[name], "otherfw.patching")


def test_the_hostile_spellings_hold_findings_and_reloads_that_count() -> None:
    """The spellings are not vacuous: entries are found, some keys are not, some reloads complete a patch."""
    counts = {name: len(_same(text, "otherfw.entries")) for name, text in ENTRIES.items()}
    assert counts["concatenated"] == 2 and counts["over lines in parentheses"] == 1
    assert counts["f-string and bytes keys"] == counts["non-literal keys"] == counts["not an entry"] == 0
    assert counts["import sys as s"] == 2 and counts["from sys import modules"] == 1
    assert counts["tuple slices"] == 4  # `x[k,]` is one element to libcst (a tuple to Python)
    assert counts["parentheses and chains"] == 6
    stale = {name: len(_same(text, "otherfw.patching")) for name, text in RELOADS.items()}
    completed = sorted(name for name, count in stale.items() if count == 0)
    assert completed == sorted(
        [
            "module level after",
            "in the function after",
            "a class in a function",
            "a method",
            "async",
            "from importlib import reload",
            "imp.reload",
            "import importlib as il",
            "argument spellings",
            "keyword before star",
            "setattr",
            "over lines",
            "not ascii before it",
        ]
    ), stale
    # outer's and inner's patches each reloaded in their function; not outer2's inner's, nor outer3's (reloaded in
    # inner); nor the patch before a decorator or a default that reloads (in the function they belong to)
    assert stale["nested functions"] == stale["in a decorator and a lambda"] == 2


def test_without_a_model_a_file_has_no_entries_and_no_reloads() -> None:
    """Syntax the running Python does not parse (libcst does): no `ast` model, so no entry is known (FSU107 and
    FSU202 report, they fix nothing) and no reload completes a patch (FSU401 stays, a review)."""
    text = ENTRY_HEAD + f"sys.modules[{KEY}] = stand_in\n" + "type Alias = int\n"
    analysis, _ = _analysis(text, "otherfw.entries")
    assert analysis.model is None and _actual(analysis) == []
    analysis, _ = _analysis(RELOADS["module level after"] + "type Alias = int\n", "otherfw.patching")
    assert analysis.model is None and [f[0] for f in _actual(analysis)] == ["FSU401"]


def _run_findings(text: str, path: Path) -> list[Finding]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    result = run(
        discover([str(path)]), load_catalog(), RunOptions(analysis=Options(target_torch=Version.parse("2.13")))
    )
    return sorted(
        (f.code, f.span.line, f.span.column - 1, f.span.end_line, f.span.end_column - 1, f.message)
        for f in result.findings
        if f.code in CODES
    )


@pytest.mark.parametrize(
    "name, relative",
    [
        ("crlf", "otherfw/entries.py"),
        ("not ascii before it", "tests/test_entries.py"),
        ("nested functions and classes", "otherfw/entries.py"),
        ("parentheses and chains", "tests/test_entries.py"),
    ],
)
def test_a_run_reports_entries_where_libcst_places_them(name: str, relative: str, tmp_path: Path) -> None:
    analysis, options = _analysis(ENTRIES[name], ".".join(Path(relative).with_suffix("").parts))
    expected = _expected(analysis, load_catalog(), options)
    assert expected and _run_findings(ENTRIES[name], tmp_path / relative) == expected


@pytest.mark.parametrize("name", ["crlf", "module level before", "nested functions"])
def test_a_run_reports_stale_copies_as_the_libcst_reading_did(name: str, tmp_path: Path) -> None:
    analysis, options = _analysis(RELOADS[name], "otherfw.patching")
    expected = _expected(analysis, load_catalog(), options)
    assert expected and _run_findings(RELOADS[name], tmp_path / "otherfw" / "patching.py") == expected


def test_names_are_read_as_python_reads_them() -> None:
    """The one answer that is not libcst's: a name written with compatibility characters (`sys.ｍodules`,
    `importlib.ｒeload`) is the name Python normalises it to (NFKC), as the `ast` model reads every name; libcst
    kept the characters as written and saw neither the entry nor the reload."""
    text = ENTRY_HEAD + f"sys.\uff4dodules[{KEY}] = stand_in\n"
    analysis, options = _analysis(text, "otherfw.entries")
    assert _expected(analysis, load_catalog(), options) == []
    assert [f[:2] for f in _actual(analysis)] == [("FSU107", 5)]
    analysis, options = _analysis(RELOAD_HEAD + f"{PATCH}\nimportlib.\uff52eload(_fsdp_param_group)\n", "otherfw.p")
    assert [f[:2] for f in _expected(analysis, load_catalog(), options)] == [("FSU401", 9)]
    assert _actual(analysis) == []
