"""The error rules (FSU9xx): a file that could not be checked or fixed.

Raised as `SourceError(code, message)` where reading, parsing or writing fails (`analysis/source.py`,
`fixes/transaction.py`, `run/engine.py`); the message says what went wrong, so each rule's template is
its message as given.
"""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare

WHERE = "fsdp_unpatch.analysis.source, fsdp_unpatch.fixes.transaction, fsdp_unpatch.run.engine (SourceError)"

PARSE_ERROR = declare(
    "FSU901",
    "parse-error",
    category="error",
    fix="none",
    phase="file",
    summary="The file is not valid Python source",
    messages="{problem}",
    planned_in=WHERE,
    doc="""
    ## What it does
    Reports a file that could not be parsed: a syntax error (placed by CPython's parser, which also names
    Python 2 constructs), or nesting so deep that parsing it safely is not possible (CPython refuses it
    too).

    ## Why
    Nothing can be proven about code that does not parse. It is left alone; the other files are still
    processed.

    ## Example
    ```python
    print "hello"  # FSU901: syntax error
    ```
    """,
)

READ_ERROR = declare(
    "FSU902",
    "read-error",
    category="error",
    fix="none",
    phase="file",
    summary="The file could not be read or decoded",
    messages="{problem}",
    planned_in=WHERE,
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

FIX_NOT_WRITTEN = declare(
    "FSU903",
    "fix-not-written",
    category="error",
    fix="none",
    phase="file",
    summary="A fix was computed but not written",
    messages="{problem}",
    planned_in=WHERE,
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

FILE_TOO_LARGE = declare(
    "FSU904",
    "file-too-large",
    category="error",
    fix="none",
    phase="file",
    summary="The file is too large to check safely",
    messages="{problem}",
    planned_in=WHERE,
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
