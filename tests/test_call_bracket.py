"""The prefilter's test for a call's bracket after a callee's name (`prefilter.opens_call`, used by the
`call("...")` shapes a rule declares) answers as the regular expression it replaced, and in linear time."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from fsdp_unpatch.analysis.prefilter import opens_call

# The pattern it replaced: right, but exponential on a line of `#`s (each `#` may start another comment).
PATTERN = re.compile(rb"(?:[ \t\\\r\n]|#[^\r\n]*)*\(")

PIECES = [b" ", b"\t", b"\\", b"\r", b"\n", b"#", b"(", b"x", b"# c", b")", b"\r\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=10), st.integers(min_value=0, max_value=3))
def test_it_answers_as_the_pattern(pieces: list[bytes], at: int) -> None:
    data = b"".join(pieces)
    assert opens_call(data, at) == (PATTERN.match(data, at) is not None)


def test_shapes_one_by_one() -> None:
    assert opens_call(b"f (x)", 1)
    assert opens_call(b"f \\\n  (x)", 1)
    assert opens_call(b"f  # a comment\n(x)", 1)
    assert opens_call(b"f  # a bracket in the comment (counts)\nx", 1)
    assert not opens_call(b"f  # nothing\r\nx(", 1)
    assert not opens_call(b"f = 1", 1)
    assert not opens_call(b"f", 1)


def test_a_banner_of_hashes_after_the_name_is_answered_at_once() -> None:
    """In a fresh interpreter with a time limit: the old pattern took about four times longer for each two
    more `#`s (40 did not finish)."""
    code = (
        "from fsdp_unpatch.analysis.prefilter import opens_call\n"
        "data = b'fully_shard ' + b'#' * 5000 + b'\\nx = 1\\n' + b'fully_shard #' + b'#' * 5000\n"
        "print(opens_call(data, 11), opens_call(data, len(data) - 5001))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]
