"""FSU005's same-device copies are found on the `ast` model (`analysis/copies.py`), not on libcst (issue 32 item 4:
libcst only writes); the planner edits the libcst `If` standing at the same place (`plan.libcst_if`). libcst is
the oracle: `_old_plan_copies` below is the planner step as it was (every libcst `If` with its function, its
branches one call each, both callees qualified with the names bound around the function left out, the `if`
written back and parsed again for `same_device.match_if`, refused for a `#` outside the native line). The
matched `if`s (the place of the `if` and of its native call), FSU005's planned findings and the fixed bytes are
the oracle's, over hostile spellings, every fixture, rule case and example file, and every file of the real
torch-npu releases that spells `_foreach_copy_` (no other can hold a copy: neither finder sees one)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Callable, Optional

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis import copies, plan
from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.patterns import dotted_name, qualify
from fsdp_unpatch.analysis.plan import Options, analyze_module
from fsdp_unpatch.analysis.subjects import Copy
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.fingerprint import same_device
from fsdp_unpatch.fingerprint.normalise import local_names
from fsdp_unpatch.fingerprint.same_device import FOREACH_COPY
from tests.helpers import run_tree

ROOT = Path(__file__).resolve().parent.parent
RELEASES = Path.home() / ".cache" / "fsdp-unpatch" / "torch-npu"


# --- The oracle: the libcst planner step as it was ---


class _Ifs(cst.CSTVisitor):
    """Every libcst `If` with its innermost enclosing function (what `collect.Facts.ifs` recorded)."""

    def __init__(self) -> None:
        self.ifs: list[tuple[cst.If, Optional[cst.FunctionDef]]] = []
        self.functions: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_If(self, node: cst.If) -> None:
        self.ifs.append((node, self.functions[-1] if self.functions else None))


def _single_call(block: cst.BaseSuite) -> Optional[tuple[cst.SimpleStatementLine, cst.Call]]:
    if isinstance(block, cst.SimpleStatementSuite):
        line = cst.SimpleStatementLine(body=block.body)
    elif isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
        line = block.body[0]  # type: ignore[assignment]
    else:
        return None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    expr = line.body[0]
    if isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call):
        return line, expr.value
    return None


def _same_device_copy(
    node: cst.If, code: Callable[[cst.CSTNode], str], qualified: Callable[[cst.BaseExpression], Optional[str]]
) -> Optional[cst.SimpleStatementLine]:
    """The native line of a same-device copy (`patterns.same_device_copy` as it was)."""
    if not isinstance(node.orelse, cst.Else):
        return None
    branches = [_single_call(node.body), _single_call(node.orelse.body)]
    if branches[0] is None or branches[1] is None:
        return None
    if any(qualified(call.func) != FOREACH_COPY for _, call in branches):  # type: ignore[misc]
        return None
    inside = code(node.with_changes(leading_lines=()))
    try:
        parsed = ast.parse(inside.strip())
    except SyntaxError:
        return None
    statement = parsed.body[0] if len(parsed.body) == 1 else None
    if not isinstance(statement, ast.If):
        return None
    tweak = same_device.match_if(statement, is_copy=lambda func: True)
    if tweak is None:
        return None
    native_line = branches[tweak.native_branch][0]  # type: ignore[index]
    if "#" in inside.replace(code(native_line.with_changes(leading_lines=())), "", 1):
        return None
    return native_line


def _qualify_in(state, function):
    read: list = []

    def qualified(expression):
        if not read:
            read.append(_bound_around(state, function))
        local = read[0]
        if local is None:
            return None
        name = dotted_name(expression)
        if name is not None and name.partition(".")[0] in local:
            return None
        return qualify(state.facts.table, expression)

    return qualified


def _bound_around(state, function):
    parents = {id(f): parent for found in state.facts.functions.values() for f, parent in found}
    local: set[str] = set()
    while function is not None:
        try:
            parsed = ast.parse(textwrap.dedent(state.result.code(function.with_changes(leading_lines=()))))
        except SyntaxError:
            return None
        local |= local_names(parsed.body[0])  # type: ignore[arg-type]
        function = parents.get(id(function))
    return local


def _old_matches(state) -> list[tuple[cst.If, Optional[cst.FunctionDef], cst.SimpleStatementLine]]:
    visitor = _Ifs()
    state.result.module.visit(visitor)
    elifs = {id(node.orelse) for node, _ in visitor.ifs if isinstance(node.orelse, cst.If)}
    found = []
    for node, function in visitor.ifs:
        if id(node) in elifs:
            continue
        native = _same_device_copy(node, state.result.code, _qualify_in(state, function))
        if native is not None:
            found.append((node, function, native))
    return found


def _old_plan_copies(state) -> None:
    removed_functions = {id(p.edits[0].node) for p in state.result.replacements.values()}
    kept = None
    for node, function, native_line in _old_matches(state):
        if function is not None and (id(function) in removed_functions or id(function) in state.kept_replacements):
            continue
        kept = plan.kept_code(state) if kept is None else kept
        if id(node) in kept:
            continue
        native = native_line.with_changes(leading_lines=node.leading_lines)
        copy = Copy(node, native, native_line.body[0])
        state.result.planned.extend(dispatch("copy", copy, state.result, state.catalog, options=state.options))


# --- Both sides ---


def _analysis(data: bytes, name: str = "otherfw.buffers", planner=None, monkeypatch=None):
    if planner is not None:
        monkeypatch.setattr(plan, "plan_copies", planner)
    try:
        options = Options(target_torch=Version.parse("2.13"))
        return analyze_module(cst.parse_module(data), name, False, load_catalog(), options, data=data)
    finally:
        if planner is not None:
            monkeypatch.undo()


def _matched(data: bytes, name: str = "otherfw.buffers") -> tuple[list, list]:
    """(the model's matched `if`s, the oracle's): the place of each `if` and of its native call statement."""
    analysis = _analysis(data, name)
    new = []
    if analysis.model is not None and analysis.model.tree is not None:
        new = [(f.at, f.native_at) for f in copies.find(analysis.model.tree, analysis.node_text, analysis.table)]
    positions = MetadataWrapper(analysis.module, unsafe_skip_copy=True).resolve(PositionProvider)
    state = plan.PlanState(analysis, load_catalog(), Options(target_torch=Version.parse("2.13")), None)  # type: ignore[arg-type]
    old = []
    for node, _, native in _old_matches(state):
        at, native_at = positions[node].start, positions[native.body[0]].start
        old.append(((at.line, at.column), (native_at.line, native_at.column)))
    return new, old


def _planned(analysis) -> list[tuple]:
    return [
        (
            p.code,
            analysis.position(p.node),
            p.message,
            [(analysis.position(e.node), analysis.code(e.replacement) if e.replacement else None) for e in p.edits],
        )
        for p in analysis.planned
        if p.code == "FSU005"
    ]


def _fixed(data: bytes, tmp_path: Path, planner, monkeypatch, name: str = "buffers.py") -> tuple[Optional[bytes], list]:
    folder = tmp_path / ("old" if planner is _old_plan_copies else "new")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    if planner is _old_plan_copies:
        monkeypatch.setattr(plan, "plan_copies", planner)
    try:
        result = run_tree(folder, fix=True, write=False, unsafe_fixes=True)
    finally:
        monkeypatch.undo()
    (found,) = result.files
    findings = [
        (f.code, f.span.line, f.span.column, f.span.end_line, f.span.end_column, f.message) for f in found.findings
    ]
    return found.fixed, findings


def _same_plan_and_fix(data: bytes, tmp_path: Path, monkeypatch, name: str = "otherfw.buffers") -> list[tuple]:
    """FSU005's planned findings and the fixed bytes (and every finding of the fix's run) are the oracle's."""
    new = _planned(_analysis(data, name))
    old = _planned(_analysis(data, name, _old_plan_copies, monkeypatch))
    assert new == old
    file_name = name.rpartition(".")[2] + ".py"
    assert _fixed(data, tmp_path, plan.plan_copies, monkeypatch, file_name) == _fixed(
        data, tmp_path, _old_plan_copies, monkeypatch, file_name
    )
    return new


