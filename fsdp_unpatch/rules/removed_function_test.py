"""FSU303 (removed-function-test): test whose purpose is to exercise a removed patch function."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import libcst as cst

    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.test_modules import TestFacts, TestNode


def finding(facts: TestFacts, test: TestNode, kind: str, calls: Sequence[cst.CSTNode] = ()) -> Planned:
    """A test that goes (`analysis/test_modules.py` decides which): deleted, with `calls`, the lines that
    call it."""
    from fsdp_unpatch.analysis.planned import Edit, Planned

    names = sorted({r.symbol.name for r in facts.refs_in(test)})
    return Planned(
        REMOVED_FUNCTION_TEST.code,
        test.name,
        REMOVED_FUNCTION_TEST.message(kind=kind, name=test.name.value, names=", ".join(f"`{n}`" for n in names)),
        None,
        edits=[Edit(test)] + [Edit(line) for line in calls],
    )


REMOVED_FUNCTION_TEST = declare(
    "FSU303",
    "removed-function-test",
    category="remove",
    fix="unsafe",
    phase="run",
    summary="Test whose purpose is to exercise a removed patch function",
    messages="{kind} `{name}` tests {names}, which the migration removes; delete it",
    exports=("deleted-names",),
    candidates=(shape("patch-part"),),
    doc="""
    ## What it does
    Reports a test function, method or class (in a `test_*.py` / `*_test.py` module) that calls or
    otherwise uses a removed patch function, or that consists only of assertions that the patch is
    installed (and calls of the removed installer). The fix deletes it; it is applied only with
    `--unsafe-fixes`.

    ## Why
    The test has nothing left to test once the function is gone. Unsafe: it changes what a test suite
    checks.

    ## Example
    ```python
    def test_copy_in_is_non_blocking():  # FSU303: deleted
        _patched_all_gather_copy_in(...)
    ```
    """,
)
