"""The import safety net (README, Safety: "No fix breaks an import").

After every fix of a run is planned and before anything is written, every Python file of the project must
still bind what the other files import from it. Only the names a planned fix unbinds matter: per changed file,
its top-level names before and after (`project/bindings.py`, CPython's ast). The project's files are then
searched by bytes for those names, and only the files that spell one of them and the changed module are
parsed; the bytes searched are each file's view (`import_gates.view`: its names as CPython reads them, so a
full-width `ｐatch` is `patch`), and an importer through a dynamic export is parsed only when its view spells
an import read of the name from the forwarder (`import_gates.may_read`). Each file is reached once, under its
identity, with every module name it has (`project/identity.py`); a file the fix changes is read as the fix
leaves it.

A fix that would break an importer is refused: its whole group is held back, and the changed file gets
FSU903 naming the importer, its line and the name. Refusing, not widening the fix to the importer: the
importer may lie outside the run (a file the user did not ask to change), be unreadable, or use the name in
ways no fix of this tool can prove removable (a re-export, a subclass, a helper's call); the user decides.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from fsdp_unpatch.analysis.bindings import imports, parse
from fsdp_unpatch.analysis.gc_pause import no_cyclic_gc
from fsdp_unpatch.files.regular import read_regular
from fsdp_unpatch.project.bindings import bindings
from fsdp_unpatch.project.identity import Project, ProjectFile, module_name, project_files, shown_path
from fsdp_unpatch.run.forwarders import DYNAMIC, Exporter, Forwarder, exporter_of, forwarders_of
from fsdp_unpatch.run.import_gates import may_read, view

_Read = tuple[ProjectFile, bytes, bytes]


@dataclass(frozen=True)
class Rewrite:
    """One file's planned change: `after` is empty when the fix deletes the file."""

    index: int
    path: str
    before: bytes
    after: bytes


@dataclass(frozen=True)
class Breakage:
    index: int  # the rewrite that would break the importer
    reason: str

    def message(self) -> str:
        return f"{self.reason}; not written (no file of this fix's group was changed)"


def lost_names(before: bytes, after: bytes) -> frozenset[str]:
    """The top-level names `before` binds and `after` no longer does."""
    old = parse(before)
    if old is None:
        return frozenset()  # the fix planned nothing it could prove on a file CPython does not parse
    new = parse(after) if after else ast.Module(body=[], type_ignores=[])
    if new is None:
        return bindings(old.body).names
    return bindings(old.body).names - bindings(new.body).names


def breakages(
    rewrites: Sequence[Rewrite],
    roots: Optional[Sequence[str]],
    extra: Sequence[str] = (),
    exempt: frozenset[str] = frozenset(),
) -> list[Breakage]:
    """What each rewrite would break. `roots`: the project's folders (or files); None when no project could
    be found, so that any importable name a fix removes might be imported from somewhere. `exempt`: names
    removed elsewhere, whose importers break whatever this fix does."""
    lost = {r.index: lost_names(r.before, r.after) - exempt for r in rewrites}
    risky = [r for r in rewrites if lost[r.index]]
    if not risky:
        return []
    if roots is None:
        return [
            Breakage(
                r.index,
                f"no project root (pyproject.toml or .git) above {r.path} to search for importers of "
                f"{_names(lost[r.index])}, which this fix removes",
            )
            for r in risky
        ]
    found = {r.index: b for r in risky if (b := _still_used_here(r, lost[r.index])) is not None}
    risky = [r for r in risky if r.index not in found]
    if not risky:
        return list(found.values())
    project = project_files(roots, [*extra, *(r.path for r in rewrites)])
    rewritten = {project.key_of(r.path): r for r in rewrites}
    modules: dict[int, set[str]] = {}
    packages: set[int] = set()  # rewrites of a package's `__init__`: `from . import n` may name them
    for r in risky:
        name, is_package = module_name(r.path)
        names = {name}
        entry = project.files.get(project.key_of(r.path))
        kinds = [is_package, *(package for _, package in entry.modules)] if entry is not None else [is_package]
        if entry is not None:
            names.update(name for name, _ in entry.modules)
        modules[r.index] = names
        if any(kinds):
            packages.add(r.index)
    with no_cyclic_gc():  # the search builds and drops syntax trees (no cycles): the collector would walk them
        found.update((b.index, b) for b in _search(project, rewritten, risky, lost, modules, packages))
    return [found[k] for k in sorted(found)]


def _still_used_here(rewrite: Rewrite, lost: frozenset[str]) -> Optional[Breakage]:
    """A name the fix unbinds that the file itself still reads (`class TestMore(TestCopyIn)` when
    `TestCopyIn` goes) and binds nowhere else, not even locally."""
    tree = parse(rewrite.after) if rewrite.after else None
    if tree is None:
        return None
    stored: set[str] = set()
    loads: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.setdefault(node.id, node.lineno)
            else:
                stored.add(node.id)
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stored.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            stored.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            stored.add(node.name)
    used = sorted((line, name) for name, line in loads.items() if name in lost and name not in stored)
    if not used:
        return None
    line, name = used[0]
    return Breakage(rewrite.index, f"{shown_path(rewrite.path)}:{line} still uses {name}, which this fix removes")


