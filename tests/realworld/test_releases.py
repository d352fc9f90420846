"""Acceptance: the real torch-npu releases, migrated as the maintainers did by hand.

Each release is fetched from the package registry (see `packages.py`), copied into a temporary git
repository, and the command line runs on the whole package (in this process). What is expected is read off
the code with `ast`, independently of the tool: the install sites of the three collective targets inside the installer,
the enhance installer and everything it names. Where a replacement does more than upstream plus the NPU
tweak, the table `DOES_MORE` says what it calls that upstream does not (read from the release by hand).

With CI=true the releases must be fetched (the tests fail otherwise); elsewhere, offline, they skip.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from fsdp_unpatch.catalog.versions import Version, installed_torch
from tests.integration import cli
from tests.realworld.packages import MIGRATED, PATCH_MODULE, PATCHED, Unavailable, git, sources, working_copy

pytestmark = pytest.mark.slow

COLLECTIVE_TARGETS = ("finalize_backward", "_get_param_all_gather_inputs", "all_gather_copy_in", "default")
ENHANCE_INSTALLER = "_apply_fsdp_enhance_patch"
# Replacements that do more than upstream plus the NPU tweak: what they call instead (by hand, from the code).
DOES_MORE = {("2.8.0.post5", "_patched_all_gather_copy_in"): "_patched_allocate_memory"}


def _fetch(version: str) -> Path:
    try:
        return sources(version)
    except Unavailable as error:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must fetch the real releases: {error}")
        pytest.skip(str(error))


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The command line run in this process (these tests are about the migration, not the process: a
    subprocess paid the tool's start-up and its comparisons with upstream again for each of about 30 runs)."""
    done = cli(*args, cwd=cwd)
    return subprocess.CompletedProcess(list(args), done.returncode, done.stdout.decode(), done.stderr.decode())


def _findings(cwd: Path) -> list[dict]:
    done = _cli(cwd, "check", "--no-cache", "--output-format", "json", ".")
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _fix_that_changes_nothing(repo: Path) -> list[dict]:
    """`fix` of a repository (its changes committed or staged) that must leave it as it is; the findings it
    reports left.

    Those are what `check` reports of the same tree: `fix` reports the tree as it is after writing (nothing
    written, asserted), and a finding counts as fixed only when its file's bytes changed (`engine.apply`),
    which an empty `git diff` (no untracked file either) rules out. So no `check` of its own analyses the
    release again."""
    done = _cli(repo, "fix", "--no-cache", "--output-format", "json", ".")
    assert done.returncode in (0, 1), done.stderr
    assert (
        git(repo, "diff") == "" and git(repo, "ls-files", "--others") == ""
    )  # the index: what was committed or staged
    return json.loads(done.stdout)


# --- what the code says, read with ast -----------------------------------------------------------


def _tree(path: Path) -> ast.Module:
    with warnings.catch_warnings():  # the releases carry invalid escape sequences
        warnings.simplefilter("ignore")
        return ast.parse(path.read_bytes())


def _top(tree: ast.Module) -> dict[str, ast.AST]:
    """Top-level definitions: functions, classes and names assigned (`_cache = FSDPMemCache()`)."""
    out: dict[str, ast.AST] = {}
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            out[n.name] = n
        elif isinstance(n, ast.Assign):
            out.update({t.id: n for t in n.targets if isinstance(t, ast.Name)})
    return out


def _stores(function: ast.AST) -> list[tuple[str, str, int]]:
    """(last attribute stored, value name, line) of each attribute assignment in a function."""
    out = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute):
                    value = node.value.id if isinstance(node.value, ast.Name) else ast.unparse(node.value)
                    out.append((target.attr, value, node.lineno))
    return out


