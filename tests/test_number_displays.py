"""Large displays of numbers held out of every parse (`analysis/numbers.py`): a run that holds them out reports
and fixes what a run that parses them reports and fixes, field by field and byte for byte, and a display in
a string or a comment is never taken for one.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.analysis import excerpt, numbers
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.model import RunOptions
from fsdp_unpatch.run.batch import run
from tests.test_excerpts import PATCH, _fields

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="displays are held out on Python 3.11+ only")

HEAD = "def _apply_fsdp_patch():\n"
NUMBERS = ", ".join(str(n % 97 - 40) for n in range(2000))  # about 8 KB: held out


def test_a_display_in_code_is_held_out_on_its_lines() -> None:
    data = f"x = [{NUMBERS}]\ny = (\n    (1, 2.5e-3),\n    {NUMBERS.replace(', ', ',' + chr(10) + '    ')},\n)\nz = [1, 2]\n"
    held = numbers.hold(data.encode())
    assert held is not None and len(held.literals) == 2
    assert held.text.count(b"\n") == data.count("\n")  # every line stays where it is
    assert held.text.endswith(b"\nz = [1, 2]\n")  # a short display is parsed as it is
    tree = ast.parse(held.text)
    assert numbers.placed(tree, held.text)
    assert [type(statement.value).__name__ for statement in tree.body] == ["Name", "Name", "List"]


@pytest.mark.parametrize(
    "text",
    [
        f'"""A docstring that quotes a table: [{NUMBERS}]"""\n',
        f"x = 1  # [{NUMBERS}]\n",
        f"s = '''\nvalues = [{NUMBERS}]\n'''\n",
    ],
    ids=["docstring", "comment", "string"],
)
def test_a_display_in_a_string_or_a_comment_is_parsed_as_it_is(text: str) -> None:
    data = text.encode()
    held = numbers.hold(data)
    assert held is not None  # the bytes alone look like a display
    assert not numbers.placed(ast.parse(held.text), held.text)
    assert ast.dump(numbers.parse_held(data, lambda d: ast.parse(d))) == ast.dump(ast.parse(data))


def _project(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[project]\nname = 'tables'\n")
    (folder / "patch_with_table.py").write_text(text)
    return folder


def _shapes() -> dict[str, str]:
    patch = PATCH.read_text()
    assert HEAD in patch
    copy_in = "    torch.ops.fsdp.all_gather_copy_in = _patched_all_gather_copy_in\n"
    assert copy_in in patch
    return {
        # the installer builds a table (issue 34's shape)
        "in the installer": patch.replace(HEAD, HEAD + f"    _table = [{NUMBERS}]\n", 1),
        # an install site after the table on its line: its columns are the file's
        "before a site on its line": patch.replace(copy_in, f"    _table = [{NUMBERS}]; {copy_in.lstrip()}", 1),
        # a table over many lines, in a replacement function (which no longer matches upstream)
        "in a replacement": patch.replace(
            "def _patched_all_gather_copy_in(\n",
            "_TABLE_ROWS = 1\n\n\ndef _patched_all_gather_copy_in(\n",
            1,
        ).replace(
            HEAD, HEAD + "    _rows = [\n" + "".join(f"        ({n}, {n + 1}),\n" for n in range(700)) + "    ]\n", 1
        ),
        # a table in a docstring: not held out
        "in a docstring": patch.replace(HEAD, HEAD + f'    """[{NUMBERS}]"""\n', 1),
    }


@pytest.mark.parametrize("shape", list(_shapes()))
def test_holding_displays_out_changes_no_finding_and_no_fixed_byte(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through an excerpt and through the whole file, holding displays out gives what the whole file parsed
    with every display in it gives (the reference, run once: libcst over the tables is most of the cost)."""
    folder = _project(tmp_path, _shapes()[shape])

    def fields(excerpt_above: int) -> list:
        options = RunOptions(
            analysis=Options(target_torch=Version.parse("2.13")),
            replacements=True,
            fix=True,
            write=False,
            excerpt_above=excerpt_above,
        )
        monkeypatch.setattr(excerpt, "_LAST", [])  # no excerpt built by an earlier run
        return _fields(run(discover([str(folder)]), load_catalog(), options))

    held = {"excerpt": fields(0), "whole": fields(1 << 40)}
    monkeypatch.setattr(numbers, "_DISPLAY", None)  # nothing held out
    parsed = fields(1 << 40)
    assert held == {"excerpt": parsed, "whole": parsed}
    assert sum(isinstance(f, dict) and f["fixed"] for f in parsed) >= 3, "the file must get fixes"


def test_fix_writes_the_display_back_byte_for_byte(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from fsdp_unpatch.cli import main

    folder = _project(tmp_path, _shapes()["in the installer"])
    path = folder / "patch_with_table.py"
    before = path.read_bytes()
    assert numbers.hold(before) is not None
    result = CliRunner().invoke(main, ["fix", "--no-cache", str(folder)])
    assert result.exit_code == 0, result.output
    after = path.read_bytes()
    assert f"    _table = [{NUMBERS}]\n".encode() in after
    assert b"_patched_all_gather_copy_in" not in after
    assert numbers.PLACEHOLDER not in after
    check = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", str(folder)])
    assert [f["code"] for f in json.loads(check.output) if f["category"] != "keep"] == []


@pytest.mark.parametrize(
    ("text", "held"),
    [
        (f"def table():\n    return [{NUMBERS}]\n", True),
        (f"x = y if z else ({NUMBERS})\n", True),
        (f"x = a[{NUMBERS}]\n", False),  # a subscript
        (f"x = f({NUMBERS})\n", False),  # a call's arguments
        (f"x = f() [{NUMBERS}]\n", False),
    ],
    ids=["after return", "after else", "subscript", "call", "subscript of a call"],
)
def test_only_displays_are_held_out(text: str, held: bool) -> None:
    assert (numbers.hold(text.encode()) is not None) is held
