"""The import probe of the import-safety sweep (tests/import_probe.py) answers as a fresh interpreter would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.import_probe import ImportProbe

pytestmark = pytest.mark.slow  # loads torch


@pytest.fixture(scope="module")
def probe():
    server = ImportProbe()
    yield server
    server.close()


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_it_names_the_modules_that_import_and_only_those(probe: ImportProbe, tmp_path: Path) -> None:
    tree = _tree(
        tmp_path / "tree",
        {
            "fine.py": "import torch\nVALUE = torch.zeros(1)\n",
            "broken.py": "from fine import NOT_THERE\n",
            "exits.py": "raise SystemExit(3)\n",
            "pkg/__init__.py": "",
            "pkg/inner.py": "from . import sibling\n",
            "pkg/sibling.py": "import fine\n",
            "prints.py": "print('noise')\n",
        },
    )
    modules = ["broken", "exits", "fine", "pkg", "pkg.inner", "pkg.sibling", "prints", "absent"]
    assert probe.importable(tree, modules) == {"fine", "pkg", "pkg.inner", "pkg.sibling", "prints"}


def test_nothing_of_an_earlier_tree_is_left_for_a_later_one(probe: ImportProbe, tmp_path: Path) -> None:
    first = _tree(tmp_path / "first", {"shared.py": "A = 1\n", "user.py": "from shared import A\n"})
    second = _tree(tmp_path / "second", {"user.py": "from shared import A\n"})
    assert probe.importable(first, ["shared", "user"]) == {"shared", "user"}
    assert probe.importable(second, ["shared", "user"]) == set()


def test_it_agrees_with_a_fresh_interpreter(probe: ImportProbe, tmp_path: Path) -> None:
    tree = _tree(
        tmp_path / "tree",
        {
            "patcher.py": "import torch.distributed.fsdp as fsdp\nfsdp.MARK = 1\n",
            "reader.py": "import torch.distributed.fsdp as fsdp\nassert not hasattr(fsdp, 'MARK')\n",
        },
    )
    modules = ["patcher", "reader"]
    fresh = set()
    for name in modules:  # one interpreter per module: their side effects on torch stay apart
        done = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=tree, capture_output=True)
        if done.returncode == 0:
            fresh.add(name)
    assert probe.importable(tree, ["reader"]) == {"reader"}  # `patcher` of an earlier question did not stay
    assert probe.importable(tree, modules) == {"patcher"}  # in one interpreter, as the sweep runs them
    assert fresh == {"patcher", "reader"}
