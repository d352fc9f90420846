"""Every review finding is true (issue 16): new attributes, saved originals and their restores, reloads,
by-name copies nobody reads, and FSDP2's family outside its package (`replicate_with_fsdp`).

Each pattern has a case where nothing may be reported and one where the finding must stay. The sources
are small hand-written shapes of what projects do, not copies of any project.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.symbols import format_releases, load_symbols, parse_releases
from tests.helpers import check_tree

REPO = Path(__file__).resolve().parent.parent
HEADER = """\
import contextlib
import functools
import importlib

import pytest
from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_init, _fsdp_param_group
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _replacement(*args, **kwargs):
    return None

"""


def findings(tmp_path: Path, body: str, torch: str = "2.13") -> list[tuple[int, str, str]]:
    """(line in `body`, code, message) of every finding."""
    (tmp_path / "patching.py").write_text(HEADER + body)
    offset = HEADER.count("\n")
    return sorted((f.span.line - offset, f.code, f.message) for f in check_tree(tmp_path, torch=torch).findings)


def codes(found: list[tuple[int, str, str]]) -> list[tuple[int, str]]:
    return [(line, code) for line, code, _ in found]


# 1. New attributes ---------------------------------------------------------------------------------


def test_sentinel_flag_debug_hook_and_renamed_original_are_not_overrides(tmp_path: Path) -> None:
    body = """\
FSDPParam._vendor_patch_applied = True
FSDPParamGroup._debug_on_unshard = print
_fsdp_collectives._orig_get_gradient_divide_factors = _fsdp_collectives._get_gradient_divide_factors
"""
    assert findings(tmp_path, body) == []


def test_a_real_override_next_to_the_sentinel_is_still_reported(tmp_path: Path) -> None:
    body = """\
FSDPParam._vendor_patch_applied = True
FSDPParam.to_unsharded = _replacement
"""
    found = findings(tmp_path, body)
    assert codes(found) == [(2, "FSU101")]
    assert "`_fsdp_param.FSDPParam.to_unsharded`" in found[0][2]


def test_a_method_the_catalog_has_no_target_for_is_still_an_override(tmp_path: Path) -> None:
    """`FSDPCommContext.lazy_init` is in the symbol tables only (torch 2.5+); `_my_state` in none."""
    body = """\
_fsdp_param_group.FSDPCommContext.lazy_init = _replacement
_fsdp_param_group.FSDPCommContext._my_state = None
"""
    found = findings(tmp_path, body)
    assert codes(found) == [(1, "FSU101")]
    assert "an override in torch 2.5+ only" in found[0][2]


def test_any_name_on_the_fsdp_module_mixin_is_an_override(tmp_path: Path) -> None:
    """fully_shard puts FSDPModule before the user's nn.Module class: `forward` there shadows the module's."""
    body = """\
from torch.distributed.fsdp._fully_shard._fully_shard import FSDPModule
FSDPModule.reshard = _replacement
FSDPModule.forward = _replacement
"""
    assert codes(findings(tmp_path, body)) == [(2, "FSU101"), (3, "FSU101")]


def test_a_class_default_for_what_upstream_sets_on_self_is_an_override(tmp_path: Path) -> None:
    """FSDPParamGroup's methods set `self.reduce_grads`: a class-level value is a default its code may read."""
    body = """\
FSDPParamGroup.reduce_grads = False
FSDPParamGroup._vendor_reduce_grads = False
"""
    assert codes(findings(tmp_path, body)) == [(1, "FSU101")]


def test_a_name_only_some_releases_define_says_which(tmp_path: Path) -> None:
    body = "_fsdp_collectives.DefaultAllGather.allocate = _replacement\n"
    found = findings(tmp_path, body)
    assert codes(found) == [(1, "FSU101")]
    assert "an override in torch 2.9+ only (no other release defines `allocate`)" in found[0][2]


def test_a_class_inheriting_from_outside_fsdp2_keeps_every_name_reported(tmp_path: Path) -> None:
    """RegisterPostBackwardFunction is a torch.autograd.Function: its names are not all in FSDP2's sources."""
    body = """\
_fsdp_param_group.RegisterPostBackwardFunction.apply = _replacement
"""
    assert codes(findings(tmp_path, body)) == [(1, "FSU101")]


# 2. Patch/unpatch pairs ----------------------------------------------------------------------------

