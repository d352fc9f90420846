"""FSU306 (broken-import): imports of names their module, an FSDP patch module of the project, does not bind.

Scoped to the migration: the imported module is one that could hold a finding (it touches FSDP2 or is a
patch module: `analysis/prefilter.py`), or the name is a patch part the catalog knows (an installer, a
replacement). The project's other imports are a type checker's business.

Kept cheap for big trees (torch's 2,285 files): the imports are first read from the bytes with a regular
expression; an import is looked at only when its module may be the migration's (a file of it spells a token
of the prefilter's first stage, which the run already knows of each of its files, or lies in an FSDP2 or
patch package) or the name is a patch part; a name is a suspect only when its module's bytes spell it
nowhere as a binding could (`def n`, `n =`, `import ... n`, `as n`, ...), and only then are the importer
and the module parsed (ast) to confirm. A miss of the byte test is a false negative, never a false positive:
on real code the rule prefers saying nothing to saying something wrong.

Found over the whole run after the fixes are planned (`imports`: the engine and the batch layer hand the
run's files to the dispatcher).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
from functools import partial
from typing import TYPE_CHECKING, Iterator, Mapping, Optional, Sequence

from fsdp_unpatch.analysis.prefilter import Prefilter, prefilter_for
from fsdp_unpatch.catalog import Catalog, load_catalog
from fsdp_unpatch.files.regular import read_regular, regular_record
from fsdp_unpatch.lazy_re import LazyPattern
from fsdp_unpatch.model import Finding, Span
from fsdp_unpatch.project import import_facts
from fsdp_unpatch.project.identity import Project, ProjectFile, identity, project_files, roots_of, shown_path
from fsdp_unpatch.project.import_facts import FileFacts, Found, ImportFacts, stat_now, unchanged
from fsdp_unpatch.project.module_names import resolve_relative
from fsdp_unpatch.rules.registry import declare

# The syntax-tree side (`analysis/bindings.py`, `project/bindings.py`) is imported where a file is parsed: a run
# whose findings come from the cache reads none (`tests/test_startup_imports.py`).
if TYPE_CHECKING:
    from fsdp_unpatch.analysis.bindings import Imported
    from fsdp_unpatch.analysis.import_subjects import FileFinding, ProjectImports
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.project.bindings import Bindings


def check(subject: ProjectImports, catalog: Optional[Catalog], options: Options) -> Iterator[FileFinding]:
    """FSU306 findings of a run, each with its file's index (README, Rules: broken-import), but where the run
    does not report FSU306 or a noqa comment suppresses it; `subject.cache`: the run cache, which keeps what
    the rule learns of each file (`project/import_facts.py`)."""
    from fsdp_unpatch.analysis.import_subjects import FileFinding

    run, paths, buffers, displays = subject.run, subject.paths, subject.buffers, subject.displays
    if not any(run.selected(BROKEN_IMPORT.code, display) for display in displays):
        return
    read = [buffers.get(i) for i in range(len(paths))]
    roots = roots_of(run, paths, [paths[i] for i in buffers])
    chosen = [
        (i, f)
        for i, f in findings(paths, displays, read, roots, subject.cache, catalog, subject.named)
        if run.selected(f.code, displays[i])
    ]
    by_file: dict[int, list[Finding]] = {}
    for index, finding in chosen:
        by_file.setdefault(index, []).append(finding)
    if not by_file:
        return
    from fsdp_unpatch.analysis.suppression import reported

    kept = {
        id(finding)
        for index, found in by_file.items()
        for finding in reported(
            found, lambda f: f.span.line, partial(_text, read[index], paths[index]), ignore_noqa=run.ignore_noqa
        )
    }
    for index, finding in chosen:
        if id(finding) in kept:
            yield FileFinding(index, finding)


BROKEN_IMPORT = declare(
    "FSU306",
    "broken-import",
    category="review",
    fix="none",
    phase="run",
    check=check,
    subject="imports",
    # no `candidates`: it reads the imports of every file of the project itself, after the fixes are planned
    summary="An import of a name that its module, an FSDP patch module of the project, does not bind",
    messages="`{name}` is imported from `{module}` ({path}), which does not bind it: this import fails",
    doc="""
    ## What it does
    Reports `from M import name`, and `x.name` where `x` is bound by `import M as x`, `import M` or
    `from P import M`, when `M` is an FSDP patch module of the project (it overrides or names FSDP2, or
    `name` is a patch part the catalog knows, such as `_apply_fsdp_patch`), no statement of `M` binds `name`
    at top level (def, class, assignment, import, `global`, loop, `with ... as`, any branch of an `if` or
    `try`), and
    `name` is no submodule of `M`. Modules that may bind names no statement spells (`from x import *`, a
    module `__getattr__`, writes through `globals()` or `sys.modules`) are trusted, and so are modules
    outside the project (torch, the standard library), imports under `if TYPE_CHECKING:` and imports in a
    `try` that handles their failure. Module names are Python's: a folder without `__init__.py` inside a
    regular package is a namespace portion of it, so `from ...config import x` in `pkg/sub/leaf/mod.py` means
    `pkg.config`, never a top-level `config.py` of the tree. A module's sources lie under the project's import
    roots: the project folder and the folders its `pyproject.toml` or `setup.cfg` declares (setuptools'
    `package-dir` and `packages.find` `where`, poetry's `from`, hatch's wheel `packages`), else its `src/`. A
    copy of the project's own package anywhere else (a stale `build/lib/` that `python setup.py build` or
    `pip wheel` left) is not on `sys.path` and never hides an import that fails; a subpackage named `build` is
    no copy. The project's other imports are left to a type checker: this rule is about what the migration, or
    an earlier one, left behind.

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

