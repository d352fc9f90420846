"""References in a file to patch functions a run removes: the facts the rules about them read (FSU301
`removed_symbol_reference.py` rewrites them, FSU302/303/305 delete the tests that assert them, the linking
step keeps a replacement something still names).

`from pkg.patch import _patched_all_gather_copy_in as f` then `f(...)`, or `patch._patched_finalize_backward`,
is a reference; a bare name equal to a removed function's that the file does not bind is unresolved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Mapping, Optional, Protocol

import libcst as cst

from fsdp_unpatch.analysis.collect import NameCounter
from fsdp_unpatch.analysis.patterns import dotted_name, qualify
from fsdp_unpatch.semantic.names import ImportTable

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.excerpt import Detail


class Removed(Protocol):
    """A patch function the run removes (`run/removals.py`'s `RemovedSymbol`)."""

    @property
    def qualified(self) -> str: ...

    @property
    def target(self) -> str: ...

    @property
    def native(self) -> str: ...

    @property
    def module(self) -> str: ...

    @property
    def name(self) -> str: ...


class ReferringFile(Protocol):
    """What the search reads of an analysed file (`analysis/plan.py`'s `FileAnalysis`)."""

    module: cst.Module
    module_name: str
    hidden: Optional[Detail]

    @property
    def table(self) -> ImportTable: ...


@dataclass
class Reference:
    node: cst.BaseExpression  # the Name (`f`) or Attribute (`patch_mod._patched_f`) naming the symbol
    symbol: Removed
    local: str  # the file's name that leads to it (`f`, `patch_mod`)
    scopes: tuple[cst.CSTNode, ...]  # enclosing classes and functions, outermost first
    rebound: bool = False  # the file also assigns to `local`: it may stand for something else here
    # What goes when the reference is a target of `del` (`del f`, `del patch._patched_f`, `del a, f`): the `del`
    # statement, or the target's element in a `del` of several. Deleting a name the migration removes is
    # deleted with it; spelled natively it would delete FSDP2's own function.
    deleted: Optional[cst.CSTNode] = None


@dataclass
class FileReferences:
    references: list[Reference] = field(default_factory=list)
    # Bare names equal to a removed function's name that the file does not bind (a star import, say):
    # the tool cannot tell what they are, so a removed function they may name must stay.
    unresolved: list[tuple[cst.Name, str]] = field(default_factory=list)
    rebound: set[str] = field(default_factory=set)  # local names the file also assigns to
    names: set[str] = field(default_factory=set)  # every name spelled in the file


def _del_targets(target: cst.BaseExpression, whole: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
    """(target node, what deleting just it removes) for each name or attribute a `del` deletes."""
    if isinstance(target, (cst.Tuple, cst.List)) and target.elements:
        single = len(target.elements) == 1
        for element in target.elements:
            inner = element.value
            if isinstance(inner, (cst.Tuple, cst.List)):
                yield from _del_targets(inner, whole if single else element)
            else:
                yield inner, whole if single else element
    elif isinstance(target, (cst.Name, cst.Attribute)):
        yield target, whole


def _store_names(node: cst.CSTNode) -> list[cst.Name]:
    """The names an assignment target binds (`a`, `a, b`, `[a, *b]`), not `a.x` or `a[0]`."""
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for element in node.elements for n in _store_names(element.value)]
    if isinstance(node, cst.StarredElement):
        return _store_names(node.value)
    return []


class _Finder(NameCounter):
    def __init__(self, table: ImportTable, symbols: Mapping[str, Removed]) -> None:
        super().__init__()
        self.table = table
        self.symbols = symbols
        self.short = {s.name for s in symbols.values()}
        self.found = FileReferences()
        self._scopes: list[cst.CSTNode] = []
        self._deleting: dict[int, cst.CSTNode] = {}  # a `del` target's id -> what deleting it removes

    def _store(self, target: cst.CSTNode) -> None:
        for name in _store_names(target):
            self._label(name)
            self.found.rebound.add(name.value)

    # scopes
    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        super().visit_FunctionDef(node)
        self._scopes.append(node)
        return None

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        super().visit_ClassDef(node)
        self._scopes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()

    # bindings that are not uses
    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._store(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._store(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._store(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._store(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._store(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._store(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        for target, removed in _del_targets(node.target, node):
            self._deleting[id(target)] = removed

    # uses
    def _record(self, node: cst.BaseExpression, qualified: str, local: str) -> None:
        reference = Reference(node, self.symbols[qualified], local, tuple(self._scopes))
        reference.deleted = self._deleting.get(id(node))
        self.found.references.append(reference)

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        name = dotted_name(node)
        if name is not None:
            qualified = qualify(self.table, node)
            if qualified is not None and qualified in self.symbols:
                self._record(node, qualified, name.split(".", 1)[0])
                return False
        super().visit_Attribute(node)
        return None

    def visit_Name(self, node: cst.Name) -> None:
        self.found.names.add(node.value)
        if id(node) in self._labels:
            return
        bound = self.table.bindings.get(node.value)
        if bound in self.symbols:
            self._record(node, bound, node.value)  # type: ignore[arg-type]
        elif bound is None and node.value in self.short:
            self.found.unresolved.append((node, node.value))


def find_references(analysis: ReferringFile, symbols: Mapping[str, Removed]) -> FileReferences:
    """References in this file to removed functions of other modules (a module's own are its analysis')."""
    foreign = {q: s for q, s in symbols.items() if s.module != analysis.module_name}
    finder = _Finder(analysis.table, foreign)
    if foreign:
        analysis.module.visit(finder)
    found = finder.found
    if analysis.hidden is not None:  # an excerpt: the statements held aside spell and assign names too
        found.names |= analysis.hidden.names
        found.rebound |= analysis.hidden.stores
    # A name the file assigns to may stand for something else where it is used: not rewritten.
    for reference in found.references:
        reference.rebound = reference.local in found.rebound
    return found
