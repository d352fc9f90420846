"""References to removed patch functions, and their rewriting to the native FSDP2 counterparts.

`from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in as f` plus `f(...)`
becomes `torch.ops.fsdp.all_gather_copy_in(...)` (with `import torch`); `patch._patched_finalize_backward`
becomes `FSDPParamGroup.finalize_backward` (with its import). The import of the removed name goes
when nothing else uses it (`edits.unused_imports`); the new import is an `AddImport` edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import libcst as cst

from fsdp_unpatch.analysis.collect import NameCounter
from fsdp_unpatch.analysis.names import ImportTable, dotted_name
from fsdp_unpatch.analysis.plan import Edit, FileAnalysis, Planned
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.fixes.module_edits import AddImport
from fsdp_unpatch.rules.removed_symbol_reference import REMOVED_SYMBOL_REFERENCE
from fsdp_unpatch.run.removals import RemovedSymbol


@dataclass
class Reference:
    node: cst.BaseExpression  # the Name (`f`) or Attribute (`patch_mod._patched_f`) naming the symbol
    symbol: RemovedSymbol
    local: str  # the file's name that leads to it (`f`, `patch_mod`)
    scopes: tuple[cst.CSTNode, ...]  # enclosing classes and functions, outermost first
    rebound: bool = False  # the file also assigns to `local`: it may stand for something else here


@dataclass
class FileReferences:
    references: list[Reference] = field(default_factory=list)
    # Bare names equal to a removed function's name that the file does not bind (a star import, say):
    # the tool cannot tell what they are, so a removed function they may name must stay.
    unresolved: list[tuple[cst.Name, str]] = field(default_factory=list)
    rebound: set[str] = field(default_factory=set)  # local names the file also assigns to
    names: set[str] = field(default_factory=set)  # every name spelled in the file


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
    def __init__(self, table: ImportTable, symbols: Mapping[str, RemovedSymbol]) -> None:
        super().__init__()
        self.table = table
        self.symbols = symbols
        self.short = {s.name for s in symbols.values()}
        self.found = FileReferences()
        self._scopes: list[cst.CSTNode] = []

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

    # uses
    def _record(self, node: cst.BaseExpression, qualified: str, local: str) -> None:
        self.found.references.append(Reference(node, self.symbols[qualified], local, tuple(self._scopes)))

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        name = dotted_name(node)
        if name is not None:
            qualified = self.table.qualify(node)
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


def find_references(analysis: FileAnalysis, symbols: Mapping[str, RemovedSymbol]) -> FileReferences:
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


# native spellings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spelling:
    """How a file names a native counterpart: the expression, and the import it needs."""

    expression: str  # `torch.ops.fsdp.all_gather_copy_in`, `FSDPParamGroup.finalize_backward`
    head: str  # the name the expression starts with
    head_means: str  # what `head` must stand for in the file
    import_code: str  # `import torch`, `from ..._fsdp_param_group import FSDPParamGroup`


def spellings(native: str, catalog: Catalog) -> list[Spelling]:
    """The preferred spelling first, then the fully qualified one (for files where a name is taken)."""
    parts = native.split(".")
    if native.startswith("torch.ops."):
        return [Spelling(native, "torch", "torch", "import torch")]
    # A class method is reached through its class; anything else is imported by name.
    at = next((i for i, part in enumerate(parts[1:], 1) if part in catalog.classes), len(parts) - 1)
    module, name = ".".join(parts[:at]), parts[at]
    preferred = Spelling(".".join(parts[at:]), name, f"{module}.{name}", f"from {module} import {name}")
    qualified = Spelling(native, parts[0], parts[0], f"import {module}")
    return [preferred, qualified]


def top_level_imports(module: cst.Module) -> ImportTable:
    """The names the module's top-level import statements bind (visible everywhere in the file)."""
    top = ImportTable()
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import):
                    top.add_import(small)
                elif isinstance(small, cst.ImportFrom):
                    top.add_import_from(small)
    return top


def choose_spelling(
    options: list[Spelling], table: ImportTable, names: set[str], top: ImportTable
) -> Optional[Spelling]:
    """A spelling through a name a top-level import already binds to the right thing (`Group` for
    `FSDPParamGroup as Group`, `th` for `import torch as th`); else the first one whose head name is free
    in the file, or means the right thing already."""
    for spelling in options:
        if spelling.import_code.startswith("import ") and spelling.import_code != f"import {spelling.head}":
            continue  # the fully qualified spelling needs its own import
        for local, bound in top.bindings.items():
            if bound == spelling.head_means and table.bindings.get(local) == bound:
                rest = spelling.expression[len(spelling.head) :]
                return Spelling(local + rest, local, bound, "")
    for spelling in options:
        meaning = table.bindings.get(spelling.head)
        if meaning == spelling.head_means or (meaning is None and spelling.head not in names):
            return spelling
    return None


def import_present(module: cst.Module, spelling: Spelling, top: ImportTable) -> bool:
    """Whether a top-level import already gives the spelling what it needs."""
    if not spelling.import_code:
        return True
    if top.bindings.get(spelling.head) != spelling.head_means:
        return False
    # `import torch` does not load `torch.distributed.fsdp...`: the fully qualified spelling needs its
    # module imported as such.
    return (
        spelling.import_code == f"import {spelling.head}"
        or spelling.import_code.startswith("from ")
        or any(
            isinstance(s, cst.SimpleStatementLine) and module.code_for_node(s).strip() == spelling.import_code
            for s in module.body
        )
    )


def plan_rewrite(analysis: FileAnalysis, reference: Reference, catalog: Catalog, names: set[str]) -> Planned:
    """FSU301: the reference, rewritten to the native counterpart (no fix when no spelling fits)."""
    symbol = reference.symbol
    spelled = analysis.code(reference.node)
    top = top_level_imports(analysis.module)
    spelling = choose_spelling(spellings(symbol.native, catalog), analysis.table, names, top)
    if spelling is None or reference.rebound:
        why = (
            f"`{reference.local}` is also assigned in this file"
            if reference.rebound
            else "the names it needs are taken in this file"
        )
        return Planned(
            REMOVED_SYMBOL_REFERENCE.code,
            reference.node,
            REMOVED_SYMBOL_REFERENCE.message(
                "by-hand", spelled=spelled, name=symbol.name, native=symbol.native, why=why
            ),
            symbol.target,
        )
    edits: list[Edit] = [Edit(reference.node, cst.parse_expression(spelling.expression))]
    if not import_present(analysis.module, spelling, top):
        edits.append(AddImport(analysis.module, code=spelling.import_code))
    return Planned(
        REMOVED_SYMBOL_REFERENCE.code,
        reference.node,
        REMOVED_SYMBOL_REFERENCE.message(spelled=spelled, name=symbol.name, native=spelling.expression),
        symbol.target,
        edits=edits,
    )
