"""Which names exist upstream: the per-release symbol tables of FSDP2's modules and classes.

An assignment is an override only over a name that some supported torch release defines on that module
or class; storing a new attribute there (a sentinel flag, a saved original under a new name) overrides
nothing. The tables (`data/symbols.toml`) and the by-name callers (`[callers]` of the catalog) are
generated from torch's sources by `scripts/gen_catalog_symbols.py`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional

SYMBOLS_PATH = Path(__file__).resolve().parent.parent / "data" / "symbols.toml"
OPEN = "*"  # a class table's marker: it inherits from outside FSDP2, so any name may exist there


def format_releases(found: Iterable[str], minors: list[str]) -> str:
    """{"2.4", "2.5", "2.9", ..., newest} -> "2.4-2.5, 2.9+" (runs of consecutive known minor releases)."""
    found = set(found)
    runs: list[list[str]] = []
    for index, release in enumerate(minors):
        if release in found:
            if runs and runs[-1][-1] == minors[index - 1]:
                runs[-1].append(release)
            else:
                runs.append([release])
    parts = []
    for run in runs:
        if run[-1] == minors[-1]:
            parts.append(f"{run[0]}+")
        else:
            parts.append(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ", ".join(parts)


def parse_releases(text: str, minors: tuple[str, ...]) -> frozenset[str]:
    """The inverse of `format_releases`."""
    out: set[str] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        if part.endswith("+"):
            out.update(minors[minors.index(part[:-1]) :])
        elif "-" in part:
            first, last = part.split("-")
            out.update(minors[minors.index(first) : minors.index(last) + 1])
        else:
            out.add(part)
    return frozenset(out)


@dataclass(frozen=True)
class SymbolTables:
    minors: tuple[str, ...]  # every torch minor release the tables were made from, oldest first
    tables: Mapping[str, Mapping[str, str]]  # "module" / "module.Class" -> name -> releases text

    def _lookup(self, table: Mapping[str, str], name: str) -> frozenset[str]:
        found = parse_releases(table.get(name, ""), self.minors)
        return found | parse_releases(table.get(OPEN, ""), self.minors)

    def _class_table(self, module: str, cls: str) -> Optional[Mapping[str, str]]:
        table = self.tables.get(f"{module}.{cls}")
        if table is None:  # a class reached through a module that imported it: unique by name in FSDP2
            same = [t for key, t in self.tables.items() if key.count(".") == 1 and key.endswith("." + cls)]
            table = same[0] if len(same) == 1 else None
        return table

    def releases(self, target: str) -> Optional[frozenset[str]]:
        """The minor releases in which `target` (a catalog id) names something upstream; empty when none
        does; None when the tables cannot tell (an op, a dunder, an attribute of a function, a deeper
        path, a module they do not cover)."""
        parts = target.split(".")
        name = parts[-1]
        if parts[0] == "ops" or len(parts) not in (2, 3) or (name.startswith("__") and name.endswith("__")):
            return None  # dunders change how Python treats the object even where upstream never sets them
        module = self.tables.get(parts[0])
        if module is None:
            return None
        if len(parts) == 2:
            return self._lookup(module, name)
        owner = self._lookup(module, parts[1])
        if not owner:
            return frozenset()  # the owner itself is not FSDP2's: nothing of upstream's to override
        table = self._class_table(parts[0], parts[1])
        if table is None:
            return None  # a function or a plain value: its attributes are not in the tables
        return self._lookup(table, name) & owner

    def class_member(self, cls: str, name: str) -> Optional[frozenset[str]]:
        """The minor releases in which FSDP2 class `cls` ("_fsdp_param.FSDPParam") has `name`, dunders
        included (a subclass that defines it overrides it); None when the tables know no such class."""
        module, _, short = cls.partition(".")
        table = self._class_table(module, short) if short and "." not in short else None
        return None if table is None else self._lookup(table, name)

    def describe(self, releases: frozenset[str]) -> str:
        return format_releases(releases, list(self.minors))


@functools.cache
def load_symbols(path: Path = SYMBOLS_PATH) -> SymbolTables:
    from fsdp_unpatch.data import read_data

    data = read_data(path)
    return SymbolTables(tuple(data["releases"]["minors"]), data.get("tables", {}))
