"""Excerpts (`analysis/excerpt.py`) give what whole files give: every file run through an excerpt
(`excerpt_above=0`) and through its whole text, over every fixture, the examples, the installed torch sources
and the real torch-npu releases, findings compared field by field and fixed bytes byte for byte; then the
shapes an excerpt must get right one by one, each built so that the excerpt does hold statements aside.
"""

from __future__ import annotations

import ast
import dataclasses
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsdp_unpatch.analysis import excerpt
from fsdp_unpatch.analysis.prefilter import Prefilter
from fsdp_unpatch.analysis.screen import screen_for
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.files.lines import line_starts
from fsdp_unpatch.model import EXCERPT_ABOVE, RunOptions, RunResult
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.run.engine import run_together
from tests.session_caches import imports_searched_once
from tests.test_tiers import _release, _torch_sources
from tests.upstream import expanded_copy

ROOT = Path(__file__).resolve().parent.parent
PATCH = ROOT / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"


def _applied(path: str, replacements: list[dict]) -> str:
    """A file's text with a fix's replacement regions applied (last first)."""
    lines = Path(path).read_text(encoding="utf-8", errors="surrogateescape").splitlines(keepends=True)
    for region in sorted(replacements, key=lambda r: (r["line"], r["end_line"]), reverse=True):
        lines[region["line"] - 1 : region["end_line"] - 1] = [region["content"]]
    return "".join(lines)


def _fields(result: RunResult) -> list:
    """Every finding as plain data (a fix's replacement regions as the text they give: blank lines around a
    deleted block may be drawn in either region, as difflib aligns them over the whole text), and every file's
    fixed bytes."""
    findings = []
    for finding in result.findings:
        fields = dataclasses.asdict(finding) | {"fixed": finding.fixed}
        if fields["fix"] and fields["fix"]["replacements"]:
            fields["fix"]["replacements"] = _applied(finding.path, fields["fix"]["replacements"])
        findings.append(fields)
    return findings + [(r.display, r.fixed, r.deleted) for r in result.files]


def _both(runner, tree: Path, **options) -> tuple[list, list]:
    """(through excerpts, whole files) for every file of `tree`."""
    catalog = load_catalog()
    options.setdefault("analysis", Options(target_torch=Version.parse("2.13")))
    options.setdefault("replacements", True)
    with imports_searched_once():  # the same fixes through an excerpt and whole: one search for importers
        results = [
            _fields(runner(discover([str(tree)]), catalog, RunOptions(excerpt_above=above, **options)))
            for above in (0, 1 << 40)
        ]
    return results[0], results[1]


def _excerpt(data: bytes, name: str = "module") -> excerpt.Excerpt:
    built = excerpt.build(data, "utf-8", name, False, screen_for(load_catalog()))
    assert built is not None
    return built


# Every comparison runs through the batch (`run`, what users run) and through the plain engine (`run_together`,
# its reference, which tests/test_batch.py holds equal to it): both in the full run, the batch alone in the
# inner loop (`-m "not slow"`).
RUNNERS = [pytest.param(run, id="batch"), pytest.param(run_together, id="together", marks=pytest.mark.slow)]


@pytest.fixture(params=RUNNERS)
def runner(request):
    return request.param


# A fix computed without writing (`write=False`) reports every finding a check does, and the fixed bytes.
@pytest.mark.parametrize("tree", ["tests/fixtures", "examples/legacy_project", "examples/migrated_project"])
def test_fixtures_and_examples(tree: str, runner, tmp_path: Path, monkeypatch) -> None:
    copy = expanded_copy(ROOT / tree, tmp_path / Path(tree).name)
    monkeypatch.setattr(Prefilter, "worth_parsing", lambda self, data, path=None, named=None: True)
    through_excerpts, whole = _both(runner, copy, fix=True, write=False)
    assert through_excerpts == whole
    assert any(isinstance(f, dict) for f in whole), "the tree must hold findings"