def _search(
    project: Project,
    rewritten: dict[object, Rewrite],
    risky: list[Rewrite],
    lost: dict[int, frozenset[str]],
    modules: dict[int, set[str]],
    packages: set[int],
):
    spelled = {r.index: [n.encode("utf-8", "surrogateescape") for n in lost[r.index]] for r in risky}
    # An importer spells the module's last part (`from .patch import n`, `import pkg.patch as p`), or, for a
    # package's `__init__` only, imports from its own package without naming it (`from . import n`, `from ..`).
    tails = {
        r.index: {m.rsplit(".", 1)[-1].encode("utf-8", "surrogateescape") for m in modules[r.index]} for r in risky
    }
    found: dict[int, Breakage] = {}
    # (file, bytes, view): the bytes are parsed, their view (`import_gates.view`: names as CPython reads them) gated
    dynamic: list[_Read] = []  # files that may export names dynamically (`forwarders.py`)
    spelling: dict[int, list[_Read]] = {r.index: [] for r in risky}  # files spelling a lost name
    for entry in project.files.values():
        mine = rewritten.get(entry.key)
        if mine is not None:
            data: Optional[bytes] = mine.after
        else:
            try:
                data = read_regular(entry.paths[0])  # a FIFO or device is never opened for a blocking read
            except OSError as error:
                data = None
                if os.path.isfile(entry.paths[0]):  # a file this run cannot read may import anything
                    why = error.strerror or str(error)
                    for r in risky:
                        found.setdefault(
                            r.index,
                            Breakage(
                                r.index,
                                f"{shown_path(entry.paths[0])} cannot be read ({why}) and may import "
                                f"{_names(lost[r.index])}, which this fix removes",
                            ),
                        )
        if not data:
            continue
        seen = view(data)
        if any(word in seen for word in DYNAMIC):
            dynamic.append((entry, data, seen))
        for r in risky:
            if any(n in seen for n in spelled[r.index]):
                spelling[r.index].append((entry, data, seen))
        suspects = [
            r
            for r in risky
            if r.index not in found
            and any(n in seen for n in spelled[r.index])
            and ((r.index in packages and b"from ." in seen) or any(t in seen for t in tails[r.index]))
        ]
        if not suspects:
            continue
        tree = parse(data)
        for r in suspects:
            if tree is None:
                found[r.index] = Breakage(
                    r.index,
                    f"{shown_path(entry.paths[0])} cannot be parsed and may import "
                    f"{_names(lost[r.index])}, which this fix removes",
                )
                continue
            hit = _first_import(tree, entry.paths, entry.modules, modules[r.index], lost[r.index], project.modules)
            if hit is not None:
                path, line, name, module = hit
                found[r.index] = Breakage(
                    r.index, f"{shown_path(path)}:{line} imports {name} from {module}, which this fix removes"
                )
    left = [r for r in risky if r.index not in found]
    if left and dynamic:
        found.update((b.index, b) for b in _forwarded(project, left, lost, modules, dynamic, spelling))
    return [found[k] for k in sorted(found)]


def _forwarded(
    project: Project,
    risky: list[Rewrite],
    lost: dict[int, frozenset[str]],
    modules: dict[int, set[str]],
    dynamic: list[_Read],
    spelling: dict[int, list[_Read]],
) -> list[Breakage]:
    """Importers that reach a lost name through a dynamic export of another module (`forwarders.py`).

    Each file is parsed once at most and no tree is kept: what the search reads of a dynamic file is taken
    once (`Exporter`), and an importer is parsed only when its view can read a lost name from a forwarder
    (`import_gates.may_read`: a `from F import n` that resolves to a forwarder F, or `x.n` after F's last name or
    an `as` name bound to it; a docstring's "... implementation. dist" is neither)."""
    changed = {m for r in risky for m in modules[r.index]}
    tails = {m.rsplit(".", 1)[-1].encode("utf-8", "surrogateescape") for m in changed}
    exporters: list[tuple[ProjectFile, bytes, Exporter]] = []  # (file, view, what it exports)
    for entry, data, seen in dynamic:
        # Parsed only when it can be a forwarder: a `sys.modules[...]` store, or a file that spells a changed
        # module's name or is a package above one (`forwarders_of` needs no more of the others).
        above = any(p and any(m.startswith(name + ".") for m in changed) for name, p in entry.modules)
        stores = _MODULE_ENTRY.search(seen) is not None
        if not stores and not above and not any(t in seen for t in tails):
            continue
        tree = parse(data)
        if tree is not None:
            exporters.append((entry, seen, exporter_of(tree, entries=stores)))
    imported_by: dict[int, Optional[ast.Module]] = {}  # importers' trees, kept only for a second rewrite

    def tree_of(entry: ProjectFile, data: bytes) -> Optional[ast.Module]:
        if len(risky) == 1:
            return parse(data)
        if id(entry) not in imported_by:
            imported_by[id(entry)] = parse(data)
        return imported_by[id(entry)]

    broken = []
    for r in risky:
        by_module: dict[str, Forwarder] = {}
        for entry, seen, exporter in exporters:
            for forwarder in forwarders_of(exporter, seen, entry.modules, modules[r.index]):
                by_module.setdefault(forwarder.module, forwarder)
        target = max(modules[r.index], key=lambda m: (m.count("."), m))  # its fullest name
        hit = _forwarded_import(r, target, lost[r.index], by_module, spelling[r.index], tree_of, project.modules)
        if hit is not None:
            broken.append(hit)
    return broken


