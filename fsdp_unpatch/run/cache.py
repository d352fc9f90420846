"""The per-file result cache in `.fsdp_unpatch_cache/` at the project root (like ruff's `.ruff_cache/`).

An entry is one file's phase-1 outcome (`model.Outcome`: its findings when analysed alone, plus the keys
that link it to other files), the results of a group of linked files, or `check`'s verdict on which fixes
`fix` would hold back (`Held`, keyed by `held_back.verdict_key`). Its key hashes everything the outcome
depends on:
- the file's bytes, the path it is reported under, and the module name its folders give it (relative
  imports resolve through it); for a group, the keys of all its files;
- the tool's own build: a hash of every file of the installed package (code and data), not its version
  number (two builds of one version must not share entries);
- the run's configuration (target torch, `keep`, select/ignore...), and the project folder's absolute path;
- in a run over part of a project, the files outside the run (their paths, sizes, modification times),
  because whether a definition is deleted depends on whether one of them still names it.

Entries are data, never code (README, Safety: "The cache cannot run code or lie"): JSON with a format name
and version, checked field by field by a loader that can build nothing but findings; and signed (HMAC-SHA256)
with a secret that lives in the user's own cache folder (`$XDG_CACHE_HOME/fsdp-unpatch/secret`, mode 0600),
so an entry committed to a repository or written by someone else is a miss. A cache folder that is a
symbolic link, is not owned by the user, or is writable by group or others is not used at all (`problem`
says why, once). Only `check` uses the cache; `fix` analyses afresh. An entry that cannot be read, parsed or
verified is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from fsdp_unpatch.files.regular import Stat, open_regular, regular_stat
from fsdp_unpatch.files.signing import secret_file, sign, unsafe_folder, user_secret
from fsdp_unpatch.run.cache_key import build_digest, catalog_digest

CACHE_DIR = ".fsdp_unpatch_cache"
ENTRIES = "entries"
# Everything the cache folder may hold of ours (`memory.py` keeps `removed.json` there, and `removed.lock`
# to update it); `clean` removes these and nothing else.
OWN_FILES = frozenset({ENTRIES, "removed.json", "removed.lock", ".gitignore", "CACHEDIR.TAG"})
FORMAT, VERSION = "fsdp-unpatch-cache", 2
_GITIGNORE = "# Created by fsdp-unpatch automatically.\n*\n"
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This is the fsdp-unpatch cache.\n"
_KEY = re.compile(r"^[0-9a-f]{64}$")


# where it may live ---------------------------------------------------------------------------------------
# signed private files: written whole or not at all, read without following a link ---------------------------
def write_signed_json(
    folder: Path, name: str, secret: bytes, header: dict[str, Any], field_name: str, label: str, value: Any
) -> None:
    """Write `header`, `value` under `field_name` and its signature (`sign` under `label`) as the JSON file
    `folder/name`, whole or not at all: a private temporary file in the same folder (mode 0600), then
    `os.replace`, so a reader sees the old file or the new one, never a part. Raises OSError."""
    import tempfile  # only a run that writes an entry: a warm run reads every one

    record = {**header, "signature": sign(secret, label, value), field_name: value}
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(json.dumps(record, separators=(",", ":")).encode())
        os.replace(temporary, folder / name)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def read_signed_json(path: Path, secret: bytes, header: dict[str, Any], field_name: str, label: str, limit: int) -> Any:
    """The value `write_signed_json` wrote to `path` with the same `header`, `field_name` and `label` (at most
    `limit` bytes read; a symbolic link is not followed). Raises one of `UNREADABLE` when the file is missing,
    unreadable, not JSON, of another shape, header or signature (corrupt, foreign, forged)."""
    descriptor = open_regular(path, os.O_RDONLY)
    with os.fdopen(descriptor, "rb") as handle:
        record = json.loads(handle.read(limit))
    _check(isinstance(record, dict) and set(record) == {*header, "signature", field_name})
    _check(all(record[key] == expected for key, expected in header.items()))
    _check(hmac.compare_digest(_text(record["signature"]), sign(secret, label, record[field_name])))
    return record[field_name]


# entries: plain data in, plain data out -------------------------------------------------------------------
class _Invalid(Exception):
    pass


# What reading a signed file (`read_signed_json`) or decoding an entry may raise: each means "not there".
UNREADABLE = (OSError, ValueError, RecursionError, _Invalid)


def _check(condition: bool) -> None:
    if not condition:
        raise _Invalid


def _text(value: Any) -> str:
    _check(isinstance(value, str))
    return value


def _optional_text(value: Any) -> Optional[str]:
    return None if value is None else _text(value)


def _number(value: Any) -> int:
    _check(isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 40)
    return value


def _names(value: Any) -> frozenset:
    _check(isinstance(value, list) and all(isinstance(v, str) for v in value))
    return frozenset(value)


_CATEGORIES = {"remove", "keep", "review", "error"}
_CODE = re.compile(r"^FSU\d{3}$")


def _finding_data(finding) -> dict:
    span = finding.span
    fix = finding.fix
    return {
        "code": finding.code,
        "category": finding.category,
        "path": finding.path,
        "message": finding.message,
        "target": finding.target,
        "span": [span.line, span.column, span.end_line, span.end_column],
        "detail": finding.detail,
        "fix": None
        if fix is None
        else {
            "applicability": fix.applicability,
            "description": fix.description,
            "replacements": _replacements_data(fix.replacements),
            "elsewhere": [[path, _replacements_data(replacements)] for path, replacements in fix.elsewhere],
        },
    }


def _replacements_data(replacements) -> list:
    return [[r.line, r.column, r.end_line, r.end_column, r.content] for r in replacements]


def _replacements(data: Any) -> tuple:
    from fsdp_unpatch.model import Replacement

    _check(isinstance(data, list))
    replacements = []
    for item in data:
        _check(isinstance(item, list) and len(item) == 5)
        line, column, end_line, end_column = (_number(n) for n in item[:4])
        replacements.append(Replacement(line, column, end_line, end_column, _text(item[4])))
    return tuple(replacements)


def _finding(data: Any):
    from fsdp_unpatch.model import Finding, Fix, Span

    _check(
        isinstance(data, dict)
        and set(data) == {"code", "category", "path", "message", "target", "span", "fix", "detail"}
    )
    code = _text(data["code"])
    _check(bool(_CODE.match(code)) and data["category"] in _CATEGORIES)
    span = data["span"]
    _check(isinstance(span, list) and len(span) == 4)
    fix = data["fix"]
    if fix is not None:
        _check(isinstance(fix, dict) and set(fix) == {"applicability", "description", "replacements", "elsewhere"})
        _check(fix["applicability"] in ("safe", "unsafe") and isinstance(fix["elsewhere"], list))
        elsewhere = []
        for item in fix["elsewhere"]:
            _check(isinstance(item, list) and len(item) == 2)
            elsewhere.append((_text(item[0]), _replacements(item[1])))
        fix = Fix(fix["applicability"], _text(fix["description"]), _replacements(fix["replacements"]), tuple(elsewhere))
    return Finding(
        code=code,
        category=data["category"],
        path=_text(data["path"]),
        span=Span(*(_number(n) for n in span)),
        message=_text(data["message"]),
        target=_optional_text(data["target"]),
        fix=fix,
        detail=_optional_text(data["detail"]),
    )


def _result_data(result) -> dict:
    return {
        "display": result.display,
        "encoding": result.encoding,
        "findings": [_finding_data(f) for f in result.findings],
    }


def _result(data: Any):
    from fsdp_unpatch.model import FileResult

    _check(isinstance(data, dict) and set(data) == {"display", "encoding", "findings"})
    _check(isinstance(data["findings"], list))
    encoding = _text(data["encoding"])
    _check(len(encoding) < 40)
    return FileResult(_text(data["display"]), findings=[_finding(f) for f in data["findings"]], encoding=encoding)


# A record is trusted only for a file last modified this long before it was read (git's "racy" rule: a write
# within the file system's timestamp granularity after the read could leave the times unchanged).
RACY_NS = 2_000_000_000


@dataclass
class Unchanged:
    """The files a run found nothing in on their own (the prefilter or the ast tier rejected them), by the path
    they are reported under: their stat when read, and whether they hold a first-stage token (`batch._linked`).
    A later run that finds a file's stat unchanged does not read it (`batch.run`); ruff's cache does the same."""

    files: dict[str, tuple[Stat, bool]] = field(default_factory=dict)

    @staticmethod
    def stat_of(source) -> Optional[Stat]:
        """The record of a file just read (None when it was modified too shortly before: not trusted)."""
        if not source.inode or source.mtime_ns + RACY_NS > source.read_ns or source.ctime_ns + RACY_NS > source.read_ns:
            return None
        return (source.size, source.mtime_ns, source.ctime_ns, source.inode, source.device)

    def holds(self, display: str, path) -> Optional[bool]:
        """Whether the file is unchanged since it was recorded: its `named` bit; None when not known or changed."""
        record = self.files.get(display)
        if record is None:
            return None
        found = regular_stat(path)
        return record[1] if found is not None and found[0] == record[0] else None


@dataclass
class Digests:
    """The sha256 of each file's bytes by the stat it had when hashed (trusted stats only, `RACY_NS`): a key
    built from it is the same whether a file is read or known by its stat, so it does not change when a file
    just written grows old enough to be trusted (`held_back.verdict_key`)."""

    files: dict[str, tuple[Stat, str]] = field(default_factory=dict)


@dataclass
class Held:
    """`check`'s verdict on which safe fixes `fix` would hold back (`held_back.py`): (path, code, line, column)
    of each, and why; empty when every fix would be written."""

    findings: dict[tuple[str, str, int, int], str] = field(default_factory=dict)


def encode(value) -> Any:
    """An Outcome, or a list of FileResults (a linked group), as JSON-ready data."""
    from fsdp_unpatch.model import Outcome
    from fsdp_unpatch.project import import_facts

    if isinstance(value, import_facts.ImportFacts):
        return import_facts.encode(value)
    if isinstance(value, import_facts.Found):
        return {"kind": "found", "findings": [[index, _finding_data(f)] for index, f in value.findings]}
    if isinstance(value, Held):
        return {"kind": "held", "findings": [[*key, why] for key, why in sorted(value.findings.items())]}
    if isinstance(value, Digests):
        return {"kind": "digests", "files": {p: [*stat_, sha] for p, (stat_, sha) in value.files.items()}}
    if isinstance(value, Unchanged):
        return {"kind": "unchanged", "files": {d: [*stat_, named] for d, (stat_, named) in value.files.items()}}
    if isinstance(value, Outcome):
        return {
            "kind": "outcome",
            "result": _result_data(value.result),
            "exports": sorted(value.exports),
            "together": value.together,
            "patched": sorted(value.patched),
            "missing": sorted(value.missing),
        }
    return {"kind": "group", "results": [_result_data(r) for r in value]}


def decode(data: Any):
    """The Outcome or list of FileResults `data` describes; raises _Invalid for anything else."""
    from fsdp_unpatch.model import Outcome

    _check(isinstance(data, dict))
    if data.get("kind") == "imports":  # FSU306's facts (`import_facts.py`); a ValueError is a miss too
        from fsdp_unpatch.project import import_facts

        return import_facts.decode(data)
    if data.get("kind") == "found":
        _check(set(data) == {"kind", "findings"} and isinstance(data["findings"], list))
        found = []
        for item in data["findings"]:
            _check(isinstance(item, list) and len(item) == 2)
            found.append((_number(item[0]), _finding(item[1])))
        from fsdp_unpatch.project.import_facts import Found

        return Found(found)
    if data.get("kind") == "held":
        _check(set(data) == {"kind", "findings"} and isinstance(data["findings"], list))
        held = {}
        for item in data["findings"]:
            _check(isinstance(item, list) and len(item) == 5)
            held[(_text(item[0]), _text(item[1]), _number(item[2]), _number(item[3]))] = _text(item[4])
        return Held(held)
    if data.get("kind") == "digests":
        _check(set(data) == {"kind", "files"} and isinstance(data["files"], dict))
        digests = {}
        for path, record in data["files"].items():
            _check(isinstance(path, str) and isinstance(record, list) and len(record) == 6)
            _check(all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in record[:5]))
            digests[path] = (tuple(record[:5]), _text(record[5]))
        return Digests(digests)
    if data.get("kind") == "unchanged":
        _check(set(data) == {"kind", "files"} and isinstance(data["files"], dict))
        files = {}
        for display, record in data["files"].items():
            _check(isinstance(display, str) and isinstance(record, list) and len(record) == 6)
            _check(all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in record[:5]))
            _check(isinstance(record[5], bool))
            files[display] = (tuple(record[:5]), record[5])
        return Unchanged(files)
    if data.get("kind") == "outcome":
        _check(set(data) == {"kind", "result", "exports", "together", "patched", "missing"})
        _check(isinstance(data["together"], bool))
        return Outcome(
            _result(data["result"]),
            _names(data["exports"]),
            data["together"],
            _names(data["patched"]),
            _names(data["missing"]),
        )
    _check(data.get("kind") == "group" and set(data) == {"kind", "results"} and isinstance(data["results"], list))
    return [_result(r) for r in data["results"]]


class Cache:
    def __init__(
        self,
        root: Path,
        configuration: str,
        catalog: Optional[str] = None,
        outside: str = "",
        folder: Optional[Path] = None,
    ) -> None:
        self.folder = folder if folder is not None else root / CACHE_DIR  # `--cache-dir` moves it
        self.entries = self.folder / ENTRIES
        # Why this cache is not used (printed once by the command); None when it is.
        self.problem = unsafe_folder(self.folder) or unsafe_folder(self.entries) or foreign_folder(self.folder)
        self.secret = user_secret()
        if self.problem is None and self.secret is None:
            self.problem = f"no private place for its signing key ({secret_file().parent})"
        if self.problem is not None:
            self.problem = f"not using the cache at {self.folder}: {self.problem}"
        # everything every entry depends on, besides the file itself
        self.salt = hashlib.sha256(
            "\0".join(
                (
                    FORMAT,
                    str(VERSION),
                    build_digest(),
                    catalog if catalog is not None else catalog_digest(),
                    configuration,
                    str(Path(os.path.abspath(root))),
                    outside,
                )
            ).encode()
        ).hexdigest()
        self.hits = 0
        self.misses = 0

    @property
    def usable(self) -> bool:
        return self.problem is None

    def key(self, candidate, data: bytes) -> str:
        from fsdp_unpatch.project.identity import module_name as module_name_of

        module, is_package = module_name_of(candidate.path, real=True)
        digest = hashlib.sha256(self.salt.encode())
        for part in (candidate.display.encode(), f"{module}:{is_package}".encode(), data):
            digest.update(len(part).to_bytes(8, "little") + part)
        return digest.hexdigest()

    def unchanged_key(self) -> str:
        """The key of the index of unchanged files (one per project, configuration and tool build)."""
        return hashlib.sha256((self.salt + "\0unchanged").encode()).hexdigest()

    def digests_key(self) -> str:
        """The key of the content digests of the project's files (`Digests`)."""
        return hashlib.sha256((self.salt + "\0digests").encode()).hexdigest()

    def facts_key(self, modules: str) -> str:
        """The key of FSU306's facts (`import_facts.py`) for a project of these module names."""
        return hashlib.sha256((self.salt + "\0imports\0" + modules).encode()).hexdigest()

    def group_key(self, keys: Iterable[str]) -> str:
        """The key of files analysed together: all their keys, in run order."""
        return hashlib.sha256(("group\0" + "\0".join(keys)).encode()).hexdigest()

    def get(self, key: Optional[str], counted: bool = True):
        """The value stored under `key`, or None; `counted`: a per-file entry (hits and misses count those)."""
        if key is None or not self.usable or not _KEY.match(key):
            return None
        assert self.secret is not None
        try:
            shard = self.entries / key[:2]
            _check(unsafe_folder(shard) is None)
            header = {"format": FORMAT, "version": VERSION, "key": key}
            value = decode(read_signed_json(shard / key, self.secret, header, "value", key, 64 * 1024 * 1024))
        except UNREADABLE:  # missing, corrupt, forged, foreign: a miss
            self.misses += counted
            return None
        self.hits += counted
        return value

    def put(self, key: Optional[str], value) -> None:
        if key is None or not self.usable:
            return
        assert self.secret is not None
        header = {"format": FORMAT, "version": VERSION, "key": key}
        try:
            self._prepare()
            folder = self.entries / key[:2]
            folder.mkdir(mode=0o700, exist_ok=True)
            if unsafe_folder(folder) is not None:
                return
            write_signed_json(folder, key, self.secret, header, "value", key, encode(value))
        except OSError:
            pass  # a read-only tree or a full disk: run without caching

    def _prepare(self) -> None:
        if not self.entries.is_dir():
            prepare_folder(self.folder)
            self.entries.mkdir(mode=0o700, exist_ok=True)


