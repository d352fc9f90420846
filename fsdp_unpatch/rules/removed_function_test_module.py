"""FSU305 (removed-function-test-module): test module that holds only tests of removed patch functions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import libcst as cst

    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Tests
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(tests: Tests, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """A test module left with nothing once its tests go: their deletions are FSU303's, recorded in
    `tests.deleted` (its check runs first: the dispatcher calls the checks of a kind in code order)."""
    if tests.facts.module_left_empty:
        yield finding(analysis.module, [planned for _, planned in tests.deleted])


def finding(module: cst.Module, tests: list[Planned]) -> Planned:
    """A test module left with nothing once its `tests` (their FSU303 findings) go: the file is deleted,
    only with them."""
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.fixes.module_edits import DeleteFile

    return Planned(
        REMOVED_FUNCTION_TEST_MODULE.code,
        module,
        REMOVED_FUNCTION_TEST_MODULE.message(),
        None,
        edits=[DeleteFile(module)],
        requires=tests,
    )


REMOVED_FUNCTION_TEST_MODULE = declare(
    "FSU305",
    "removed-function-test-module",
    category="remove",
    fix="unsafe",
    phase="run",
    summary="Test module that holds only tests of removed patch functions",
    messages="every test in this module tests patch functions the migration removes; delete the file",
    check=check,
    subject="tests",
    candidates=(shape("patch-part"),),
    doc="""
    ## What it does
    Reports a test module whose every test is a FSU303 test, and whose rest is imports, docstrings, a
    `__main__` guard and helpers only those tests used. The fix deletes the file (the runner removes it
    after checking it did not change on disk; `--diff` shows it as a deletion). Unsafe, like FSU303.

    ## Why
    A module emptied of its tests is noise in the test suite.

    ## Example
    ```python
    # test_npu_fsdp_patch.py, a test module with only tests of _patched_* functions
    def test_patched_copy_in():  # FSU303, and the module: FSU305 (file deleted)
        _patched_all_gather_copy_in(...)
    ```
    """,
)