@pytest.mark.slow
def test_every_fixture_file_alone(tmp_path: Path) -> None:
    """Each file as the only one of its run (a pre-commit hook's view)."""
    copy = _padded_copy(ROOT / "tests" / "fixtures", tmp_path / "fixtures")
    for path in sorted(copy.rglob("*.py")):
        through_excerpts, whole = _both(run, path, fix=True, write=False)
        assert through_excerpts == whole, path


def _padded_copy(source: Path, destination: Path) -> Path:
    """The fixtures with a neutral function before every top-level statement: code for excerpts to hold aside
    between the statements that matter (the fixture files themselves are mostly patch)."""
    copy = expanded_copy(source, destination)
    for number, path in enumerate(sorted(copy.rglob("*.py"))):
        data = path.read_bytes()
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue  # the error fixtures stay as they are
        lines = data.splitlines(keepends=True)
        firsts = {min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])]) for s in tree.body[1:]}
        padded = [
            (FILLER.format(n=number * 1000 + i).lstrip("\n") + "\n\n").encode() * (i + 1 in firsts) + line
            for i, line in enumerate(lines)
        ]
        path.write_bytes(b"".join(padded))
    return copy


def test_padded_fixtures(runner, tmp_path: Path, monkeypatch) -> None:
    copy = _padded_copy(ROOT / "tests" / "fixtures", tmp_path / "fixtures")
    monkeypatch.setattr(Prefilter, "worth_parsing", lambda self, data, path=None, named=None: True)
    through_excerpts, whole = _both(runner, copy, fix=True, write=False)
    assert through_excerpts == whole
    # not vacuous: most files with a finding are analysed through an excerpt that holds something aside
    with_findings = {Path(f["path"]) for f in whole if isinstance(f, dict)}
    hiding = 0
    for path in with_findings:
        data = path.read_bytes()
        built = excerpt.build(data, "utf-8", path.stem, False, screen_for(load_catalog()))
        if built is not None and built.holes:
            hiding += 1
            assert built.splice(built.text) == data
    assert hiding >= 0.8 * len(with_findings) and len(with_findings) >= 30


@pytest.mark.slow
def test_installed_torch_sources() -> None:
    through_excerpts, whole = _both(run, _torch_sources())
    assert through_excerpts == whole


@pytest.mark.slow
@pytest.mark.parametrize("version", ["2.7.1.post11", "2.10.0.post7", "2.11.0.post3"])
def test_real_releases(version: str) -> None:
    tree = _release(version)
    for fix in (False, True):
        through_excerpts, whole = _both(run, tree, fix=fix, write=False)
        assert through_excerpts == whole
    through_excerpts, whole = _both(run_together, tree, fix=True, write=False)
    assert through_excerpts == whole


# One module per way the rest of a file reaches the statements with findings. Each is the torch-npu patch of
# the legacy example, with other code around it; the test checks the excerpt hides that code and the results
# are those of the whole file.
FILLER = '''

def helper_{n}(module, fsdp_params):
    """Ordinary code that names FSDP2 internals."""
    from torch.distributed.fsdp._fully_shard import _fsdp_collectives
    values = [p for p in fsdp_params if p is not None]
    return _fsdp_collectives, len(values) + {n}
'''

SHAPES = {
    # hidden code calls the installer the fix deletes: the call goes too (FSU004), or the installer stays
    "installer-called": "\n\ndef setup():\n    _apply_fsdp_patch()\n    return True\n",
    # hidden code uses an import that otherwise only the deleted code uses: the import stays
    "import-used-in-hidden-code": "\n\ndef clock(x):\n    return cast(int, x)\n",
    # a hidden function-local import of a name only the deleted code uses: the clean-up deletes it too
    "unused-local-import": "\n\ndef unused():\n    import torch.distributed as dist\n    return 1\n",
    # the file's last import of a name is hidden (the import table keeps the last binding)
    "last-import-hidden": "\n\ndef late():\n    import os as _fsdp_collectives\n    return _fsdp_collectives.sep\n",
    # a comment indented like a hidden block's body belongs to the block, not to the deleted call below it
    "block-footer": "\n\ndef quiet():\n    return 1\n    # the end of quiet()\n\n_apply_fsdp_patch()\n",
    # an indented comment after a hidden simple statement belongs to the deleted call below it
    "indented-comment": "\n\nLIMIT = 3\n    # about LIMIT\n_apply_fsdp_patch()\n",
    # hidden code names a replacement function the fix deletes (a reference elsewhere keeps it)
    "replacement-named": "\n\nKEEP = [_patched_all_gather_copy_in]\n",
    # a noqa comment in hidden code
    "hidden-noqa": "\n\ndef other():\n    return 2  # noqa: FSU004\n",
}


