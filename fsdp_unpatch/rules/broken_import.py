"""FSU306 (broken-import): imports of names their module, a file of the project, does not bind.

Kept cheap for big trees (torch's 2,285 files): the imports are first read from the bytes with a regular
expression, a name is a suspect only when its module's bytes spell it nowhere as a binding could
(`def n`, `n =`, `import ... n`, `as n`, ...), and only then are the importer and the module parsed (ast) to
confirm. A miss of the byte test is a false negative, never a false positive: on real code the rule
prefers saying nothing to saying something wrong.

Found over the whole run after the fixes are planned (`report`, called by the engine and the batch layer).
"""

from __future__ import annotations

import re
from typing import Iterator, Optional, Sequence

from fsdp_unpatch.analysis.bindings import Bindings, bindings, imports, parse
from fsdp_unpatch.analysis.source import resolve_relative
from fsdp_unpatch.files.lines import python_lines
from fsdp_unpatch.files.regular import read_regular
from fsdp_unpatch.model import Finding, Span
from fsdp_unpatch.rules.registry import declare
from fsdp_unpatch.run.identity import Project, ProjectFile, identity, project_files, roots_of, shown_path

BROKEN_IMPORT = declare(
    "FSU306",
    "broken-import",
    category="review",
    fix="none",
    phase="run",
    summary="An import of a name that its module, a file of the project, does not bind",
    messages="`{name}` is imported from `{module}` ({path}), which does not bind it: this import fails",
    doc="""
    ## What it does
    Reports `from M import name`, and `x.name` where `x` is bound by `import M as x`, `import M` or
    `from P import M`, when `M` is a module of the project and no statement of it binds `name` at top level
    (def, class, assignment, import, `global`, loop, `with ... as`, any branch of an `if` or `try`), and
    `name` is no submodule of `M`. Modules that may bind names no statement spells (`from x import *`, a
    module `__getattr__`, writes through `globals()` or `sys.modules`) are trusted, and so are modules
    outside the project (torch, the standard library), imports under `if TYPE_CHECKING:` and imports in a
    `try` that handles their failure.

    ## Why
    Such an import raises `ImportError` or `AttributeError`. A tree broken by any means (a hand edit, a merge,
    an earlier tool that deleted a patch installer and kept its import in a caller) is never reported clean.
    `fix` never leaves one behind (README, Safety).

    ## Example
    ```python
    # pkg/patch.py no longer defines _apply_fsdp_patch
    from pkg.patch import _apply_fsdp_patch  # FSU306
    ```
    """,
)

