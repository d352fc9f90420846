"""Imports of names their module no longer binds (FSU306), found in `rules/broken_imports.py` over the run."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare

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