def _shape(tmp_path: Path, shape: str, prefix: str = "", suffix: str = "", newline: str = "\n") -> Path:
    """A project whose module is the legacy example's patch with hidden code around it, `shape` last."""
    project = tmp_path / "project"
    package = project / "pkg"
    package.mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (package / "__init__.py").write_text("")
    text = prefix + FILLER.format(n=0) + PATCH.read_text() + FILLER.format(n=1) + SHAPES[shape] + suffix
    (package / "patch.py").write_bytes(text.replace("\n", newline).encode())
    return project


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_shape(shape: str, runner, tmp_path: Path) -> None:
    project = _shape(tmp_path, shape)
    data = (project / "pkg" / "patch.py").read_bytes()
    built = _excerpt(data, "pkg.patch")
    assert built.holes, "the excerpt must hold something aside"
    through_excerpts, whole = _both(runner, project, fix=True, write=False)
    assert through_excerpts == whole


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_tabs_line_endings_and_no_final_newline(newline: str, tmp_path: Path) -> None:
    """The file's first indented block (tabs here) is hidden: libcst takes the module's indentation from it."""
    tabbed = "\n\ndef first():\n\tif True:\n\t\treturn 1\n\treturn 2\n"
    project = _shape(tmp_path, "installer-called", prefix=tabbed, suffix="\nEND = 1", newline=newline)
    built = _excerpt((project / "pkg" / "patch.py").read_bytes(), "pkg.patch")
    assert built.holes
    through_excerpts, whole = _both(run, project, fix=True, write=False)
    assert through_excerpts == whole


def test_another_file_calls_the_installer_from_hidden_code(tmp_path: Path) -> None:
    """A caller whose call of the patch's installer (a name the catalog does not know) sits among hidden
    statements: the run's cross-file step brings it back into the excerpt, and the call is removed as from
    a whole file (without that, the installer would go and the hidden call would break)."""
    project = _shape(tmp_path, "installer-called")
    patch = project / "pkg" / "patch.py"
    patch.write_text(patch.read_text().replace("_apply_fsdp_patch", "enable_npu_collectives"))
    caller = "from pkg.patch import enable_npu_collectives\n"
    caller += "".join(FILLER.format(n=n) for n in range(3))
    caller += "\n\ndef start():\n    enable_npu_collectives()\n"
    caller += "".join(FILLER.format(n=n) for n in range(3, 6))
    (project / "pkg" / "caller.py").write_text(caller)
    assert excerpt.build(caller.encode(), "utf-8", "pkg.caller", False, screen_for(load_catalog())).holes
    through_excerpts, whole = _both(run, project, fix=True, write=False)
    assert through_excerpts == whole
    assert any(isinstance(f, dict) and f["code"] == "FSU004" and f["path"].endswith("caller.py") for f in whole)


