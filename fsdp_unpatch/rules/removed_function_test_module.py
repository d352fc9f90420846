"""FSU305 (removed-function-test-module): test module that holds only tests of removed patch functions."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare

REMOVED_FUNCTION_TEST_MODULE = declare(
    "FSU305",
    "removed-function-test-module",
    category="remove",
    fix="unsafe",
    phase="run",
    summary="Test module that holds only tests of removed patch functions",
    messages="every test in this module tests patch functions the migration removes; delete the file",
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
