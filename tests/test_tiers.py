"""The tiers give identical findings: the ast screen (`analysis/screen.py`) and the findings the `ast` model builds
for files that get no fix (`analysis/ast_findings.py`) on, and both off (libcst for every file the prefilter
keeps), over every fixture, the examples, the installed torch sources and a real torch-npu release of each shape
(`REPRESENTATIVE`: five of the nine, one per row shape of docs/real-releases.md's table).

Findings are compared field by field (code, category, target, path, line, column, end, message, fix with its
applicability and replacement regions, detail), and in fix mode the fixed bytes of every file too.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import pickle
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from fsdp_unpatch.analysis import screen as screen_module
from fsdp_unpatch.analysis.ast_findings import findings_on_ast
from fsdp_unpatch.analysis.prefilter import Prefilter, prefilter_for
from fsdp_unpatch.analysis.registrations import REGISTRATION_CALLEES
from fsdp_unpatch.analysis.screen import screen_for
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.model import RunOptions, RunResult
from fsdp_unpatch.run import alone, batch, noqa_findings
from fsdp_unpatch.run.batch import run
from fsdp_unpatch.run.engine import run_together
from tests.realworld.packages import MIGRATED, PATCHED, Unavailable, sources
from tests.session_caches import imports_searched_once
from tests.upstream import expanded_copy

ROOT = Path(__file__).resolve().parent.parent
TORCH_VERSIONS = ("2.4", "2.7", "2.13")
SLOW = pytest.mark.slow


def _fields(result: RunResult) -> list:
    """Every finding as plain data (all fields), and every file's fixed bytes."""
    findings = [dataclasses.asdict(f) | {"fixed": f.fixed} for f in result.findings]
    return findings + [(r.display, r.fixed, r.deleted) for r in result.files]


def _both(runner, tree: Path, **options) -> tuple[list, list]:
    """(screen on, screen off) for every file of `tree`: through the batch with each file's phase-1 analysis
    made once (`_phase_one_once`), through the plain engine as two full runs."""
    catalog = load_catalog()
    options.setdefault("analysis", Options(target_torch=Version.parse("2.13")))
    # the tiers' fixes are searched for broken importers once when they are the same (`imports_searched_once`)
    with _phase_one_once() if runner is run else _noqa_comments_read_once(), imports_searched_once():
        on, off = (
            runner(discover([str(tree)]), catalog, RunOptions(screen=tier, ast_findings=tier, **options))
            for tier in (True, False)
        )
        return _fields(on), _fields(off)


@contextmanager
def _phase_one_once() -> Iterator[None]:
    """Within the block, the batch's second run (the "off" tier) takes a copy of what the first run computed
    with the same inputs, where the screen cannot have made them differ:
    - a file analysed alone (phase 1, `run/alone.py`) with the same bytes, path and options but for `screen`:
      `analyze_alone` runs the engine with the screen off whatever the run's options say, and the batch calls
      it only for the files its screen left undecided;
    - a linked group (phase 2, `batch._run_linked`) of the same files, none of which the screen decides: the
      engine then analyses every file of the group in both tiers (the tool's cache keys a group the same way,
      by its files, `run/cache.py`).
    The same holds of the model's tier (`ast_findings`) for the files it does not decide (`findings_on_ast`
    None: the engine then analyses them with libcst in both tiers); a file it decides keeps its own key.
    Every file the screen decides in the "on" run is still analysed afresh, with libcst, in the "off" run, and
    every group holding one is run again: what differs between the tiers is all computed twice. The copies
    are pickled (as an outcome crosses from a worker process) before the run could change the first result."""
    real_alone, real_linked = alone.analyze_alone, batch._run_linked
    made: dict[tuple, tuple[RunOptions, bytes]] = {}

    def once(key: tuple, options: RunOptions, compute, model_decides: bool):
        same = replace(options, screen=True) if model_decides else replace(options, screen=True, ast_findings=True)
        if key in made and made[key][0] == same:
            return pickle.loads(made[key][1])
        result = compute()
        made[key] = (same, pickle.dumps(result))
        return result

    def decided_on_ast(files, catalog, options: RunOptions) -> bool:
        return any(findings_on_ast(data, c.path, catalog, options.analysis) is not None for c, data in files)

    def alone_once(candidate, source, catalog, options: RunOptions, learned=None, grouped=False):
        compute = lambda: real_alone(candidate, source, catalog, options, learned, grouped)  # noqa: E731
        model_decides = decided_on_ast([(candidate, source.data)], catalog, options)
        return once(("alone", candidate, source.data, grouped), options, compute, model_decides)

    def linked_once(group, catalog, options: RunOptions, cache=None, learned=None, engines=None):
        compute = lambda: real_linked(group, catalog, options, cache, learned, engines)  # noqa: E731
        try:
            files = [(item.candidate, item.candidate.path.read_bytes()) for item in group]
        except OSError:
            return compute()
        prefilter, screen = prefilter_for(catalog), screen_for(catalog)
        if (
            cache is not None
            or engines is not None
            or any(
                prefilter.worth_parsing(data, str(c.path))
                and screen.holds_no_finding(data, c.path, options.excerpt_above)
                for c, data in files
            )
        ):
            return compute()
        return once(("linked", tuple(files)), options, compute, decided_on_ast(files, catalog, options))

    alone.analyze_alone, batch._run_linked = alone_once, linked_once
    try:
        yield
    finally:
        alone.analyze_alone, batch._run_linked = real_alone, real_linked