@pytest.mark.slow
def test_a_large_module_is_analysed_through_a_small_excerpt(tmp_path: Path) -> None:
    """The default threshold: a module over it, with the patch in the middle, gives the whole file's results
    and libcst parses a small part of it. Most of the bytes are two functions' long docstrings: the reference
    (libcst over the whole file) costs about 1 s instead of 18 s with 1,100 small functions, and what the
    excerpt must hold aside is still ordinary code naming FSDP2 internals (`FILLER`), around the patch."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    line = "    " + "lorem ipsum " * 6 + "\n"
    bulk = "".join(f'\n\ndef padding_{k}():\n    """Text to hold aside.\n\n{line * 1000}    """\n' for k in range(2))
    filler = "".join(FILLER.format(n=n) for n in range(20)) + bulk
    text = filler + PATCH.read_text() + filler
    assert len(text) > EXCERPT_ABOVE
    (project / "big.py").write_text(text)
    built = _excerpt(text.encode(), "big")
    assert len(built.text) < len(PATCH.read_bytes()) + 2000
    options = {"analysis": Options(target_torch=Version.parse("2.13")), "fix": True, "write": False}
    default = _fields(run(discover([str(project)]), load_catalog(), RunOptions(**options)))
    whole = _fields(run(discover([str(project)]), load_catalog(), RunOptions(excerpt_above=1 << 40, **options)))
    assert default == whole
    assert any(isinstance(f, dict) and f["fix"] for f in whole)


@pytest.mark.parametrize(
    "source",
    [
        "x = '''\nnot a statement\n'''\ny = 1\n",  # a line at column 0 inside a string
        "if a:\n    b = 1\nelse:\n    b = 2\n",
        "try:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n",
        "@dec\n\ndef f():\n    pass\n",
        "x = (1,\n2)\ny = [\n]\n",
        "a = 1; b = 2\nc = 3\n",
        "x = 1 + \\\n2\n",
    ],
)
def test_statements_are_never_cut_inside(source: str, monkeypatch) -> None:
    """Pieces are cut only between top-level statements, whatever starts at column 0 (pieces of one line here)."""
    monkeypatch.setattr(excerpt, "_PIECE", 1)
    data = source.encode()
    starts = line_starts(data)
    pieces = list(excerpt._pieces(data, starts))
    assert None not in pieces
    rebuilt = [ast.dump(s) for p in pieces for s in p[2].body]  # type: ignore[index]
    assert rebuilt == [ast.dump(s) for s in ast.parse(source).body]


def test_a_syntax_error_gives_no_excerpt() -> None:
    assert excerpt.build(b"def f(:\n    pass\n", "utf-8", "m", False, screen_for(load_catalog())) is None


def test_a_file_spelling_the_placeholder_gives_no_excerpt() -> None:
    data = b"__fsdp_unpatch_hole_0__ = 1\n" + PATCH.read_bytes()
    assert excerpt.build(data, "utf-8", "m", False, screen_for(load_catalog())) is None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(sorted(SHAPES)), min_size=1, max_size=4), st.booleans())
def test_excerpts_map_back_to_the_file(shapes: list[str], patch_first: bool) -> None:
    """Whatever the mix: the excerpt parses, puts the file back byte for byte, and each of its lines is the
    file's line it maps to (placeholders aside)."""
    parts = [SHAPES[s] + FILLER.format(n=i) for i, s in enumerate(shapes)]
    text = PATCH.read_text() + "".join(parts) if patch_first else "".join(parts) + PATCH.read_text()
    data = text.encode()
    built = _excerpt(data)
    cst.parse_module(built.text)
    assert built.splice(built.text) == data
    file_lines = data.splitlines()
    for number, line in enumerate(built.text.splitlines(), start=1):
        if excerpt.HOLE not in line and line.strip() != b"pass":
            assert file_lines[built.file_line(number) - 1] == line


def test_a_chain_of_calls_is_followed_to_its_end() -> None:
    """Each function calls the one before, the first calls the installer: all are kept, the first filler is
    not (the second holds the file's last import of `_fsdp_collectives`, which the patch spells)."""
    chain = "".join(f"\n\ndef step_{n}():\n    return step_{n - 1}()\n" for n in range(1, 300))
    fillers = FILLER.format(n=0) + FILLER.format(n=1)
    text = PATCH.read_text() + fillers + "\n\ndef step_0():\n    _apply_fsdp_patch()\n" + chain
    built = _excerpt(text.encode())
    assert all(f"def step_{n}()".encode() in built.text for n in range(300))
    assert b"def helper_0(" not in built.text


