"""FSU502 reads a file's comments with tokenize (`suppression.comments`), not with libcst (issue 32 item 4: libcst
only writes): the comments it reads, and where its findings stand, are where libcst places the same comments,
in every spelling of a file that moves a column or a line (byte order mark, CRLF, a lone CR, tabs, characters
outside ASCII, a declared encoding, a form feed), in a large file read through an excerpt, and over every
fixture and example file."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis import excerpt
from fsdp_unpatch.analysis.plan import Options
from fsdp_unpatch.analysis.screen import screen_for
from fsdp_unpatch.analysis.suppression import NOQA_WITHOUT_COLON, comments
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.files.reading import declared_encoding
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.run.batch import run

ROOT = Path(__file__).resolve().parent.parent


def _libcst_comments(data: bytes) -> list[tuple[int, int, int, int, str]]:
    """(line, column, end line, end column, text) of every comment, as libcst's PositionProvider places it."""
    wrapper = MetadataWrapper(cst.parse_module(data))
    positions = wrapper.resolve(PositionProvider)
    found: list = []

    class Comments(cst.CSTVisitor):
        def visit_Comment(self, node: cst.Comment) -> None:
            where = positions[node]
            found.append((where.start.line, where.start.column, where.end.line, where.end.column, node.value))

    wrapper.module.visit(Comments())
    return sorted(found)


def _tokenized(data: bytes) -> list[tuple[int, int, int, int, str]]:
    found, complete = comments(data.decode(declared_encoding(data)))
    assert complete
    return [(c.line, c.column, c.line, c.column + len(c.text), c.text) for c in found]


NOQA_FSU = "# noqa FSU101"
SPELLINGS = {
    "plain": b"import torch  # noqa FSU101\nx = 1\n",
    "byte order mark": b"\xef\xbb\xbfimport torch  # noqa FSU101\n# noqa FSU004, FSU101\n",
    "crlf": b"import torch\r\nx = [\r\n    1,  # noqa FSU101\r\n]\r\n",
    "lone cr": b"import torch\rx = 1  # noqa FSU101\ry = 2\r",
    "tabs": b"def f():\n\tif True:\n\t\treturn 1\t# noqa FSU101\n",
    "not ascii": "s = 'h\u00e9llo \u4e16\u754c'  # noqa FSU101\n".encode(),
    "latin-1 cookie": "# -*- coding: latin-1 -*-\ns = '\u00e9\u00e8'  # noqa FSU101\n".encode("latin-1"),
    "form feed": b"x = 1\n\x0c\ny = 2  # noqa FSU101\n",
    "continuation": b"x = 1 + \\\n    2  # noqa FSU101\n",
    "no final newline": b"import torch\n# noqa FSU101",
    "in a string": b"s = '# noqa FSU101'\nt = '''\n# noqa FSU101\n'''  # noqa FSU102\n",
}


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_comments_stand_where_libcst_places_them(name: str) -> None:
    assert _tokenized(SPELLINGS[name]) == _libcst_comments(SPELLINGS[name])


def _fsu502_spans(data: bytes, tmp_path: Path, excerpt_above: int) -> list[tuple[int, int, int, int]]:
    path = tmp_path / "module.py"
    path.write_bytes(data)
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")), excerpt_above=excerpt_above)
    result = run(discover([str(path)]), load_catalog(), options)
    return [
        (f.span.line, f.span.column, f.span.end_line, f.span.end_column) for f in result.findings if f.code == "FSU502"
    ]


def _expected_spans(data: bytes) -> list[tuple[int, int, int, int]]:
    """libcst's places of the comments FSU502 is about, 1-based columns as findings give them."""
    return [
        (line, column + 1, end_line, end_column + 1)
        for line, column, end_line, end_column, text in _libcst_comments(data)
        if NOQA_WITHOUT_COLON.match(text)
    ]


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_findings_stand_where_libcst_placed_them(name: str, tmp_path: Path) -> None:
    data = SPELLINGS[name]
    expected = _expected_spans(data)
    assert expected, "each spelling holds a noqa comment without a colon"
    assert _fsu502_spans(data, tmp_path, excerpt_above=1 << 40) == expected


PATCH = ROOT / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp" / "_add_fsdp_patch.py"
PLAIN = "\n\ndef plain_{n}(values):\n    return [v for v in values]\n"
COMMENTED = "\n\ndef commented_{n}(values):\n    total = 0  # noqa FSU10{d}\n    return [v for v in values] + [total]\n"


def test_findings_through_an_excerpt_stand_at_the_files_lines(tmp_path: Path) -> None:
    """A large file analysed through an excerpt, which holds the plain functions aside: its findings are at
    the file's lines and columns, where libcst places the comments in the whole file."""
    text = "".join(PLAIN.format(n=n) + COMMENTED.format(n=n, d=n % 5 + 1) for n in range(20))
    text += "\n\n" + PATCH.read_text().replace("def _apply_fsdp_patch():", "def _apply_fsdp_patch():  # noqa FSU101")
    data = text.encode()
    built = excerpt.build(data, "utf-8", "module", False, screen_for(load_catalog()))
    assert built is not None and len(built.holes) >= 10, "the excerpt holds the plain functions aside"
    assert len(_expected_spans(data)) == 21
    assert _fsu502_spans(data, tmp_path, excerpt_above=0) == _expected_spans(data)


def test_every_fixture_and_example_file_tokenizes_to_libcsts_comments() -> None:
    checked = 0
    for tree in ("tests/fixtures", "examples"):
        for path in sorted((ROOT / tree).rglob("*.py")):
            data = path.read_bytes()
            try:
                expected = _libcst_comments(data)
            except (cst.ParserSyntaxError, UnicodeDecodeError, SyntaxError):
                continue  # the error fixtures
            assert _tokenized(data) == expected, path
            checked += bool(expected)
    assert checked >= 50