def _installers(tree: ast.Module) -> dict[str, list[tuple[str, str, int]]]:
    """Top-level functions that store an FSDP2 collective target: their stores."""
    return {
        name: _stores(node)
        for name, node in _top(tree).items()
        if isinstance(node, ast.FunctionDef)
        and name != ENHANCE_INSTALLER
        and any(attr in COLLECTIVE_TARGETS for attr, _, _ in _stores(node))
    }


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _enhance_closure(text: str) -> dict[str, str]:
    """The enhance installer and every top-level definition it reaches, by name -> exact source text."""
    tree = ast.parse(text)
    top = _top(tree)
    found: dict[str, str] = {}
    stack = [ENHANCE_INSTALLER]
    while stack:
        name = stack.pop()
        if name in found or name not in top:
            continue
        found[name] = ast.get_source_segment(text, top[name]) or ""
        stack.extend(_names_in(top[name]) & set(top))
    return found


def _calls_of(root: Path, name: str) -> dict[str, int]:
    """file -> number of calls of `name(...)` in the package."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        if name.encode() not in path.read_bytes():
            continue
        tree = _tree(path)
        count = sum(
            1 for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
        )
        if count:
            out[str(path.relative_to(root))] = count
    return out


# --- one migration per release, shared by the tests ---------------------------------------------


@dataclass
class Migration:
    version: str
    repo: Path
    before: str  # the patch module's text before the fix
    after: str
    findings: list[dict]  # of `check` before the fix
    fix: subprocess.CompletedProcess
    changed: list[str]


_MIGRATIONS: dict[str, Migration] = {}


def migrate(version: str, tmp_path_factory) -> Migration:
    if version not in _MIGRATIONS:
        _fetch(version)
        repo = working_copy(version, tmp_path_factory.mktemp(version))
        before = (repo / PATCH_MODULE).read_text(encoding="utf-8")
        findings = _findings(repo)
        fix = _cli(repo, "fix", "--no-cache", ".")
        changed = [line[3:] for line in git(repo, "status", "--porcelain").splitlines()]
        after = (repo / PATCH_MODULE).read_text(encoding="utf-8")
        _MIGRATIONS[version] = Migration(version, repo, before, after, findings, fix, changed)
    return _MIGRATIONS[version]


@pytest.fixture(params=PATCHED)
def patched(request, tmp_path_factory) -> Migration:
    return migrate(request.param, tmp_path_factory)


def _site_findings(m: Migration, line: int) -> list[dict]:
    return [f for f in m.findings if f["path"] == PATCH_MODULE and f["line"] == line]


def test_every_collective_site_whose_replacement_is_upstream_plus_the_tweak_is_removed(patched):
    tree = ast.parse(patched.before)
    sites = [
        (attr, value, line)
        for stores in _installers(tree).values()
        for attr, value, line in stores
        if attr in COLLECTIVE_TARGETS
    ]
    assert sites, "the release has no collectives installer"
    for attr, value, line in sites:
        codes = {f["code"]: f for f in _site_findings(patched, line)}
        does_more = DOES_MORE.get((patched.version, value))
        if does_more is None:
            assert "FSU001" in codes, (attr, value, line, codes)
            assert codes["FSU001"]["category"] == "remove"
            assert "matches torch" in codes["FSU001"]["message"]
        else:
            review = codes.get("FSU101")
            assert review is not None and review["category"] == "review", (attr, codes)
            assert does_more in review["message"], review["message"]
            assert review["detail"] and does_more in review["detail"]


def test_after_the_fix_what_was_removed_is_gone_and_what_stays_is_still_installed(patched):
    assert patched.fix.returncode in (0, 1), patched.fix.stderr
    before, after = ast.parse(patched.before), ast.parse(patched.after)
    for installer, stores in _installers(before).items():
        kept = [(a, v) for a, v, _ in stores if DOES_MORE.get((patched.version, v)) or a not in COLLECTIVE_TARGETS]
        remaining = _stores(_top(after)[installer]) if installer in _top(after) else []
        assert [(a, v) for a, v, _ in remaining] == kept, installer
        calls_before = _calls_of(sources(patched.version), installer)
        calls_after = _calls_of(patched.repo, installer)
        if kept:  # the installer stays, and so does every call of it
            assert installer in _top(after)
            assert calls_after == calls_before
        else:  # nothing left to install: the installer, its calls and their imports go
            assert installer not in _top(after)
            assert calls_after == {}
            for path in patched.changed:
                assert installer not in (patched.repo / path).read_text(encoding="utf-8"), path


def test_replacements_no_site_installs_are_deleted_unless_kept_code_uses_them(patched):
    before, after = ast.parse(patched.before), ast.parse(patched.after)
    after_names = _names_in(after)
    for stores in _installers(before).values():
        for attr, value, _ in stores:
            if attr not in COLLECTIVE_TARGETS or DOES_MORE.get((patched.version, value)):
                continue
            if value in _top(after):  # kept only because code that stays still calls it
                uses = [n for n in ast.walk(after) if isinstance(n, ast.Name) and n.id == value]
                assert uses, value
            else:
                assert value not in after_names


def test_changed_files_compile_and_a_second_fix_changes_nothing(patched):
    assert patched.changed, "nothing was migrated"
    for path in patched.changed:
        text = (patched.repo / path).read_text(encoding="utf-8")
        compile(text, path, "exec")
        for name in {
            alias.asname or alias.name
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }:
            assert name.split(".")[0] != "_patched_" or name in text.split("import", 1)[1]
    git(patched.repo, "add", "-A")
    left = _fix_that_changes_nothing(patched.repo)
    assert not [f for f in left if f["category"] == "remove"]


def test_the_enhance_patch_is_byte_identical(patched):
    before, after = _enhance_closure(patched.before), _enhance_closure(patched.after)
    if ENHANCE_INSTALLER in before:  # 2.8.0 has none
        assert "FSDPMemCache" in before
    assert after == before


def _imported(text: str) -> set[str]:
    """Local names bound by the module's top-level imports."""
    return {
        (a.asname or a.name).split(".")[0]
        for n in ast.parse(text).body
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }


