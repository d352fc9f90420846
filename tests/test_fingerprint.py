"""Tests of fsdp_unpatch.fingerprint: is a function an upstream FSDP2 function, up to named normalisations?

Candidates are written here / in tests/fixtures/fingerprint/, or built at test time from the installed
torch's own source (read with ``ast``; torch is never imported) plus a textual change.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fsdp_unpatch import fingerprint as fp
from fsdp_unpatch.fingerprint import PIPELINE, Scope, compare_functions, compare_to_upstream, known_targets, normalise
from fsdp_unpatch.fingerprint.upstream import default_upstream, read_dirs

FIXTURES = Path(__file__).parent / "fixtures" / "fingerprint"
GET_INPUTS = "_fsdp_collectives._get_param_all_gather_inputs"
COPY_IN = "ops.fsdp.all_gather_copy_in"
FINALIZE = "_fsdp_param_group.FSDPParamGroup.finalize_backward"
COPY_MODULE = "npu_vendor.fsdp_patch"  # the module a copy lives in


def _installed_fsdp_root() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    return fp.module_root(Path(list(spec.submodule_search_locations)[0]).parent)


INSTALLED = _installed_fsdp_root()
needs_torch_sources = pytest.mark.skipif(INSTALLED is None, reason="torch sources not installed")


def upstream(target: str) -> str:
    source = fp.extract_target_source(INSTALLED, target)
    assert source is not None, target
    return textwrap.dedent(source)


def copy_scope(target: str, **rebind: str) -> Scope:
    """The scope of a copy that imports what upstream's function uses, from where upstream has it."""
    function = fp.upstream_function(INSTALLED, target)
    assert function is not None
    return Scope(COPY_MODULE, {**function.scope.bindings, **rebind})


def compare(source: str, target: str, **rebind: str):
    return compare_to_upstream(source, target, scope=copy_scope(target, **rebind))


