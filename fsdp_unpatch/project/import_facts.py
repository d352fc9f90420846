"""What the broken-import rule (`rules/broken_import.py`) learns of each project file, kept in the run cache between runs.

Per file, keyed by its path and trusted only while its stat is unchanged (as `cache.Unchanged` does for
findings): the names it imports from which modules (by the bytes, then by `ast` when it was parsed), and as
an imported module, whether its bytes may bind a name and what its top level binds. Nothing here is a finding:
the rule joins the facts of both sides afresh each run, so an edit to either side shows at once. The facts
depend on the project's module names too; the entry's key hashes them (`broken_import.check`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Optional

from fsdp_unpatch.files.regular import Stat, StatLike, regular_record

# A file modified this shortly before it was read is not recorded (`cache.RACY_NS`, git's "racy" rule).
RACY_NS = 2_000_000_000
# (module, name, line, column, guarded, through): one `bindings.Imported`.
ImportRow = tuple[str, str, int, int, bool, Optional[str]]


@dataclass
class FileFacts:
    stat: Optional[Stat]  # None: a buffer, or too fresh to trust: never stored
    suspects: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # by the module name it is read as
    imports: dict[str, list[ImportRow]] = field(default_factory=dict)  # by module name, once parsed
    spelled: dict[str, bool] = field(default_factory=dict)  # name -> whether the bytes may bind it
    bindings: Optional[tuple[list[str], bool]] = None  # (names, open), once parsed
    unparsable: bool = False


@dataclass
class ImportFacts:
    files: dict[str, FileFacts] = field(default_factory=dict)


@dataclass
class Found:
    """FSU306's findings over a whole run, each with the index of the run's file it belongs to: stored under a
    key that covers the stat of every project file (`broken_import._settled_key`)."""

    findings: list[tuple[int, Any]] = field(default_factory=list)  # (index, `model.Finding`)


def stat_now(info: Optional[StatLike]) -> Optional[Stat]:
    """The stat to record of a file, from `info` (`os.stat` of it, taken before reading it; None: it failed);
    None when missing, not regular, or too fresh."""
    found = regular_record(info)
    if found is None:
        return None
    record, info = found
    now = time.time_ns()
    return None if info.st_mtime_ns + RACY_NS > now or info.st_ctime_ns + RACY_NS > now else record


def unchanged(facts: FileFacts, info: Optional[StatLike]) -> bool:
    """Whether the file whose `os.stat` is `info` (None: it failed) is as `facts` recorded it."""
    found = regular_record(info)
    return facts.stat is not None and found is not None and found[0] == facts.stat


def encode(value: ImportFacts) -> dict:
    return {
        "kind": "imports",
        "files": {
            path: [
                list(f.stat or ()),
                {m: [list(p) for p in pairs] for m, pairs in f.suspects.items()},
                {m: [list(r) for r in rows] for m, rows in f.imports.items()},
                f.spelled,
                None if f.bindings is None else [sorted(f.bindings[0]), f.bindings[1]],
                f.unparsable,
            ]
            for path, f in value.files.items()
            if f.stat is not None
        },
    }


def _require(condition: bool) -> None:
    if not condition:
        raise ValueError("not an entry of import facts")


def _text(value: Any) -> str:
    _require(isinstance(value, str))
    return value


def _count(value: Any) -> int:
    _require(isinstance(value, int) and not isinstance(value, bool) and value >= 0)
    return value


def _mapping(value: Any) -> dict:
    _require(isinstance(value, dict) and all(isinstance(k, str) for k in value))
    return value


def _row(value: Any) -> ImportRow:
    _require(isinstance(value, list) and len(value) == 6 and isinstance(value[4], bool))
    through = None if value[5] is None else _text(value[5])
    return (_text(value[0]), _text(value[1]), _count(value[2]), _count(value[3]), value[4], through)


def _pair(value: Any) -> tuple[str, str]:
    _require(isinstance(value, list) and len(value) == 2)
    return (_text(value[0]), _text(value[1]))


def decode(data: Any) -> ImportFacts:
    """The facts `encode` wrote; raises ValueError for anything else (a miss for the cache)."""
    _require(isinstance(data, dict) and set(data) == {"kind", "files"} and data["kind"] == "imports")
    files = {}
    for path, record in _mapping(data["files"]).items():
        _require(isinstance(record, list) and len(record) == 6 and isinstance(record[0], list))
        _require(len(record[0]) == 5 and isinstance(record[5], bool))
        stat_ = tuple(_count(n) for n in record[0])
        suspects = {m: [_pair(p) for p in pairs] for m, pairs in _mapping(record[1]).items()}
        imports = {m: [_row(r) for r in rows] for m, rows in _mapping(record[2]).items()}
        spelled = _mapping(record[3])
        _require(all(isinstance(v, bool) for v in spelled.values()))
        bound = record[4]
        if bound is not None:
            _require(isinstance(bound, list) and len(bound) == 2 and isinstance(bound[0], list))
            _require(isinstance(bound[1], bool))
            bound = ([_text(n) for n in bound[0]], bound[1])
        files[path] = FileFacts(stat_, suspects, imports, dict(spelled), bound, record[5])  # type: ignore[arg-type]
    return ImportFacts(files)