@contextmanager
def _noqa_comments_read_once() -> Iterator[None]:
    """Within the block, each text's `# noqa` codes are tokenized once (`suppression.noqa_code_positions`, a
    function of the text alone, whose codes are frozen): the plain engine reads them in every file that spells
    `noqa`, in both tiers alike (46 files of a release, 40% of its two runs)."""
    real = noqa_findings.noqa_code_positions
    read: dict[str, list] = {}

    def once(text: str) -> list:
        if text not in read:
            read[text] = real(text)
        return list(read[text])

    noqa_findings.noqa_code_positions = once
    try:
        yield
    finally:
        noqa_findings.noqa_code_positions = real


def _together_check_and_fix(tree: Path, **options) -> list[tuple[list, list]]:
    """[(on, off) of a check, (on, off) of a fix computed without writing] through the plain engine: one engine
    per tier, whose check results and then fix results are asked (`engine.Run.again`, which `check`'s dry fix
    uses). The engine's loading and linking never read what is done with the fixes (`_but_outputs`), and
    tests/test_held_back_cost.py holds `again` equal to a fresh fix run; so each tier's fix results are those
    of a run of its own, without analysing the files a second time."""
    catalog = load_catalog()
    options.setdefault("analysis", Options(target_torch=Version.parse("2.13")))
    by_tier = []
    with _noqa_comments_read_once(), imports_searched_once():
        for screen in (True, False):
            kept: list = []
            checked = _fields(
                run_together(
                    discover([str(tree)]),
                    catalog,
                    RunOptions(screen=screen, ast_findings=screen, write=False, **options),
                    kept=kept,
                )
            )  # taken before the same engine is asked again
            fixed = _fields(
                kept[0].again(RunOptions(screen=screen, ast_findings=screen, fix=True, write=False, **options))
            )
            by_tier.append((checked, fixed))
    (check_on, fix_on), (check_off, fix_off) = by_tier
    return [(check_on, check_off), (fix_on, fix_off)]


def _screened(tree: Path, every_file: bool = False) -> list[str]:
    """The files the ast tier decides without libcst (among those the prefilter keeps, or among all)."""
    catalog = load_catalog()
    prefilter, screen = prefilter_for(catalog), screen_for(catalog)
    out = []
    for candidate in discover([str(tree)]):
        data = candidate.path.read_bytes()
        if (every_file or prefilter.worth_parsing(data, str(candidate.path))) and screen.holds_no_finding(
            data, candidate.path
        ):
            out.append(candidate.display)
    return out


def test_the_representative_releases_are_of_every_shape() -> None:
    patched = [v for v in REPRESENTATIVE if v in PATCHED]
    assert set(REPRESENTATIVE) <= set(PATCHED + MIGRATED)
    assert {"2.7.1.post11", "2.8.0", "2.8.0.post5"} < set(patched) and {"2.9.1", "2.10.0.post7"} & set(patched)
    assert any(Version.parse(v) >= Version.parse("2.11") for v in REPRESENTATIVE if v in MIGRATED)


def test_the_screen_looks_at_the_callees_the_collector_records() -> None:
    assert screen_module.CALLEES == REGISTRATION_CALLEES | {"setattr"}


