#!/usr/bin/env python3
"""Write the data files as Python modules of plain literals, which load in under a millisecond.

Parsing ``catalog.toml`` with tomllib took 20-28 ms (at load 9 on 2 CPUs); a module of literals is read from its
bytecode cache instead. Each ``fsdp_unpatch/data/compiled_<name>.py`` holds ``DATA``, the source file's content
as ``tomllib`` / ``json`` read it, in the source's order. ``--check`` writes nothing and exits 1 when a compiled
module differs from what its source gives (a test runs it).

Usage::

    python scripts/compile_data.py [--check]
"""

from __future__ import annotations

import argparse
import json
import pprint
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11
    import tomli as tomllib

DATA_DIR = Path(__file__).resolve().parent.parent / "fsdp_unpatch" / "data"
SOURCES = ("catalog.toml", "symbols.toml", "upstream.json", "upstream_releases.json")


def compiled_path(source: str) -> Path:
    """`catalog.toml` -> `fsdp_unpatch/data/compiled_catalog.py`."""
    return DATA_DIR / f"compiled_{source.rpartition('.')[0]}.py"


def read_source(source: str) -> dict:
    path = DATA_DIR / source
    if path.suffix == ".toml":
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def compiled_text(source: str) -> str:
    body = pprint.pformat(read_source(source), width=120, sort_dicts=False)
    return (
        f"# Generated from {source} by scripts/compile_data.py: do not edit; run the script after changing {source}.\n"
        f"DATA = {body}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a compiled module is out of date")
    args = parser.parse_args(argv)
    stale = []
    for source in SOURCES:
        path, text = compiled_path(source), compiled_text(source)
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        stale.append(path.name)
        if not args.check:
            path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print(f"out of date: {', '.join(stale)} (run python scripts/compile_data.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
