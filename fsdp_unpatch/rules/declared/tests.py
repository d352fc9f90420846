"""Tests of removed patch functions (FSU302, FSU303, FSU305), planned in `rules/tests.py` when the run links
files."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare

PATCH_IDENTITY_ASSERTION = declare(
    "FSU302",
    "patch-identity-assertion",
    category="remove",
    fix="unsafe",
    phase="run",
    summary="Assertion that a removed collectives patch is installed",
    messages="asserts that the collectives patch is installed ({names}); the migration removes it: delete the "
    "assertion",
    planned_in="fsdp_unpatch.rules.tests (plan_tests), called by fsdp_unpatch.run.linking",
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

REMOVED_FUNCTION_TEST = declare(
    "FSU303",
    "removed-function-test",
    category="remove",
    fix="unsafe",
    phase="run",
    summary="Test whose purpose is to exercise a removed patch function",
    messages="{kind} `{name}` tests {names}, which the migration removes; delete it",
    planned_in="fsdp_unpatch.rules.tests (plan_tests), called by fsdp_unpatch.run.linking",
    exports=("deleted-names",),
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

REMOVED_FUNCTION_TEST_MODULE = declare(
    "FSU305",
    "removed-function-test-module",
    category="remove",
    fix="unsafe",
    phase="run",
    summary="Test module that holds only tests of removed patch functions",
    messages="every test in this module tests patch functions the migration removes; delete the file",
    planned_in="fsdp_unpatch.rules.tests (plan_tests), called by fsdp_unpatch.run.linking",
    doc="""
    ## What it does
    Reports a test module whose every test is a FSU303 test, and whose rest is imports, docstrings, a
    `__main__` guard and helpers only those tests used. The fix deletes the file (the runner removes it
    after checking it did not change on disk; `--diff` shows it as a deletion). Unsafe, like FSU303.

    ## Why
    A module emptied of its tests is noise in the test suite.

    ## Example
    ```python
    # tests/test_npu_fsdp_patch.py: only tests of _patched_* functions
    def test_patched_copy_in():  # FSU303, and the module: FSU305 (file deleted)
        _patched_all_gather_copy_in(...)
    ```
    """,
)