def foreign_folder(folder: Path) -> Optional[str]:
    """Why `folder` is not one the cache may fill and tag as a cache (backup tools skip tagged folders): it
    holds files that are not the cache's (`--cache-dir .`). None: it is ours, empty, or not there yet."""
    try:
        names = os.listdir(folder)
    except OSError:
        return None  # missing (made on first write) or unreadable (unsafe_folder says why)
    others = [n for n in names if n not in OWN_FILES and not (n.startswith(".") and n.endswith(".tmp"))]
    return f"it holds files that are not the cache's ({sorted(others)[0]!r}, ...)" if others else None


def prepare_folder(folder: Path) -> None:
    """Create the cache folder as git and backup tools should see it: ignored, tagged as a cache."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
        path = folder / name
        if not os.path.lexists(path):
            path.write_text(text)


def clear(root: Path, folder: Optional[Path] = None) -> tuple[bool, str]:
    """Remove the cache under `root` (or `folder`, from `--cache-dir`): (whether something was removed or
    there was nothing, what happened).

    A symbolic link is removed, never what it points to; a folder is removed as far as it can be, and
    what could not be is named. Never raises.
    """
    from fsdp_unpatch.i18n import gettext as _

    folder = folder if folder is not None else root / CACHE_DIR
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return True, _("No cache at {folder}").format(folder=folder)
    except OSError as error:
        return False, _("cannot inspect {folder}: {reason}").format(folder=folder, reason=error.strerror or error)
    try:
        if stat.S_ISLNK(info.st_mode):
            target = os.readlink(folder)
            os.unlink(folder)
            return True, _("Removed the symbolic link {folder} (what it points to, {target}, is left alone)").format(
                folder=folder, target=repr(target)
            )
        if not stat.S_ISDIR(info.st_mode):
            return False, _("{folder} is not a folder; left alone").format(folder=folder)
    except OSError as error:
        return False, _("cannot remove {folder}: {reason}").format(folder=folder, reason=error.strerror or error)
    # Only what the cache itself writes goes: a folder named by mistake (`--cache-dir .`) keeps everything else.
    failures: list[str] = []
    for name in sorted(os.listdir(folder)):
        path = folder / name
        if name in OWN_FILES or (name.startswith(".") and name.endswith(".tmp")):
            if name == ENTRIES and os.path.isdir(path) and not os.path.islink(path):
                import shutil

                shutil.rmtree(path, onerror=lambda function, where, error: failures.append(f"{where}: {error[1]}"))
            else:
                try:
                    os.unlink(path)
                except OSError as error:
                    failures.append(f"{path}: {error.strerror or error}")
    if failures:
        return False, _("could not remove all of {folder}: {failure}").format(folder=folder, failure=failures[0])
    others = sorted(os.listdir(folder))
    if others:
        return True, _("Removed the cache from {folder}; {count} other file(s) there left alone").format(
            folder=folder, count=len(others)
        )
    try:
        os.rmdir(folder)
    except OSError as error:
        return False, _("cannot remove {folder}: {reason}").format(folder=folder, reason=error.strerror or error)
    return True, _("Removed {folder}").format(folder=folder)