def _used(text: str) -> set[str]:
    """Names the module's code (not its imports) uses."""
    tree = ast.parse(text)
    tree.body = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
    return _names_in(tree)


def test_imports_the_removals_left_unused_go_and_no_other_import_changes(patched):
    for name in _imported(patched.after):
        assert not (name in _used(patched.before) and name not in _used(patched.after)), f"{name} left unused"
    for name in _imported(patched.before) - _imported(patched.after):
        assert name in _used(patched.before), f"{name} was unused before the fix: not the fix's to drop"


def test_a_release_targets_the_torch_its_own_version_pairs_with(tmp_path_factory):
    """torch-npu 2.7.1 runs on torch 2.7, which has no PrivateUse1 kernel for the FSDP ops (native from 2.8)."""
    m = migrate("2.7.1.post11", tmp_path_factory)
    shown = _cli(m.repo, "check", "--show-settings", ".")
    assert 'target-torch = "2.7 (torch_npu/version.py: torch-npu 2.7.1.post11)"' in shown.stdout
    if installed_torch() not in (None, Version(2, 7)):  # CI installs torch 2.13
        assert "outside the torch the project declares (torch_npu/version.py" in shown.stderr, shown.stderr
    kernels = [f for f in m.findings if f["code"] == "FSU103"]
    assert kernels and all("native FSDP2 in torch 2.7 has no PrivateUse1 kernel" in f["message"] for f in kernels)