PAIRS = {
    "finally": """\
def run_with_patch(step):
    saved = FSDPParam.to_sharded
    FSDPParam.to_sharded = _replacement
    try:
        step()
    finally:
        FSDPParam.to_sharded = saved
""",
    "context-manager": """\
class patched_unshard:
    def __enter__(self):
        self._previous = FSDPParamGroup.unshard
        FSDPParamGroup.unshard = _replacement

    def __exit__(self, *exc):
        FSDPParamGroup.unshard = self._previous
""",
    "fixture-teardown": """\
@pytest.fixture
def fake_unshard():
    original = getattr(FSDPParamGroup, "unshard")
    FSDPParamGroup.unshard = _replacement
    yield
    setattr(FSDPParamGroup, "unshard", original)
""",
    "undo-function": """\
FSDPParam._kept_to_unsharded = FSDPParam.to_unsharded


def install():
    FSDPParam.to_unsharded = _replacement


def undo():
    FSDPParam.to_unsharded = FSDPParam._kept_to_unsharded
""",
    # torch's own `testing/_internal/common_fsdp.py` saves `orig_reshard` in two functions (one holds another
    # function): each function's local name is its own, and the restore puts its own function's original back.
    "same-name-in-another-function": """\
def delayed_free():
    saved = torch.cuda.synchronize
    return saved


@contextlib.contextmanager
def patched_reshard():
    saved = FSDPParamGroup.reshard
    FSDPParamGroup.reshard = _replacement
    try:
        yield
    finally:
        FSDPParamGroup.reshard = saved
""",
    "closure-undo": """\
def install():
    saved = FSDPParam.to_unsharded
    FSDPParam.to_unsharded = _replacement

    def undo():
        FSDPParam.to_unsharded = saved

    return undo
""",
    "wraps-wrapper": """\
def install():
    @functools.wraps(FSDPParamGroup.unshard)
    def logged(self, *args):
        return logged.__wrapped__(self, *args)

    FSDPParamGroup.unshard = logged


def uninstall():
    FSDPParamGroup.unshard = FSDPParamGroup.unshard.__wrapped__
""",
}


@pytest.mark.parametrize("shape", sorted(PAIRS))
def test_a_restore_is_no_override_and_the_install_says_it_is_scoped(shape: str, tmp_path: Path) -> None:
    body = PAIRS[shape]
    found = findings(tmp_path, body)
    lines = body.splitlines()
    install = next(n for n, text in enumerate(lines, 1) if "= _replacement" in text or "= logged" in text)
    restore = max(n for n, text in enumerate(lines, 1) if n > install and (" = " in text or "setattr(" in text))
    assert codes(found) == [(install, "FSU101")], found
    assert found[0][2].endswith(f"; scoped: the original is restored at line {restore + HEADER.count(chr(10))}")


def test_a_restore_without_a_saved_original_is_an_override(tmp_path: Path) -> None:
    body = """\
def run_with_patch(step, previous):
    FSDPParam.to_sharded = _replacement
    try:
        step()
    finally:
        FSDPParam.to_sharded = previous
"""
    found = findings(tmp_path, body)
    assert codes(found) == [(2, "FSU101"), (6, "FSU101")]
    assert not any("scoped" in message for _, _, message in found)


def test_a_parameter_named_like_a_module_level_original_is_no_saved_original(tmp_path: Path) -> None:
    """Inside the function `saved` is its parameter, whatever the module binds to the same name."""
    body = """\
saved = FSDPParam.to_sharded


def run_with(saved):
    FSDPParam.to_sharded = saved
"""
    assert codes(findings(tmp_path, body)) == [(5, "FSU101")]


def test_a_name_rebound_to_a_replacement_is_no_saved_original(tmp_path: Path) -> None:
    """`saved` first holds the original, then a wrapper: putting it back installs the wrapper."""
    body = """\
saved = FSDPParam.to_sharded
saved = functools.partial(_replacement, 1)
FSDPParam.to_sharded = saved
"""
    assert codes(findings(tmp_path, body)) == [(3, "FSU101")]


def test_copying_a_patched_binding_into_its_twin_is_an_override(tmp_path: Path) -> None:
    """After the patch, `_fsdp_collectives.foreach_reduce` holds the replacement, not the original."""
    body = """\
_fsdp_collectives.foreach_reduce = _replacement
_fsdp_param_group.foreach_reduce = _fsdp_collectives.foreach_reduce
"""
    assert codes(findings(tmp_path, body)) == [(1, "FSU101"), (2, "FSU101")]


def test_an_imported_original_put_back_is_a_restore(tmp_path: Path) -> None:
    body = """\
from torch.distributed.fsdp._fully_shard._fsdp_param_group import foreach_reduce as _original_reduce


def swap():
    _fsdp_param_group.foreach_reduce = _replacement


def unswap():
    _fsdp_param_group.foreach_reduce = _original_reduce
"""
    found = findings(tmp_path, body)
    assert codes(found) == [(5, "FSU101")], found
    assert found[0][2].endswith(f"scoped: the original is restored at line {9 + HEADER.count(chr(10))}")


# 3. FSU401 only when true --------------------------------------------------------------------------


