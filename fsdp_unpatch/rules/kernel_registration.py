"""FSU103 (kernel-registration): kernel registered for an FSDP op (`torch.library.impl`, `Library("fsdp", "IMPL")`)."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

KERNEL_REGISTRATION = declare(
    "FSU103",
    "kernel-registration",
    category="review",
    fix="none",
    phase="file",
    summary='Kernel registered for an FSDP op (`torch.library.impl`, `Library("fsdp", "IMPL")`)',
    messages={
        "default": "`{call}` registers {kernel} for {keys} of FSDP op `{op}`; it replaces the kernel every caller "
        "of the op runs: check what it adds",
        "replaces-native": "`{call}` registers {kernel} for {keys} of FSDP op `{op}`; native FSDP2 registers its "
        "own PrivateUse1 kernel since torch {since}, which this one replaces: check what it adds",
        "before-native": "`{call}` registers {kernel} for {keys} of FSDP op `{op}`; native FSDP2 in torch "
        "{target_torch} has no PrivateUse1 kernel (it has from torch {since})",
    },
    targets="ops",
    planned_in="fsdp_unpatch.analysis.other_overrides (plan_other_overrides), "
    "fsdp_unpatch.rules.overrides (kernel_registrations)",
    doc="""
    ## What it does
    Reports `@torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")`, `lib.impl("op", kernel,
    "PrivateUse1")` on a `torch.library.Library("fsdp", ...)`, and
    `torch.library.register_kernel("fsdp::op", ...)`. The message says whether the target torch has a
    native kernel for that key.

    ## Why
    The registration replaces the kernel that every caller of the FSDP op runs on that dispatch key.
    torch-npu registered one because native FSDP2 had no PrivateUse1 kernel before torch 2.8; from then on
    the registration replaces upstream's own. Never fixed: check what the kernel adds, then delete the
    registration with its function.

    ## Example
    ```python
    lib = torch.library.Library("fsdp", "IMPL")

    @torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")  # FSU103
    def all_gather_copy_in_npu(*args):
        ...
    ```
    """,
)

VALID = [
    Valid(
        """import torch

lib = torch.library.Library("adapter_ops", "IMPL")


@torch.library.impl(lib, "chunk_cat", "PrivateUse1")
def _chunk_cat(tensors, dim, num_chunks, out):
    torch._chunk_cat(tensors, dim, num_chunks, out=out)
"""
    )
]
INVALID = [
    Invalid(
        """import torch

lib = torch.library.Library("fsdp", "IMPL")


@torch.library.impl(lib, "chunk_cat", "PrivateUse1")
def _chunk_cat(tensors, dim, num_chunks, out):
    torch._chunk_cat(tensors, dim, num_chunks, out=out)
"""
    )
]
