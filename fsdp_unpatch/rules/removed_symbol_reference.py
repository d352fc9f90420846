"""References to removed patch functions (FSU301), planned in `rules/references.py` when the run links files."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare

REMOVED_SYMBOL_REFERENCE = declare(
    "FSU301",
    "removed-symbol-reference",
    category="remove",
    fix="safe",
    phase="run",
    summary="Reference to a removed patch function, rewritten to its native FSDP2 counterpart",
    messages={
        "default": "`{spelled}` names `{name}`, which the migration removes; use the native `{native}`",
        "by-hand": "`{spelled}` names `{name}`, which the migration removes; native FSDP2 offers `{native}` "
        "({why}: rewrite by hand)",
    },
    doc="""
    ## What it does
    Reports code that names a replacement function of the collectives patch (for example
    `_patched_all_gather_copy_in` imported from torch-npu's `_add_fsdp_patch`, under any alias or through a
    module alias). The fix rewrites the reference to the native counterpart
    (`torch.ops.fsdp.all_gather_copy_in`, `_get_param_all_gather_inputs` from `_fsdp_collectives`,
    `FSDPParamGroup.finalize_backward`), adds the import that needs and removes the imports nothing uses
    any more. When the name the native spelling needs is already taken in the file, the finding has no
    fix.

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
