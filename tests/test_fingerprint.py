"""Tests of fsdp_unpatch.fingerprint: is a function an upstream FSDP2 copy plus NPU tweaks?

Candidates are either written here / in tests/fixtures/fingerprint/, or built at test time from the
installed torch's own source (read with ``ast``; torch is never imported) plus a textual tweak.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from fsdp_unpatch import fingerprint as fp
from fsdp_unpatch.fingerprint import (
    TWEAK_NPU_STREAM,
    TWEAK_SAME_DEVICE_COPY,
    Difference,
    Evidence,
    compare_to_upstream,
    known_targets,
)

FIXTURES = Path(__file__).parent / "fixtures" / "fingerprint"
GET_INPUTS = "_fsdp_collectives._get_param_all_gather_inputs"
COPY_IN = "ops.fsdp.all_gather_copy_in"
FINALIZE = "_fsdp_param_group.FSDPParamGroup.finalize_backward"


def _installed_fsdp_root() -> Path | None:
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


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def replace_once(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, (old, source.count(old))
    return source.replace(old, new)


def tweak_copy(source: str, call: str, template: str) -> str:
    """Replace the statement ``call`` (a foreach copy) by ``template`` at the same indentation.

    ``template`` uses {dst} / {src} and newlines; it is re-indented to the call's indentation.
    """
    match = re.search(rf"^( *){re.escape(call)}\n", source, flags=re.M)
    assert match, call
    indent = match.group(1)
    dst, src = re.match(r"torch\._foreach_copy_\((\w+), (\w+)\)", call).groups()
    body = textwrap.dedent(template).strip("\n").format(dst=dst, src=src)
    block = "".join(indent + line + "\n" for line in body.splitlines())
    return source[: match.start()] + block + source[match.end():]


SAME_DEVICE_EQ = """
if {dst}[0].device == {src}[0].device:
    torch._foreach_copy_({dst}, {src}, non_blocking=True)
else:
    torch._foreach_copy_({dst}, {src})
