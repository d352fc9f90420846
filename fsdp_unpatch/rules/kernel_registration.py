"""FSU103 (kernel-registration): kernel registered for an FSDP op (`torch.library.impl`, `Library("fsdp", "IMPL")`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.registrations import KernelRegistration
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog, Target
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.options import Options


def check(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Kernels the file registers for ops of the `fsdp` namespace that it does not define itself.

    FSDP2's own modules define the fsdp ops: their registrations are the native kernels, not overrides. So
    does a vendored copy of them, whatever its path: a kernel for an op the file defines is its own."""
    from fsdp_unpatch.analysis.planned import Planned

    if any(analysis.module_name.startswith(root + ".") for root in catalog.fsdp2_roots):
        return
    library = analysis.library  # read from the `ast` model of the file: each call where libcst places it
    for registration in library.kernel_registrations:
        if registration.namespace != "fsdp" or (registration.namespace, registration.op) in library.defined_ops:
            continue
        target = f"ops.fsdp.{registration.op}"
        call = registration.call
        message = _message(
            registration, catalog.targets.get(target), options.target_torch, call.code, registration.kernel
        )
        yield Planned(KERNEL_REGISTRATION.code, call.at, message, target)


def _message(
    registration: KernelRegistration,
    entry: Optional[Target],
    target_torch: Version,
    spelled: str,
    kernel: Optional[str],
) -> str:
    from fsdp_unpatch.catalog.versions import Version

    fields = {
        "call": _short(spelled),
        "kernel": f"`{kernel}`" if kernel else "a kernel",
        "keys": ", ".join(f"`{k}`" for k in registration.keys) or "a dispatch key",
        "op": f"{registration.namespace}::{registration.op}",
    }
    if entry is not None and entry.native_since and "PrivateUse1" in registration.keys:
        since = Version.parse(entry.native_since)
        form = "replaces-native" if target_torch >= since else "before-native"
        return KERNEL_REGISTRATION.message(form, since=since, target_torch=target_torch, **fields)
    return KERNEL_REGISTRATION.message(**fields)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
    check=check,
    subject="module",
    candidates=(shape("kernel-registration"), shape("fsdp2-patch")),
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
