"""FSU107: a `sys.modules` entry of an FSDP2 module replaced by another object.

`sys.modules["torch.distributed.fsdp._fully_shard._fsdp_param"] = stand_in` overrides every name of that
module at once for every later import, FSDP2's own included: no attribute assignment shows it, so the
override rules cannot. In a test module the replacement lasts for a test: it is reported as a test patch
(FSU202, keep), like `monkeypatch.setitem(sys.modules, ...)` and `mock.patch.dict(sys.modules, ...)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Outside test modules (in one, the entry is a test patch: `test_patch.py`)."""
    from fsdp_unpatch.analysis.fsdp2_objects import fsdp2_module_entries, in_test_module
    from fsdp_unpatch.analysis.planned import Planned

    if in_test_module(analysis.module_name):
        return
    for entry, module in fsdp2_module_entries(analysis, catalog):  # each where libcst places its subscript
        message = MODULE_REPLACEMENT.message(spelled=entry.spelled, module=module)
        yield Planned(MODULE_REPLACEMENT.code, entry.at, message, module)


MODULE_REPLACEMENT = declare(
    "FSU107",
    "module-replacement",
    category="review",
    fix="none",
    phase="file",
    summary="An FSDP2 module replaced in `sys.modules`",
    messages="`{spelled}` replaces FSDP2 module `{module}` for every later import, FSDP2's own included: "
    "each of its names is overridden; review what the stand-in changes",
    check=check,
    subject="module",
    candidates=(shape("module-entry"),),
    doc="""
    ## What it does
    Reports `sys.modules["<FSDP2 module>"] = value` outside test modules, for every FSDP2 module the
    catalog knows (both package paths, `torch.distributed._composable.fsdp` of torch 2.4-2.5 too).

    ## Why
    Every later import of that module, FSDP2's own imports included, gets the stand-in: each of its
    functions and classes is overridden at once, and no attribute assignment shows which. A migration
    must look at what the stand-in changes. In a test module (`test_*.py`, `*_test.py`, `conftest.py`)
    the replacement is reported as a test patch (FSU202), like `monkeypatch.setitem(sys.modules, ...)`
    and `mock.patch.dict(sys.modules, {...})`.

    ## Example
    ```python
    sys.modules["torch.distributed.fsdp._fully_shard._fsdp_param"] = npu_param  # FSU107
    ```
    """,
)

VALID = [
    Valid(
        """import sys
import types

sys.modules["adapter.plugins.extra"] = types.ModuleType("extra")
"""
    )
]
INVALID = [
    Invalid(
        """import sys
import types

sys.modules["torch.distributed.fsdp._fully_shard._fsdp_param"] = types.ModuleType("stand_in")
"""
    )
]
