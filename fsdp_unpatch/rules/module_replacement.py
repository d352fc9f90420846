"""FSU107: a `sys.modules` entry of an FSDP2 module replaced by another object.

`sys.modules["torch.distributed.fsdp._fully_shard._fsdp_param"] = stand_in` overrides every name of that
module at once for every later import, FSDP2's own included: no attribute assignment shows it, so the
override rules cannot. In a test module the replacement lasts for a test: it is reported as a test patch
(FSU202, keep), like `monkeypatch.setitem(sys.modules, ...)` and `mock.patch.dict(sys.modules, ...)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.file_analysis import FileAnalysis
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def fsdp2_module(key: Optional[str], catalog: Catalog) -> Optional[str]:
    """The target id of an FSDP2 module named by a `sys.modules` key (a root package is its own id)."""
    from fsdp_unpatch.analysis.names import is_fsdp2_private, target_id

    if key is None:
        return None
    if key in catalog.fsdp2_roots or key in catalog.family_modules.values():
        return key
    target = target_id(key, catalog)
    return target if target is not None and is_fsdp2_private(target, catalog) else None


def in_test_module(module_name: str) -> bool:
    """A pytest test module or conftest, by its module name (the analysis knows no path)."""
    last = module_name.rsplit(".", 1)[-1]
    return last.startswith("test_") or last.endswith("_test") or last == "conftest"


def check(analysis: FileAnalysis, catalog: Catalog, options: Options) -> Iterator[Planned]:
    import libcst as cst  # here, not at the top: the registry imports this module without parsing anything

    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.rules.test_patch import TEST_PATCH

    in_tests = in_test_module(analysis.module_name)
    for target, value, _ in analysis.facts.module_entries:
        if analysis.table.qualify(target.value) != "sys.modules" or len(target.slice) != 1:
            continue
        index = target.slice[0].slice
        key = index.value if isinstance(index, cst.Index) else None
        literal = key.evaluated_value if isinstance(key, (cst.SimpleString, cst.ConcatenatedString)) else None
        module = fsdp2_module(literal if isinstance(literal, str) else None, catalog)
        if module is None:
            continue
        spelled = f"{analysis.code(target)} = {analysis.code(value)}"
        if in_tests:
            yield Planned(TEST_PATCH.code, target, TEST_PATCH.message(call=spelled, target=module), module)
        else:
            yield Planned(
                MODULE_REPLACEMENT.code, target, MODULE_REPLACEMENT.message(spelled=spelled, module=module), module
            )


MODULE_REPLACEMENT = declare(
    "FSU107",
    "module-replacement",
    category="review",
    fix="none",
    phase="file",
    summary="An FSDP2 module replaced in `sys.modules`",
    messages="`{spelled}` replaces FSDP2 module `{module}` for every later import, FSDP2's own included: "
    "each of its names is overridden; review what the stand-in changes",
    planned_in="fsdp_unpatch.rules.module_replacement (check)",
    check=check,
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
