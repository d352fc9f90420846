"""The import net's byte gates against hostile spellings, end to end (`run/import_gates.py`, `run/import_net.py`).

Each test adds an importer (or a forwarder) to the bundled example that reads a name the migration removes,
spelled so that a byte gate could miss it: names CPython normalizes (PEP 3131), a parenthesized `sys.modules`,
comments and continuations around a read through a star re-export. `fix` must hold the patch's group back and
name the importer. The last tests are the gates' purpose: an importer that only *mentions* a removed name (a
docstring) is not parsed, and a line of `#`s cannot stall the search.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fsdp_unpatch.analysis import bindings
from fsdp_unpatch.run import import_net
from fsdp_unpatch.run.import_net import Rewrite, breakages
from tests.helpers import fix_tree

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_project"
PATCH = Path("legacy_npu/distributed/fsdp/_add_fsdp_patch.py")
MODULE = "legacy_npu.distributed.fsdp._add_fsdp_patch"


def _project(root: Path) -> Path:
    project = root / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    return project


def _errors(result) -> list[str]:
    return [f"{f.path}: {f.message}" for f in result.findings if f.code == "FSU903"]


def _held_back(project: Path, importer: str) -> None:
    result = fix_tree(project)
    errors = _errors(result)
    assert any(f"{importer}:" in e and "cast" in e for e in errors), errors
    assert (project / PATCH).read_bytes() == (EXAMPLE / PATCH).read_bytes()  # its whole group held back


@pytest.mark.parametrize(
    "source",
    [
        "import legacy_npu.distributed.fsdp._add_fsdp_\uff50atch as p\n\np.cast\n",  # `ｐatch`: CPython reads `patch`
        "from legacy_npu.distributed.fsdp._add_fsdp_\uff50atch import cast\n",
        "from legacy_npu.distributed.fsdp import _add_fsdp_\uff50atch as p\n\np.\uff43ast\n",
    ],
    ids=["alias", "from-import", "alias-and-name"],
)
def test_an_importer_that_spells_the_patch_module_with_full_width_letters_holds_the_fix_back(
    tmp_path: Path, source: str
) -> None:
    project = _project(tmp_path)
    (project / "launch.py").write_text(source, encoding="utf-8")
    _held_back(project, "launch.py")


@pytest.mark.parametrize("entry", ['(sys.modules)["compat"] = p', '(sys  .  modules  # the table\n)["compat"] = p'])
def test_a_parenthesized_sys_modules_entry_is_a_forwarder(tmp_path: Path, entry: str) -> None:
    """The entry's file spells neither the patch module nor `modules[`: its value comes from another module."""
    project = _project(tmp_path)
    (project / "helper.py").write_text(f"import {MODULE} as p\n")
    (project / "compat_setup.py").write_text(f"import sys\n\nfrom helper import p\n\n{entry}\n")
    (project / "launch.py").write_text("import compat_setup  # noqa: F401\nfrom compat import cast\n")
    _held_back(project, "launch.py")


STAR = "from legacy_npu.distributed.fsdp._add_fsdp_patch import *  # noqa: F403\n"


@pytest.mark.parametrize(
    "importer",
    [
        "from legacy_npu.distributed.fsdp import a, \\\n    cast\n",
        "from legacy_npu.distributed.fsdp \\\n    import (  # "
        + "x" * 300
        + "\n    # from elsewhere import (\n    cast)\n",
        "from legacy_npu.distributed import (fsdp  # the package\n    as  # re-exports the patch\n    f)\n\n"
        "x = (f  # " + "y" * 300 + "\n    .  # the name\n    cast)\n",
        "import legacy_npu.distributed.fsdp\n\nx = (legacy_npu.distributed.fsdp\n).cast\n",
        "from legacy_npu.distributed.fsdp import \uff43ast\n",
    ],
    ids=["continuation", "long-comments", "as-alias-comments", "parenthesized", "full-width-name"],
)
def test_a_read_through_a_star_re_export_spelled_hostilely_holds_the_fix_back(tmp_path: Path, importer: str) -> None:
    project = _project(tmp_path)
    package = project / "legacy_npu" / "distributed" / "fsdp" / "__init__.py"
    package.write_text(package.read_text() + STAR)
    (project / "legacy_npu" / "compat.py").write_text(importer, encoding="utf-8")
    _held_back(project, "compat.py")


def test_an_importer_whose_docstring_only_mentions_a_removed_name_is_not_parsed(tmp_path: Path, monkeypatch) -> None:
    """torch-npu's shape: a module that imports a forwarder (a `sys.modules` entry) and whose strings spell
    `. cast` and `(cast`, as a docstring and generated operator tables do, is no importer of `cast`."""
    root = tmp_path
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    package = root / "pkg"
    package.mkdir()
    patch = package / "patch.py"
    patch.write_text("from typing import cast\n\nVALUE = cast(int, 1)\n")
    (package / "entries.py").write_text("import sys\n\nfrom pkg import patch\n\nsys.modules['compat'] = patch\n")
    reader = textwrap.dedent(
        '''\
        """Falls back to the torch backend implementation.
            cast the inputs first."""
        import compat

        OPS = """.OUTPUT(cast, TensorType({DT_FLOAT}))"""
        compat.other()
        '''
    )
    (package / "reader.py").write_text(reader)
    parsed: list[bytes] = []

    def counted(data: bytes):
        parsed.append(data)
        return bindings.parse(data)

    monkeypatch.setattr(import_net, "parse", counted)
    assert breakages([Rewrite(0, str(patch), patch.read_bytes(), b"VALUE = 1\n")], [str(root)]) == []
    assert b"import compat" not in b"".join(parsed)
    # the same file, with a read of `cast` through the forwarder, is parsed and holds the fix back
    (package / "reader.py").write_text(reader + "compat.cast\n")
    found = breakages([Rewrite(0, str(patch), patch.read_bytes(), b"VALUE = 1\n")], [str(root)])
    assert len(found) == 1 and "reader.py:7 imports cast from compat" in found[0].reason


def test_a_line_of_hashes_after_modules_does_not_stall_the_search(tmp_path: Path) -> None:
    """`_MODULE_ENTRY` read a comment that could end anywhere: a `# sys.modules ####...` banner took time
    exponential in its length (60 `#`s: years). Run in a child process, so that a stall fails, not hangs."""
    root = tmp_path
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    package = root / "pkg"
    package.mkdir()
    (package / "patch.py").write_text("from typing import cast\n\nVALUE = cast(int, 1)\n")
    (package / "banner.py").write_text("# sys.modules " + "#" * 60 + "\nfrom pkg import patch\n")
    code = (
        "import sys\n"
        "from fsdp_unpatch.run.import_net import Rewrite, breakages\n"
        "path = sys.argv[1] + '/pkg/patch.py'\n"
        "before = open(path, 'rb').read()\n"
        "print(breakages([Rewrite(0, path, before, b'VALUE = 1\\n')], [sys.argv[1]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=120, cwd=str(ROOT)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