_FROM = re.compile(rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n;#]*)", re.MULTILINE)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?", re.MULTILINE)
_NAME = re.compile(rb"[A-Za-z_]\w*")
# Around a spelling of a name, what a binding of it may look like: `def n`, `import a, n`, `(n := ...)`,
# `n = ...`, `n: int = ...`, `for n in`, `a, n = ...`. Calls and other reads match too (a false negative).
_BINDS_BEFORE = re.compile(rb"(?:\b(?:def|class|import|as|global|nonlocal|for)\s+|[,(]\s*|\*)$")
_BINDS_AFTER = re.compile(rb"\s*(?:=(?!=)|:|,|\)|in\b|\+=|\|=)")
# Bytes of a module that may bind names no statement spells (`analysis/bindings.py`, Bindings.open).
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_").__contains__
_OPEN = (b"import *", b"__getattr__", b"globals()", b"vars()", b"sys.modules")


def findings(
    paths: Sequence[str],
    displays: Sequence[str],
    read: Sequence[Optional[bytes]],
    roots: Optional[Sequence[str]],
) -> Iterator[tuple[int, Finding]]:
    """(index of the run's file, finding) for each import of a name its project module does not bind.
    `read[i]`: the bytes of file i when the caller has them (an editor's buffer), else None (read here)."""
    project = project_files(roots if roots is not None else paths, paths)
    by_module: dict[str, list[ProjectFile]] = {}
    for entry in project.files.values():
        for name, _ in entry.modules:
            by_module.setdefault(name, []).append(entry)
    targets = _Targets(project, {identity(p): d for p, d in zip(paths, read) if d is not None})
    for index, (path, display) in enumerate(zip(paths, displays)):
        data = read[index] if read[index] is not None else targets.data_of(path)
        if not data or b"import" not in data:
            continue
        importer = project.files.get(identity(path))
        found: dict[tuple, Finding] = {}
        for module, is_package in importer.modules if importer is not None else []:  # a file under two names is both
            for finding in _check_file(data, display, module, is_package, by_module, project, targets):
                found.setdefault((finding.span.line, finding.span.column, finding.message), finding)
        for finding in found.values():
            yield index, finding


class _Targets:
    """The bytes and bindings of project modules, read once each."""

    def __init__(self, project: Project, buffers: dict[object, bytes]) -> None:
        self.project = project
        self.buffers = buffers
        self.data: dict[object, bytes] = {}
        self.bound: dict[object, Optional[Bindings]] = {}
        self.binding_spelled: dict[tuple[object, str], bool] = {}
        self.open: dict[object, bool] = {}

    def data_of(self, path: str) -> bytes:
        key = identity(path)
        if key not in self.data:
            found = self.buffers.get(key)
            if found is None:
                try:
                    found = read_regular(path)  # a FIFO or device is never opened for a blocking read
                except OSError:
                    found = b""
            self.data[key] = found
        return self.data[key]

    def may_bind(self, entry: ProjectFile, name: str) -> bool:
        """Whether the module's bytes spell `name` anywhere a binding could (cheap; true when unsure)."""
        key = (entry.key, name)
        if key not in self.binding_spelled:
            self.binding_spelled[key] = self._may_bind(entry, name)
        return self.binding_spelled[key]

    def _may_bind(self, entry: ProjectFile, name: str) -> bool:
        data = self.data_of(entry.paths[0])
        if entry.key not in self.open:
            self.open[entry.key] = not data or any(word in data for word in _OPEN)
        if self.open[entry.key]:
            return True  # unreadable, or may bind names no statement spells: nothing is known
        spelled = name.encode("utf-8", "surrogateescape")
        start = data.find(spelled)
        while start >= 0:
            end = start + len(spelled)
            whole = (start == 0 or not _WORD(data[start - 1])) and (end == len(data) or not _WORD(data[end]))
            if whole and (_BINDS_BEFORE.search(data, max(0, start - 12), start) or _BINDS_AFTER.match(data, end)):
                return True
            start = data.find(spelled, end)
        return False

    def bindings_of(self, entry: ProjectFile) -> Optional[Bindings]:
        if entry.key not in self.bound:
            tree = parse(self.data_of(entry.paths[0]))
            self.bound[entry.key] = None if tree is None else bindings(tree)
        return self.bound[entry.key]


def _suspects(data: bytes, module: str, is_package: bool, modules: set[str]) -> Iterator[tuple[str, str]]:
    """(module, name) pairs the bytes import, read without parsing (a superset is fine: ast confirms)."""
    aliases: dict[bytes, str] = {}
    for match in _FROM.finditer(data):
        base = resolve_relative(module, is_package, len(match[1]), match[2].decode("ascii", "replace"))
        if base is None:
            continue
        for part in match[3].strip(b"()").split(b","):
            words = _NAME.findall(part)
            if not words:
                continue
            name = words[0].decode("ascii", "replace")
            yield base, name
            aliases[words[-1] if b" as " in part else words[0]] = f"{base}.{name}" if base else name
    for match in _IMPORT.finditer(data):
        aliases[match[2] or match[1]] = match[1].decode("ascii", "replace")
    followed = {alias: target for alias, target in aliases.items() if target in modules}
    if not followed:
        return
    spelled = b"|".join(re.escape(alias) for alias in sorted(followed, key=len, reverse=True))
    for read in re.finditer(rb"(?<![\w.])(" + spelled + rb")\.([A-Za-z_]\w*)", data):
        yield followed[read[1]], read[2].decode("ascii", "replace")


def _check_file(data, display, module, is_package, by_module, project, targets) -> Iterator[Finding]:
    suspects = set()
    for target, name in _suspects(data, module, is_package, project.modules):
        entries = by_module.get(target)
        if not entries or f"{target}.{name}" in project.modules:
            continue  # outside the project, or a submodule
        if any(package for e in entries for m, package in e.modules if m == target):
            continue  # a package's name may be a submodule that is no Python source (`_C`, a compiled extension)
        if not any(targets.may_bind(e, name) for e in entries):
            suspects.add((target, name))
    if not suspects:
        return
    tree = parse(data)
    if tree is None:
        return
    reported = set()

    def _binds(package: str, name: str) -> bool:
        found = [targets.bindings_of(e) for e in by_module.get(package, [])]
        return any(b is None or b.open or name in b.names for b in found)

    for imported in imports(tree, module, is_package):
        key = (imported.module, imported.name)
        if key not in suspects or imported.guarded or (key, imported.line) in reported:
            continue
        if f"{imported.module}.{imported.name}" in project.modules:
            continue
        if imported.through is not None and _binds(imported.through, imported.module.rsplit(".", 1)[-1]):
            continue  # `from P import x`: P's own x (a function, a class) may hide the submodule P.x
        entries = by_module[imported.module]
        bound = [targets.bindings_of(e) for e in entries]

        if any(b is None or b.open or imported.name in b.names for b in bound):
            continue  # a copy binds it, may bind it, or cannot be parsed: nothing is proven
        reported.add((key, imported.line))
        yield Finding(
            code=BROKEN_IMPORT.code,
            category=BROKEN_IMPORT.category,
            path=display,
            span=Span(imported.line, imported.column, imported.line, imported.column),
            message=BROKEN_IMPORT.messages["default"].format(
                name=imported.name, module=imported.module, path=_where(entries[0])
            ),
        )


def _where(entry: ProjectFile) -> str:
    return shown_path(entry.paths[0])


def report(files: Sequence, paths: Sequence[str], buffers: dict[int, bytes], options) -> None:
    """FSU306 findings of a `check` run, added to `files` (README, Rules: broken-import)."""
    from fsdp_unpatch.analysis.suppression import is_suppressed

    if not any(options.selected(BROKEN_IMPORT.code, f.display) for f in files):
        return
    read = [buffers.get(i) for i in range(len(paths))]
    roots = roots_of(options, paths, [paths[i] for i in buffers])
    for index, finding in findings(paths, [f.display for f in files], read, roots):
        result = files[index]
        if not options.selected(finding.code, result.display):
            continue
        data = read[index]
        if data is None:
            data = _read(paths[index])
        lines = python_lines(data.decode("utf-8", "replace"))
        if options.ignore_noqa or not is_suppressed(lines, finding.span.line, finding.code):
            result.findings.append(finding)


def _read(path: str) -> bytes:
    try:
        return read_regular(path)
    except OSError:
        return b""
