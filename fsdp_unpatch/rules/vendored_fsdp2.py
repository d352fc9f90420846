"""FSU203: a vendored copy or shim of an FSDP2 module, recognised by what it does, not by its path.

Another framework may carry its own copy of FSDP2's collectives for torch releases that lack them: it
defines the `fsdp::` ops (`Library("fsdp", "DEF")` then `lib.define(...)`, `torch.library.define`,
`torch.library.custom_op`) and registers its own kernels for them, or it defines FSDP2's classes
(`class FSDPParamGroup:`). That is where FSDP2 lives for that framework, not a patch of it: its kernel
registrations for the ops it defines get no finding (`kernel_registration.py`), and this rule says, once, what
the file is a copy of. An assignment into torch's own FSDP2 modules in such a file is still an override.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import ast

    from fsdp_unpatch.analysis.planned import Located, Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def _modules_defining(op: str) -> list[str]:
    """FSDP2 modules whose tables hold the op's Python side (`all_gather_copy_in_cuda`, `chunk_cat`)."""
    from fsdp_unpatch.catalog.symbols import load_symbols

    tables = load_symbols().tables
    return [m for m, names in tables.items() if "." not in m and any(n == op or n.startswith(op + "_") for n in names)]


def _copies_methods(cls: ast.ClassDef, fsdp2: str) -> bool:
    """Most of the class's methods (two at least) are methods of the FSDP2 class it is named after: a copy,
    not an unrelated class that happens to share the name."""
    import ast

    from fsdp_unpatch.catalog.symbols import load_symbols

    symbols = load_symbols()
    methods = [s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    shared = [name for name in methods if symbols.class_member(fsdp2, name)]
    return len(shared) >= 2 and 2 * len(shared) >= len(methods)


def _copied_classes(analysis: ModuleSubject, catalog: Catalog) -> list[tuple[str, Located, int]]:
    """The module-level classes named after FSDP2's (not subclasses of torch's) that copy most of their
    methods, each with where its name stands and the line of its `class` (where libcst places the class),
    read from the `ast` model of the file."""
    import ast

    from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_class
    from fsdp_unpatch.analysis.planned import Located
    from fsdp_unpatch.semantic.imports import dotted

    model = analysis.model
    if model is None or model.tree is None:
        return []
    table = model.table
    found = []
    for statement in model.tree.body:
        if not isinstance(statement, ast.ClassDef) or statement.name not in catalog.classes:
            continue
        bases = [dotted(b.value if isinstance(b, ast.Starred) else b) for b in statement.bases]  # as libcst's Args
        if any(fsdp2_class(table.qualify_dotted(b) if b is not None else None, catalog) for b in bases):
            continue
        if _copies_methods(statement, f"{catalog.classes[statement.name]}.{statement.name}"):
            line, column = analysis.node_text.name_after(statement, "class")
            found.append((statement.name, Located(line, column, line, column + len(statement.name)), statement.lineno))
    return found


def check(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    from fsdp_unpatch.analysis.planned import Planned

    if analysis.module_name == "torch" or analysis.module_name.startswith("torch."):
        return  # torch itself is where FSDP2 lives, no copy of it
    library = analysis.library  # read from the `ast` model of the file, as the classes are
    ops = {op: call.at for (namespace, op), call in library.defined_ops.items() if namespace == "fsdp"}
    classes = _copied_classes(analysis, catalog)
    if not ops and not classes:
        return
    copied = sorted(
        {m for op in ops for m in _modules_defining(op)} | {catalog.classes[name] for name, _, _ in classes}
    )
    what = [f"op{'s' if len(ops) > 1 else ''} " + ", ".join(f"`fsdp::{op}`" for op in sorted(ops))] if ops else []
    if classes:
        names = ", ".join(f"`{name}`" for name, _, _ in classes)
        what.append(f"class{'es' if len(classes) > 1 else ''} {names}")
    starts = [*((at.line, at) for at in ops.values()), *((line, at) for _, at, line in classes)]
    first = min(starts, key=lambda start: start[0])[1]  # the first in order of the lines they start on
    message = VENDORED_FSDP2.message(what=" and ".join(what), modules=", ".join(f"`{m}`" for m in copied) or "FSDP2")
    yield Planned(VENDORED_FSDP2.code, first, message)


VENDORED_FSDP2 = declare(
    "FSU203",
    "vendored-fsdp2",
    category="keep",
    fix="none",
    phase="file",
    summary="A vendored copy or shim of an FSDP2 module: it defines FSDP2's ops or classes itself",
    messages="This file defines FSDP2's {what} itself: a vendored copy of {modules}; its kernels and "
    "classes are its own definitions, not overrides (reported for information)",
    check=check,
    subject="module",
    candidates=(shape("fsdp2-class"), shape("op-definition")),
    doc="""
    ## What it does
    Reports once, at its first definition, a file outside torch that defines FSDP2's `fsdp::` ops
    (`lib.define(...)` on a `Library("fsdp", "DEF" | "FRAGMENT")`, `torch.library.define("fsdp::op", ...)`,
    `torch.library.custom_op("fsdp::op")`) or FSDP2's classes (`class FSDPParamGroup:`, not a subclass of
    torch's), whatever its path.

    ## Why
    Such a file is where FSDP2 lives for the framework that ships it, not a patch of torch's FSDP2: its
    kernel registrations for the ops it defines are not overrides and get no FSU103. Reported for
    information (category keep: it never fails a run) so that a reader knows why the file has no
    override findings. An assignment into torch's own FSDP2 modules in the same file is still reported.

    ## Example
    ```python
    lib = Library("fsdp", "FRAGMENT")
    lib.define("chunk_cat(Tensor[] tensors, int dim, int num_chunks, *, Tensor(a!) out) -> ()")  # FSU203
    ```
    """,
)

VALID = [
    Valid(
        """import torch

lib = torch.library.Library("adapter_ops", "FRAGMENT")
lib.define("scale(Tensor t) -> Tensor")
"""
    )
]
INVALID = [
    Invalid(
        """import torch

lib = torch.library.Library("fsdp", "FRAGMENT")
lib.define("chunk_cat(Tensor[] tensors, int dim, int num_chunks, *, Tensor(a!) out) -> ()")


@torch.library.impl(lib, "chunk_cat", "CUDA")
def chunk_cat(tensors, dim, num_chunks, out):
    torch._chunk_cat(tensors, dim, num_chunks, out=out)
""",
        path="shim/fsdp/ops.py",
    )
]