def test_reload_of_the_importing_module_after_the_patch_completes_it(tmp_path: Path) -> None:
    body = """\
def install():
    _fsdp_collectives.foreach_reduce = _replacement
    importlib.reload(_fsdp_param_group)
"""
    assert "FSU401" not in [code for _, code in codes(findings(tmp_path, body))]


@pytest.mark.parametrize(
    "body",
    [
        # reloaded before the patch: the by-name copy was taken from the original
        "def install():\n    importlib.reload(_fsdp_param_group)\n    _fsdp_collectives.foreach_reduce = _replacement\n",
        # reloaded in another scope: nothing says it runs after the patch
        "def install():\n    _fsdp_collectives.foreach_reduce = _replacement\n\n\n"
        "def refresh():\n    importlib.reload(_fsdp_param_group)\n",
        # the source module reloaded: that re-defines the original, it copies nothing
        "def install():\n    _fsdp_collectives.foreach_reduce = _replacement\n    importlib.reload(_fsdp_collectives)\n",
    ],
)
def test_reload_that_does_not_refresh_the_copy_keeps_fsu401(body: str, tmp_path: Path) -> None:
    assert (2 if body.startswith("def install():\n    _fsdp") else 3, "FSU401") in codes(findings(tmp_path, body))


def test_patching_the_only_binding_fsdp2_reads_is_complete(tmp_path: Path) -> None:
    """torch 2.13: only `_fsdp_param_group` calls `foreach_all_gather`; `_fsdp_collectives` never does."""
    body = "_fsdp_param_group.foreach_all_gather = _replacement\n"
    assert codes(findings(tmp_path, body)) == [(1, "FSU101")]


def test_patching_the_binding_nobody_reads_is_incomplete(tmp_path: Path) -> None:
    body = "_fsdp_collectives.foreach_all_gather = _replacement\n"
    found = findings(tmp_path, body)
    assert codes(found) == [(1, "FSU101"), (1, "FSU401")]
    assert "`_fsdp_param_group.foreach_all_gather` is not" in found[1][2]


def test_callers_are_per_release() -> None:
    """The catalog's callers: `_fsdp_param_group` reads its copy of `foreach_reduce` in every release."""
    catalog = load_catalog()
    minors = load_symbols().minors
    assert parse_releases(
        catalog.callers["_fsdp_param_group.foreach_reduce"]["_fsdp_param_group"], minors
    ) == frozenset(minors)
    assert catalog.callers["_fsdp_collectives.foreach_all_gather"] == {}


# 4. FSDP2's family: replicate_with_fsdp ------------------------------------------------------------

REPLICATE = """\
from torch.distributed._composable import replicate_with_fsdp
replicate_with_fsdp._ReplicateState.init = _replacement
replicate_with_fsdp._my_marker = True
"""


def test_replicate_with_fsdp_private_names_are_overrides(tmp_path: Path) -> None:
    found = findings(tmp_path, REPLICATE)
    assert codes(found) == [(2, "FSU101")]
    assert "`replicate_with_fsdp._ReplicateState.init` (torch 2.9+)" in found[0][2]


@pytest.mark.parametrize("torch, expected", [("2.13", True), ("2.10", False)])
def test_init_helper_patched_without_replicates_copy(torch: str, expected: bool, tmp_path: Path) -> None:
    """From torch 2.11 replicate_with_fsdp imports `_init_param_group` by name from `_fsdp_init`."""
    found = findings(tmp_path, "_fsdp_init._init_param_group = _replacement\n", torch=torch)
    stale = [
        m
        for _, code, m in found
        if code == "FSU401" and "`replicate_with_fsdp` imported `_init_param_group` by name" in m
    ]
    assert bool(stale) is expected


def test_explain_takes_a_qualified_name_of_the_family() -> None:
    from fsdp_unpatch.cli import main
    from tests.helpers import cli_runner

    qualified = "torch.distributed._composable.replicate_with_fsdp._ReplicateState.init"
    result = cli_runner().invoke(main, ["explain", qualified])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "replicate_with_fsdp._ReplicateState.init"
    assert "Exists: torch 2.9+" in result.stdout


# data ----------------------------------------------------------------------------------------------


def test_releases_text_round_trips() -> None:
    minors = ["2.4", "2.5", "2.6", "2.7", "2.8"]
    assert format_releases({"2.4", "2.5", "2.7"}, minors) == "2.4-2.5, 2.7"
    assert format_releases({"2.6", "2.7", "2.8"}, minors) == "2.6+"
    for found in ({"2.4", "2.5", "2.7"}, {"2.6", "2.7", "2.8"}, {"2.8"}, set()):
        assert parse_releases(format_releases(found, minors), tuple(minors)) == found


@pytest.mark.skipif(not Path("/work/torch_upstream/2.13.0").is_dir(), reason="torch sources not extracted")
def test_generated_catalog_and_symbol_tables_are_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_catalog_symbols.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
