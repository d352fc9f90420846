"""FSU101 (unproven-override): override of an FSDP2 internal that is not proven safe to remove."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

UNPROVEN_OVERRIDE = declare(
    "FSU101",
    "unproven-override",
    category="review",
    fix="none",
    phase="file",
    summary="Override of an FSDP2 internal that is not proven safe to remove",
    messages={
        "unknown": "`{spelled}` overrides FSDP2 internal `{target}`; no upstream copy is known to prove it redundant",
        "outside-enhance": "`{spelled}` overrides FSDP2 internal `{target}` outside the enhance patch; {described}",
        "reviewed": "`{spelled}` overrides FSDP2 internal `{target}`{versions}; {described}",
        "not-a-function": "`{target}` is replaced by `{value}`, not by a function defined here; a wrapper or "
        "factory may add behaviour, check before deleting",
        "bound-twice": "`{name}` is bound more than once here; which definition `{target}` gets depends on when "
        "the installer runs, check by hand",
        "wraps-original": "`{name}` wraps the original `{target}` and may add behaviour; check before deleting",
        "differs": "`{name}` differs from {version}`{upstream}` in {count}: {shown}{more}; check what it adds "
        "before deleting",
    },
    doc="""
    ## What it does
    Reports a statement that replaces an FSDP2 private symbol when the replacement is a wrapper that calls
    the original, carries other logic than upstream, or targets a symbol the catalog has no upstream copy
    of. The message names the differences from upstream. Only names some supported torch release defines
    are overrides: a new attribute (a flag, a saved original under a new name) and the restore of a
    saved original are not reported; an install that is restored says so (`scoped`).

    ## Why
    Such an override may add behaviour native FSDP2 lacks; deleting it without reading it could change
    training. Never fixed.

    ## Example
    ```python
    def _post_backward(self, *args, **kwargs):
        _log_memory()
        return _orig_post_backward(self, *args, **kwargs)

    FSDPParamGroup.post_backward = _post_backward  # FSU101: wraps the original
    ```
    """,
)

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def show():
    print(_fsdp_collectives.foreach_reduce)
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _reduce_quietly(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce = _reduce_quietly
"""
    )
]