# --- Hostile spellings ---

HEAD = "import torch\n\n\n"
FAST, SLOW = "torch._foreach_copy_(dst, src, non_blocking=True)", "torch._foreach_copy_(dst, src)"


def _if(indent: str = "    ", test: str = "dst[0].device == src[0].device", fast: str = FAST, slow: str = SLOW) -> str:
    return f"{indent}if {test}:\n{indent}    {fast}\n{indent}else:\n{indent}    {slow}\n"


def _def(body: str, name: str = "copy_buffers", params: str = "dst, src") -> str:
    return f"def {name}({params}):\n{body}    return dst\n\n\n"


HASHED_TEST = 'dst["#"][0].device == src["#"][0].device'


def _hashed(call: str) -> str:
    return call.replace("dst", 'dst["#"]').replace("src", 'src["#"]')


SPELLINGS = {
    "plain": HEAD + _def(_if()) + _def(_if(test="src[0].device != dst[0].device", fast=SLOW, slow=FAST), "other"),
    "one-line suites": HEAD
    + "def copy_buffers(dst, src):\n"
    + f"    if dst[0].device == src[0].device: {FAST}\n    else: {SLOW}\n"
    + f"    if dst[0].device != src[0].device: {SLOW}\n    else:\n        {FAST}\n"
    + f"    if dst[0].device == src[0].device:\n        {FAST}\n    else: {SLOW}  # trailing the native\n"
    + f"    if dst[0].device == src[0].device: {FAST}  # trailing the other\n    else: {SLOW}\n"
    + f"    if dst[0].device == src[0].device: \\\n        {FAST}\n    else: \\\n  {SLOW}\n"
    + f"    if dst[0].device == src[0].device: \\\n        {FAST}\n    else: \\\n  {SLOW}  # a suite's, not the line's\n"
    + f"    if dst[0].device == src[0].device: {FAST}\n    else: {SLOW};\n"
    + f"    if dst[0].device == src[0].device: {FAST}\n    else: {SLOW}   \n",
    "elif chains": HEAD
    + "def copy_buffers(dst, src, flag):\n"
    + f"    if flag:\n        pass\n    elif dst[0].device == src[0].device:\n        {FAST}\n    else:\n        {SLOW}\n"
    + f"    if flag:\n        pass\n    else:\n        if dst[0].device == src[0].device:\n            {FAST}\n"
    + f"        else:\n            {SLOW}\n"
    + f"    if dst[0].device == src[0].device:\n        {FAST}\n    elif flag:\n        {SLOW}\n    else:\n        {SLOW}\n"
    + f"    if flag: pass\n    elif dst[0].device == src[0].device: {FAST}\n    else: {SLOW}\n",
    "a local torch": HEAD
    + "def outer(dst, src):\n    torch = pick()\n\n    def inner():\n"
    + _if("        ")
    + "    return inner\n\n\n"
    + "def outer2(dst, src):\n    def inner():\n        torch = pick()\n"
    + _if("        ")
    + "    def sibling():\n"
    + _if("        ")
    + "    return inner\n\n\n"
    + "def outer3(dst, src):\n    global torch\n    def inner():\n"
    + _if("        ")
    + "    return inner\n\n\n"
    + "def outer4(dst, src, torch=None):\n    class Holder:\n        def method(self):\n"
    + _if("            ")
    + "    return Holder\n\n\n"
    + "async def outer5(dst, src):\n    async with x as torch:\n        pass\n"
    + _if()
    + "\n\nlam = lambda torch: torch\n"
    + _if("")
    + "for torch in []:\n    pass\n"
    + _if(""),
    "aliases": "import torch as t\nfrom torch import _foreach_copy_ as fc\nimport torch\n"
    "from torch import _foreach_copy_\ncp = torch._foreach_copy_\n\n\n"
    + _def(_if(fast="fc(dst, src, non_blocking=True)", slow="t._foreach_copy_(dst, src)"))
    + _def(_if(fast="_foreach_copy_(dst, src, True)", slow="cp(dst, src)"), "b")
    + _def(
        _if(fast="(torch)._foreach_copy_(dst, src, non_blocking=True)", slow="(torch . _foreach_copy_)(dst, src)"), "c"
    )
    + _def(_if(fast="torch.other(dst, src, non_blocking=True)", slow=SLOW), "d")
    + _def(_if(fast="fc(dst, src, non_blocking=True)", slow="fc(dst, src)"), "e", "dst, src, fc"),
    "names as Python reads them": "import torch\nfrom torch import _foreach_copy_ as \uff46c\nimport \uff54orch\n\n\n"
    + _def(_if(fast="\uff46c(dst, src, non_blocking=True)", slow="fc(dst, src)"))
    + _def(_if(fast="\uff54orch._foreach_copy_(dst, src, non_blocking=True)", slow=SLOW), "b")
    + _def(_if(fast="torch._foreach_cop\uff59_(dst, src, non_blocking=True)", slow=SLOW), "c")
    + _def(
        _if(test="d\u00e9j\u00e0[0].device == src[0].device").replace("dst", "d\u00e9j\u00e0"),
        "d",
        "d\u00e9j\u00e0, src",
    )
    + _def(_if(fast="\uff46c(dst, src, non_blocking=True)", slow="\uff46c(dst, src)"), "e"),
    "comments": HEAD
    + _def("    # before the if\n" + _if().replace(":\n", ":  # after the test\n", 1), "before_and_after_the_test")
    + _def(_if(fast=FAST + "  # trailing the other"), "trailing_the_other")
    + _def(_if(slow=SLOW + "  # trailing the native"), "trailing_the_native")
    + _def(_if().replace(f"    {FAST}", f"    # inside the body\n        {FAST}"), "inside_the_body")
    + _def(_if().replace(f"    {SLOW}", f"    # inside the else\n        {SLOW}"), "inside_the_else")
    + _def(_if().replace("    else:", "    # between\n    else:"), "between_the_branches")
    + _def(_if().replace("    else:", "    else:  # on else"), "on_else")
    + _def(_if() + "        # in the else block's footer\n", "footer")
    + _def(_if() + "          # deeper still\n\n        # after a blank line\n", "footer_after_a_blank")
    + _def(_if() + "      # between the indentations\n", "between_the_indentations")
    + _def(_if() + "  # shallower\n        \n", "shallower_before_an_indented_blank_line")
    + _def(_if() + "    # at the if's indentation\n", "at_the_ifs_indentation")
    + _def(_if() + "\n# at column 0\n", "at_column_0")
    + _def(
        _if(fast="torch._foreach_copy_(dst, src, non_blocking=True)  # else: torch._foreach_copy_(dst, src)"), "quoting"
    )
    + _def(_if(test=HASHED_TEST, fast=_hashed(FAST), slow=_hashed(SLOW)), "hash_in_a_string"),
    "a comment ending the file": HEAD + _def(_if()) + _if("") + "    # at the end of the file",
    "over lines": HEAD
    + _def(_if(slow="torch._foreach_copy_(\n            dst,  # the destination\n            src,\n        )"))
    + _def(_if(fast="torch._foreach_copy_(\n        dst, src,\n  non_blocking=True)"), "b")
    + _def(_if(test="(\n        dst[0].device\n        == src[0].device  # same device\n    )"), "c")
    + _def(_if(test="(dst[0].device ==\n            src[0].device)"), "d")
    + "def e(dst, src):\n    if dst[0].device == src[0].device: "
    + FAST
    + "\n    else: torch._foreach_copy_(dst,  # in the call\n        src)\n    return dst\n\n\n"
    + "def f(dst, src):\n    if dst[0].device == src[0].device: "
    + FAST
    + "\n    else: torch._foreach_copy_(dst,  # in the call\n        src)  \n    return dst\n\n\n"
    + "def g(dst, src):\n    if dst[0].device == src[0].device:\n        "
    + FAST
    + "\n    else:\n        "
    + SLOW
    + " \\\n\n    return dst\n\n\n"
    + _def(_if(slow="torch._foreach_copy_(dst,  # less indented than its block\n      src)"), "h")
    + _def(_if(slow="torch._foreach_copy_(dst,\n          src)  # trailing, over lines"), "i")
    + _def(_if(slow="torch._foreach_copy_(dst,\n      src)  # trailing, less indented"), "j"),
    "tabs": HEAD
    + "def copy_buffers(dst, src):\n\tif dst[0].device == src[0].device:\n\t\t"
    + FAST
    + "\n\telse:\n\t\t"
    + SLOW
    + "\n\t\t# a footer\n\treturn dst\n\n\ndef b(dst, src):\n\tif dst[0].device == src[0].device:\n\t\t"
    + FAST
    + "\n\telse:\n\t\t"
    + SLOW
    + "\n    # not the block's\n\treturn dst\n",
    "not ascii before": HEAD
    + "label = 'h\u00e9llo \u4e16\u754c'\n\n\ndef copy_buffers(dst, src):\n    x = '\u4e16'; y = '\u00e9'\n"
    + "    if dst[0].device == src[0].device: "
    + FAST
    + "  # \u00e9\n    else: "
    + SLOW
    + "\n    if '\u4e16' and dst[0].device == src[0].device: pass\n"
    + f"    if dst[0].device == src[0].device:\n        {FAST}\n    else: {SLOW}\n    return dst\n",
    "in a class body": HEAD
    + "class Buffers:\n"
    + _if()
    + "\n    def copy(self, dst, src):\n"
    + _if("        ")
    + "\n\nif True:\n"
    + _if()
    + "try:\n    pass\nexcept Exception:\n"
    + _if()
    + "finally:\n"
    + _if()
    + "while False:\n"
    + _if()
    + "with x:\n"
    + _if(),
}
SPELLINGS["crlf"] = (SPELLINGS["comments"] + SPELLINGS["one-line suites"][len(HEAD) :]).replace("\n", "\r\n")
SPELLINGS["crlf over lines"] = SPELLINGS["over lines"].replace("\n", "\r\n")
if hasattr(ast, "Match"):
    SPELLINGS["match"] = HEAD + "match x:\n    case [1, *rest]:\n" + _if("        ") + "    case _:\n        pass\n"