def test_only_utf8_files_get_excerpts() -> None:
    """Another encoding is declared in the first two lines, which a hole could take from libcst's view."""
    data = b"# -*- coding: latin-1 -*-\n" + FILLER.format(n=0).encode() + PATCH.read_bytes()
    assert excerpt.build(data, "iso-8859-1", "m", False, screen_for(load_catalog())) is None


def test_a_byte_order_mark_stays_first() -> None:
    data = b"\xef\xbb\xbfX = 1\n" + FILLER.format(n=0).encode() + PATCH.read_bytes()
    built = excerpt.build(data, "utf-8-sig", "m", False, screen_for(load_catalog()))
    assert built is not None and built.holes
    assert built.text.startswith(b"\xef\xbb\xbfX = 1\n")
    assert built.splice(built.text) == data


def test_a_fix_that_loses_a_placeholder_is_not_written(tmp_path: Path, monkeypatch) -> None:
    """Defence in depth: were a fix to drop a placeholder, the file would miss statements; it is not written."""
    from fsdp_unpatch.rules.fix_not_written import FIX_NOT_WRITTEN

    project = _shape(tmp_path, "installer-called")
    before = (project / "pkg" / "patch.py").read_bytes()
    monkeypatch.setattr(excerpt.Excerpt, "splice", lambda self, fixed: None)
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")), fix=True, excerpt_above=0)
    result = run(discover([str(project)]), load_catalog(), options)
    assert (project / "pkg" / "patch.py").read_bytes() == before
    assert any(f.code == FIX_NOT_WRITTEN.code and "placeholder" in f.message for f in result.findings)


# Shapes found by attacking the excerpt: each gave other findings or other fixed bytes through an excerpt than
# through the whole file. Each project is small; `_both` forces excerpts on every file (`excerpt_above=0`).
def _project(tmp_path: Path, files: dict[str, str], patch: str = "") -> Path:
    """A project with package `pkg`: `pkg/patch.py` is the legacy example's patch (or `patch`), plus `files`."""
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "patch.py").write_text(patch or PATCH.read_text())
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    return project


def _same_through_excerpts(runner, project: Path, **options) -> list:
    options.setdefault("fix", True)
    options.setdefault("write", False)
    through_excerpts, whole = _both(runner, project, **options)
    assert through_excerpts == whole, runner.__name__
    return whole


def test_a_name_only_hidden_code_spells_decides_the_native_spelling(runner, tmp_path: Path) -> None:
    """A reference is rewritten to `FSDPParamGroup.finalize_backward` only when the file spells no
    `FSDPParamGroup` of its own (`references.choose_spelling` reads every name of the file). Here a hidden
    module-level statement binds that name: the whole file's fix takes the qualified spelling, and an excerpt
    that does not see the name imports `FSDPParamGroup`, which the hidden statement then rebinds."""
    user = "from pkg.patch import _patched_finalize_backward\n\n\ndef finish(group):\n"
    user += "    return _patched_finalize_backward(group)\n\n\nFSDPParamGroup = dict()\n"
    whole = _same_through_excerpts(runner, _project(tmp_path, {"pkg/user.py": user}))
    assert any(isinstance(f, dict) and f["code"] == "FSU301" and f["fixed"] for f in whole)


@pytest.mark.parametrize("rebinding", ["for pm in range(3):\n        pass", "with x as pm:\n        pass", "pm = 1"])
def test_a_hidden_rebinding_of_a_module_alias_stops_the_rewrite(runner, rebinding: str, tmp_path: Path) -> None:
    """`pm._patched_finalize_backward` is rewritten only when the file never assigns `pm` (a reference through a
    name the file rebinds may be to something else). A hidden function that rebinds `pm` locally: through an
    excerpt the reference was rewritten and the replacement deleted, the whole file leaves both."""
    user = f"from pkg import patch as pm\n\n\ndef other(x):\n    {rebinding}\n\n\n"
    user += "def finish(group):\n    return pm._patched_finalize_backward(group)\n"
    whole = _same_through_excerpts(runner, _project(tmp_path, {"pkg/user.py": user}))
    assert any(isinstance(f, dict) and f["code"] == "FSU301" and not f["fix"] for f in whole)


