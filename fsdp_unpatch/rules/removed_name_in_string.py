"""Removed names inside string literals (FSU304), planned in `rules/strings.py` when the run links files."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import declare

REMOVED_NAME_IN_STRING = declare(
    "FSU304",
    "removed-name-in-string",
    category="review",
    fix="none",
    phase="run",
    summary="A removed patch name inside a string literal (code run by `python -c`, `exec`, a mock target)",
    messages="this string names `{name}`, which the migration removes ({replacement}); code in strings is not "
    "rewritten: update it by hand",
    doc="""
    ## What it does
    Reports a string literal that names a patch function or installer the migration removes. The finding
    points at the line inside the string.

    ## Why
    Strings are often code (`subprocess.run([sys.executable, "-c", CODE])`, `exec(textwrap.dedent(...))`)
    or a mock target (`mock.patch("...._patched_x")`), which would fail at run time. The tool does not
    rewrite code inside strings: update it by hand.

    ## Example
    ```python
    mock.patch("torch_npu.distributed.fsdp._add_fsdp_patch._patched_finalize_backward")  # FSU304
    ```
    """,
)
