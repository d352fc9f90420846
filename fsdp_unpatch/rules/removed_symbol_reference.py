"""References to removed patch functions (FSU301), rewritten to their native FSDP2 counterparts.

`from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in as f` plus `f(...)`
becomes `torch.ops.fsdp.all_gather_copy_in(...)` (with `import torch`); `patch._patched_finalize_backward`
becomes `FSDPParamGroup.finalize_backward` (with its import). The import of the removed name goes
when nothing else uses it (`edits.unused_imports`); the new import is an `AddImport` edit. Planned when the
run links files (`run/linking.py`), which hands each reference `analysis/references.py` finds to the dispatcher
(`reference`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Optional

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import libcst as cst

    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.references import Reference
    from fsdp_unpatch.analysis.subjects import ModuleSubject, RemovedReference
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.semantic.names import ImportTable


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
    import libcst as cst

    from fsdp_unpatch.analysis.patterns import bind_imports
    from fsdp_unpatch.semantic.names import ImportTable

    top = ImportTable()
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    bind_imports(top, small)
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
    import libcst as cst

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


def check(subject: RemovedReference, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """The reference, rewritten (or its `del`, deleted), or said to be rewritten by hand. Checked even when
    deselected: a replacement function of the run goes only with the fixes of its references."""
    yield plan_rewrite(analysis, subject.reference, catalog, subject.names)


def plan_rewrite(analysis: ModuleSubject, reference: Reference, catalog: Catalog, names: set[str]) -> Planned:
    """The reference, rewritten to the native counterpart (no fix when no spelling fits)."""
    import libcst as cst

    from fsdp_unpatch.analysis.planned import Edit, Planned
    from fsdp_unpatch.fixes.module_edits import AddImport

    symbol = reference.symbol
    spelled = analysis.code(reference.node)
    if reference.deleted is not None and not reference.rebound:
        # `del f` of a name the migration removes: it has nothing left to delete, and spelled natively it
        # would delete FSDP2's own function at import.
        return Planned(
            REMOVED_SYMBOL_REFERENCE.code,
            reference.node,
            REMOVED_SYMBOL_REFERENCE.message("del", spelled=spelled, name=symbol.name),
            symbol.target,
            edits=[Edit(reference.deleted)],
        )
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


REMOVED_SYMBOL_REFERENCE = declare(
    "FSU301",
    "removed-symbol-reference",
    role="reference-rewrite",
    category="remove",
    fix="safe",
    phase="run",
    summary="Reference to a removed patch function, rewritten to its native FSDP2 counterpart",
    messages={
        "default": "`{spelled}` names `{name}`, which the migration removes; use the native `{native}`",
        "by-hand": "`{spelled}` names `{name}`, which the migration removes; native FSDP2 offers `{native}` "
        "({why}: rewrite by hand)",
        "del": "`del {spelled}` deletes `{name}`, which the migration removes; the deletion goes with it",
    },
    check=check,
    subject="reference",
    candidates=(shape("patch-part"),),
    feeds_others=True,
    doc="""
    ## What it does
    Reports code that names a replacement function of the collectives patch (for example
    `_patched_all_gather_copy_in` imported from torch-npu's `_add_fsdp_patch`, under any alias or through a
    module alias). The fix rewrites the reference to the native counterpart
    (`torch.ops.fsdp.all_gather_copy_in`, `_get_param_all_gather_inputs` from `_fsdp_collectives`,
    `FSDPParamGroup.finalize_backward`), adds the import that needs and removes the imports nothing uses
    any more. A `del` of the name (`del _patched_finalize_backward`) is deleted, not rewritten: spelled
    natively it would delete FSDP2's own function. When the name the native spelling needs is already
    taken in the file, the finding has no fix.

    ## Why
    The function goes away with the patch, so the reference would fail at import or call; native FSDP2
    does the same work.

    ## Example
    ```python
    from torch_npu.distributed.fsdp._add_fsdp_patch import _patched_all_gather_copy_in  # FSU301

    out = _patched_all_gather_copy_in(*args)  # becomes torch.ops.fsdp.all_gather_copy_in(*args)
    ```
    """,
)