# How many `if`s of each spelling are copies (the others are refused: a comment, a local `torch`, an `elif`, ...).
MATCHED = {
    "a comment ending the file": 1,
    "a local torch": 3,
    "aliases": 3,
    "comments": 4,
    "crlf": 9,
    "crlf over lines": 5,
    "elif chains": 1,
    "in a class body": 7,
    "match": 1,
    "names as Python reads them": 2,
    "not ascii before": 1,
    "one-line suites": 5,
    "over lines": 5,
    "plain": 2,
    "tabs": 1,
}


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_spelling_matches_where_the_libcst_planner_did(name: str) -> None:
    new, old = _matched(SPELLINGS[name].encode())
    assert new == old
    assert len(old) == MATCHED[name]


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_spelling_is_planned_and_fixed_as_by_the_libcst_planner(name: str, tmp_path: Path, monkeypatch) -> None:
    assert _same_plan_and_fix(SPELLINGS[name].encode(), tmp_path, monkeypatch)


# The `if` in the code the fix deletes (a proven replacement, FSU002) and in the code that stays (a replacement of
# an install site that stays, a kernel registration, what they call): never planned.
PATCH_HEAD = (
    "import torch\nfrom torch.distributed.fsdp._fully_shard import _fsdp_collectives\n"
    "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n\n"
)


