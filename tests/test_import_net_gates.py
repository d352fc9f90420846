"""The byte gates in front of the import net's and the number holder's parses: they may let through a file
that needs no parse, never hold back one that does.

`import_net._may_read` stands before parsing an importer for `bindings.imports`: a file it refuses must have
no import read of the names. `numbers._RUN` gates the search for large displays of numbers: tried only where a
run of its bytes starts, it must find what the search at every byte found.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsdp_unpatch.analysis import numbers
from fsdp_unpatch.analysis.bindings import imports
from fsdp_unpatch.run.import_net import _may_read

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "source",
    [
        "from m import dist\n",
        "from m import a, dist\n",
        "from m import (\n    a,\n    dist,\n)\n",
        "from m import (a,  # the first\n    dist)\n",
        "from m import (  # a comment\n    dist)\n",
        "from m import a, \\\n    dist\n",
        "from m import dist as d\n",
        "import m\nm.dist.f()\n",
        "import m\nm . dist\n",
        "import m\n(m.\n    dist)\n",
        "import m\n(m.  # why\n    dist)\n",
        "from m import (  # " + "x" * 300 + "\n    dist,\n)\n",
        "import m\n(m.  # " + "y" * 300 + "\t\t\n    dist)\n",
        "from m import (a,  # " + "z" * 300 + "\r    dist)\r",
        "from m import (a,\n" + " " * 600 + "dist)\n",
    ],
)
def test_an_import_read_of_the_name_is_let_through(source: str) -> None:
    assert _may_read(source.encode(), {"dist"})


@pytest.mark.parametrize(
    "source",
    [
        "import torch.distributed as dist\n",
        "import torch.distributed as dist\ndist.barrier()\nx = dist\nif dist: pass\n",
        "from m import distance, redistribute\n",
        "def f(x):\n    return x\n",
    ],
)
def test_a_file_without_an_import_read_of_the_name_is_refused(source: str) -> None:
    assert not _may_read(source.encode(), {"dist"})


def _python_files() -> list[Path]:
    found = [p for p in (ROOT / "fsdp_unpatch").rglob("*.py") if "__pycache__" not in p.parts]
    found += [p for p in (ROOT / "examples").rglob("*.py")]
    found += [p for p in (ROOT / "tests" / "rules").rglob("*.py")]
    return sorted(found)


def test_every_import_read_in_the_project_and_its_cases_is_let_through() -> None:
    """Soundness over real code: each name `bindings.imports` reads in a file (as any module) passes the gate."""
    files = _python_files()
    assert len(files) > 300, "the code was read"
    checked = 0
    for path in files:
        data = path.read_bytes()
        try:
            tree = ast.parse(data)
        except SyntaxError:
            continue
        for found in imports(tree, "pkg.sub.mod", False):
            checked += 1
            assert _may_read(data, {found.name}), f"{path}:{found.line}: {found.name}"
    assert checked > 3000


_NAME = st.sampled_from(["dist", "cast", "f"])
_GAP = st.sampled_from([" ", "", "  ", " \\\n    ", "\n    "])


@st.composite
def _reads(draw) -> tuple[str, str]:
    """A module that reads `name` by an import, spelled with the gaps Python allows inside brackets."""
    name = draw(_NAME)
    gap = draw(_GAP)
    comment = draw(st.sampled_from(["", "  # note\n    ", "  # a, (b.\n", "  # " + "w" * 400 + "\n"]))
    shape = draw(st.integers(0, 2))
    if shape == 0:
        source = f"from m import (a,{comment}{gap}{name})\n"
    elif shape == 1:
        source = f"import m\nx = (m.{comment}{gap}{name})\n"
    else:
        source = f"from m import ({comment}{gap}{name} as y)\n"
    return name, source


@settings(max_examples=200, deadline=None)
@given(_reads())
def test_generated_reads_parse_and_are_let_through(case: tuple[str, str]) -> None:
    name, source = case
    tree = ast.parse(source)
    assert any(i.name == name for i in imports(tree, "pkg.mod", False)), source
    assert _may_read(source.encode(), {name}), source


_SEARCH_AT_EVERY_BYTE = re.compile(rb"[-+\w.,\s]{%d}" % (numbers.ABOVE - 2))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "1", " ", ",", "\n", "(", "=", "#", "é"]), st.integers(1, 3000)), max_size=8
    )
)
def test_the_run_gate_finds_what_the_search_at_every_byte_found(runs: list[tuple[str, int]]) -> None:
    data = "".join(text * count for text, count in runs).encode()
    assert (numbers._RUN.search(data) is None) == (_SEARCH_AT_EVERY_BYTE.search(data) is None)
