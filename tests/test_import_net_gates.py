"""The byte gates in front of the import net's and the number holder's parses: they may let through a file
that needs no parse, never hold back one that does.

`import_gates.may_read` stands before parsing an importer for `bindings.imports`: a file it refuses must have
no import read of the names from the modules. `numbers._RUN` gates the search for large displays of numbers: tried only where a
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
from fsdp_unpatch.run.forwarders import module_entries
from fsdp_unpatch.run.import_gates import may_read, view
from fsdp_unpatch.run.import_net import _MODULE_ENTRY


def _may_read(data: bytes, names, module: str = "m", importer: str = "pkg.sub.mod") -> bool:
    return may_read(data, names, {module}, [(importer, False)])


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
            assert _may_read(data, {found.name}, found.module), f"{path}:{found.line}: {found.name}"
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


# The gate of `_forwarded_import` (`import_gates.may_read`) against hostile spellings -------------------------
def _gate(source, name: str, module: str, importer: str = "pkg.sub.mod") -> bool:
    data = source if isinstance(source, bytes) else source.encode("utf-8")
    return may_read(view(data), {name}, {module}, [(importer, False)])


def _read(source, name: str, module: str, importer: str = "pkg.sub.mod") -> bool:
    """Whether `bindings.imports` finds the read (what the net holds a fix back for)."""
    data = source if isinstance(source, bytes) else source.encode("utf-8")
    return any(i.name == name and i.module == module for i in imports(ast.parse(data), importer, False))


HOSTILE_READS = [
    ("from m import (a,  # " + "x" * 400 + "\n    dist)\n", "m"),
    ("from m \\\n    import dist\n", "m"),
    ("from \\\n  m  .  sub \\\n import (dist)\n", "m.sub"),
    ("from.m import dist\n", "pkg.sub.m"),
    ("from . import dist\n", "pkg.sub"),
    ("from .. import (  # why\n dist)\n", "pkg"),
    ("if x: from m import(dist)\n", "m"),
    ("x = '#'; from m import dist\n", "m"),
    ("from m import (\n    a,\n    # from other import (\n    dist,\n)\n", "m"),
    ("from m import a as b, \\\n    dist\n", "m"),
    ("import pkg.m as alias\nalias.dist\n", "pkg.m"),
    ("from pkg import (m  # c\n    as  # d\n    alias)\nalias.dist\n", "pkg.m"),
    ("import m\nx = (m  # c\n  .  # d\n  dist)\n", "m"),
    ("import m\n(m).dist\n", "m"),
    ("import m\n((m\n)).dist\n", "m"),
    ("import pkg.m\npkg.m.dist\n", "pkg.m"),
    ("import pkg.m\npkg.dist\n", "pkg"),
    ("import m as a, n as b\nb.dist\n", "n"),
    ("import m\r\nx = (m.\r    dist)\r\n", "m"),
    ("from m import (a,\r\n  # c\r\n  dist)\r\n", "m"),
    ("import m\nx = (m.\n" + "  # c\n" * 50 + "  dist)\n", "m"),
    ("\x0cfrom m import dist\n", "m"),
    (b"\xef\xbb\xbffrom m import dist\n", "m"),  # a byte-order mark before the first name
    (b"\xef\xbb\xbfimport m\nm.dist\n", "m"),
    ("from \uff4d import \uff44ist\n", "m"),  # full-width letters: CPython reads `from m import dist`
    ("import pkg.\uff4d as p\np.\uff44ist\n", "pkg.m"),
    ("from pkg import \uff4d as p\n(p).dist\n", "pkg.m"),
    ("import m as \uff50\np.dist\n", "m"),
    ("# \u8bf4\u660e\uff1a\u4e2d\u6587\u6ce8\u91ca\uff0c\nfrom m import \uff44ist\n", "m"),  # CJK comment, full-width
    ("# -*- coding: latin-1 -*-\n# caf\xe9\nimport m\nm.dist\n".encode("latin-1"), "m"),
    ("# -*- coding: latin-1 -*-\nfrom m import \xaadist\n".encode("latin-1"), "m"),  # `ª` is `a` to CPython
]


@pytest.mark.parametrize("source, module", HOSTILE_READS)
def test_a_hostile_spelling_of_an_import_read_is_let_through(source, module: str) -> None:
    name = "adist" if "\xaa" in (source if isinstance(source, str) else source.decode("latin-1")) else "dist"
    assert _read(source, name, module), "the spelling is an import read of the name"
    assert _gate(source, name, module)


NOT_READS = [
    'import m\n"""Falls back to the torch backend implementation.\n        dist"""\n',  # torch-npu's docstring
    'import m\nOPS = """\n    .OUTPUT(dist, TensorType({DT_FLOAT, DT_FLOAT16}))\n"""\n',  # its 3 MB generated module
    "import m\nimport other as o\no.dist\n",
    "from other import dist\nimport m\n",
    "from m import (a,\n  b); dist\n",
    "import m\nx = ctypes.dist\n",
    "import m\ny = getattr(m, 'dist')\n",  # dynamic access: no import read (the net does not follow it)
    "from pkg import other as m2\nimport m\nm2.dist\n",
]


@pytest.mark.parametrize("source", NOT_READS)
def test_a_file_that_reads_no_name_from_the_module_is_refused(source: str) -> None:
    assert not _read(source, "dist", "m")
    assert not _gate(source, "dist", "m")


def test_an_attribute_of_a_call_is_let_through_though_the_net_follows_no_call() -> None:
    """`importlib.import_module("m").dist` is no import read for `bindings.imports` (imports built at run time
    are not seen, docs/safety.md); the gate lets `).dist` through all the same."""
    source = "import importlib\nx = importlib.import_module('m').dist\n"
    assert not _read(source, "dist", "m")
    assert _gate(source, "dist", "m")


def test_the_view_is_the_bytes_unless_a_name_is_spelled_otherwise() -> None:
    plain = b"import m\nm.dist\n"
    assert view(plain) is plain
    cjk = "# \u8bf4\u660e\uff1a\u4e2d\u6587\uff0c\u2460\u2081\u00b3\nimport m\n".encode()  # CJK, `：` `，` `①` `₁` `³`
    assert view(cjk) is cjk
    assert view("import \uff4d\n".encode()) == b"import m\n"
    assert view(b"\xef\xbb\xbfimport m\n") == b"import m\n"
    assert view("# coding: latin-1\nx = '\xe9'\n".encode("latin-1")) == "# coding: latin-1\nx = '\xe9'\n".encode()
    assert view(b"import m\n\xff\xfe\n") == b"import m\n\xff\xfe\n"  # not UTF-8: CPython parses none of it


_LETTER = st.sampled_from(["", "\uff41"])  # `a` or a full-width `ａ` (NFKC: `a`)
_SPEC_GAP = st.sampled_from([" ", "  ", " \\\n  "])
_LIST_GAP = st.sampled_from(
    ["", " ", "\n    ", " \\\n    ", "  # c\n    ", "  # from x import (\n    ", "  # " + "w" * 300 + "\n    "]
)


@st.composite
def _hostile_reads(draw) -> tuple[str, str, str]:
    """(source, name, module): a module that reads `name` from `module` by an import, spelled as Python allows."""
    name = (draw(_LETTER) or "a") + "dist"  # spelled `adist` or `ａdist`: CPython reads `adist`
    read = "adist"
    gap, inner = draw(_SPEC_GAP), draw(_LIST_GAP)
    shape = draw(st.integers(0, 5))
    if shape == 0:
        return f"from{gap}pkg{gap}.{gap}m{gap}import{gap}(b,{inner}{name}{inner})\n", read, "pkg.m"
    if shape == 1:
        return f"from{gap}.{gap}m import (\n    {inner}{name} as y)\n", read, "pkg.sub.m"
    if shape == 2:
        alias = draw(st.sampled_from(["p", "\uff50"]))
        return f"import pkg.m{gap}as{gap}{alias}\nx = ({alias}{inner}.{inner}{name})\n", read, "pkg.m"
    if shape == 3:
        return f"from pkg import (m {inner}as {inner}q)\nx = ((q{inner}){inner}.{name})\n", read, "pkg.m"
    if shape == 4:
        return f"import pkg.m\nx = (pkg.m{inner}.{inner}{name})\n", read, "pkg.m"
    return f"x = '#'; from pkg.m import b, \\\n    {name}\n", read, "pkg.m"


@settings(max_examples=300, deadline=None)
@given(_hostile_reads())
def test_generated_hostile_reads_parse_and_are_let_through(case: tuple[str, str, str]) -> None:
    source, name, module = case
    assert _read(source, name, module), source
    assert _gate(source, name, module), source


# `import_net._MODULE_ENTRY`: the gate of the `sys.modules` walk (`forwarders.module_entries`) ---------------
_OWNER = st.sampled_from(
    ["sys.modules", "(sys.modules)", "(sys  .  modules  # the table\n)", "modules", "sys.\uff4dodules"]
)
_ENTRY_GAP = st.sampled_from(["", " ", " \\\n  ", "  # c\n  ", "  # " + "#" * 80 + "\n  "])


@settings(max_examples=200, deadline=None)
@given(_OWNER, _ENTRY_GAP, st.sampled_from(["", "(", "( "]), st.sampled_from(["", "u", "r", "R"]), st.booleans())
def test_every_literal_sys_modules_entry_passes_the_gate(owner, gap, paren, prefix, triple) -> None:
    quote = '"""' if triple else '"'
    key = f"{paren}{prefix}{quote}compat{quote}{')' if paren else ''}"
    source = f"import sys\nfrom sys import modules\n({owner}{gap}[{gap}{key}{gap}]) = p\n"  # comments: in brackets
    assert module_entries(ast.parse(source)) == ["compat"], source
    assert _MODULE_ENTRY.search(view(source.encode())) is not None, source


@pytest.mark.parametrize("source", ["sys.modules[name] = p\n", "modules.get('k')\n", "sys.modules.pop(name)\n"])
def test_a_file_without_a_literal_key_into_sys_modules_needs_no_walk(source: str) -> None:
    assert module_entries(ast.parse("import sys\n" + source)) == []
    assert _MODULE_ENTRY.search(source.encode()) is None
