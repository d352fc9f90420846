"""The patch-completeness rules (FSU4xx): patches that do not reach every caller, bugs that shipped.

Planned in `rules/completeness.py`.
"""

from __future__ import annotations

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

REDUNDANT_CLASS_PATCH = declare(
    "FSU402",
    "redundant-class-patch",
    category="keep",
    fix="none",
    phase="file",
    summary="The same class attribute is patched again through another module",
    messages="`{later}` is the same class attribute as `{earlier}` (line {line}): patching it again is redundant",
    planned_in="fsdp_unpatch.rules.completeness (redundant_class_patches)",
    doc="""
    ## What it does
    Reports the second of two assignments that set the same attribute of an FSDP2 class through two
    modules, such as `_fsdp_collectives.DefaultAllGather.allocate = f` and
    `_fsdp_param_group.DefaultAllGather.allocate = f`.

    ## Why
    The class was imported by name, and a class is shared, not copied: the second assignment is redundant
    (harmless; information only).

    ## Example
    ```python
    _fsdp_collectives.DefaultAllGather.allocate = _allocate
    _fsdp_param_group.DefaultAllGather.allocate = _allocate  # FSU402
    ```
    """,
)

OP_DEFAULT_NOT_REPLACED = declare(
    "FSU403",
    "op-default-not-replaced",
    category="review",
    fix="none",
    phase="file",
    summary="An op packet `torch.ops.<ns>.<op>` is replaced, its `.default` overload is not",
    messages="`torch.{packet}` is replaced but its `.default` overload is not: callers of "
    "`torch.{packet}.default` (traced and compiled graphs) still run the original op",
    planned_in="fsdp_unpatch.rules.completeness (op_default_problems)",
    doc="""
    ## What it does
    Reports the replacement of an op packet `torch.ops.<ns>.<op>` when the file does not also replace its
    `.default` overload; not when the fix deletes that install site (FSU001): then it is moot.

    ## Why
    Code that calls `torch.ops.fsdp.all_gather_copy_in.default(...)`, and graphs traced or compiled before
    the patch, reach the overload, not the packet: they keep running the original op. Replace `.default`
    as well, before the packet (see FSU404).

    ## Example
    ```python
    torch.ops.fsdp.all_gather_copy_in = _my_copy_in  # FSU403: `.default` still runs the original
    ```
    """,
)

OP_DEFAULT_AFTER_PACKET = declare(
    "FSU404",
    "op-default-after-packet",
    category="review",
    fix="none",
    phase="file",
    summary="`.default` assigned after the op packet was replaced: it lands on the replacement function",
    messages="`torch.{packet}.default` is assigned after `torch.{packet}` was replaced, so it lands on the "
    "replacement function, not on the op's overload; assign `.default` first",
    planned_in="fsdp_unpatch.rules.completeness (op_default_problems)",
    doc="""
    ## What it does
    Reports `torch.ops.<ns>.<op>.default = f` that comes after `torch.ops.<ns>.<op> = f` in the file; not when
    the fix deletes that install site (FSU001): then the order is moot.

    ## Why
    After `torch.ops.fsdp.op = f`, the statement `torch.ops.fsdp.op.default = f` sets `f.default`, not the
    op's overload, which keeps the original kernel. Assign `.default` first, then the packet (in a chained
    assignment the leftmost target is assigned first: `torch.ops.fsdp.op.default = torch.ops.fsdp.op = f`).

    ## Example
    ```python
    torch.ops.fsdp.all_gather_copy_in = _my_copy_in
    torch.ops.fsdp.all_gather_copy_in.default = _my_copy_in  # FSU404
    ```
    """,
)
