"""A project's import roots (issue 32, item 1): the folders its packaging files declare its packages in, else
its `src/`, beside the project folder itself (`project/import_roots.py`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fsdp_unpatch.project.import_roots import import_roots


def _roots(folder: Path, **files: str) -> set[str]:
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text)
    top = os.path.abspath(folder)
    return {os.path.relpath(root, top) for root in import_roots(top, os.listdir(top))}


@pytest.mark.parametrize(
    "text, roots",
    [
        ('[tool.setuptools]\npackage-dir = {"" = "lib"}\n', {".", "lib"}),
        ('[tool.setuptools.package-dir]\n"" = "./lib/"\n', {".", "lib"}),
        ('[tool.setuptools]\npackage-dir = {"pkg" = "lib/pkg", "a.b" = "other/a/b"}\n', {".", "lib", "other"}),
        ('[tool.setuptools.packages.find]\nwhere = ["src", "plugins"]\n', {".", "src", "plugins"}),
        ('[tool.poetry]\npackages = [{include = "pkg", from = "lib"}, {include = "tool.py"}]\n', {".", "lib"}),
        ('[tool.hatch.build.targets.wheel]\npackages = ["source/pkg"]\n', {".", "source"}),
        ('[tool.hatch.build]\npackages = ["pkg"]\n', {"."}),
    ],
)
def test_the_roots_pyproject_declares(tmp_path: Path, text: str, roots: set[str]) -> None:
    assert _roots(tmp_path, pyproject_toml=text) == roots


def test_the_roots_setup_cfg_declares(tmp_path: Path) -> None:
    assert _roots(tmp_path, setup_cfg="[options]\npackage_dir =\n    = python\n    extra = vendor/extra\n") == {
        ".",
        "python",
        "vendor",
    }
    assert _roots(tmp_path, setup_cfg="[options]\npackage_dir = =python\n") == {".", "python"}
    assert _roots(tmp_path, setup_cfg="[options.packages.find]\nwhere = lib\n") == {".", "lib"}


@pytest.mark.parametrize(
    "text",
    [
        '[project]\nname = "pkg"\n',  # nothing declared: setuptools' automatic discovery (flat, or src/)
        '[tool.setuptools]\npackage-dir = {"pkg" = "renamed"}\n',  # a renamed package: no root of its own name
        '[tool.setuptools]\npackage-dir = {"" = "../elsewhere"}\n',  # outside the project
        '[tool.setuptools]\npackage-dir = {"" = "/abs"}\n',
        "[tool.setuptools\n",  # not TOML
        '[tool.setuptools]\npackage-dir = "lib"\n',  # not a table
    ],
)
def test_without_a_usable_declaration_the_roots_are_the_folder_and_its_src(tmp_path: Path, text: str) -> None:
    assert _roots(tmp_path, pyproject_toml=text) == {".", "src"}


def test_a_setup_cfg_that_cannot_be_parsed_declares_nothing(tmp_path: Path) -> None:
    assert _roots(tmp_path, setup_cfg="package_dir = =lib\n") == {".", "src"}  # no section header
    (tmp_path / "setup.cfg").write_bytes(b"[options]\npackage_dir = =\xff\n")
    assert _roots(tmp_path) == {".", "src"}