def test_copies_in_code_that_goes_or_stays_are_not_planned(tmp_path: Path, monkeypatch) -> None:
    legacy = ROOT / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"
    data = legacy.read_bytes()
    new, old = _matched(data, "legacy_npu.distributed.fsdp._add_fsdp_patch")
    assert new == old and len(old) >= 1
    _same_plan_and_fix(data, tmp_path / "legacy", monkeypatch, "legacy_npu.distributed.fsdp._add_fsdp_patch")
    stays = (
        PATCH_HEAD
        + "def _helper(dst, src):\n"
        + _if()
        + "\n\ndef _npu_lazy_init(self):\n    _helper([], [])\n"
        + _if()
        + "\n\nFSDPParamGroup.lazy_init = _npu_lazy_init\n\n\n"
        + "lib = torch.library.Library('fsdp', 'IMPL')\n\n\n"
        + "@torch.library.impl(lib, 'all_gather_copy_in', 'PrivateUse1')\ndef _kernel(dst, src):\n"
        + _if()
        + "\n\ndef free(dst, src):\n"
        + _if()
    )
    new, old = _matched(stays.encode(), "otherfw.patches")
    assert new == old and len(old) == 4
    planned = _same_plan_and_fix(stays.encode(), tmp_path / "stays", monkeypatch, "otherfw.patches")
    assert [p[1].start.line for p in planned] == [stays.count("\n", 0, stays.index("def free")) + 2]


