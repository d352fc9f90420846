"""FSU903 (fix-not-written): a fix was computed but not written."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare

# The kind of `SourceError` (analysis/source.py) this rule reports (`rules/registry.py`, `error_finding`).
SOURCE_ERROR = "write"

FIX_NOT_WRITTEN = declare(
    "FSU903",
    "fix-not-written",
    role="fix-not-written",
    category="error",
    fix="none",
    phase="file",
    # no `candidates`: it reports a write that failed, in a file another rule's fix changes
    summary="A fix was computed but not written",
    messages="{problem}",
    doc="""
    ## What it does
    Reports a file whose fix was computed but not written: the fixed text did not parse again, or the
    file changed on disk while it was being fixed (an editor saved it), or it is read-only, or it is a
    symbolic link found while walking a folder that points outside the folders being fixed, or libcst
    cannot give its bytes back exactly, or it could not be written.

    ## Why
    A fix never writes a file it cannot write whole and correct. The file on disk is unchanged.

    ## Example
    ```console
    $ chmod a-w pkg/patch.py && fsdp-unpatch fix pkg  # FSU903: file is read-only; not written
    ```
    """,
)
