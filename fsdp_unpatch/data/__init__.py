"""The data files, and their compiled forms: `compiled_<name>.py` holds `DATA`, the file's content as
`tomllib` / `json` read it, written by `scripts/compile_data.py` (tests/test_compiled_data.py keeps them equal).
A module of literals loads from its bytecode cache in under a millisecond; tomllib took 20-28 ms on catalog.toml."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Union

DATA_DIR = Path(__file__).resolve().parent
COMPILED = ("catalog.toml", "symbols.toml", "upstream.json", "upstream_releases.json")


def read_data(path: Union[str, os.PathLike[str]]) -> dict:
    """The content of a TOML or JSON data file: the compiled form for the shipped files, else parsed."""
    path = Path(path)
    if path.parent == DATA_DIR and path.name in COMPILED:
        module = importlib.import_module(f"fsdp_unpatch.data.compiled_{path.stem}")
        return module.DATA
    if path.suffix == ".json":
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11
        import tomli as tomllib
    with open(path, "rb") as handle:
        return tomllib.load(handle)
