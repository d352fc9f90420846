"""The same-device copy tweak is recognised in one place (`fingerprint/same_device.py`): FSU005 fires on exactly
the `if` forms the fingerprints fold away, whatever the spelling."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fsdp_unpatch.fingerprint.normalise import SAME_DEVICE_COPY
from tests.helpers import check_tree

FAST, SLOW = "torch._foreach_copy_(dst, src, non_blocking=True)", "torch._foreach_copy_(dst, src)"
TWEAKS = {
    "equal": ("dst[0].device == src[0].device", FAST, SLOW),
    "operands swapped": ("src[0].device == dst[0].device", FAST, SLOW),
    "not equal": ("dst[0].device != src[0].device", SLOW, FAST),
    "negated": ("not (dst[0].device == src[0].device)", SLOW, FAST),
    "flag by position": ("dst[0].device == src[0].device", "torch._foreach_copy_(dst, src, True)", SLOW),
    "explicit False": ("dst[0].device == src[0].device", FAST, "torch._foreach_copy_(dst, src, non_blocking=False)"),
    "spaced operands": ("dst[0].device == src[0].device", "torch._foreach_copy_( dst , src , non_blocking=True)", SLOW),
}
NOT_TWEAKS = {
    "fast copy in the other-device branch": ("dst[0].device != src[0].device", FAST, SLOW),
    "other operands": ("dst[0].device == other[0].device", FAST, SLOW),
    "both non-blocking": ("dst[0].device == src[0].device", FAST, FAST),
    "another index": ("dst[1].device == src[1].device", FAST, SLOW),
    "flag not a literal": ("dst[0].device == src[0].device", "torch._foreach_copy_(dst, src, non_blocking=nb)", SLOW),
    "operand with a call": (
        "get()[0].device == src[0].device",
        "torch._foreach_copy_(get(), src, non_blocking=True)",
        "torch._foreach_copy_(get(), src)",
    ),
}


def _module(test: str, body: str, orelse: str) -> str:
    return (
        "import torch\n\n\ndef copy_buffers(dst, src, nb=True):\n"
        f"    if {test}:\n        {body}\n    else:\n        {orelse}\n"
    )


def _folded_by_the_fingerprints(source: str) -> bool:
    function = ast.parse(source).body[1]
    assert isinstance(function, ast.FunctionDef)
    return bool(SAME_DEVICE_COPY.rewrite(function, None))  # type: ignore[arg-type]  # the fold reads no context


@pytest.mark.parametrize("case", sorted(TWEAKS) + sorted(NOT_TWEAKS))
def test_fsu005_and_the_fingerprints_agree(case: str, tmp_path: Path) -> None:
    source = _module(*(TWEAKS.get(case) or NOT_TWEAKS[case]))
    (tmp_path / "buffers.py").write_text(source)
    fires = any(f.code == "FSU005" for f in check_tree(tmp_path).findings)
    assert fires == (case in TWEAKS), case
    assert _folded_by_the_fingerprints(source) == (case in TWEAKS), case


def _fix(tmp_path: Path, source: str) -> str:
    from tests.helpers import fix_tree

    (tmp_path / "buffers.py").write_text(source)
    fix_tree(tmp_path, unsafe_fixes=True)
    return (tmp_path / "buffers.py").read_text()


def test_an_elif_is_not_collapsed_alone(tmp_path: Path) -> None:
    """The `elif` is the `else` of the `if` above: collapsing it would run the copy when `flag` holds too."""
    source = (
        "import torch\n\n\ndef copy_buffers(dst, src, flag):\n    if flag:\n        pass\n"
        f"    elif dst[0].device == src[0].device:\n        {FAST}\n    else:\n        {SLOW}\n"
    )
    (tmp_path / "buffers.py").write_text(source)
    assert not any(f.code == "FSU005" for f in check_tree(tmp_path).findings)
    assert _fix(tmp_path, source) == source


def test_the_one_line_spelling_is_collapsed(tmp_path: Path) -> None:
    source = (
        "import torch\n\n\ndef copy_buffers(dst, src):\n"
        f"    if dst[0].device == src[0].device: {FAST}\n    else: {SLOW}\n    return dst\n"
    )
    assert _fix(tmp_path, source) == (f"import torch\n\n\ndef copy_buffers(dst, src):\n    {SLOW}\n    return dst\n")


def test_comments_in_the_branches_are_never_dropped(tmp_path: Path) -> None:
    source = _module("dst[0].device == src[0].device", FAST + "  # see ticket 123", SLOW)
    assert _fix(tmp_path, source) == source


LOCAL_TORCH = {
    "a parameter": "def copy_buffers(dst, src, torch):\n",
    "a local assignment": "def copy_buffers(dst, src):\n    torch = pick_backend()\n",
    "a parameter of the enclosing function": "def outer(torch):\n  def copy_buffers(dst, src):\n",
    "imported in the function": "def copy_buffers(dst, src):\n    import my_backend as torch\n",
}


@pytest.mark.parametrize("case", sorted(LOCAL_TORCH))
def test_a_local_torch_is_not_the_module(case: str, tmp_path: Path) -> None:
    """`torch._foreach_copy_` on a local `torch` is some other object's method: FSU005 leaves it alone."""
    indent = "    " * (1 + case.endswith("enclosing function"))
    source = (
        "import torch\n\n\n"
        + LOCAL_TORCH[case].replace("  def", "    def")
        + f"{indent}if dst[0].device == src[0].device:\n{indent}    {FAST}\n{indent}else:\n{indent}    {SLOW}\n"
    )
    ast.parse(source)
    (tmp_path / "buffers.py").write_text(source)
    assert not any(f.code == "FSU005" for f in check_tree(tmp_path).findings), case
    assert _fix(tmp_path, source) == source


def test_a_global_torch_declared_in_the_function_is_the_module(tmp_path: Path) -> None:
    source = _module("dst[0].device == src[0].device", FAST, SLOW).replace(
        "nb=True):\n", "nb=True):\n    global torch\n"
    )
    (tmp_path / "buffers.py").write_text(source)
    assert any(f.code == "FSU005" for f in check_tree(tmp_path).findings)
