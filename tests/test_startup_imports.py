"""A `check` that finds nothing imports none of the heavy modules (issue 23, start-up in tens of milliseconds).

The run happens in a fresh interpreter; at its exit the modules it loaded are written out and inspected.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fsdp_unpatch.project.import_facts import RACY_NS

# What a run with nothing to report must not pay for: rich's console (only to print a finding), libcst (only to
# write a fix), the fingerprints (only to prove a copy), every release's FSDP2 (only to compare releases), the
# TOML parser (the catalog is compiled), the pattern library (only for exclude patterns and .gitignore files),
# importlib.metadata (the installed torch's version is read from its dist-info), the language server's
# libraries, and the test-only libraries.
HEAVY = (
    "rich",
    "libcst",
    "pathspec",
    "tomllib",
    "hypothesis",
    "importlib.metadata",
    "fsdp_unpatch.data.compiled_upstream",
    "fsdp_unpatch.fingerprint.upstream",
    # every release's FSDP2 (`upgrade`, and the release verdict of an override no proof covers)
    "fsdp_unpatch.data.compiled_upstream_releases",
    "fsdp_unpatch.fingerprint.releases",
    "fsdp_unpatch.codemods",
    "pygls",  # the language server's (`fsdp-unpatch server`)
    "lsprotocol",
)

# At exit: the modules loaded, and each regular expression the tool's modules hold at their top level that was
# compiled ("module.NAME"; a `lazy_re.LazyPattern` is compiled once one of its methods was looked up).
_RUN = """
import atexit, json, re, sys
listing = sys.argv[1]

def compiled():
    found = []
    for name, module in list(sys.modules.items()):
        if name.startswith("fsdp_unpatch") and module is not None:
            for attribute, value in list(vars(module).items()):
                lazy = type(value).__name__ == "LazyPattern"
                if isinstance(value, re.Pattern) or (lazy and "search" in vars(value)):
                    found.append(name + "." + attribute)
    return sorted(found)