def test_the_migrated_module_has_the_shape_the_maintainers_gave_it(tmp_path_factory):
    m = migrate("2.10.0.post7", tmp_path_factory)
    _fetch("2.11.0.post3")
    hand = (sources("2.11.0.post3") / PATCH_MODULE).read_text(encoding="utf-8")

    def top_names(text: str) -> set[str]:
        tree = ast.parse(text)
        out = set(_top(tree))
        out |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        return out

    def imports(text: str) -> set[str]:
        return {
            a.asname or a.name
            for n in ast.parse(text).body
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        }

    assert top_names(m.after) == top_names(hand)
    dropped_by_hand = {name for name in imports(m.before) - imports(hand) if name in _used(m.before)}
    assert dropped_by_hand and not dropped_by_hand & imports(m.after), dropped_by_hand & imports(m.after)

    def enhance_targets(text: str) -> list[str]:
        return sorted(
            ast.unparse(t)
            for n in ast.walk(_top(ast.parse(text))[ENHANCE_INSTALLER])
            if isinstance(n, ast.Assign)
            for t in n.targets
            if isinstance(t, ast.Attribute)
        )

    assert enhance_targets(m.after) == enhance_targets(hand)
    api = (m.repo / "torch_npu/_init/patches/api_patches.py").read_text(encoding="utf-8")
    assert "_apply_fsdp_patch" not in api
    out = m.fix.stdout + m.fix.stderr
    for name in (
        "_patched_finalize_backward",
        "_patched_get_param_all_gather_inputs",
        "_patched_all_gather_copy_in",
        "_apply_fsdp_patch",
    ):
        assert name in (sources("2.10.0.post7") / PATCH_MODULE).read_text(encoding="utf-8")
        assert name not in m.after
    assert "Fixed" in out


@pytest.mark.parametrize("version", MIGRATED)
def test_hand_migrated_releases_have_nothing_to_remove(version, tmp_path):
    _fetch(version)
    repo = working_copy(version, tmp_path)
    assert not [f for f in _fix_that_changes_nothing(repo) if f["category"] == "remove"]


def test_a_distributed_module_bound_to_something_else_is_no_proof(tmp_path):
    """The `dist` spoof: the same text, but `dist` is not torch.distributed: the copy is not upstream's."""
    _fetch("2.10.0.post7")
    repo = working_copy("2.10.0.post7", tmp_path)
    module = repo / PATCH_MODULE
    text = module.read_text(encoding="utf-8")
    assert "from torch import distributed as dist\n" in text
    module.write_text(
        text.replace("from torch import distributed as dist\n", "import my_vendor.fake_distributed as dist\n"),
        encoding="utf-8",
    )
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "= _patched_finalize_backward" in s)
    at_site = {f["code"] for f in _findings(repo) if f["path"] == PATCH_MODULE and f["line"] == line}
    assert "FSU101" in at_site and "FSU001" not in at_site


def test_a_copy_in_a_folder_of_another_name_keeps_the_calls_of_an_installer_that_stays(tmp_path):
    """The run decides about its own copy of the patch module, whatever the folder is called."""
    _fetch("2.8.0.post5")
    repo = working_copy("2.8.0.post5", tmp_path, rename="vendored_npu")
    calls = _calls_of(repo, "_apply_fsdp_patch")
    assert any(not path.endswith("_add_fsdp_patch.py") for path in calls)
    assert not [f for f in _findings(repo) if f["code"] == "FSU004"]
    _cli(repo, "fix", "--no-cache", ".")
    assert _calls_of(repo, "_apply_fsdp_patch") == calls
    changed = [line[3:] for line in git(repo, "status", "--porcelain").splitlines()]
    assert changed == ["vendored_npu/distributed/fsdp/_add_fsdp_patch.py"]


def test_the_same_device_case_inside_kept_code_is_left_alone(tmp_path, tmp_path_factory):
    """2.7.1.post11: an enhance helper and a PrivateUse1 kernel registration carry the special case."""
    checked = migrate("2.7.1.post11", tmp_path_factory).findings  # `check` of a working copy of the release
    repo = working_copy("2.7.1.post11", tmp_path)
    kernels = repo / "torch_npu/distributed/fsdp/_fsdp_collectives.py"
    assert "non_blocking=True" in kernels.read_text(encoding="utf-8")
    assert not [f for f in checked if f["code"] == "FSU005"]
    _cli(repo, "fix", "--no-cache", "--unsafe-fixes", ".")
    changed = [line[3:] for line in git(repo, "status", "--porcelain").splitlines()]
    assert "torch_npu/distributed/fsdp/_fsdp_collectives.py" not in changed