# A `sys.modules` entry with a literal key (`forwarders.module_entries`: `modules[KEY] = ...`, KEY a string) spells
# `modules`, the bracket and the string's quote (after a `u` or `r` prefix, or an opening parenthesis), however
# spaced, continued, commented or parenthesized (`(sys.modules)["k"]`). A comment runs to its line's end, but the
# one the bracket may follow on its line: one way only to read a run of `#`s (a comment that could end anywhere
# made a `# sys.modules ####...` line take time exponential in its length).
_GAP = rb"(?:[\s\\%s]|#[^\r\n]*[\r\n])*"
_MODULE_ENTRY = re.compile(rb"modules" + _GAP % b")" + rb"(?:#[^\r\n]*)?\[" + _GAP % b"(" + rb"[rRuU]?['\"]")
# An import from a module spells the module's last name (`from a.m import n`, `import a.m as x`, `from a import
# m`), or is relative (`from . import n`, `from .. import n`, however spaced or continued), which reaches only
# the importer's own package and the packages above it.
_RELATIVE = re.compile(rb"\bfrom[\s\\]+\.")


def _may_import_from(entry: ProjectFile, data: bytes, modules: Iterable[str]) -> bool:
    """Whether the file can import anything from one of `modules`: it spells one's last name, or imports
    relatively inside one of them."""
    if any(m.rsplit(".", 1)[-1].encode("utf-8", "surrogateescape") in data for m in modules):
        return True
    if _RELATIVE.search(data) is None:
        return False
    packages = {name if is_package else name.rpartition(".")[0] for name, is_package in entry.modules}
    return any(p == m or p.startswith(m + ".") for p in packages for m in modules)


def _forwarded_import(r, target, lost, by_module, files, tree_of, every_module: set[str]) -> Optional[Breakage]:
    """The first import, in `files`, of a name `r` loses from `target` through one of `by_module`."""
    if not by_module:
        return None
    for entry, data, seen in files:
        if not _may_import_from(entry, seen, by_module) or not may_read(seen, lost, by_module, entry.modules):
            continue
        tree = tree_of(entry, data)
        if tree is None:
            continue
        for path, (name, is_package) in zip(entry.paths, entry.modules):
            for imported in imports(tree, name, is_package, only=set(by_module)):
                forwarder = by_module.get(imported.module)
                if (
                    forwarder is not None
                    and imported.name in lost
                    and imported.name not in forwarder.own
                    and f"{imported.module}.{imported.name}" not in every_module
                ):
                    return Breakage(
                        r.index,
                        f"{shown_path(path)}:{imported.line} imports {imported.name} from {imported.module}, "
                        f"whose {forwarder.how} may take it from {target}, where this fix removes it",
                    )
    return None


def _first_import(tree, paths, names, targets: set[str], lost: frozenset[str], every_module: set[str]):
    """(importer path, line, name, module) of the first import of a lost name from a target module."""
    for path, (name, is_package) in zip(paths, names):
        for imported in imports(tree, name, is_package, only=targets):
            if (
                imported.module in targets
                and imported.name in lost
                and f"{imported.module}.{imported.name}" not in every_module  # a submodule stays importable
            ):
                return path, imported.line, imported.name, imported.module
    return None


def _names(names: frozenset[str]) -> str:
    shown = sorted(names)
    return ", ".join(shown[:3]) + (f" (and {len(shown) - 3} more)" if len(shown) > 3 else "")


def guard(files: Sequence, groups: Sequence[Sequence[int]], paths: Sequence[str], roots) -> None:
    """Hold back every group with a fix that would break an importer (`files`: `FileResult`s, `paths`: their
    paths), until no planned fix does: a group held back gives its files' old content back to the search."""
    from fsdp_unpatch.files.reading import SourceError
    from fsdp_unpatch.fixes.transaction import hold_back
    from fsdp_unpatch.rules.registry import error_finding

    group_of = {i: list(g) for g in groups for i in g}
    while True:
        rewrites = [
            Rewrite(i, paths[i], f.original, b"" if f.deleted else f.fixed)
            for i, f in enumerate(files)
            if f.fixed is not None and f.original is not None
        ]
        broken = breakages(rewrites, roots, paths)
        if not broken:
            return
        for breakage in broken:
            index = breakage.index
            if files[index].fixed is None:
                continue  # held back with an earlier one of its group
            files[index].findings.append(error_finding(files[index].display, SourceError("write", breakage.message())))
            hold_back(files, group_of.get(index, [index]), index, breakage.message())
