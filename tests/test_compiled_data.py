"""The compiled data modules (`fsdp_unpatch/data/compiled_*.py`) say exactly what their sources say.

A run reads the compiled forms (they load in under a millisecond; tomllib took 20-28 ms on catalog.toml); an edit of
catalog.toml, symbols.toml or upstream.json that is not followed by `python scripts/compile_data.py` fails here.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11
    import tomli as tomllib

import fsdp_unpatch

DATA_DIR = Path(fsdp_unpatch.__file__).resolve().parent / "data"
SCRIPT = DATA_DIR.parent.parent / "scripts" / "compile_data.py"
SOURCES = ("catalog.toml", "symbols.toml", "upstream.json", "upstream_releases.json")


def _parsed(source: str):
    if source.endswith(".json"):
        return json.loads((DATA_DIR / source).read_text(encoding="utf-8"))
    return tomllib.loads((DATA_DIR / source).read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", SOURCES)
def test_the_compiled_module_holds_what_the_source_says_in_its_order(source: str) -> None:
    compiled = importlib.import_module(f"fsdp_unpatch.data.compiled_{source.rpartition('.')[0]}").DATA
    # repr, not ==: the order of tables is the order of the source (the catalog's targets are listed in it)
    assert repr(compiled) == repr(_parsed(source))


def test_the_script_check_passes_on_the_shipped_files_and_fails_on_a_stale_one(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    spec = importlib.util.spec_from_file_location("compile_data", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in (*SOURCES, *(f"compiled_{s.rpartition('.')[0]}.py" for s in SOURCES)):
        (tmp_path / name).write_bytes((DATA_DIR / name).read_bytes())
    module.DATA_DIR = tmp_path
    assert module.main(["--check"]) == 0
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(catalog.read_text(encoding="utf-8").replace("newest_torch = ", "newest_torch= "), "utf-8")
    assert module.main(["--check"]) == 0  # the same content, spelled otherwise
    catalog.write_text(catalog.read_text(encoding="utf-8") + '\n[extra]\nkey = "value"\n', encoding="utf-8")
    assert module.main(["--check"]) == 1
    assert module.main([]) == 0 and module.main(["--check"]) == 0  # rewritten


def test_the_shipped_files_are_read_from_their_compiled_form_and_others_parsed(tmp_path: Path) -> None:
    from fsdp_unpatch.data import read_data

    assert read_data(DATA_DIR / "catalog.toml") is importlib.import_module("fsdp_unpatch.data.compiled_catalog").DATA
    other = tmp_path / "catalog.toml"
    other.write_text('[catalog]\nversion = "x"\n', encoding="utf-8")
    assert read_data(other) == {"catalog": {"version": "x"}}