@pytest.mark.parametrize(
    "hidden",
    [
        "def b():\n        return 1\n      # under b, left of its body\n",  # body indented deeper than the file's first
        "def b():\n  return 1\n   # under b, right of its body\n",  # body indented less than the file's first
        "def b():\n\treturn 1\n\t# under b, tab-indented\n",
        "if P:\n    x = 1\nelif Q: y = 1\n    # after a one-line elif\n",  # ends in a one-line suite, not a block
    ],
    ids=["deeper", "shallower", "tab", "elif-one-line"],
)
def test_comments_after_a_hidden_statement_stay_where_libcst_puts_them(runner, hidden: str, tmp_path: Path) -> None:
    """An indented comment after a statement belongs to the statement's last indented block (its footer) when
    it is indented at least as that block, else to the next statement, and goes with the statement that owns
    it. A placeholder indented like the file's *first* block (or ending in a block when the statement ends in a
    one-line suite) moved the comment to the other statement: the deleted installer call took it along, or
    left it behind."""
    patch = PATCH.read_text() + "\n\n" + hidden + "_apply_fsdp_patch()\n"
    whole = _same_through_excerpts(runner, _project(tmp_path, {}, patch=patch))
    assert any(isinstance(f, dict) and f["code"] == "FSU004" and f["fixed"] for f in whole)


TEST_MODULE = '''"""Tests of the patch."""
import torch

from pkg.patch import _patched_all_gather_copy_in


def _shards():
    return [torch.arange(3.0), torch.arange(2.0)]

{extra}

def test_all_gather_copy_in_fills_own_slice():
    shard, _ = _patched_all_gather_copy_in(_shards(), torch.zeros(10), [3, 2], 5, 1)
    assert shard.tolist() == [0.0, 1.0, 2.0, 0.0, 1.0]
'''


@pytest.mark.parametrize("extra", ['b"bytes"', '"a" f"b{1}"', '"a"; "b"', 'X = 1; "b"'])
def test_a_hidden_string_statement_counts_as_libcst_counts_it(runner, extra: str, tmp_path: Path) -> None:
    """A test module whose tests all go is deleted (FSU305) when nothing else is left but imports, docstrings,
    assignments and helpers (`analysis/test_modules.py::_left_over`). libcst takes a bytes literal and a concatenation
    with an f-string for docstrings, and two statements on one line for neither: the placeholder of such a
    hidden statement must be what libcst sees, or the excerpt deletes a module the whole file keeps (or the
    other way round)."""
    project = _project(tmp_path, {"tests/test_patch.py": TEST_MODULE.format(extra=extra)})
    whole = _same_through_excerpts(runner, project, unsafe_fixes=True)
    assert any(isinstance(f, dict) and f["code"] == "FSU303" for f in whole)


def test_a_match_class_keyword_is_a_use(runner, tmp_path: Path) -> None:
    """libcst counts the keyword of a class pattern (`case Point(cast=0)`) as a use of the name; CPython's tree
    holds it as a string. The import of `cast`, which only the deleted replacement uses otherwise, stays."""
    patch = PATCH.read_text() + "\n\ndef m(p):\n    match p:\n        case Point(cast=0):\n            return 1\n"
    whole = _same_through_excerpts(runner, _project(tmp_path, {}, patch=patch))
    assert any(isinstance(f, dict) and f["code"] == "FSU002" and f["fixed"] for f in whole)


