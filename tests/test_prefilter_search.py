"""The prefilter's hand-written searches agree with the regular expressions they replace (which `re` can only
run byte by byte, having no literal to start from)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from fsdp_unpatch.analysis.prefilter import _in_string_call, _RegisteredOp, prefilter_for
from fsdp_unpatch.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
STRING_CALL = re.compile(rb"(?:patch|setattr|object|multiple|dict)\s*\(\s*[rRbBuUfF]{0,2}[\"']([^\"'\n]*)")
OPS = (b"all_gather_copy_in", b"chunk_cat", b"split_with_sizes_copy")

CRAFTED = [
    b'torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")',
    b'impl (\n  "fsdp::chunk_cat.default" , "CPU")',
    b'register_kernel("fsdp::split_with_sizes_copy", "cuda")(f)',
    b'lib.impl("all_gather_copy_in", f, "PrivateUse1")',
    b'impl(lib, g(x), "all_gather_copy_in")',  # a bracket between: no
    b'impl(lib, "' + b"x" * 299 + b'", "chunk_cat")',
    b'impl(lib, "' + b"x" * 320 + b'", "chunk_cat")',  # too far: no
    b'simple_impl("chunk_cat")',  # the expression has no word boundary either
    b'print("chunk_cat")',
    b"chunk_cat = 1",
    b'"chunk_cats"',
    b"impl(\"chunk_cat.out')",
    b'mock.patch("torch.distributed.fsdp._fully_shard._fsdp_collectives.foreach_reduce", f)',
    b"patch.object(m, 'fsdp')",
    b'setattr( rb"torch.ops.fsdp.x", 1)',
    b'dict(fsdp="x")',
    b'patch(f"{a}.fsdp")',
    b'patch("a", "torch.distributed.fsdp")',  # the second argument: no
    b'x = "fsdp"; patch(y)',
    b'patch(\n"fsdp")',
    b"dict(BR'_fully_shard')",
    b"dict(Brr'_fully_shard')",
]


def _corpus() -> list[bytes]:
    texts = list(CRAFTED)
    texts += [p.read_bytes() for p in sorted((ROOT / "tests" / "fixtures").rglob("*.py"))]
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.submodule_search_locations:
        prefilter = prefilter_for(load_catalog())
        torch = Path(list(spec.submodule_search_locations)[0])
        texts += [d for d in (p.read_bytes() for p in sorted(torch.rglob("*.py"))) if prefilter.has_token(d)]
    return texts


@pytest.fixture(scope="module")
def corpus() -> list[bytes]:
    return _corpus()


def test_registered_op_is_the_regular_expression(corpus: list[bytes]) -> None:
    found = 0
    for op in OPS:
        expression = re.compile(
            rb"(?:impl|register_kernel|register_fake|register_autograd)\s*\([^()]{0,300}?[\"']"
            + re.escape(op)
            + rb"(?:\.\w+)?[\"']"
        )
        search = _RegisteredOp(op)
        for data in corpus:
            expected = expression.search(data) is not None
            assert search.search(data) == expected, (op, data[:200])
            found += expected
    assert found >= 6


def test_string_call_finds_what_the_regular_expression_found(corpus: list[bytes]) -> None:
    """Every mention inside a string that the expression matched is found (the new test may find more: the
    expression's matches do not overlap), and on these texts it finds nothing else."""
    prefilter = prefilter_for(load_catalog())
    words = prefilter.mention_words
    found = 0
    for data in corpus:
        expected = any(any(w in words for w in re.findall(rb"\w+", m.group(1))) for m in STRING_CALL.finditer(data))
        spots = prefilter.mentions_of_fsdp2(data)
        assert any(_in_string_call(data, start) for start, _ in spots) == expected, data[:200]
        found += expected
    assert found >= 5