atexit.register(lambda: open(listing, "w").write(json.dumps([sorted(sys.modules), compiled()])))
sys.argv = ["fsdp-unpatch", *sys.argv[2:]]
from fsdp_unpatch.cli import main
main()
"""

ROOT = Path(__file__).resolve().parent.parent


def _run(cwd: Path, *args: str, cache_home: Path | None = None) -> tuple[int, set[str], set[str]]:
    """(exit status, modules loaded, top-level patterns compiled) of a run of this checkout's tool in `cwd`
    (the listing is written beside `cwd`, out of the tree the run checks)."""
    listing = cwd.parent / f"{cwd.name}.modules.json"
    environment = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}  # this checkout, not an install
    if cache_home is not None:  # the cache's signing key (`files/signing.py`): the user's own is left alone
        environment["XDG_CACHE_HOME"] = str(cache_home)
    result = subprocess.run(
        [sys.executable, "-c", _RUN, str(listing), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environment,
    )
    assert listing.is_file(), result.stderr
    modules, patterns = json.loads(listing.read_text(encoding="utf-8"))
    listing.unlink()
    return result.returncode, set(modules), set(patterns)


def _modules_of_a_run(tmp_path: Path, *args: str) -> tuple[int, set[str]]:
    status, modules, _ = _run(tmp_path, *args)
    return status, modules


def _loaded(modules: set[str], heavy: str) -> list[str]:
    return sorted(m for m in modules if m == heavy or m.startswith(heavy + "."))


def test_a_check_that_finds_nothing_imports_no_heavy_module(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import os\n\n\ndef here():\n    return os.getcwd()\n", encoding="utf-8")
    status, modules = _modules_of_a_run(tmp_path, "check", "--no-cache", "clean.py")
    assert status == 0
    assert "fsdp_unpatch.commands.lint" in modules  # the run did happen in this process
    assert {heavy: _loaded(modules, heavy) for heavy in HEAVY if _loaded(modules, heavy)} == {}


def test_a_finding_still_brings_rich_in_to_print_it(tmp_path: Path) -> None:
    # the hook above sees what a run imports: here a finding is printed, so rich is loaded
    example = Path(__file__).resolve().parent.parent / "examples" / "legacy_project" / "legacy_npu"
    patch = example / "distributed" / "fsdp" / "_add_fsdp_patch.py"
    (tmp_path / "patch.py").write_bytes(patch.read_bytes())
    status, modules = _modules_of_a_run(tmp_path, "check", "--no-cache", "patch.py")
    assert status == 1
    assert _loaded(modules, "rich")


# What a run whose files reach libcst loads, and a run decided on the `ast` model alone does not.
LIBCST_TIER = ("libcst", "fsdp_unpatch.analysis.plan", "fsdp_unpatch.run.linking", "fsdp_unpatch.fixes.edits")


def test_a_check_whose_findings_come_from_the_ast_tier_loads_no_libcst(tmp_path: Path) -> None:
    # a test helper that overrides FSDP2 internals and restores them: review findings only, no fix to write, so
    # the `ast` model decides the file (the rule case is among those it decides: tests/test_ast_findings.py)
    case = Path(__file__).resolve().parent / "rules" / "FSU101" / "scoped_by_a_restore" / "gather_probes.py"
    (tmp_path / "gather_probes.py").write_bytes(case.read_bytes())
    status, modules = _modules_of_a_run(tmp_path, "check", "--no-cache", "gather_probes.py")
    assert status == 1  # the findings were reported ...
    assert "fsdp_unpatch.analysis.ast_findings" in modules  # ... by the `ast` model
    assert {heavy: _loaded(modules, heavy) for heavy in LIBCST_TIER if _loaded(modules, heavy)} == {}


def test_a_fixable_file_brings_libcst_in(tmp_path: Path) -> None:
    # not vacuous: the hook sees libcst when a file gets a fix (only libcst writes one)
    example = Path(__file__).resolve().parent.parent / "examples" / "legacy_project" / "legacy_npu"
    patch = example / "distributed" / "fsdp" / "_add_fsdp_patch.py"
    (tmp_path / "patch.py").write_bytes(patch.read_bytes())
    status, modules = _modules_of_a_run(tmp_path, "check", "--no-cache", "--diff", "patch.py")
    assert status == 1
    assert all(_loaded(modules, heavy) for heavy in LIBCST_TIER), [h for h in LIBCST_TIER if not _loaded(modules, h)]


def test_the_audit_loads_no_libcst(tmp_path: Path) -> None:
    # the audit only reads files: its decisions, places and snippets come from CPython's `ast` and the text
    (tmp_path / "copies.py").write_text(
        "import torch\n\n\ndef f(dst):\n    torch._foreach_copy_(dst, [t.cpu() for t in dst], non_blocking=True)\n",
        encoding="utf-8",
    )
    status, modules = _modules_of_a_run(tmp_path, "audit", "foreach-copy", "--format", "json", ".")
    assert status == 0
    assert "fsdp_unpatch.audit.call_sites" in modules  # the audit did run
    assert {heavy: _loaded(modules, heavy) for heavy in LIBCST_TIER if _loaded(modules, heavy)} == {}


# What a warm `check` (every file a cache hit: pre-commit on a file it saw before, a tree checked again) does not
# import, though a cold run, a fix or a report may: the requirements parser and configparser (the project's
# torch comes from a `pyproject.toml` that names none, `config/declared_torch.py`), the writing of files and
# cache entries (tempfile, shutil), diffs (difflib), the journal's encoding (base64, secrets), `--report`'s
# evidence, the import net of a fix and the syntax-tree helpers of FSU306 and of it, the planner's subjects
# (`analysis/subjects.py`; the `imports` checks get `analysis/import_subjects.py`) and the ast tier.
WARM_LAZY = (
    "packaging",
    "configparser",
    "tempfile",
    "shutil",
    "difflib",
    "base64",
    "secrets",
    "fsdp_unpatch.reporting.evidence",
    "fsdp_unpatch.run.import_net",
    "fsdp_unpatch.run.forwarders",
    "fsdp_unpatch.analysis.bindings",
    "fsdp_unpatch.project.bindings",
    "fsdp_unpatch.analysis.subjects",
    "fsdp_unpatch.analysis.screen",
    "fsdp_unpatch.files.writing",
)
# Top-level patterns a warm `check` does not compile (`lazy_re.LazyPattern`): a help page's (the Chinese one
# costs 1.5 ms), a noqa comment's, a requirements file's, FSU306's reading of imports, the prefilter's tests of
# a file's bytes (every file is known unchanged or comes from the cache).
WARM_UNCOMPILED = (
    "fsdp_unpatch.commands.translated_help.CJK",
    "fsdp_unpatch.commands.translated_help._EXTRA",
    "fsdp_unpatch.analysis.suppression.NOQA",
    "fsdp_unpatch.analysis.suppression.NOQA_WITHOUT_COLON",
    "fsdp_unpatch.config.declared_torch._INCLUDE",
    "fsdp_unpatch.config.declared_torch._OPTION",
    "fsdp_unpatch.rules.broken_import._FROM",
    "fsdp_unpatch.rules.broken_import._BINDS_AFTER",
    "fsdp_unpatch.analysis.prefilter._OWNER_CALL",
    "fsdp_unpatch.analysis.prefilter._RELATIVE_FROM",
    "fsdp_unpatch.quoting._NOT_XML",
)


@pytest.mark.parametrize("paths", [("patch.py",), (".",)], ids=["pre-commit", "tree"])
def test_a_warm_check_imports_and_compiles_only_what_it_uses(tmp_path: Path, paths: tuple[str, ...]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    # a project that declares dependencies but no torch: its `pyproject.toml` is read, packaging is not needed
    (project / "pyproject.toml").write_text(
        '[project]\nname = "warm"\ndependencies = ["numpy>=1.20", "click"]\n', encoding="utf-8"
    )
    example = ROOT / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"
    (project / "patch.py").write_bytes(example.read_bytes())
    (project / "clean.py").write_text("import os\n\n\ndef here():\n    return os.getcwd()\n", encoding="utf-8")
    # FSU306 keeps its findings for files whose stat stands for their content: changed more than RACY_NS ago
    time.sleep(RACY_NS / 1e9 + 0.2)
    cold_status, cold, _ = _run(project, "check", *paths, cache_home=tmp_path / "xdg")
    status, modules, compiled = _run(project, "check", *paths, cache_home=tmp_path / "xdg")
    assert cold_status == status == 1  # the example's findings, printed both times
    assert _loaded(cold, "libcst") and not _loaded(modules, "libcst")  # the second run was the cache's
    assert "fsdp_unpatch.rules.broken_import" in modules  # FSU306 did run (from its cache entry)
    assert {lazy: _loaded(modules, lazy) for lazy in WARM_LAZY if _loaded(modules, lazy)} == {}
    assert sorted(compiled & set(WARM_UNCOMPILED)) == []


def test_what_a_warm_check_leaves_out_a_fix_brings_in(tmp_path: Path) -> None:
    # not vacuous: the same hooks see the import net, the writing of files, a diff and the planner's subjects
    # when `fix` runs, and a noqa pattern compiled when the file is analysed
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "cold"\n', encoding="utf-8")
    example = ROOT / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"
    (tmp_path / "patch.py").write_bytes(example.read_bytes())
    status, modules, compiled = _run(tmp_path, "check", "--no-cache", "--diff", "patch.py")
    assert status == 1
    brought = (
        "difflib",
        "fsdp_unpatch.run.import_net",
        "fsdp_unpatch.analysis.subjects",
        "fsdp_unpatch.analysis.screen",
    )
    assert [m for m in brought if not _loaded(modules, m)] == []
    assert "fsdp_unpatch.analysis.suppression.NOQA" in compiled


def test_a_lazy_pattern_is_the_compiled_pattern_once_used() -> None:
    import re

    from fsdp_unpatch.lazy_re import LazyPattern

    lazy = LazyPattern(rb"(\w+)=(\d+)", re.IGNORECASE)
    assert "search" not in vars(lazy)  # nothing compiled yet
    data = b"a=1, B=22"
    assert [m.groups() for m in lazy.finditer(data)] == [(b"a", b"1"), (b"B", b"22")]
    compiled = re.compile(rb"(\w+)=(\d+)", re.IGNORECASE)
    assert vars(lazy)["search"].__self__ == compiled  # from now on the compiled pattern's own methods answer
    assert lazy.sub(b"x", data) == compiled.sub(b"x", data) and lazy.split(data) == compiled.split(data)
    assert lazy.match(data, 3) is None and lazy.fullmatch(b"c=3") is not None
