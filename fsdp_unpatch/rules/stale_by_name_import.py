"""FSU401 (stale-by-name-import): a name another FSDP2 module imported by name is patched in one module only."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

STALE_BY_NAME_IMPORT = declare(
    "FSU401",
    "stale-by-name-import",
    category="review",
    fix="none",
    phase="file",
    summary="A name another FSDP2 module imported by name is patched in one module only",
    messages="`{target}` is patched but `{missing}` is not: {why}; patch `{missing}` too (torch {version})",
    planned_in="fsdp_unpatch.rules.completeness (incomplete_by_name; dropped across files by link)",
    exports=("patched-targets", "unpatched-twins"),
    doc="""
    ## What it does
    Reports a patch of one binding of a name that another FSDP2 module imported by name
    (`_fsdp_param_group` did `from ._fsdp_collectives import foreach_reduce, foreach_all_gather, ...`;
    the names, per torch release, are in the catalog's `by_name_imports`), when its twin is patched
    neither in the same file nor in another file of the run. Reported only when FSDP2's code of the
    target torch release reads the unpatched binding (the catalog's `callers`, per release), and not when
    the importing module is reloaded (`importlib.reload(_fsdp_param_group)`) after the patch in the same
    scope.

    ## Why
    Patching `_fsdp_collectives.foreach_reduce` rebinds the name in `_fsdp_collectives` only:
    FSDPParamGroup keeps calling the original through its own binding. The reverse, patching only
    `_fsdp_param_group.foreach_reduce`, leaves every other caller on the original. Patching an attribute
    of a class through both modules is a different case: see FSU402.

    ## Example
    ```python
    _fsdp_collectives.foreach_reduce = _npu_foreach_reduce  # FSU401: _fsdp_param_group.foreach_reduce is not
    ```
    """,
)

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group


def _reduce(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce = _reduce
_fsdp_param_group.foreach_reduce = _reduce
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _reduce(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce = _reduce
"""
    )
]