# Statements that open a line (`_statements`): led by a literal word, which the regular expression engine
# finds fast, then checked to stand at the start of their line.
_FROM = LazyPattern(rb"from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n;#]*)")
_IMPORT = LazyPattern(rb"import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?")
_NAME = LazyPattern(rb"[A-Za-z_]\w*")
_COMMENT = LazyPattern(rb"#[^\n]*")
# Around a spelling of a name, what a binding of it may look like: `def n`, `import a, n`, `(n := ...)`,
# `n = ...`, `n: int = ...`, `for n in`, `a, n = ...`. Calls and other reads match too (a false negative).
_BINDS_BEFORE = LazyPattern(rb"(?:\b(?:def|class|import|as|global|nonlocal|for)\s+|[,(]\s*|\*)$")
_BINDS_AFTER = LazyPattern(rb"\s*(?:=(?!=)|:|,|\)|in\b|\+=|\|=)")
# Bytes of a module that may bind names no statement spells (`project/bindings.py`, Bindings.open).
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_").__contains__
_OPEN = (b"import *", b"__getattr__", b"globals()", b"vars()", b"sys.modules")


def findings(
    paths: Sequence[str],
    displays: Sequence[str],
    read: Sequence[Optional[bytes]],
    roots: Optional[Sequence[str]],
    cache=None,
    catalog: Optional[Catalog] = None,
    named: Mapping[int, bool] = {},
) -> Iterator[tuple[int, Finding]]:
    """(index of the run's file, finding) for each import of a name its project module does not bind.
    `read[i]`: the bytes of file i when the caller has them (an editor's buffer), else None (read here).
    `cache` (a `run.cache.Cache`): what this rule learned of each unchanged file last time (`import_facts.py`);
    `catalog`: what makes a module an FSDP patch module (default: the bundled catalog); `named[i]`: whether
    file i spells a prefilter token, where the caller knows it (else it is read here when needed)."""
    project = project_files(roots if roots is not None else paths, paths)
    by_module: dict[str, list[ProjectFile]] = {}
    packages = set()
    for entry in project.files.values():
        for name, is_package in entry.modules:
            by_module.setdefault(name, []).append(entry)
            if is_package:
                packages.add(name)
    # A package's name may be a submodule that is no Python source (`_C`, a compiled extension): only plain
    # modules are checked, so only imports from them are looked at.
    checkable = frozenset(by_module) - packages
    key = settled = None
    if cache is not None and cache.usable:
        key = cache.facts_key(_modules_text(project))
        settled = None if any(d is not None for d in read) else _settled_key(key, project, paths, displays)
    before = cache.get(settled, counted=False) if settled is not None else None
    if isinstance(before, Found):
        yield from before.findings
        return
    every: list[tuple[int, Finding]] = []
    known = cache.get(key, counted=False) if key is not None else None
    targets = _Targets(
        project,
        {project.key_of(p): d for p, d in zip(paths, read) if d is not None},
        known if isinstance(known, ImportFacts) else ImportFacts(),
        prefilter_for(catalog if catalog is not None else load_catalog()),
    )
    for index, verdict in named.items():
        targets.named[targets.key_of(paths[index])] = verdict
    for index, (path, display) in enumerate(zip(paths, displays)):
        importer = project.files.get(targets.key_of(path))
        if importer is None:
            continue
        facts = targets.facts_of(path)
        found: dict[tuple, Finding] = {}
        for module, is_package in importer.modules:  # a file under two names is both
            suspects = facts.suspects.get(module)
            if suspects is None:
                data = targets.data_of(path)
                suspects = (
                    [] if b"import" not in data else list(dict.fromkeys(_suspects(data, module, is_package, checkable)))
                )
                facts.suspects[module] = suspects
                targets.learned(facts)
            for finding in _check_file(
                path, suspects, display, module, is_package, by_module, project, targets, checkable
            ):
                found.setdefault((finding.span.line, finding.span.column, finding.message), finding)
        for finding in found.values():
            every.append((index, finding))
            yield index, finding
    if key is not None and targets.changed:
        cache.put(key, targets.kept())
    if settled is not None:
        cache.put(settled, Found(every))


