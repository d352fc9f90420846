"""The `__code__` swap of an FSDP2 function (FSU104), which the install-site analysis (`analysis/plan.py`)
meets among the install sites; it goes with the semantic model's verdict on each site (issue 22).

A code swap changes what every caller runs: it is never fixed, only reported.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from fsdp_unpatch.analysis.collect import Facts, RawInstall
from fsdp_unpatch.analysis.names import is_fsdp2_private, target_id
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.rules.code_object_swap import CODE_OBJECT_SWAP

# (code, node to report, message, target id)
Report = tuple[str, cst.CSTNode, str, Optional[str]]
CodeOf = Callable[[cst.CSTNode], str]


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def code_swap(install: RawInstall, facts: Facts, catalog: Catalog, code_of: CodeOf) -> Optional[Report]:
    """`X.__code__ = f.__code__` (or setattr) on an FSDP2 function: X itself now runs other code."""
    owner = facts.table.qualify(install.owner)
    target = target_id(owner, catalog) if owner else None
    if target is None or not is_fsdp2_private(target, catalog):
        return None
    spelled = _short(code_of(install.report))
    if not install.via_setattr:
        spelled += f" = {_short(code_of(install.value), 40)}"
    return CODE_OBJECT_SWAP.code, install.report, CODE_OBJECT_SWAP.message(spelled=spelled, target=target), target
