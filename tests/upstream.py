"""Build replacement functions for fixtures from the installed torch's own FSDP2 sources.

A fixture line `# @upstream TARGET NAME TWEAK` becomes the upstream function TARGET, renamed NAME,
with one NPU tweak applied, so that fixtures carry real upstream code without copying it by hand.
`TARGET@VERSION` takes the function of an older torch release from the shipped upstream data instead
(its text has no comments or docstrings): the proofs' data for their targets, else every release's FSDP2
(`data/upstream_releases.json`) for any other function. The tweaks:
- `as-is`: none (a plain copy of that release's function);
- `same-device`: the foreach copy becomes the NPU same-device `non_blocking=True` special case;
- `same-device-ne`: the same written with `!=` and the branches the other way round;
- `npu-stream`: the accelerator's current stream becomes the hard-coded `torch.npu.current_stream()`;
- `cuda-stream`: the same with `torch.cuda.current_stream()`, another device's stream (no NPU copy);
- `nested-annotation-call`, `top-annotation-call`: the same-device tweak plus a return annotation that calls
  `print` (of the first nested function, or of the copy itself): code that runs, never an upstream copy;
- `extra-sync`: the same-device tweak plus one extra statement (no longer an upstream copy);
- `premul-sum`: `foreach_reduce` with a statement emulating PREMUL_SUM on a backend without it;
- `device-list-npu`: `_root_pre_forward` with "npu" added to the device types it moves inputs for;
- `bare-torch-declaration`: the same-device tweak plus a bare `torch: object` declaration in the body, which
  makes `torch` local to the whole function (the copy raises UnboundLocalError; it is no upstream copy).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import textwrap
from pathlib import Path

from fsdp_unpatch import fingerprint
from fsdp_unpatch.fingerprint.upstream import default_upstream

PLACEHOLDER = re.compile(r"^# @upstream (\S+) (\S+) (\S+)\n", re.MULTILINE)
PREMUL_ANCHOR = re.compile(r"^(?P<indent>[ \t]*)if reduce_scatter_group is None:\n", re.MULTILINE)
FOREACH_COPY = re.compile(r"^(?P<indent>[ \t]*)torch\._foreach_copy_\((?P<dst>\w+), (?P<src>\w+)\)\n", re.MULTILINE)


def fsdp2_root() -> Path:
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.submodule_search_locations, "torch is needed to build these fixtures"
    root = fingerprint.module_root(Path(list(spec.submodule_search_locations)[0]).parent)
    assert root is not None
    return root


def _same_device(match: re.Match, not_equal: bool, extra: bool, declare: bool = False) -> str:
    i, dst, src = match["indent"], match["dst"], match["src"]
    fast = f"{i}    torch._foreach_copy_({dst}, {src}, non_blocking=True)\n"
    plain = f"{i}    torch._foreach_copy_({dst}, {src})\n"
    if not_equal:
        text = f"{i}if {dst}[0].device != {src}[0].device:\n{plain}{i}else:\n{fast}"
    else:
        text = f"{i}if {dst}[0].device == {src}[0].device:\n{fast}{i}else:\n{plain}"
    if extra:
        text += f"{i}torch.npu.synchronize()\n"
    if declare:
        text = f"{i}torch: object  # declared, never assigned\n" + text
    return text


def _release_source(target: str, version: str) -> str:
    """`target` as torch `version` had it, from the data file the tool ships (a release not installed here)."""
    releases = default_upstream().functions.get(target, {})
    if version in releases:
        return releases[version].source
    from fsdp_unpatch.fingerprint.releases import known_releases

    release = known_releases().get(version)
    assert release is not None and target in release.functions, f"no torch {version} {target} in the upstream data"
    return release.functions[target]


def upstream_copy(target: str, name: str, tweak: str) -> str:
    target, _, version = target.partition("@")
    if version:
        source = _release_source(target, version)
    else:
        found = fingerprint.extract_target_source(fsdp2_root(), target)
        assert found is not None, f"torch has no {target}"
        source = textwrap.dedent(found)
    source = "".join(
        line for line in source.splitlines(keepends=True) if not line.lstrip().startswith("@torch.library.impl")
    )
    source = re.sub(r"def \w+\(", f"def {name}(", source, count=1)
    if tweak == "as-is":
        return source
    if tweak in ("nested-annotation-call", "top-annotation-call"):
        # the same-device tweak plus an annotation that calls something (of the nested helper, or the copy's own)
        nested = tweak == "nested-annotation-call"
        anchor = re.compile(r"(\n[ \t]+def \w+\([^)]*\)) -> " if nested else r"(\)) -> ")
        source, count = anchor.subn(lambda m: m[1] + ' -> print("annotation evaluated") or ', source, count=1)
        assert count == 1
        tweak = "same-device"
    if tweak in ("same-device", "same-device-ne", "extra-sync", "bare-torch-declaration"):
        source, count = FOREACH_COPY.subn(
            lambda m: _same_device(
                m, tweak == "same-device-ne", tweak == "extra-sync", tweak == "bare-torch-declaration"
            ),
            source,
            count=1,
        )
        assert count == 1
    elif tweak == "premul-sum":
        source, count = PREMUL_ANCHOR.subn(
            lambda m: (
                f'{m["indent"]}if "PREMUL_SUM" in str(reduce_scatter_op):  # no PREMUL_SUM on NPU: emulate it\n'
                f"{m['indent']}    predivide_factor, reduce_scatter_op = reduce_scatter_group.size(), ReduceOp.SUM\n"
                + m[0]
            ),
            source,
            count=1,
        )
        assert count == 1
    elif tweak == "device-list-npu":
        assert "self._device.type in [" in source
        source = source.replace("self._device.type in [", 'self._device.type in ["npu", ', 1)
    elif tweak in ("npu-stream", "cuda-stream"):
        assert "torch.accelerator.current_stream()" in source
        device = "npu" if tweak == "npu-stream" else "cuda"
        source = source.replace("torch.accelerator.current_stream()", f"torch.{device}.current_stream()")
    else:
        raise ValueError(tweak)
    return source


def expand(text: str) -> str:
    return PLACEHOLDER.sub(lambda m: upstream_copy(m[1], m[2], m[3]), text)


def expanded_copy(source: Path, destination: Path) -> Path:
    """A copy of a fixture tree (without caches and `conftest.py`) with its `# @upstream` lines expanded."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns("__pycache__", "conftest.py"))
    for path in destination.rglob("*.py"):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if "# @upstream " in text:
            path.write_text(expand(text), encoding="utf-8", errors="surrogateescape")
    return destination
