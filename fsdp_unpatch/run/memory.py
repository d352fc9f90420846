"""What earlier fixes removed, remembered by later runs (README, "What fix remembers").

The catalog knows torch-npu's patch module: once a fix deleted `_patched_all_gather_copy_in`, every later run
still reports the strings, references and tests that name it. A project that carries a copy of the patch
under its own module name gets the same from this record: after `fix` writes, the replacement functions
(FSU002) and installers (FSU003) it deleted are kept in `removed.json` in the cache folder, per module, in
the catalog's own shape (`[patch_modules]`). Later runs add those modules to the catalog, so they are
treated exactly like the known one: a name counts as removed while its module no longer defines it.

The record is data, signed like the cache's entries (`cache.py`): a forged or foreign file is ignored. It is
kept per project root, so a cache folder shared by several projects (`--cache-dir`) never mixes their names.
"""

from __future__ import annotations

import ast
import hashlib
import os
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator, Optional

from fsdp_unpatch.catalog import Catalog, PatchModule
from fsdp_unpatch.files.regular import open_regular
from fsdp_unpatch.files.signing import canonical, unsafe_folder, user_secret
from fsdp_unpatch.model import RunResult
from fsdp_unpatch.run.cache import UNREADABLE, foreign_folder, prepare_folder, read_signed_json, write_signed_json

FILE, LOCK = "removed.json", "removed.lock"
FORMAT, VERSION = "fsdp-unpatch-removed", 2
HEADER = {"format": FORMAT, "version": VERSION}

# module -> {"path": its file, relative to the project root, "replacements": {name: target}, "installers": {name: ""}}
Modules = dict[str, dict]


def _valid(modules: object) -> bool:
    return isinstance(modules, dict) and all(
        isinstance(module, str)
        and isinstance(entry, dict)
        and set(entry) == {"path", "replacements", "installers"}
        and isinstance(entry["path"], str)
        and all(
            isinstance(part, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in part.items())
            for part in (entry["replacements"], entry["installers"])
        )
        for module, entry in modules.items()
    )


def _read_all(folder: Path) -> dict[str, Modules]:
    """Every project's record in `folder`; empty when there is none, or it is unsafe, corrupt, forged or foreign."""
    secret = user_secret()
    if secret is None or unsafe_folder(folder) is not None:
        return {}
    try:
        projects = read_signed_json(folder / FILE, secret, HEADER, "projects", FORMAT, 16 * 1024 * 1024)
    except UNREADABLE:
        return {}
    if not (
        isinstance(projects, dict)
        and all(isinstance(root, str) and _valid(modules) for root, modules in projects.items())
    ):
        return {}
    return projects


