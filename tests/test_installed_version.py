"""The installed torch's version is read from its dist-info without importing importlib.metadata (tens of
milliseconds, more than a run that finds nothing), and says what importlib.metadata says."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.catalog import versions


def _dist_info(folder: Path, name: str, version: str, metadata_name: str = "METADATA") -> None:
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / metadata_name).write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: a stand-in\n\nVersion: 0.0 (the body)\n",
        encoding="utf-8",
    )


@pytest.fixture
def isolated_path(tmp_path: Path, monkeypatch) -> list[Path]:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "absent"), str(first), str(second)])
    return [first, second]


def test_the_first_torch_on_the_path_is_the_one_importlib_metadata_names(isolated_path: list[Path]) -> None:
    first, second = isolated_path
    _dist_info(first, "torch_npu", "2.10.0.post7")  # another project whose name starts with torch
    _dist_info(second, "torch", "2.7.1+cpu")
    _dist_info(second.parent / "later", "torch", "2.9.0")
    assert versions._dist_info_version("torch") == (True, "2.7.1+cpu")
    assert versions.installed_version() == importlib.metadata.version("torch") == "2.7.1+cpu"
    _dist_info(first, "Torch", "2.8.0")  # names compare as importlib.metadata normalises them
    assert versions.installed_version() == importlib.metadata.version("torch") == "2.8.0"


def test_no_torch_anywhere_is_none_without_asking_importlib_metadata(isolated_path: list[Path], monkeypatch) -> None:
    _dist_info(isolated_path[0], "torch_npu", "2.10.0.post7")

    def asked(name: str) -> str:
        raise AssertionError("importlib.metadata was asked")

    monkeypatch.setattr(importlib.metadata, "version", asked)
    assert versions._dist_info_version("torch") == (True, None)
    assert versions.installed_version() is None


def test_an_egg_info_or_a_zip_on_the_path_is_left_to_importlib_metadata(isolated_path: list[Path], monkeypatch) -> None:
    first = isolated_path[0]
    egg = first / "torch-2.6.0-py3.11.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.0\nName: torch\nVersion: 2.6.0\n", encoding="utf-8")
    assert versions._dist_info_version("torch") == (False, None)
    assert versions.installed_version() == importlib.metadata.version("torch") == "2.6.0"
    archive = first.parent / "packages.zip"
    archive.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip archive
    monkeypatch.setattr(sys, "path", [str(archive), *map(str, isolated_path)])
    assert versions._dist_info_version("torch") == (False, None)


def test_the_installed_torch_of_this_environment_reads_the_same_either_way() -> None:
    assert versions.installed_version() == _or_none(lambda: importlib.metadata.version("torch"))


def _or_none(read):
    try:
        return read()
    except importlib.metadata.PackageNotFoundError:
        return None