"""
GET_INPUTS_CALL = "torch._foreach_copy_(splits, foreach_copy_inputs)"
COPY_IN_CALL = "torch._foreach_copy_(foreach_copy_dsts, all_gather_inputs)"


def patched_get_inputs(template: str = SAME_DEVICE_EQ) -> str:
    source = upstream(GET_INPUTS).replace(
        "def _get_param_all_gather_inputs(", "def _patched_get_param_all_gather_inputs("
    )
    return tweak_copy(source, GET_INPUTS_CALL, template)


def line_of(source: str, text: str) -> int:
    for number, line in enumerate(source.splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(text)


# ---------------------------------------------------------------------------------------------
# The public API
# ---------------------------------------------------------------------------------------------


def test_known_targets_cover_the_removable_three():
    assert {GET_INPUTS, COPY_IN, FINALIZE} <= known_targets()


def test_unknown_target_has_no_version():
    ev = compare_to_upstream("def f(x):\n    return x\n", "_fsdp_collectives.no_such_function")
    assert ev == Evidence(False, None, (), (), False)


def test_data_file_is_well_formed():
    data = json.loads(fp.DATA_PATH.read_text(encoding="utf-8"))
    assert data["format"] == 1
    for target, versions in data["targets"].items():
        for version, entry in versions.items():
            n = len(entry["hashes"])
            assert n == len(entry["shapes"]) == len(entry["slots"]) == len(entry["summaries"]), target
            assert all(re.fullmatch(r"[0-9a-f]{16}", h) for h in entry["hashes"])
            assert isinstance(entry["params"], int)


@needs_torch_sources
def test_installed_torch_fingerprints_agree_with_the_data_file():
    """The generator and the run-time path give the same hashes for the installed torch."""
    version = fp.version_key(fp.importlib.metadata.version("torch"))
    data = json.loads(fp.DATA_PATH.read_text(encoding="utf-8"))
    for target in (GET_INPUTS, COPY_IN, FINALIZE):
        stored = {fp.version_key(v): e for v, e in data["targets"][target].items()}
        if version not in stored:
            pytest.skip("installed torch is not in the data file")
        live = fp.fingerprint_function(upstream(target))
        assert list(live.hashes) == stored[version]["hashes"], target


# ---------------------------------------------------------------------------------------------
# _get_param_all_gather_inputs: the same-device tweak (a)
# ---------------------------------------------------------------------------------------------


@needs_torch_sources
def test_unmodified_upstream_matches_without_tweaks():
    ev = compare_to_upstream(upstream(GET_INPUTS), GET_INPUTS)
    assert ev.matched and ev.tweaks == () and ev.differences == ()
    assert not ev.calls_original


@needs_torch_sources
def test_exact_copy_with_same_device_tweak_matches():
    ev = compare_to_upstream(patched_get_inputs(), GET_INPUTS)
    assert ev.matched, ev.differences
    assert ev.tweaks == (TWEAK_SAME_DEVICE_COPY,)
    assert ev.torch_version in ev.matched_versions
    assert ev.differences == ()
    assert not ev.calls_original


@needs_torch_sources
@pytest.mark.parametrize(
    "template",
    [
        pytest.param(SAME_DEVICE_EQ.replace("{dst}[0].device == {src}[0].device",
                                            "{src}[0].device == {dst}[0].device"), id="operands-swapped"),
        pytest.param("""
            if {dst}[0].device != {src}[0].device:
                torch._foreach_copy_({dst}, {src})
            else:
                torch._foreach_copy_({dst}, {src}, non_blocking=True)
            """, id="not-equal"),
        pytest.param("""
            if not ({dst}[0].device == {src}[0].device):
                torch._foreach_copy_({dst}, {src})
            else:
                torch._foreach_copy_({dst}, {src}, non_blocking=True)
            """, id="branches-swapped-under-not"),
        pytest.param(SAME_DEVICE_EQ.replace("non_blocking=True", "True"), id="positional-true"),
        pytest.param("""
            # NPU: same-device D2D copies are queued on the current stream
            if {dst}[0].device == {src}[0].device:  # fast path
                torch._foreach_copy_(
                    {dst},
                    {src},
                    non_blocking=True,  # device-async
                )
            else:
                torch._foreach_copy_({dst}, {src})
            """, id="comments-and-layout"),
    ],
)
def test_tweak_variants_match(template):
    ev = compare_to_upstream(patched_get_inputs(template), GET_INPUTS)
    assert ev.matched, ev.differences
    assert ev.tweaks == (TWEAK_SAME_DEVICE_COPY,)


@needs_torch_sources
def test_tweak_with_other_local_names_matches():
    source = patched_get_inputs()
    for old, new in [("splits", "chunks"), ("foreach_copy_inputs", "srcs"), ("fsdp_params", "params"),
                     ("param_all_gather_inputs", "result")]:
        source = re.sub(rf"\b{old}\b", new, source)
    assert "chunks[0].device == srcs[0].device" in source
    ev = compare_to_upstream(source, GET_INPUTS)
    assert ev.matched, ev.differences
    assert ev.tweaks == (TWEAK_SAME_DEVICE_COPY,)


@needs_torch_sources
def test_annotations_and_docstring_do_not_matter():
    source = patched_get_inputs()
    source = re.sub(r"\) -> [^:]+:\n", "):\n", source, count=1)
    source = source.replace("):\n", '):\n    """NPU copy of the upstream function."""\n', 1)
    ev = compare_to_upstream(source, GET_INPUTS)
    assert ev.matched, ev.differences


@needs_torch_sources
def test_indented_source_is_dedented():
    ev = compare_to_upstream(textwrap.indent(patched_get_inputs(), "        "), GET_INPUTS)
    assert ev.matched


@needs_torch_sources
@pytest.mark.parametrize(
    "extra",
    ["torch.npu.synchronize()", "n_splits = len(splits)"],
    ids=["plain-call", "binds-a-new-local"],
)
def test_one_extra_statement_is_one_difference(extra):
    source = patched_get_inputs()
    anchor = "    # 2nd pass: use foreach copy to compute the remaining all-gather inputs\n"
    source = replace_once(source, anchor, anchor + "    " + extra + "\n")
    ev = compare_to_upstream(source, GET_INPUTS)
    assert not ev.matched
    assert ev.differences == (Difference(line_of(source, extra), extra),)
    assert ev.tweaks == (TWEAK_SAME_DEVICE_COPY,)


@needs_torch_sources
def test_changed_statement_names_both_sides():
    source = replace_once(patched_get_inputs(), "return param_all_gather_inputs", "return None")
    ev = compare_to_upstream(source, GET_INPUTS)
    assert not ev.matched
    assert Difference(line_of(source, "return None"), "return None") in ev.differences
    assert Difference(0, "return param_all_gather_inputs") in ev.differences
    assert len(ev.differences) == 2


@needs_torch_sources
@pytest.mark.parametrize(
    "template",
    [
        pytest.param("torch._foreach_copy_({dst}, {src}, non_blocking=True)", id="unguarded-non-blocking"),
        pytest.param("""
            if {dst}[0].device == {src}[0].device:
                torch._foreach_copy_({dst}, {src})
            else:
                torch._foreach_copy_({dst}, {src}, non_blocking=True)
            """, id="non-blocking-on-the-cross-device-branch"),
        pytest.param("""
            if {dst}[0].device == {src}[0].device:
                torch._foreach_copy_({dst}, {src}, non_blocking=True)
            else:
                torch._foreach_copy_({src}, {dst})
            """, id="branches-copy-different-things"),
    ],
)
def test_other_non_blocking_forms_are_not_the_tweak(template):
    ev = compare_to_upstream(patched_get_inputs(template), GET_INPUTS)
    assert not ev.matched
    assert TWEAK_SAME_DEVICE_COPY not in ev.tweaks
    assert len(ev.differences) == 2  # the changed statement and the upstream one it replaced


@needs_torch_sources
def test_no_grad_decorator_matters():
    source = replace_once(patched_get_inputs(), "@torch.no_grad()\n", "")
    ev = compare_to_upstream(source, GET_INPUTS)
    assert not ev.matched
    assert any("torch.no_grad()" in d.text and d.line == 0 for d in ev.differences)


# ---------------------------------------------------------------------------------------------
# all_gather_copy_in and finalize_backward
# ---------------------------------------------------------------------------------------------


@needs_torch_sources
def test_current_copy_in_kernel_with_tweak_matches():
    source = tweak_copy(upstream(COPY_IN), COPY_IN_CALL, SAME_DEVICE_EQ)
    ev = compare_to_upstream(source, COPY_IN)
    assert ev.matched, ev.differences
    assert ev.tweaks == (TWEAK_SAME_DEVICE_COPY,)


def test_copy_in_with_the_old_7_parameter_signature_matches_that_version():
    ev = compare_to_upstream(fixture("all_gather_copy_in_7_params.py.txt"), COPY_IN)
    assert ev.matched, ev.differences
    assert ev.tweaks == (TWEAK_SAME_DEVICE_COPY,)
    data = json.loads(fp.DATA_PATH.read_text(encoding="utf-8"))["targets"][COPY_IN]
    assert ev.matched_versions and all(data[v]["params"] == 7 for v in ev.matched_versions)
    assert data[ev.torch_version]["params"] == 7
    assert fp.version_key(ev.torch_version) < (2, 8)


def test_copy_in_with_the_old_signature_differs_from_the_newest():
    newest = max(json.loads(fp.DATA_PATH.read_text(encoding="utf-8"))["targets"][COPY_IN], key=fp.version_key)
    ev = compare_to_upstream(fixture("all_gather_copy_in_7_params.py.txt"), COPY_IN)
    assert newest not in ev.matched_versions


@needs_torch_sources
@pytest.mark.parametrize("npu_stream", ["torch.npu.current_stream()", "torch_npu.npu.current_stream()"])
def test_finalize_backward_with_npu_stream_matches(npu_stream):
    source = upstream(FINALIZE)
    source = re.sub(r"self\.device_handle\.current_stream\(\)|torch\.(accelerator|cuda)\.current_stream\(\)",
                    npu_stream, source)
    assert npu_stream in source
    ev = compare_to_upstream(source, FINALIZE)
    assert ev.matched, ev.differences
    assert ev.tweaks == (TWEAK_NPU_STREAM,)


# ---------------------------------------------------------------------------------------------
# calls_original
# ---------------------------------------------------------------------------------------------


def test_wrapper_calling_a_saved_original_by_given_name():
    source = fixture("foreach_reduce_wrapper.py.txt")
    target = "_fsdp_collectives.foreach_reduce"
    assert compare_to_upstream(source, target, original_names=frozenset({"origin_foreach_reduce"})).calls_original
    assert not compare_to_upstream(source, target).calls_original


def test_wrapper_calling_the_original_by_its_short_name():
    ev = compare_to_upstream(fixture("finalize_backward_method_wrapper.py.txt"), FINALIZE)
    assert ev.calls_original
    assert not ev.matched


def test_calls_through_the_op_default_overload():
    source = "def f(*a):\n    return torch.ops.fsdp.all_gather_copy_in.default(*a)\n"
    assert compare_to_upstream(source, COPY_IN).calls_original


# ---------------------------------------------------------------------------------------------
# upstream_dirs
# ---------------------------------------------------------------------------------------------


@needs_torch_sources
def test_upstream_dirs_are_fingerprinted_on_the_fly(tmp_path):
    rel = INSTALLED.relative_to(INSTALLED.parents[3])  # torch/distributed/fsdp/_fully_shard
    shutil.copytree(INSTALLED, tmp_path / "9.9.0" / rel, ignore=shutil.ignore_patterns("__pycache__"))
    ev = compare_to_upstream(patched_get_inputs(), GET_INPUTS, upstream_dirs=[tmp_path])
    assert ev.matched and ev.matched_versions == ("9.9.0",)
    ev = compare_to_upstream(patched_get_inputs(), GET_INPUTS, upstream_dirs=tmp_path / "9.9.0")
    assert ev.torch_version == "9.9.0"


# ---------------------------------------------------------------------------------------------
# Normalisation steps and the serialiser (properties, not frozen hashes)
# ---------------------------------------------------------------------------------------------


def hashes(source: str) -> tuple[str, ...]:
    return fp.fingerprint_function(source).hashes


def test_renaming_locals_and_params_does_not_change_the_hashes():
    a = "def f(x, y):\n    total = x + y\n    for item in y:\n        total += item\n    return total\n"
    b = "def g(p, q):\n    acc = p + q\n    for it in q:\n        acc += it\n    return acc\n"
    assert hashes(a) == hashes(b)


def test_globals_and_attributes_keep_their_names():
    a = "def f(x):\n    return torch.empty(x)\n"
    b = "def f(x):\n    return numpy.empty(x)\n"
    c = "def f(x):\n    return torch.zeros(x)\n"
    assert hashes(a) != hashes(b) and hashes(a) != hashes(c)


def test_swapping_two_locals_changes_the_hashes():
    a = "def f(x, y):\n    return g(x, y)\n"
    b = "def f(x, y):\n    return g(y, x)\n"
    assert hashes(a) != hashes(b)


def test_a_global_named_like_a_renamed_local_does_not_collide():
    a = "def f(x):\n    return v0\n"
    b = "def f(x):\n    return x\n"
    assert hashes(a) != hashes(b)


def test_changing_a_constant_changes_the_hash():
    assert hashes("def f(x):\n    return x + 1\n") != hashes("def f(x):\n    return x + 2\n")
    assert hashes("def f(x):\n    return x + 1\n") != hashes("def f(x):\n    return x + 1.0\n")
    assert hashes("def f(x):\n    return 'a'\n") != hashes("def f(x):\n    return b'a'\n")


def test_annotations_do_not_matter():
    a = "def f(x: int, *, y: 'T' = 3) -> list[int]:\n    z: list[int] = [x, y]\n    w: int\n    return z\n"
    b = "def f(x, *, y=3):\n    z = [x, y]\n    return z\n"
    assert hashes(a) == hashes(b)


def test_docstrings_and_comments_do_not_matter():
    a = 'def f(x):\n    """Doc."""\n    # comment\n    return x  # trailing\n'
    assert hashes(a) == hashes("def f(x):\n    return x\n")


def test_function_name_does_not_matter():
    assert hashes("def f(x):\n    return x\n") == hashes("def _patched_f(x):\n    return x\n")


def test_library_impl_decorators_do_not_matter_but_no_grad_does():
    plain = "def k(x):\n    return x\n"
    registered = (
        '@torch.library.impl(lib, "op", "CUDA")\n@torch.library.impl(lib, "op", "PrivateUse1")\n' + plain
    )
    no_grad = "@torch.no_grad()\n" + plain
    assert hashes(registered) == hashes(plain)
    assert hashes(no_grad) != hashes(plain)


def test_default_values_matter():
    assert hashes("def f(x=1):\n    return x\n") != hashes("def f(x=2):\n    return x\n")


def test_serializer_skips_none_and_empty_lists_and_positions():
    a = ast.parse("f(x)").body[0]
    b = ast.parse("\n\n    f(x)".strip()).body[0]
    text = fp.serialize(a)
    assert text == fp.serialize(b)
    assert "lineno" not in text and "None" not in text and "type_params" not in text
    assert text.startswith("Expr(value=Call(")


def test_serializer_shape_mode_collects_local_slots():
    slots: list[int] = []
    node = ast.parse("g(%s, y, %s)" % ("a", "a")).body[0]
    node.value.args[0].id = fp._LOCAL_MARK + "3"
    node.value.args[2].id = fp._LOCAL_MARK + "3"
    shape = fp.serialize(node, slots)
    assert slots == [3, 3] and "'y'" in shape


def test_fold_same_device_copy_is_a_named_step():
    fn = fp.parse_function(
        "def f(a, b):\n"
        "    if b[0].device != a[0].device:\n"
        "        torch._foreach_copy_(a, b)\n"
        "    else:\n"
        "        torch._foreach_copy_(a, b, non_blocking=True)\n"
    )
    fn, n = fp.fold_same_device_copy(fn)
    assert n == 1
    assert ast.unparse(fn.body[0]) == "torch._foreach_copy_(a, b)"


def test_canonicalise_current_stream_maps_every_spelling_to_one_form():
    forms = [
        "torch.npu.current_stream()", "torch_npu.npu.current_stream()", "torch.cuda.current_stream()",
        "self.device_handle.current_stream()", "torch.accelerator.current_stream()",
    ]
    outs = set()
    for form in forms:
        fn = fp.parse_function(f"def m(self, e):\n    {form}.wait_event(e)\n")
        fn, tweaks = fp.canonicalise_current_stream(fn)
        outs.add(ast.unparse(fn.body[0]))
        assert (TWEAK_NPU_STREAM in tweaks) == ("npu" in form)
    assert len(outs) == 1
    # with an argument it is another call (a specific device's stream): left alone
    fn = fp.parse_function("def m(self, e):\n    torch.npu.current_stream(1).wait_event(e)\n")
    fn, tweaks = fp.canonicalise_current_stream(fn)
    assert not tweaks and "torch.npu" in ast.unparse(fn)


def test_alpha_rename_orders_by_first_appearance():
    fn = fp.parse_function("def f(a, b):\n    c = b\n    return torch.cat([c, a])\n")
    mapping = fp.alpha_rename(fn)
    assert [mapping[n] for n in ("a", "b", "c")] == [fp._LOCAL_MARK + str(i) for i in range(3)]
    assert "torch" not in mapping


def test_summaries_are_one_line_and_short():
    source = "def f(x):\n    y = some_function_with_a_long_name(x, " + ", ".join(["x"] * 40) + ")\n    return y\n"
    ev = compare_to_upstream(source, GET_INPUTS)
    assert all("\n" not in d.text and len(d.text) <= 80 for d in ev.differences)


@needs_torch_sources
def test_installed_torch_newer_than_the_data_is_fingerprinted_at_run_time(tmp_path, monkeypatch):
    rel = INSTALLED.relative_to(INSTALLED.parents[3])
    root = tmp_path / rel
    shutil.copytree(INSTALLED, root, ignore=shutil.ignore_patterns("__pycache__"))
    path = root / "_fsdp_collectives.py"
    path.write_text(replace_once(path.read_text(encoding="utf-8"), "    return param_all_gather_inputs\n",
                                 "    record(param_all_gather_inputs)\n    return param_all_gather_inputs\n"))
    monkeypatch.setattr(fp, "_installed_torch", lambda: ("99.0.0", root))
    fp._default_prints.cache_clear()
    try:
        source = replace_once(patched_get_inputs(), "    return param_all_gather_inputs\n",
                              "    record(param_all_gather_inputs)\n    return param_all_gather_inputs\n")
        ev = compare_to_upstream(source, GET_INPUTS)
        assert ev.matched and ev.matched_versions == ("99.0.0",)
        monkeypatch.setattr(fp, "_installed_torch", lambda: ("2.5.0", root))  # older: not used
        fp._default_prints.cache_clear()
        assert "99.0.0" not in compare_to_upstream(source, GET_INPUTS).matched_versions
        assert not compare_to_upstream(source, GET_INPUTS).matched
    finally:
        fp._default_prints.cache_clear()