@pytest.mark.parametrize("what", ["installer", "replacement"])
def test_a_caller_through_an_import_alias_of_a_name_only_the_run_removes(runner, what: str, tmp_path: Path) -> None:
    """The patch's installer (or a replacement) has a name the catalog does not know; a caller imports it under
    another name (`... import enable_npu_collectives as go`) and uses it in a hidden statement. The caller is
    analysed before the run knows the name (it names a catalog patch function too), and its holes never spell
    the name, so widening the excerpts did not bring the use back: the excerpt left the call (or reference) while
    the fix deleted what it names, an import that no longer resolves."""
    if what == "installer":
        patch = PATCH.read_text().replace("_apply_fsdp_patch", "enable_npu_collectives")
        imported, use = "enable_npu_collectives as go", "go()"  # a call statement: FSU004 deletes it
    else:
        patch = PATCH.read_text().replace("_patched_all_gather_copy_in", "npu_copy_in")
        imported, use = "npu_copy_in as go", "return go(*a)"
    caller = f"from pkg.patch import _patched_finalize_backward\nfrom pkg.patch import {imported}\n\n\n"
    caller += f"def start(*a):\n    {use}\n\n\ndef finish(group):\n    return _patched_finalize_backward(group)\n"
    whole = _same_through_excerpts(runner, _project(tmp_path, {"pkg/caller.py": caller}, patch=patch))
    codes = {f["code"] for f in whole if isinstance(f, dict) and f["path"].endswith("caller.py") and f["fixed"]}
    assert codes == {"FSU004" if what == "installer" else "FSU301", "FSU301"}


@pytest.mark.parametrize("hidden", ["def h():\n    x = 1\n\f    return x\n", "X = 1\n\fY = 2\n"])
def test_a_form_feed_libcst_does_not_give_back_in_hidden_code(runner, hidden: str, tmp_path: Path) -> None:
    """libcst drops a form feed at the start of some lines, so the whole file's fix is refused (FSU903). The
    excerpt holds those lines aside and round-trips: it wrote a fix the whole file refuses."""
    patch = PATCH.read_text() + "\n\n" + hidden
    whole = _same_through_excerpts(runner, _project(tmp_path, {}, patch=patch))
    assert any(isinstance(f, dict) and f["code"] == "FSU903" for f in whole)


def test_the_closure_is_linear_in_a_chain_of_hidden_imports(monkeypatch) -> None:
    """Each hidden function imports `x_k` (an earlier one, not the file's last import of it) and mentions
    `x_{k+1}` in a comment: each link of the chain is found only by the rule for hidden imports that no hidden
    code uses, whose pass over every statement ran once per link (quadratic: a 320 KB file of such functions
    took 22 s to cut). The work counted here is the hidden statements' uses added up."""
    added: list[int] = []

    class Counting(Counter):
        def update(self, *args, **kwargs):  # type: ignore[override]
            added.append(1)
            return super().update(*args, **kwargs)

    monkeypatch.setattr(excerpt, "Counter", Counting)
    count = 400
    installer = "    _ParamGroup.finalize_backward = _patched_finalize_backward\n"
    text = PATCH.read_text().replace(installer, installer.rstrip("\n") + "  # x_1\n")
    text += "".join(f"\n\ndef a_{k}():\n    import x_{k}  # x_{k + 1}\n" for k in range(1, count))
    text += "".join(f"\n\ndef b_{k}():\n    import x_{k}\n" for k in range(1, count))
    built = _excerpt(text.encode())
    assert b"def a_399():" in built.text
    assert len(added) < 10 * count


def test_a_lone_carriage_return_in_hidden_code_moves_no_noqa_comment(runner, tmp_path: Path) -> None:
    """A line ending in a lone "\\r" is a line to CPython and libcst; the `# noqa` comments were found with a
    tokenizer that did not count it, so their lines (FSU501) differed between the whole file and an excerpt
    that holds that line aside (and in the whole file the legacy patch's reviewed `# noqa: FSU101` seemed
    unused)."""
    patch = "def h():\n    x = 1\r    return x\n\n\n" + PATCH.read_text() + "\n\nX = 2  # noqa: FSU004\n"
    whole = _same_through_excerpts(runner, _project(tmp_path, {}, patch=patch))
    unused = [f for f in whole if isinstance(f, dict) and f["code"] == "FSU501"]
    assert [f["span"]["line"] for f in unused] == [
        patch.replace("\r", "\n").splitlines().index("X = 2  # noqa: FSU004") + 1
    ]
