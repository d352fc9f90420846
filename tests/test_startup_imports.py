"""A `check` that finds nothing imports none of the heavy modules (issue 23, start-up in tens of milliseconds).

The run happens in a fresh interpreter; at its exit the modules it loaded are written out and inspected.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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

_RUN = """
import atexit, json, sys
listing = sys.argv[1]
atexit.register(lambda: open(listing, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["fsdp-unpatch", *sys.argv[2:]]
from fsdp_unpatch.cli import main
main()
"""


def _modules_of_a_run(tmp_path: Path, *args: str) -> tuple[int, set[str]]:
    listing = tmp_path / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", _RUN, str(listing), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    assert listing.is_file(), result.stderr
    return result.returncode, set(json.loads(listing.read_text(encoding="utf-8")))


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
