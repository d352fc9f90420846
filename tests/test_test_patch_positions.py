"""FSU202 `test-patch` reads the `ast` model, not libcst (issue 32 item 4: libcst only writes): the patching calls
(`mock.patch`, `patch.object`, `monkeypatch.setattr`, `monkeypatch.setitem(sys.modules, ...)`, `patch.dict(sys.modules,
...)`) come from the model's tree, each finding stands where libcst places the call and quotes it as libcst's
`code_for_node` writes it, in every spelling that moves a column, a line or the quoted text. libcst is the oracle:
`_oracle` below is the libcst rule that was, with one deliberate difference: an argument passed by keyword
(`mock.patch(target="...")`, `patch.object(FSDPParamGroup, attribute="x")`, `patch.dict(sys.modules, values={...})`)
is read as its parameter (the libcst rule read positional arguments only and missed those test patches:
`test_what_the_libcst_rule_missed_is_found`)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Optional

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_module
from fsdp_unpatch.analysis.patterns import qualify
from fsdp_unpatch.analysis.plan import Options, analyze_module
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.rules import test_patch
from fsdp_unpatch.rules.registry import rule_modules
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.semantic.names import is_fsdp2_private, target_id

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = Options(target_torch=Version.parse("2.13"))
TEST_PATCHERS = ("mock.patch", "mock.patch.object", "monkeypatch.setattr", "mocker.patch", "mocker.patch.object")
MODULE_PATCHERS = ("monkeypatch.setitem", "mock.patch.dict", "mocker.patch.dict")
# The deliberate difference: the keyword each patcher's target, attribute, dict and keys may be passed by.
KEYWORDS = {
    "mock.patch": ("target", None),
    "mocker.patch": ("target", None),
    "mock.patch.object": ("target", "attribute"),
    "mocker.patch.object": ("target", "attribute"),
    "monkeypatch.setattr": ("target", "name"),
    "monkeypatch.setitem": ("dic", "name"),
    "mock.patch.dict": ("in_dict", "values"),
    "mocker.patch.dict": ("in_dict", "values"),
}


def _string_literal(node) -> Optional[str]:
    """`patterns.string_literal` as it was: literals side by side too; an f-string and bytes are none."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _ending(callee: Optional[str], patchers: tuple[str, ...]) -> Optional[str]:
    if callee is None:
        return None
    return next((p for p in patchers if callee == p or callee.endswith("." + p)), None)


def _args(call: cst.Call, patcher: str, keywords: bool) -> list:
    """`patterns.positional_args` as it was (`*args` left out), then (the difference) the keywords' values."""
    args = [a.value for a in call.args if a.keyword is None and not a.star]
    if keywords:
        by_name = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        for index, name in enumerate(KEYWORDS[patcher]):
            if len(args) == index and name in by_name:
                args.append(by_name[name])
    return args