def _writable(folder: Path) -> Optional[bytes]:
    """The signing key, when the record may be written in `folder` (None: it may not, and is not)."""
    secret = user_secret()
    if secret is None or unsafe_folder(folder) is not None or foreign_folder(folder) is not None:
        return None
    return secret


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the record's lock (`removed.lock` beside it, `fcntl.flock`) until the block ends: other runs that
    update the record wait. Best effort: where the record is not written at all (an unsafe or foreign folder),
    where there is no `fcntl` (Windows) or the file system refuses the lock, the block runs unlocked, as
    before there was a lock (a record updated by two runs at once may then lose one run's entries)."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        fcntl = None  # type: ignore[assignment]
    descriptor = None
    if fcntl is not None and _writable(folder) is not None:
        try:
            prepare_folder(folder)
            descriptor = open_regular(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:
            pass  # a read-only tree, a link in the lock's place, a file system without locks: unlocked
    try:
        yield
    finally:
        if descriptor is not None:
            os.close(descriptor)  # releases the lock


def _write_all(folder: Path, projects: dict[str, Modules]) -> None:
    secret = _writable(folder)
    if secret is None:
        return
    try:
        prepare_folder(folder)
        write_signed_json(folder, FILE, secret, HEADER, "projects", FORMAT, projects)
    except OSError:
        pass  # a read-only tree or a full disk: the fix stands, only the memory of it is lost


@dataclass(frozen=True)
class Memory:
    """The record of one project (`project`: its root) in a cache folder."""

    folder: Path
    project: str

    def read(self) -> Modules:
        return _read_all(self.folder).get(self.project, {})

    def remember(self, removed: Modules) -> Modules:
        """Add what a fix removed; the project's whole record after it. The read, the update and the write
        hold the record's lock, so that fixes sharing the cache folder at once lose none of each other's
        entries."""
        if not removed:
            return self.read()
        with _locked(self.folder):
            projects = _read_all(self.folder)
            modules = projects.setdefault(self.project, {})
            for module, entry in removed.items():
                known = modules.setdefault(module, {"path": entry["path"], "replacements": {}, "installers": {}})
                known["path"] = entry["path"]
                known["replacements"].update(entry["replacements"])
                known["installers"].update(entry["installers"])
            _write_all(self.folder, projects)
        return modules


def _top_level_functions(data: bytes) -> Optional[dict[int, str]]:
    """First line (decorators included) -> name of each top-level function; None when the file does not parse.
    Read a statement at a time (`excerpt.statements`): no tree of a whole large module in memory."""
    from fsdp_unpatch.analysis.excerpt import statements
    from fsdp_unpatch.analysis.gc_pause import no_cyclic_gc

    functions: dict[int, str] = {}
    try:
        with no_cyclic_gc():
            for base, node in statements(data):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions[base + min([node.lineno] + [d.lineno for d in node.decorator_list])] = node.name
    except (SyntaxError, ValueError):
        return None
    return functions


def _known_to_the_catalog(module: str, path: Path, defined: set[str], catalog: Catalog) -> bool:
    """Whether the catalog itself remembers this module: by its name, or (as `linking.present_patch_modules`
    finds a copy in a folder of another name) by its file name and an installer it defined (`defined`: its
    top-level functions)."""
    known = catalog.patch_modules.get(module)
    if known is not None and known.path is None:
        return True
    return any(
        entry.path is None and name.rsplit(".", 1)[-1] == path.stem and defined & set(entry.installers)
        for name, entry in catalog.patch_modules.items()
    )


def removed_by(result: RunResult, catalog: Catalog, project: Path) -> Modules:
    """Per module, the replacement functions and installers this written fix deleted (modules the catalog
    already knows are left out: it remembers them itself), with the module's file relative to `project`."""
    from fsdp_unpatch.project.identity import module_name as module_name_of
    from fsdp_unpatch.rules.registry import with_role
    from fsdp_unpatch.run.removals import called_target

    # What the record keeps of a fix's findings: a deleted replacement function and a deleted installer.
    REPLACEMENT, INSTALLER = with_role("replacement").code, with_role("installer").code
    modules: Modules = {}
    for file in result.files:
        deleted = [f for f in file.findings if f.fixed and f.code in (REPLACEMENT, INSTALLER)]
        if not deleted or file.original is None:
            continue
        module, _ = module_name_of(Path(file.display), real=True)
        location = os.path.relpath(os.path.realpath(file.display), project)
        functions = _top_level_functions(file.original)
        if functions is None or _known_to_the_catalog(module, Path(file.display), set(functions.values()), catalog):
            continue
        entry = modules.setdefault(module, {"path": location, "replacements": {}, "installers": {}})
        for finding in deleted:
            name = functions.get(finding.span.line)
            if name is None:
                continue
            target = finding.target
            if finding.code == REPLACEMENT and target is not None and target in catalog.targets:
                entry["replacements"][name] = called_target(catalog, target)
            elif finding.code == INSTALLER:
                entry["installers"][name] = ""
    return {m: e for m, e in modules.items() if e["replacements"] or e["installers"]}


def extend(catalog: Catalog, modules: Modules, project: Path) -> Catalog:
    """The catalog with the remembered modules among its known patch modules (the catalog's own win); each is
    that file of `project` and no other module of the same name."""
    learned = {
        name: PatchModule(
            name,
            tuple(entry["installers"]),
            (),
            {function: target for function, target in entry["replacements"].items() if target in catalog.targets},
            path=os.path.realpath(os.path.join(project, entry["path"])),
        )
        for name, entry in modules.items()
        if name not in catalog.patch_modules or catalog.patch_modules[name].path is not None  # remembered: newer wins
    }
    if not learned:
        return catalog
    return replace(catalog, patch_modules={**catalog.patch_modules, **learned})


def digest(modules: Modules) -> str:
    """What the record adds to the analysis, for the cache's key."""
    return hashlib.sha256(canonical(modules)).hexdigest()