def test_the_screen_loads_no_libcst(tmp_path: Path) -> None:
    """The ast tier exists to spare libcst's import: importing it and screening a file whose relative imports
    it resolves (with `module_names.resolve_relative`, which the libcst tier's `names.py` shares) loads no libcst."""
    from fsdp_unpatch.project import module_names
    from fsdp_unpatch.semantic import names

    assert screen_module.resolve_relative is names.resolve_relative is module_names.resolve_relative
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    for folder in (tmp_path / "pkg", package):
        (folder / "__init__.py").write_text("")
    module = package / "mod.py"
    module.write_text("from ..fsdp import _fsdp_collectives as c\n\nc.all_gather = None\n")
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "import fsdp_unpatch.analysis.screen as screen\n"
        "assert 'libcst' not in sys.modules\n"
        "from fsdp_unpatch.catalog import load_catalog\n"
        f"print(screen.screen_for(load_catalog()).holds_no_finding(Path({str(module)!r}).read_bytes(), "
        f"Path({str(module)!r})))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'libcst'))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["True", "[]"], done.stdout


# The full run compares every tree under each torch, through the batch and the plain engine; the inner loop
# (`-m "not slow"`) the batch under the newest torch (tests/test_batch.py holds the two runners equal). The
# plain engine's check and fix come from one engine per tier (`_together_check_and_fix`).
@pytest.mark.parametrize(
    "torch", [v if v == TORCH_VERSIONS[-1] else pytest.param(v, marks=SLOW) for v in TORCH_VERSIONS]
)
@pytest.mark.parametrize(
    "runner, fixes",
    [
        pytest.param(run, (False,), id="batch-check"),
        pytest.param(run, (True,), id="batch-fix"),
        pytest.param(run_together, (False, True), id="together-check-fix", marks=SLOW),
    ],
)
@pytest.mark.parametrize("tree", ["tests/fixtures", "examples/legacy_project", "examples/migrated_project"])
def test_fixtures_and_examples_every_file_parsed(
    tree: str, runner, fixes: tuple[bool, ...], torch: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the byte prefilter off, so that the screen alone decides for every file: same findings, same fixes;
    through the public run (files alone, then linked groups) and the engine over all files at once."""
    copy = expanded_copy(ROOT / tree, tmp_path / Path(tree).name)
    monkeypatch.setattr(Prefilter, "worth_parsing", lambda self, data, path=None, named=None: True)
    analysis = Options(target_torch=Version.parse(torch))
    if runner is run:
        pairs = [_both(run, copy, analysis=analysis, fix=fixes[0], write=False)]
    else:
        pairs = _together_check_and_fix(copy, analysis=analysis)
    for fix, (on, off) in zip(fixes, pairs):
        assert on == off, "fix" if fix else "check"
        assert any(isinstance(f, dict) for f in off), "the tree must hold findings"


@pytest.mark.parametrize("tree", ["tests/fixtures", "examples/legacy_project"])
def test_every_file_alone(tree: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file as the only one of its run (a pre-commit hook's view): nothing else links its names."""
    copy = expanded_copy(ROOT / tree, tmp_path / Path(tree).name)
    monkeypatch.setattr(Prefilter, "worth_parsing", lambda self, data, path=None, named=None: True)
    for path in sorted(copy.rglob("*.py")):
        on, off = _both(run, path)
        assert on == off, path


# One small module per way a finding (or an error) arises that the fixtures above may not show alone: the
# libcst tier finds something in each, so the screen must leave each undecided.
CASES = {
    "noqa": "x = 1  # noqa: FSU001\n",
    "kernel": (
        "import torch\n\n\ndef kernel(*args):\n    return args\n\n\n"
        'lib = torch.library.Library("fsdp", "IMPL")\n'
        'torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")(kernel)\n'
    ),
    "mock-patch": (
        "from unittest import mock\n\n\ndef test_it():\n"
        '    with mock.patch("torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce", None):\n'
        "        pass\n"
    ),
    "patch-object": (
        "from unittest import mock\nfrom torch.distributed.fsdp._fully_shard import _fsdp_collectives as c\n\n\n"
        'def test_it():\n    with mock.patch.object(c, "foreach_reduce", None):\n        pass\n'
    ),
    "setattr": (
        "import torch.distributed.fsdp._fully_shard._fsdp_param_group as g\n\n\n"
        'def install(f):\n    setattr(g.FSDPParamGroup, "finalize_backward", f)\n'
    ),
    "alias-of-alias": (
        "import torch\n\nC = torch.distributed.fsdp._fully_shard\nD = C._fsdp_collectives\n\n\n"
        "def install(f):\n    D.foreach_reduce = f\n"
    ),
    "relative": "from . import _fsdp_collectives\n\n\ndef install(f):\n    _fsdp_collectives.foreach_reduce = f\n",
    "code-swap": (
        "from torch.distributed.fsdp._fully_shard._fsdp_collectives import foreach_reduce\n\n\n"
        "def f():\n    pass\n\n\nforeach_reduce.__code__ = f.__code__\n"
    ),
    "same-device-copy": (
        "import torch\n\n\ndef copy(dst, src):\n    if dst[0].device == src[0].device:\n"
        "        torch._foreach_copy_(dst, src, non_blocking=True)\n    else:\n"
        "        torch._foreach_copy_(dst, src)\n"
    ),
    "subclass-handed-to-fsdp2": (
        "from torch.distributed.fsdp._fully_shard._fsdp_collectives import DefaultAllGather\n\n\n"
        "class NpuAllGather(DefaultAllGather):\n    def __call__(self, *args):\n        return args\n\n\n"
        "def enable(model):\n    model.set_custom_all_gather(NpuAllGather())\n"
    ),
    "sys-modules": "import sys\n\nsys.modules['torch.distributed.fsdp._fully_shard._fsdp_param'] = object()\n",
    "sys-modules-setitem": (
        "import sys\n\n\ndef test_it(monkeypatch):\n"
        "    monkeypatch.setitem(sys.modules, 'torch.distributed._composable.fsdp._fsdp_param', None)\n"
    ),
    # installed without a plain install site (`analysis/indirect_installs.py`)
    "tuple-unpacking": (
        "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n\n"
        "def install(f, g):\n    FSDPParamGroup.finalize_backward, FSDPParamGroup.post_backward = f, g\n"
    ),
    "vars-store": (
        "from torch.distributed.fsdp._fully_shard import _fsdp_collectives as c\n\n\n"
        'def install(f):\n    vars(c)["foreach_reduce"] = f\n'
    ),
    "dict-store": (
        "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n\n"
        'def install(f):\n    FSDPParamGroup.__dict__["pre_backward"] = f\n'
    ),
    "owner-in-sys-modules": (
        "import sys\n\n\ndef install(f):\n"
        '    sys.modules["torch.distributed.fsdp._fully_shard._fsdp_collectives"].foreach_reduce = f\n'
    ),
    "owner-imported-by-name": (
        "import importlib\n\n\ndef install(f):\n"
        '    importlib.import_module("torch.distributed.fsdp._fully_shard._fsdp_collectives").foreach_reduce = f\n'
    ),
    "setattr-over-rows": (
        "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n\n"
        'def install(f):\n    for owner, name, fn in [(FSDPParamGroup, "pre_backward", f)]:\n'
        "        setattr(owner, name, fn)\n"
    ),
    "installing-decorator": (
        "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n"
        "from my_stack.hooks import install_over\n\n\n"
        '@install_over(FSDPParamGroup, "finalize_backward")\ndef _mine(self):\n    return None\n'
    ),
    "vendored-ops": (
        "from torch.library import Library\n\nlib = Library('fsdp', 'FRAGMENT')\n"
        "lib.define('chunk_cat(Tensor[] tensors, int dim, int num_chunks, *, Tensor(a!) out) -> ()')\n"
    ),
    "vendored-class": (
        "class FSDPParamGroup:\n    def finalize_backward(self):\n        pass\n\n"
        "    def post_backward(self):\n        pass\n"
    ),
    "patch-name": "from torch_npu.distributed.fsdp._add_fsdp_patch import _apply_fsdp_patch\n\n_apply_fsdp_patch()\n",
    "nested-lists": "x = " + "[" * 150 + "]" * 150 + "\n",
    "long-and": "x = " + " and ".join(["a"] * 20000) + "\n",
    "long-concatenation": "x = (" + " ".join(['"a"'] * 400) + ")\n",
    "syntax-error": "def f(:\n",
    "not-utf8": "# caf\xe9\nx = 1\n",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_way_to_a_finding(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path
    if case == "relative":  # inside FSDP2's own package, where a relative import reaches its modules
        for part in ("torch", "distributed", "fsdp", "_fully_shard"):
            folder = folder / part
            folder.mkdir()
            (folder / "__init__.py").write_text("")
    path = folder / f"{case.replace('-', '_')}.py"
    path.write_bytes(CASES[case].encode("latin-1"))
    monkeypatch.setattr(Prefilter, "worth_parsing", lambda self, data, path=None, named=None: True)
    on, off = _both(run, path)
    assert any(isinstance(f, dict) for f in off), "the libcst tier must find something in this case"
    assert on == off
    assert not screen_for(load_catalog()).holds_no_finding(path.read_bytes(), path)


def test_the_screen_decides_most_fixture_files(tmp_path: Path) -> None:
    """Not vacuous: of the fixtures that hold no finding, the screen decides most without libcst."""
    copy = expanded_copy(ROOT / "tests" / "fixtures", tmp_path / "fixtures")
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")), screen=False)
    result = run_together(discover([str(copy)]), load_catalog(), options)
    with_findings = {f.path for f in result.findings}
    screened = set(_screened(copy, every_file=True))
    assert not screened & with_findings
    assert len(screened) >= 10


def _torch_sources() -> Path:
    spec = importlib.util.find_spec("torch")  # locates the package; does not import it
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed")
    return Path(list(spec.submodule_search_locations)[0])


@pytest.mark.slow  # reads a real tree
def test_installed_torch_sources() -> None:
    tree = _torch_sources()
    on, off = _both(run, tree)
    assert on == off
    assert len(_screened(tree)) >= 3  # FSDP2's own modules and the compiler passes that only read FSDP2 names


def _release(version: str) -> Path:
    try:
        return sources(version) / "torch_npu"
    except Unavailable as error:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must fetch the real releases: {error}")
        pytest.skip(str(error))


# One release of each shape of docs/real-releases.md's table rather than all nine (each pays six runs of a whole
# release): 3 removals with reviews and kept sites (2.7.1.post11), 8 removals and nothing kept (2.8.0), 4 with
# the replacement that does more than upstream (2.8.0.post5), 9 with 13 kept (2.9.1 and 2.10.0.post7 alike:
# 2.10.0.post7) and a hand-migrated release, no removal (2.11.0.post3 to 2.14.0 alike: 2.14.0, while
# tests/test_excerpts.py takes 2.11.0.post3). Every release is still checked and fixed by tests/realworld/.
REPRESENTATIVE = ("2.7.1.post11", "2.8.0", "2.8.0.post5", "2.10.0.post7", "2.14.0")


@pytest.mark.slow  # reads real trees
@pytest.mark.parametrize("version", REPRESENTATIVE)
def test_real_releases(version: str, tmp_path: Path) -> None:
    """Both tiers on a representative real release of each shape (`REPRESENTATIVE`)."""
    tree = _release(version)
    for fix in (False, True):
        on, off = _both(run, tree, fix=fix, write=False)
        assert on == off
        if version in PATCHED:
            assert any(isinstance(f, dict) and f["category"] == "remove" for f in off)
    # the linked phase (the engine over all files at once) too
    on, off = _both(run_together, tree)
    assert on == off


@pytest.mark.parametrize(
    "source",
    [
        "import torch\n\n\ndef f(a, b):\n    torch._foreach_copy_(a, b, non_blocking=a[0].device == b[0].device)\n",
        "from torch import _foreach_copy_ as copy\n\n\ndef f(a, b):\n    copy(a, b, a[0].device == b[0].device)\n",
        (
            "import torch\n\n\ndef f(a, b):\n    if not (a[0].device == b[0].device):\n        torch._foreach_copy_(a, b)\n"
            "    else:\n        torch._foreach_copy_(a, b, non_blocking=True)\n"
        ),
    ],
    ids=["one-call", "one-call-aliased", "not-test"],
)
def test_every_spelling_of_the_tweak_is_left_to_libcst(source: str, tmp_path: Path) -> None:
    """The same-device tweak has more spellings than `if A == B:` (`!=`, `not (...)`, one call with the test as
    `non_blocking`): the screen leaves each of them to libcst, whichever of them FSU005 recognises."""
    path = tmp_path / "copy.py"
    path.write_text(source)
    assert not screen_for(load_catalog()).holds_no_finding(path.read_bytes(), path)