def test_without_a_model_no_copy_is_planned(tmp_path: Path) -> None:
    """Syntax the running Python does not parse (libcst does): no `ast` model, no copy found, none planned."""
    source = SPELLINGS["plain"] + "type Alias = int\n"
    analysis = _analysis(source.encode())
    assert analysis.model is None
    assert not [p for p in analysis.planned if p.code == "FSU005"]


def _files() -> list[Path]:
    trees = [ROOT / "tests" / "fixtures", ROOT / "tests" / "rules", ROOT / "examples"]
    return sorted(p for tree in trees for p in tree.rglob("*.py"))


def test_every_fixture_rule_case_and_example_file(tmp_path: Path, monkeypatch) -> None:
    compared = with_copies = 0
    for number, path in enumerate(_files()):
        data = path.read_bytes()
        try:
            new, old = _matched(data, path.stem)
        except Exception:
            continue  # the error fixtures: neither reads them
        compared += 1
        assert new == old, path
        if old:
            with_copies += 1
            _same_plan_and_fix(data, tmp_path / str(number), monkeypatch, path.stem)
    assert compared >= 200 and with_copies >= 4


def _release_files() -> list[Path]:
    return sorted(p for p in RELEASES.glob("*/src/**/*.py") if b"_foreach_copy_" in p.read_bytes())


@pytest.mark.skipif(not RELEASES.is_dir(), reason="no real torch-npu release is cached")
def test_every_real_release_file_that_spells_the_copy(tmp_path: Path, monkeypatch) -> None:
    """Read only: the cached releases' files are analysed where they are, and fixed in a temporary folder."""
    files = _release_files()
    with_copies = 0
    for number, path in enumerate(files):
        name = ".".join(path.relative_to(next(p for p in path.parents if p.name == "src")).with_suffix("").parts)
        new, old = _matched(path.read_bytes(), name)
        assert new == old, path
        if old:
            with_copies += 1
            _same_plan_and_fix(path.read_bytes(), tmp_path / str(number), monkeypatch, name)
    assert len(files) >= 9 and with_copies >= 1
