"""FSU302 (patch-identity-assertion): assertion that a removed collectives patch is installed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Tests
    from fsdp_unpatch.analysis.test_modules import Assertion
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(tests: Tests, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Each identity assertion outside the tests that go (those go whole), deleted: the references in it
    are recorded in `tests.covered` (no rewrite of them). Checked even when deselected, for that record."""
    from fsdp_unpatch.analysis.test_modules import subtree_ids

    gone: set[int] = set()
    for test, _, _ in tests.facts.going:
        gone |= subtree_ids(test)
    for assertion in tests.facts.assertions:
        if id(assertion.statement) in gone:
            continue
        planned = finding(assertion)
        for reference in assertion.references:
            tests.covered[id(reference.node)] = planned
        yield planned


def finding(assertion: Assertion) -> Planned:
    """An assertion that a removed patch is installed, outside the tests that go: deleted."""
    from fsdp_unpatch.analysis.planned import Edit, Planned

    names = sorted({r.symbol.name for r in assertion.references})
    return Planned(
        PATCH_IDENTITY_ASSERTION.code,
        assertion.report,
        PATCH_IDENTITY_ASSERTION.message(names=", ".join(f"`{n}`" for n in names)),
        assertion.references[0].symbol.target,
        edits=[Edit(assertion.statement)],
    )


PATCH_IDENTITY_ASSERTION = declare(
    "FSU302",
    "patch-identity-assertion",
    category="remove",
    fix="unsafe",
    phase="run",
    summary="Assertion that a removed collectives patch is installed",
    messages="asserts that the collectives patch is installed ({names}); the migration removes it: delete the "
    "assertion",
    check=check,
    subject="tests",
    candidates=(shape("patch-part"),),
    feeds_others=True,
    doc="""
    ## What it does
    Reports `assert X is _patched_Y`, `assert X == _patched_Y`, `self.assertIs(X, _patched_Y)` (and their
    negations). The fix deletes the assertion and the imports only it used; it is applied only with
    `--unsafe-fixes`.

    ## Why
    They check that the patch is installed. Once the patch is gone the check is meaningless (and `is`
    fails). Unsafe: it changes what a test suite checks.

    ## Example
    ```python
    assert FSDPParamGroup.finalize_backward is _patched_finalize_backward  # FSU302: deleted
    ```
    """,
)