def _oracle(analysis, keywords: bool = True) -> list[tuple]:
    """The libcst rule's findings, (code, line, column, end line, end column, message, target), then the
    `sys.modules[...] = m` entries of a test module, as the rule reads them (`module_entries.py`, not moved here)."""
    catalog, facts = load_catalog(), analysis.facts
    positions = MetadataWrapper(analysis.module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = []

    def add(call: cst.Call, target: str) -> None:
        where = positions[call]
        message = test_patch.TEST_PATCH.message(call=_short(analysis.code(call)), target=target)
        found.append(
            ("FSU202", where.start.line, where.start.column, where.end.line, where.end.column, message, target)
        )

    for call, _ in facts.registrations:
        patcher = _ending(qualify(facts.table, call.func), MODULE_PATCHERS)
        if patcher is None:
            continue
        args = _args(call, patcher, keywords)
        if len(args) < 2 or not (
            qualify(facts.table, args[0]) == "sys.modules" or _string_literal(args[0]) == "sys.modules"
        ):
            continue
        if isinstance(args[1], cst.Dict):
            keys = [_string_literal(e.key) for e in args[1].elements if isinstance(e, cst.DictElement)]
        else:
            keys = [_string_literal(args[1])]
        for key in (k for k in keys if k is not None):
            module = fsdp2_module(key, catalog)
            if module is not None:
                add(call, module)
    for call, _ in facts.registrations:
        patcher = _ending(qualify(facts.table, call.func), TEST_PATCHERS)
        if patcher is None:
            continue
        args = _args(call, patcher, keywords)
        if not args:
            continue
        dotted = _string_literal(args[0])
        if dotted is not None:
            qualified: Optional[str] = dotted
        elif len(args) >= 2 and _string_literal(args[1]) is not None:
            owner = qualify(facts.table, args[0])
            qualified = f"{owner}.{_string_literal(args[1])}" if owner else None
        else:
            continue
        target = target_id(qualified, catalog) if qualified else None
        if target is not None and is_fsdp2_private(target, catalog):
            add(call, target)
    return found + [_row(p) for p in test_patch._module_entries(analysis, catalog)]


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _row(planned) -> tuple:
    at = planned.node
    return (planned.code, at.line, at.column, at.end_line, at.end_column, planned.message, planned.target)


def _read(analysis) -> list[tuple]:
    return [_row(p) for p in test_patch.check(analysis, load_catalog(), OPTIONS)]


def _analysis(data: bytes, name: str = "tests.test_patches"):
    return analyze_module(cst.parse_module(data), name, False, load_catalog(), OPTIONS, data=data)


HEAD = (
    "import sys\nfrom unittest import mock\nfrom unittest.mock import patch\n"
    "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n"
    "from torch.distributed.fsdp._fully_shard import _fsdp_collectives as collectives\n\n"
)
REDUCE = '"torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce"'
PARAM = '"torch.distributed.fsdp._fully_shard._fsdp_param"'
SPELLINGS = {
    "dotted strings": HEAD + f"mock.patch({REDUCE})\npatch({REDUCE}, new=print)\n"
    'mock.patch("torch.distributed._composable.fsdp._fsdp_param_group.FSDPParamGroup.post_backward")\n'
    'mock.patch("trainer.steps.backward")  # the project\'s own code\n'
    f"mock.patch(f{REDUCE})  # an f-string: none\nmock.patch(b{REDUCE})  # bytes: none\n"
    'mock.patch("torch.distributed.fsdp." "_fully_shard._fsdp_collectives.foreach_reduce")  # side by side\n'
    'mock.patch("torch.distributed.fsdp." f"_fully_shard._fsdp_collectives.foreach_reduce")  # with an f-string\n'
    "mock.patch(u'torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce')\n"
    "mock.patch(r'''torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce''')\n",
    "objects": HEAD + 'patch.object(FSDPParamGroup, "post_backward")\n'
    'mock.patch.object(collectives, "foreach_reduce", autospec=True)\n'
    'mocker.patch.object(FSDPParamGroup, "pre_forward")\nmocker.patch(' + REDUCE + ")\n"
    "def test_it(monkeypatch):\n"
    f"    monkeypatch.setattr({REDUCE}, print)\n"
    '    monkeypatch.setattr(FSDPParamGroup, "post_forward", print)\n'
    '    monkeypatch.setattr(collectives, "foreach" "_reduce", print)\n'
    '    patch.object(FSDPParamGroup, b"post_backward")  # bytes: none\n'
    '    setattr(FSDPParamGroup, "finalize_backward", print)  # not a test patch\n'
    '    obj.patch.object(unknown, "x")\n    mock.patch(FSDPParamGroup, "post_backward")\n',
    "module entries": HEAD + "def test_it(monkeypatch, other, m, name):\n"
    f"    monkeypatch.setitem(sys.modules, {PARAM}, None)\n"
    f"    mock.patch.dict(sys.modules, {{{PARAM}: None, **other}})\n"
    f'    patch.dict("sys.modules", {{"os": m, {PARAM}: m, **other, "torch.distributed.fsdp": m,\n'
    '        "torch.distributed.fsdp._fully_shard._fsdp_collectives": m})  # two keys\n'
    "    mock.patch.dict(sys.modules, clear=True)  # no keys\n"
    "    monkeypatch.setitem(sys.modules, name, m)  # a computed key\n"
    f'    patch.dict(os.environ, {{{PARAM}: "1"}})  # not sys.modules\n'
    f"    mocker.patch.dict(sys.modules, {{{PARAM}: m}}, clear=True)\n"
    f"    sys.modules[{PARAM}] = m\n",
    "decorators and with": HEAD + f"@mock.patch({REDUCE})\n@mock.patch.object(\n    FSDPParamGroup,\n"
    '    "post_backward",\n)\ndef test_a(reduce, hook):\n'
    f'    with mock.patch({REDUCE}) as m, patch.object(FSDPParamGroup, "pre_forward"):\n        pass\n'
    f"    with (mock.patch({REDUCE}) as m):\n        pass\n"
    f"    with (mock.patch({REDUCE})):\n        pass\n"
    f'    with (\n        mock.patch({REDUCE}),\n        patch.object(FSDPParamGroup, "post_forward") as p,\n    ):\n'
    "        pass\n\n\nclass TestX:\n"
    f"    @(mock.patch({REDUCE}))\n    def test_b(self): ...\n\n"
    f"    @ mock.patch(\n        {REDUCE},  # a comment\n        new=print)  # tail\n    async def test_c(self): ...\n"
    f"\n@mock.patch.object(FSDPParamGroup, 'post_forward')\nclass TestY: ...\n",
    "nested blocks over lines": HEAD + "def test_it(monkeypatch):\n    if True:\n        try:\n"
    "            for _ in range(2):\n                while True:\n"
    "                    monkeypatch.setattr(\n                        FSDPParamGroup,\n"
    '                            "post_backward",  # odd indentation\n                    print)\n'
    "                    break\n        except ImportError:\n"
    f"            mock.patch(\n{REDUCE}\n)\n"
    "        finally:\n            x = [mock.patch.dict(\n  sys.modules,\n"
    f"      {{\n        {PARAM}: None,\n      }})]\n"
    "    async def inner():\n        async with mock.patch.object(\\\n"
    '            FSDPParamGroup, "pre_forward"):\n            pass\n'
    f"    lam = lambda: mock.patch({REDUCE})\n"
    f"    calls = [mock.patch({REDUCE}) for _ in range(2)]\n"
    f"    def later(p=mock.patch({REDUCE})): ...\n",
    "not ascii before it": HEAD + f"été = 1; mock.patch({REDUCE}).start()\n"
    'label = "h\u00e9llo \u4e16\u754c"; patch.object(FSDPParamGroup, "post_backward")\n'
    f'x = ("\u4e16", mock.patch.dict(sys.modules, {{{PARAM}: None}}))\n',
    "parentheses": HEAD + f"( mock.patch({REDUCE}) )\n"
    'x = ((patch.object(FSDPParamGroup, "post_backward")))\n'
    f"(mock.patch)({REDUCE})\n(mock).patch.object((FSDPParamGroup), ('post_forward'))\n"
    f"print(1)\n(mock.patch({REDUCE}))\nif x:\n    (\n        mock.patch({REDUCE})\n    )\n"
    f"y = [1]\n(mock.patch({REDUCE}).start())\n",
    "star args": HEAD + "def test_it(monkeypatch, args, prefix, pair, names, entries, kw):\n"
    f"    mock.patch(*args)\n    mock.patch(*prefix, {REDUCE})  # read as the target, as ever\n"
    '    patch.object(*pair)\n    patch.object(FSDPParamGroup, *names)\n    patch.object(FSDPParamGroup, "pre_forward", *names)\n'
    "    mock.patch.dict(sys.modules, **entries)\n    monkeypatch.setattr(**kw)\n"
    f"    mock.patch(**kw)\n    mock.patch({REDUCE}, **kw)\n",
    "keywords": HEAD + "def test_it(monkeypatch, m):\n"
    f"    mock.patch(target={REDUCE})\n"
    '    patch.object(FSDPParamGroup, attribute="post_backward")\n'
    '    mock.patch.object(target=FSDPParamGroup, attribute="pre_forward", new=print)\n'
    '    monkeypatch.setattr(FSDPParamGroup, name="post_forward", value=print)\n'
    f"    monkeypatch.setitem(sys.modules, name={PARAM}, value=m)\n"
    f"    mock.patch.dict(sys.modules, values={{{PARAM}: m}})\n"
    f"    mock.patch.dict(in_dict=sys.modules, values={{{PARAM}: m}})\n"
    f"    mock.patch({REDUCE}, new=print)\n    mock.patch(new=print)  # no target\n"
    '    mock.patch(FSDPParamGroup, new="post_backward")  # `new` is no attribute\n'
    f"    mocker.patch(new=print, target={REDUCE})\n",
    "aliases": "import sys as system\nfrom sys import modules\nfrom unittest import mock as m\n"
    "from unittest.mock import patch as p\nimport unittest.mock\nimport unittest.mock as um\n"
    "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup as G\n\n"
    f"m.patch({REDUCE})\nm.patch.object(G, 'post_backward')\n"
    f"p({REDUCE})  # a bare alias: not read (the screen does not look for it either)\n"
    "p.object(G, 'pre_forward')\n"
    f"unittest.mock.patch({REDUCE})\num.patch.dict(system.modules, {{{PARAM}: None}})\n"
    f"p.dict(modules, {{{PARAM}: None}})\n",
    "long calls": HEAD + 'mock.patch.object(FSDPParamGroup, "post_backward", side_effect=lambda *a, **k: None, '
    "autospec=True)\n"
    'patch.object(FSDPParamGroup, "post_backward", new=12345678)\n'  # 59 characters: quoted whole
    'patch.object(FSDPParamGroup, "post_backward", new=123456789)\n'  # 60: whole
    'patch.object(FSDPParamGroup, "post_backward", new=1234567890)\n'  # 61: cut
    'patch.object(FSDPParamGroup, "post_backward",\n\n    new="a   b\\\n  c")\n'
    'patch.object(FSDPParamGroup, "post_backward", new="""a\n   b""")\n'
    f"mock.patch({REDUCE}, new=mock.patch.object(FSDPParamGroup, 'post_backward'))\n",
}
SPELLINGS["crlf"] = (SPELLINGS["decorators and with"] + SPELLINGS["nested blocks over lines"][len(HEAD) :]).replace(
    "\n", "\r\n"
)
SPELLINGS["cr"] = SPELLINGS["long calls"].replace("\n", "\r")
SPELLINGS["form feed and tabs"] = HEAD + "\x0c\nif True:\n\tmock.patch(\n\t\t" + REDUCE + ",\n\t)\n"


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_spelling_stands_and_reads_as_libcst_places_and_writes_it(name: str) -> None:
    analysis = _analysis(SPELLINGS[name].encode())
    assert analysis.model is not None
    oracle = _oracle(analysis)
    assert len(oracle) >= 2 or name == "form feed and tabs"
    assert _read(analysis) == oracle


def test_the_spellings_find_what_they_say() -> None:
    """Not vacuous: each comment that says none is none, and the rest are found."""
    counts = {name: len(_read(_analysis(text.encode()))) for name, text in SPELLINGS.items()}
    assert counts == {
        "dotted strings": 6,
        "objects": 8,
        "module entries": 6,
        "decorators and with": 11,
        "nested blocks over lines": 7,
        "not ascii before it": 3,
        "parentheses": 7,
        "star args": 3,
        "keywords": 9,
        "aliases": 6,
        "long calls": 8,
        "crlf": 18,
        "cr": 8,
        "form feed and tabs": 1,
    }


def test_what_the_libcst_rule_missed_is_found() -> None:
    """The deliberate difference: each patch that passes its target, its attribute, its dict or its keys by keyword
    is a test patch of an FSDP2 internal; the libcst rule saw one of the nine (`mock.patch("...", new=print)`)."""
    analysis = _analysis(SPELLINGS["keywords"].encode())
    assert [row[1] for row in _read(analysis)] == [12, 13, 14, 8, 9, 10, 11, 15, 18]  # `sys.modules` ones first
    assert [row[1] for row in _oracle(analysis, keywords=False)] == [15]


def test_without_a_model_there_is_none() -> None:
    """Syntax the running Python does not parse (libcst does): no patch is read, as for FSU103 and FSU105."""
    analysis = _analysis((SPELLINGS["objects"] + "type Alias = int\n").encode())
    if analysis.model is not None:
        pytest.skip("the running Python parses `type` statements")
    assert len(_oracle(analysis)) >= 2
    assert _read(analysis) == []


def _files() -> list[tuple[str, bytes]]:
    """Every fixture, rule case and example file, and every rule's examples, that spells a patcher."""
    trees = [ROOT / "tests" / "fixtures", ROOT / "tests" / "rules", ROOT / "examples"]
    found = [(p.stem, p.read_bytes()) for tree in trees for p in sorted(tree.rglob("*.py"))]
    for name in rule_modules():
        module = importlib.import_module(name)
        for example in [*getattr(module, "VALID", []), *getattr(module, "INVALID", [])]:
            found.append((Path(example.path).stem, example.code.encode()))
    words = (b"patch", b"monkeypatch", b"setitem", b"mock")
    return [(name, data) for name, data in found if any(w in data for w in words)]


def test_every_fixture_rule_case_and_example_file() -> None:
    compared = reported = findings = 0
    for name, data in _files():
        try:
            analysis = _analysis(data, name)
        except Exception:
            continue  # the error fixtures: neither reads them
        if analysis.model is None:
            continue
        compared += 1
        oracle = _oracle(analysis)
        assert _read(analysis) == oracle, name
        reported += bool(oracle)
        findings += len(oracle)
    assert compared >= 120 and reported >= 5 and findings >= 15


def _findings(text: str, tmp_path: Path) -> list[tuple]:
    path = tmp_path / "tests" / "test_patches.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    result = run(discover([str(path)]), load_catalog(), RunOptions(analysis=OPTIONS))
    return [
        (f.code, f.span.line, f.span.column - 1, f.span.end_line, f.span.end_column - 1, f.message)
        for f in result.findings
        if f.code == "FSU202"
    ]


@pytest.mark.parametrize("name", ["decorators and with", "nested blocks over lines", "not ascii before it", "crlf"])
def test_fsu202_reports_there(name: str, tmp_path: Path) -> None:
    oracle = _oracle(_analysis(SPELLINGS[name].encode()))
    assert sorted(_findings(SPELLINGS[name], tmp_path)) == sorted(row[:6] for row in oracle)