def _settled_key(facts_key: str, project: Project, paths: Sequence[str], displays: Sequence[str]) -> Optional[str]:
    """The cache key of this run's findings: the facts' key (tool build, settings, module names), the run's
    files, the current folder (messages name modules by paths relative to it) and the stat of every project
    file. None when a file's stat cannot stand for its content (changed within `import_facts.RACY_NS`, not
    regular): the run then joins the per-file facts afresh."""
    trusted_before = project.since - import_facts.RACY_NS
    digest = hashlib.sha256(f"{facts_key}\0found\0{os.getcwd()}\0".encode("utf-8", "surrogateescape"))
    for path, display in zip(paths, displays):
        digest.update(f"{path}\0{display}\n".encode("utf-8", "surrogateescape"))
    for entry in project.files.values():
        for path in dict.fromkeys(entry.paths):
            found = regular_record(project.stat_of(path))
            if found is None or max(found[1].st_mtime_ns, found[1].st_ctime_ns) >= trusted_before:
                return None
            digest.update(f"{path}\0{found[0]}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _modules_text(project: Project) -> str:
    """Every file of the project with the module name(s) it has: what the facts depend on besides bytes."""
    return "\n".join(
        sorted(
            f"{p}\0{m}\0{int(k)}" for entry in project.files.values() for p, (m, k) in zip(entry.paths, entry.modules)
        )
    )


class _Targets:
    """The bytes, trees, facts and bindings of project files, read and parsed at most once each per run."""

    def __init__(
        self, project: Project, buffers: dict[object, bytes], known: ImportFacts, prefilter: Prefilter
    ) -> None:
        self.project = project
        self.prefilter = prefilter
        self.patch_modules: dict[object, bool] = {}
        self.named: dict[object, bool] = {}  # a file spells a token of the prefilter's first stage (the run's)
        self.candidate: dict[object, bool] = {}  # it spells one, or lies in an FSDP2 or patch package
        self.buffers = buffers
        self.known = known
        self.facts: dict[str, FileFacts] = {}
        self.changed = False
        self.data: dict[object, bytes] = {}
        self.trees: dict[object, Optional[ast.Module]] = {}
        self.bound: dict[object, Optional[Bindings]] = {}
        self.binding_spelled: dict[tuple[object, str], bool] = {}
        self.open: dict[object, bool] = {}
        self.keys: dict[str, object] = {}

    def facts_of(self, path: str) -> FileFacts:
        """The file's facts: last run's while its stat is unchanged, else fresh (stat taken before reading)."""
        key = os.path.normpath(path)
        facts = self.facts.get(key)
        if facts is None:
            if self.key_of(path) in self.buffers:
                facts = FileFacts(None)  # an editor's buffer: never recorded
            else:
                facts = self.known.files.get(key)
                info = self.project.stat_of(path)  # the walk's: taken before anything read the file
                if facts is None or not unchanged(facts, info):
                    facts = FileFacts(stat_now(info))
                    self.changed |= facts.stat is not None
            self.facts[key] = facts
        return facts

    def learned(self, facts: FileFacts) -> None:
        """`facts` gained something: the cache entry is written again when it is one to keep."""
        self.changed |= facts.stat is not None

    def kept(self) -> ImportFacts:
        """This run's facts, and last run's of files it did not look at (their stat is checked when used)."""
        return ImportFacts({**self.known.files, **{k: f for k, f in self.facts.items() if f.stat is not None}})

    def key_of(self, path: str) -> object:
        """The file's `identity`: the project walk's, else taken once per path (a stat each time cost more than
        the rest of a lookup)."""
        key = self.keys.get(path)
        if key is None:
            known = self.project.keys.get(os.path.normpath(path))
            key = self.keys[path] = identity(path) if known is None else known
        return key

    def data_of(self, path: str) -> bytes:
        key = self.key_of(path)
        if key not in self.data:
            self.facts_of(path)  # the stat first: a write after it shows as a change next time
            found = self.buffers.get(key)
            if found is None:
                try:
                    found = read_regular(path)  # a FIFO or device is never opened for a blocking read
                except OSError:
                    found = b""
            self.data[key] = found
        return self.data[key]

    def tree_of(self, path: str) -> Optional[ast.Module]:
        key = self.key_of(path)
        if key not in self.trees:
            from fsdp_unpatch.analysis.bindings import parse

            self.trees[key] = parse(self.data_of(path))
        return self.trees[key]

    def in_migration(self, entries: Sequence[ProjectFile], name: str) -> bool:
        """Whether an import of `name` from the module of `entries` is the migration's business: `name` is a
        patch part the catalog knows, or a file of the module could hold a finding (it touches FSDP2)."""
        if name in self.prefilter.vocabulary.patch_names:
            return True
        for entry in entries:
            if entry.key not in self.patch_modules:
                path = entry.paths[0]
                self.patch_modules[entry.key] = self.prefilter.worth_parsing(self.data_of(path), path)
            if self.patch_modules[entry.key]:
                return True
        return False

    def may_be_in_migration(self, entries: Sequence[ProjectFile], name: str) -> bool:
        """What `in_migration` needs, cheap to ask first: the name is a patch part, or a file of the module spells
        an FSDP2 token or lies in an FSDP2 or patch package. Most imports of a big tree fail it at once."""
        if name in self.prefilter.vocabulary.patch_names:
            return True
        for entry in entries:
            if entry.key not in self.candidate:
                path = entry.paths[0]
                named = self.named.get(entry.key)
                if named is None:
                    named = self.prefilter.has_token(self.data_of(path))
                self.candidate[entry.key] = named or self.prefilter.in_package(path)
            if self.candidate[entry.key]:
                return True
        return False

    def may_bind(self, entry: ProjectFile, name: str) -> bool:
        """Whether the module's bytes spell `name` anywhere a binding could (cheap; true when unsure)."""
        key = (entry.key, name)
        if key not in self.binding_spelled:
            facts = self.facts_of(entry.paths[0])
            if name not in facts.spelled:
                facts.spelled[name] = self._may_bind(entry, name)
                self.learned(facts)
            self.binding_spelled[key] = facts.spelled[name]
        return self.binding_spelled[key]

    def _may_bind(self, entry: ProjectFile, name: str) -> bool:
        data = self.data_of(entry.paths[0])
        spelled = name.encode("utf-8", "surrogateescape")
        start = data.find(spelled)
        while start >= 0:
            end = start + len(spelled)
            whole = (start == 0 or not _WORD(data[start - 1])) and (end == len(data) or not _WORD(data[end]))
            if whole and (_BINDS_BEFORE.search(data, max(0, start - 12), start) or _BINDS_AFTER.match(data, end)):
                return True
            start = data.find(spelled, end)
        # Asked only now: most names a module is asked for are spelled as bound, and the search costs.
        if entry.key not in self.open:
            self.open[entry.key] = not data or any(word in data for word in _OPEN)
        return self.open[entry.key]  # unreadable, or may bind names no statement spells: nothing is known

    def bindings_of(self, entry: ProjectFile) -> Optional[Bindings]:
        if entry.key not in self.bound:
            facts = self.facts_of(entry.paths[0])
            if facts.bindings is None and not facts.unparsable:
                from fsdp_unpatch.project.bindings import bindings

                tree = self.tree_of(entry.paths[0])
                found = None if tree is None else bindings(tree.body)
                facts.unparsable = found is None
                facts.bindings = None if found is None else (sorted(found.names), found.open)
                self.learned(facts)
            known = facts.bindings
            if known is None:
                self.bound[entry.key] = None
            else:
                from fsdp_unpatch.project.bindings import Bindings

                self.bound[entry.key] = Bindings(frozenset(known[0]), known[1])
        return self.bound[entry.key]

    def imports_of(self, path: str, module: str, is_package: bool, checkable: frozenset) -> Optional[list[Imported]]:
        """What the file imports (read as `module`) from checkable modules; None when it cannot be parsed."""
        from fsdp_unpatch.analysis.bindings import Imported, imports

        facts = self.facts_of(path)
        rows = facts.imports.get(module)
        if rows is None:
            tree = self.tree_of(path)
            if tree is None:
                return None
            rows = [
                (i.module, i.name, i.line, i.column, i.guarded, i.through)
                for i in imports(tree, module, is_package, only=checkable)  # no walk when no alias is one
                if i.module in checkable
            ]
            facts.imports[module] = rows
            self.learned(facts)
        return [Imported(*row) for row in rows]


def _suspects(data: bytes, module: str, is_package: bool, checkable: frozenset) -> Iterator[tuple[str, str]]:
    """(module, name) pairs the bytes import from checkable modules, read without parsing (a superset is
    fine: ast confirms)."""
    aliases: dict[bytes, str] = {}
    for match in _statements(_FROM, data):
        base = resolve_relative(module, is_package, len(match[1]), match[2].decode("ascii", "replace"))
        if base is None:
            continue
        # A comment's words (noqa, type) import nothing; the name after a comment in the same part does.
        names = _COMMENT.sub(b" ", match[3].strip(b"()"))
        for part in names.split(b","):
            words = _NAME.findall(part)
            if not words:
                continue
            name = words[0].decode("ascii", "replace")
            if base in checkable:
                yield base, name
            aliases[words[-1] if b" as " in part else words[0]] = f"{base}.{name}" if base else name
    for match in _statements(_IMPORT, data):
        aliases[match[2] or match[1]] = match[1].decode("ascii", "replace")
    # `alias.name` reads: at each place, the longest alias (a regular expression's alternation did the same)
    reads: dict[int, tuple[int, str, str]] = {}
    for alias, target in aliases.items():
        if target not in checkable:
            continue
        needle = alias + b"."
        start = data.find(needle)
        while start >= 0:
            before = data[start - 1] if start else 0
            if not (_WORD(before) or before == 46) and not _in_comment(data, start):  # 46: "."
                read = _NAME.match(data, start + len(needle))
                if read is not None and read[0].startswith(b"__") and read[0].endswith(b"__"):
                    read = None  # `x.__name__`: every module has its dunders (`bindings.imports` skips them)
                if read is not None and len(alias) > reads.get(start, (0, "", ""))[0]:
                    reads[start] = (len(alias), target, read[0].decode("ascii", "replace"))
            start = data.find(needle, start + 1)
    for _, target, name in reads.values():
        yield target, name


def _statements(pattern: LazyPattern[bytes], data: bytes) -> Iterator[re.Match]:
    """The matches of `pattern` that only spaces or tabs precede on their line: what `^[ \\t]*` with
    `re.MULTILINE` and `finditer` would give (a match elsewhere is skipped, not consumed)."""
    match = pattern.search(data)
    while match is not None:
        start = match.start()
        if not data[data.rfind(b"\n", 0, start) + 1 : start].strip(b" \t"):
            yield match
            match = pattern.search(data, match.end() if match.end() > start else start + 1)
        else:
            match = pattern.search(data, start + 1)


def _in_comment(data: bytes, at: int) -> bool:
    """Whether `at` surely lies in a comment (or a string): a `#` before it on its line, and no quote that
    could have opened a string there. A read in a comment imports nothing; ast would not confirm it."""
    line = data[data.rfind(b"\n", 0, at) + 1 : at]
    return b"#" in line and b"'" not in line and b'"' not in line


def _check_file(path, pairs, display, module, is_package, by_module, project, targets, checkable) -> Iterator[Finding]:
    suspects = set()
    for target, name in pairs:
        if f"{target}.{name}" in project.modules:
            continue  # a submodule
        entries = by_module[target]
        if (
            targets.may_be_in_migration(entries, name)
            and not any(targets.may_bind(e, name) for e in entries)
            and targets.in_migration(entries, name)
        ):
            suspects.add((target, name))
    if not suspects:
        return
    found = targets.imports_of(path, module, is_package, checkable)
    if found is None:
        return
    reported = set()

    def _binds(package: str, name: str) -> bool:
        found = [targets.bindings_of(e) for e in by_module.get(package, [])]
        return any(b is None or b.open or name in b.names for b in found)

    for imported in found:
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


def _text(data: Optional[bytes], path: str) -> str:
    """The text a file's noqa comments are read from: the editor's bytes, else the file's."""
    return (data if data is not None else _read(path)).decode("utf-8", "replace")


def _read(path: str) -> bytes:
    try:
        return read_regular(path)
    except OSError:
        return b""