def replace_once(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, (old, source.count(old))
    return source.replace(old, new)


def tweak_copy(source: str, call: str, template: str) -> str:
    """Replace the statement ``call`` (a foreach copy) by ``template`` (uses {dst}/{src}) at its indentation."""
    match = re.search(rf"^( *){re.escape(call)}\n", source, flags=re.M)
    assert match, call
    indent = match.group(1)
    dst, src = re.match(r"torch\._foreach_copy_\((\w+), (\w+)\)", call).groups()
    body = textwrap.dedent(template).strip("\n").format(dst=dst, src=src)
    return source[: match.start()] + "".join(indent + line + "\n" for line in body.splitlines()) + source[match.end() :]


SAME_DEVICE_EQ = """
if {dst}[0].device == {src}[0].device:
    torch._foreach_copy_({dst}, {src}, non_blocking=True)
else:
    torch._foreach_copy_({dst}, {src})
"""
GET_INPUTS_CALL = "torch._foreach_copy_(splits, foreach_copy_inputs)"
COPY_IN_CALL = "torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)"


def patched_get_inputs(template: str = SAME_DEVICE_EQ, no_grad: bool = True) -> str:
    source = upstream(GET_INPUTS).replace(
        "def _get_param_all_gather_inputs(", "def _patched_get_param_all_gather_inputs("
    )
    if not no_grad:
        source = replace_once(source, "@torch.no_grad()\n", "")
    return tweak_copy(source, GET_INPUTS_CALL, template)


def line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


# ---------------------------------------------------------------------------------------------
# Every normalisation: its examples must match with it, not without it; its must-not cases never match
# ---------------------------------------------------------------------------------------------

UNITS = [(n, i) for n in PIPELINE for i in range(len(n.must_match))]


def _example(source: str, module: str) -> tuple[str, Scope]:
    text = normalise.EXAMPLE_IMPORTS + source
    return text, Scope.of_module(text, module)


def _compare_example(candidate: str, upstream_text: str, pipeline=PIPELINE):
    cand, cand_scope = _example(candidate, COPY_MODULE)
    up, up_scope = _example(upstream_text, "torch.distributed.fsdp._fully_shard._fsdp_collectives")
    return compare_functions(cand, cand_scope, up, up_scope, no_grad_proven=True, pipeline=pipeline)


def test_every_normalisation_has_examples_both_ways():
    for unit in PIPELINE:
        assert unit.must_match and unit.must_differ, unit.name


@pytest.mark.parametrize("unit,index", UNITS, ids=[f"{n.name}-{i}" for n, i in UNITS])
def test_a_normalisation_makes_its_examples_match_and_is_needed_for_it(unit, index):
    candidate, upstream_text = unit.must_match[index]
    equal, used = _compare_example(candidate, upstream_text)
    assert equal
    if unit.label:
        assert unit.label in used
    without = tuple(n for n in PIPELINE if n is not unit)
    assert not _compare_example(candidate, upstream_text, without)[0], "the unit is what makes them match"


MUST_DIFFER = [(n, i) for n in PIPELINE for i in range(len(n.must_differ))]


@pytest.mark.parametrize("unit,index", MUST_DIFFER, ids=[f"{n.name}-{i}" for n, i in MUST_DIFFER])
def test_a_normalisation_never_hides_a_real_change(unit, index):
    candidate, upstream_text = unit.must_differ[index]
    assert not _compare_example(candidate, upstream_text)[0]


# ---------------------------------------------------------------------------------------------
# The data file
# ---------------------------------------------------------------------------------------------


def test_known_targets_cover_the_removable_three():
    assert {GET_INPUTS, COPY_IN, FINALIZE} <= known_targets()


def test_unknown_target_has_no_version():
    ev = compare_to_upstream("def f(x):\n    return x\n", "_fsdp_collectives.no_such_function")
    assert not ev.matched and ev.torch_version is None and ev.differences == ()


def test_data_file_is_well_formed():
    data = json.loads(fp.DATA_PATH.read_text(encoding="utf-8"))
    assert data["format"] == 2
    for target, versions in data["targets"].items():
        for version, key in versions.items():
            body = data["bodies"][key]
            assert body["source"].lstrip().startswith(("def ", "@")), (target, version)
            assert body["module"].startswith("torch.distributed."), body["module"]
            assert all(isinstance(v, str) for v in body["names"].values())


@needs_torch_sources
def test_the_installed_torch_read_now_equals_its_data_entry():
    """The generator's reading of a release and the shipped data agree (what `--check` checks for all)."""
    version = importlib.metadata.version("torch").split("+")[0]
    data = json.loads(fp.DATA_PATH.read_text(encoding="utf-8"))
    if version not in data["targets"][GET_INPUTS]:
        pytest.skip("installed torch is newer than the data file")
    live = read_dirs({version: INSTALLED}, data["targets"])
    shipped = default_upstream()
    for target in (GET_INPUTS, COPY_IN, FINALIZE):
        assert live.functions[target][version] == shipped.functions[target][version], target
        assert live.callers[target][version] == shipped.callers[target][version], target


def test_no_grad_is_proven_only_where_every_caller_runs_under_it():
    data = default_upstream()
    assert data.no_grad_proven(GET_INPUTS)  # its only caller, foreach_all_gather, is @torch.no_grad()
    assert not data.no_grad_proven(FINALIZE)


# ---------------------------------------------------------------------------------------------
# _get_param_all_gather_inputs: the same-device tweak and the missing no_grad
# ---------------------------------------------------------------------------------------------


@needs_torch_sources
def test_unmodified_upstream_matches_without_normalisations():
    ev = compare(upstream(GET_INPUTS), GET_INPUTS)
    assert ev.matched and ev.normalisations == () and ev.differences == ()
    assert not ev.calls_original


@needs_torch_sources
def test_copy_with_the_tweak_and_without_no_grad_matches_and_says_so():
    ev = compare(patched_get_inputs(no_grad=False), GET_INPUTS)
    assert ev.matched, ev.differences
    assert ev.normalisations == (normalise.SAME_DEVICE_COPY.label, normalise.NO_GRAD.label)
    assert ev.torch_version in ev.matched_versions


@needs_torch_sources
@pytest.mark.parametrize(
    "template",
    [
        pytest.param(
            SAME_DEVICE_EQ.replace("{dst}[0].device == {src}[0].device", "{src}[0].device == {dst}[0].device"),
            id="operands-swapped",
        ),
        pytest.param(
            """
            if not ({dst}[0].device == {src}[0].device):
                torch._foreach_copy_({dst}, {src})
            else:
                torch._foreach_copy_({dst}, {src}, non_blocking=True)
            """,
            id="branches-swapped-under-not",
        ),
        pytest.param(
            """
            # NPU: same-device D2D copies are queued on the current stream
            if {dst}[0].device == {src}[0].device:  # fast path
                torch._foreach_copy_(
                    {dst},
                    {src},
                    non_blocking=True,  # device-async
                )
            else:
                torch._foreach_copy_({dst}, {src})
            """,
            id="comments-and-layout",
        ),
    ],
)
def test_tweak_variants_match(template):
    ev = compare(patched_get_inputs(template), GET_INPUTS)
    assert ev.matched, ev.differences
    assert ev.normalisations == (normalise.SAME_DEVICE_COPY.label,)


@needs_torch_sources
def test_other_local_names_annotations_and_docstrings_do_not_matter():
    source = patched_get_inputs()
    for old, new in [("splits", "chunks"), ("foreach_copy_inputs", "srcs"), ("fsdp_params", "params")]:
        source = re.sub(rf"\b{old}\b", new, source)
    source = re.sub(r"\) -> [^:]+:\n", "):\n", source, count=1)
    source = source.replace("):\n", '):\n    """NPU copy of the upstream function."""\n', 1)
    ev = compare(textwrap.indent(source, "    "), GET_INPUTS)
    assert ev.matched, ev.differences


@needs_torch_sources
@pytest.mark.parametrize(
    "template",
    [
        pytest.param("torch._foreach_copy_({dst}, {src}, non_blocking=True)", id="unguarded-non-blocking"),
        pytest.param(
            """
            if {dst}[0].device == {src}[0].device:
                torch._foreach_copy_({dst}, {src})
            else:
                torch._foreach_copy_({dst}, {src}, non_blocking=True)
            """,
            id="non-blocking-on-the-cross-device-branch",
        ),
        pytest.param(
            """
            if {dst}[0].device == {src}[0].device:
                torch._foreach_copy_({dst}, {src}, non_blocking=True)
            else:
                torch._foreach_copy_({src}, {dst})
            """,
            id="branches-copy-different-things",
        ),
    ],
)
def test_other_non_blocking_forms_are_not_the_tweak(template):
    ev = compare(patched_get_inputs(template), GET_INPUTS)
    assert not ev.matched
    assert normalise.SAME_DEVICE_COPY.label not in ev.normalisations
    assert ev.differences and ev.diff.startswith("--- torch ")


@needs_torch_sources
def test_a_nested_change_is_reported_at_its_own_line_with_a_diff():
    source = patched_get_inputs()
    source = replace_once(
        source, "param_all_gather_inputs[i] = [split]", "param_all_gather_inputs[i] = [split.clone()]"
    )
    ev = compare(source, GET_INPUTS)
    assert not ev.matched
    line = line_of(source, "[split.clone()]")
    assert [d.line for d in ev.differences if d.line] == [line]
    assert any(d.line == 0 and "[split]" in d.text for d in ev.differences)
    assert "+" in ev.diff and "split.clone()" in ev.diff


@needs_torch_sources
@pytest.mark.parametrize("extra", ["torch.npu.synchronize()", "n_splits = len(splits)"], ids=["call", "new-local"])
def test_one_extra_statement_is_one_difference(extra):
    source = patched_get_inputs()
    anchor = "    # 2nd pass: use foreach copy to compute the remaining all-gather inputs\n"
    source = replace_once(source, anchor, anchor + "    " + extra + "\n")
    ev = compare(source, GET_INPUTS)
    assert not ev.matched
    assert [(d.line, d.text) for d in ev.differences] == [(line_of(source, extra), extra)]


@needs_torch_sources
def test_a_global_bound_elsewhere_is_a_difference():
    """`ShardedState` must be FSDP2's: the same text with another import is not upstream's function."""
    ev = compare(patched_get_inputs(), GET_INPUTS, ShardedState="my_vendor.states.ShardedState")
    assert not ev.matched
    assert ev.differences and all(d.rebound for d in ev.differences if d.line)


# ---------------------------------------------------------------------------------------------
# finalize_backward and all_gather_copy_in
# ---------------------------------------------------------------------------------------------


def _real_finalize_shape() -> str:
    """finalize_backward as torch-npu copies write it: assignment then `if`, the NPU stream."""
    source = upstream(FINALIZE)
    source = re.sub(
        r"^( *)if \(event := (.+)\) is not None:",
        lambda m: f"{m[1]}event = {m[2]}\n{m[1]}if event is not None:",
        source,
        flags=re.M,
    )
    return re.sub(r"torch\.accelerator\.current_stream\(\)", "torch.npu.current_stream()", source)


@needs_torch_sources
def test_finalize_backward_as_torch_npu_writes_it_matches_up_to_two_named_normalisations():
    source = _real_finalize_shape()
    assert "event = self._all_gather_result.all_gather_event" in source
    ev = compare(source, FINALIZE)
    assert ev.matched, ev.differences
    assert set(ev.normalisations) == {normalise.WALRUS.label, normalise.STREAMS.label}


@needs_torch_sources
def test_the_dist_spoof_is_no_proof():
    ev = compare(_real_finalize_shape(), FINALIZE, dist="my_vendor.fake_distributed")
    assert not ev.matched
    assert any(d.rebound and "dist.distributed_c10d.Work" in d.text for d in ev.differences)


@needs_torch_sources
def test_no_grad_added_where_it_is_not_proven_redundant_is_a_difference():
    ev = compare("@torch.no_grad()\n" + upstream(FINALIZE), FINALIZE)
    assert not ev.matched


@needs_torch_sources
def test_current_copy_in_kernel_with_tweak_matches():
    ev = compare(tweak_copy(upstream(COPY_IN), COPY_IN_CALL, SAME_DEVICE_EQ), COPY_IN)
    assert ev.matched, ev.differences


def test_copy_in_with_the_old_7_parameter_signature_matches_that_version():
    text = (FIXTURES / "all_gather_copy_in_7_params.py.txt").read_text(encoding="utf-8")
    ev = compare_to_upstream(text, COPY_IN, scope=Scope.of_module(text, COPY_MODULE))
    assert ev.matched, ev.differences
    assert fp.version_key(ev.torch_version) < (2, 8)
    newest = max(default_upstream().functions[COPY_IN], key=fp.version_key)
    assert newest not in ev.matched_versions


# ---------------------------------------------------------------------------------------------
# calls_original, upstream_dirs
# ---------------------------------------------------------------------------------------------


def test_wrapper_calling_a_saved_original_by_given_name():
    source = (FIXTURES / "foreach_reduce_wrapper.py.txt").read_text(encoding="utf-8")
    target = "_fsdp_collectives.foreach_reduce"
    assert compare_to_upstream(source, target, original_names=frozenset({"origin_foreach_reduce"})).calls_original
    assert not compare_to_upstream(source, target).calls_original


def test_wrapper_calling_the_original_by_its_short_name():
    ev = compare_to_upstream(
        (FIXTURES / "finalize_backward_method_wrapper.py.txt").read_text(encoding="utf-8"), FINALIZE
    )
    assert ev.calls_original and not ev.matched


def test_calls_through_the_op_default_overload():
    source = "def f(*a):\n    return torch.ops.fsdp.all_gather_copy_in.default(*a)\n"
    assert compare_to_upstream(source, COPY_IN).calls_original


@needs_torch_sources
def test_upstream_dirs_are_read_on_the_fly(tmp_path):
    rel = INSTALLED.relative_to(INSTALLED.parents[3])  # torch/distributed/fsdp/_fully_shard
    shutil.copytree(INSTALLED, tmp_path / "9.9.0" / rel, ignore=shutil.ignore_patterns("__pycache__"))
    ev = compare_to_upstream(patched_get_inputs(), GET_INPUTS, scope=copy_scope(GET_INPUTS), upstream_dirs=[tmp_path])
    assert ev.matched and ev.matched_versions == ("9.9.0",)


def _installed_as_sources(folder: Path) -> Path:
    """The installed torch's FSDP2 sources laid out as scripts/fetch_torch_sources.py lays out a release."""
    import torch

    rel = INSTALLED.relative_to(INSTALLED.parents[3])  # torch/distributed/fsdp/_fully_shard
    shutil.copytree(
        INSTALLED, folder / torch.__version__.split("+")[0] / rel, ignore=shutil.ignore_patterns("__pycache__")
    )
    return folder


def _generator_check(sources: Path, *outputs: str) -> subprocess.CompletedProcess:
    script = Path(__file__).resolve().parent.parent / "scripts" / "gen_fingerprints.py"
    return subprocess.run(
        [sys.executable, str(script), str(sources), "--check", *outputs], capture_output=True, text=True
    )


@needs_torch_sources
def test_the_upstream_data_file_is_what_the_generator_writes(tmp_path: Path) -> None:
    """The installed torch (the test extras pin one) is one of the releases the data files were generated from:
    its part of both files is what the generator writes from its sources."""
    done = _generator_check(_installed_as_sources(tmp_path / "sources"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("is up to date for the 1 of") == 2


@needs_torch_sources
def test_the_generator_check_finds_a_stale_entry_of_the_releases_it_has(tmp_path: Path) -> None:
    import torch

    from fsdp_unpatch.fingerprint import upstream

    version = torch.__version__.split("+")[0]
    data = json.loads(upstream.DATA_PATH.read_text(encoding="utf-8"))
    target = next(t for t, by_release in data["targets"].items() if version in by_release)
    data["targets"][target][version] = "000000000000"
    stale = tmp_path / "upstream.json"
    stale.write_text(json.dumps(data), encoding="utf-8")
    releases = tmp_path / "releases.json"
    shutil.copy(upstream.DATA_PATH.parent / "upstream_releases.json", releases)
    done = _generator_check(
        _installed_as_sources(tmp_path / "sources"), "-o", str(stale), "--releases-output", str(releases)
    )
    assert done.returncode == 1
    assert f"/targets/{target}/{version}: differs" in done.stderr
