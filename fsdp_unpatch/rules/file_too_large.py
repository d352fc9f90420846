"""FSU904 (file-too-large): the file is too large to check safely."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare

# The kind of `SourceError` (analysis/source.py) this rule reports (`rules/registry.py`, `error_finding`).
SOURCE_ERROR = "too-large"

FILE_TOO_LARGE = declare(
    "FSU904",
    "file-too-large",
    category="error",
    fix="none",
    phase="file",
    # no `candidates`: it reports a file another rule's shape brought to the parse
    summary="The file is too large to check safely",
    messages="{problem}",
    doc="""
    ## What it does
    Reports a file above 64 MB, which is not read, and a file above 4 MB that could hold a finding, which
    is not parsed.

    ## Why
    A libcst syntax tree takes about 600 times the source's size in memory. Such a file is left alone and
    the other files are still processed; exclude it if it is generated data.

    ## Example
    ```console
    $ fsdp-unpatch check generated/  # FSU904 on a 5 MB generated module that mentions FSDP
    ```
    """,
)
