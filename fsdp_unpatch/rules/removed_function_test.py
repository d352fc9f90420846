"""FSU303 (removed-function-test): test whose purpose is to exercise a removed patch function."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import libcst as cst

    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Tests
    from fsdp_unpatch.analysis.test_modules import TestFacts, TestNode
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(tests: Tests, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Each test that goes, deleted whole: recorded in `tests.deleted` (a module left empty requires these
    deletions), and the references inside it in `tests.covered` (no rewrite of them). Checked even when
    deselected: those records decide what other rules plan."""
    facts = tests.facts
    for test, kind, calls in facts.going:
        planned = finding(facts, test, kind, calls)
        tests.deleted.append((test, planned))
        for reference in facts.refs_in(test):
            tests.covered[id(reference.node)] = planned
        yield planned


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
    check=check,
    subject="tests",
    candidates=(shape("patch-part"),),
    feeds_others=True,
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
