"""FSU302 (patch-identity-assertion): assertion that a removed collectives patch is installed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.test_modules import Assertion


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
    candidates=(shape("patch-part"),),
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
