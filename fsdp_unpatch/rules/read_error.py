"""FSU902 (read-error): the file could not be read or decoded."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare, shape

# The kind of `SourceError` (analysis/source.py) this rule reports (`rules/registry.py`, `error_finding`).
SOURCE_ERROR = "read"

READ_ERROR = declare(
    "FSU902",
    "read-error",
    category="error",
    fix="none",
    phase="file",
    summary="The file could not be read or decoded",
    messages="{problem}",
    candidates=(shape("unparsable"),),
    doc="""
    ## What it does
    Reports a file that could not be read (permissions, a broken or looping symbolic link, not a regular
    file), contains a NUL byte, or whose bytes are not in the encoding it declares (the message names the
    first bad byte).

    ## Why
    It is left alone; the other files are still processed.

    ## Example
    ```python
    # -*- coding: utf-8 -*-
    name = "caf\\xe9"  # FSU902 when the byte 0xE9 stands alone in the file
    ```
    """,
)
