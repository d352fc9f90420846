"""FSU004 (installer-call): call or import of a removed patch installer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Mapping, Optional

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(
    analysis: ModuleSubject, installers: Mapping[str, Optional[Planned]], catalog: Catalog, options: Options
) -> Iterator[Planned]:
    """A file's own calls of the installers it removes (`installers`: each by its qualified name, with its
    finding). Checked even when deselected: the run's linking reads them (a call inside a test the fix
    deletes goes with the test, and the installer then requires that deletion)."""
    yield from installer_calls(analysis, installers)


def installer_calls(analysis: ModuleSubject, installers: Mapping[str, Optional[Planned]]) -> list[Planned]:
    """The file's calls of installers the run removes (in this file or another one): each statement is
    deleted (its imports go when left unused), and only with the installer's own deletion, when known."""
    from fsdp_unpatch.analysis.planned import Edit, Planned

    found: list[Planned] = []
    if not installers:
        return found
    from fsdp_unpatch.analysis.patterns import qualify  # the calls are libcst's facts: libcst is loaded

    for call in analysis.facts.calls:
        qualified = qualify(analysis.table, call.call.func)
        if qualified is not None and qualified in installers:
            installer = installers[qualified]
            found.append(
                Planned(
                    INSTALLER_CALL.code,
                    call.call,
                    INSTALLER_CALL.message(call=_short(analysis.code(call.call))),
                    None,
                    edits=[Edit(call.statement)],
                    requires=[installer] if installer is not None else [],
                )
            )
    return found


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


INSTALLER_CALL = declare(
    "FSU004",
    "installer-call",
    role="installer-call",
    category="remove",
    fix="safe",
    phase="run",
    summary="Call or import of a removed patch installer",
    messages="`{call}` calls an installer that is removed",
    targets="remove",
    check=check,
    subject="installer-calls",
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch"), shape("patch-part")),
    feeds_others=True,
    doc="""
    ## What it does
    Reports a statement that calls, or an import that names, an installer the fix removes (in this file or
    another file of the run). The fix deletes the call statement and the imported name.

    ## Why
    The call would fail once the installer is gone. A use the tool cannot delete safely (the installer
    passed as a value) is reported with FSU101 instead.

    ## Example
    ```python
    from torch_npu.distributed.fsdp._add_fsdp_patch import _apply_fsdp_patch  # FSU004: import deleted
    _apply_fsdp_patch()  # FSU004: deleted
    ```
    """,
)

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _finalize_and_log(self):
    print("finalize")


def install():
    FSDPParamGroup.finalize_backward = _finalize_and_log


install()
"""
    )
]
INVALID = [
    Invalid(
        """import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _adapter_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _adapter_finalize_backward


install()
"""
    )
]
