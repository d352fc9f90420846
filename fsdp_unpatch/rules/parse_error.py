"""FSU901 (parse-error): the file is not valid Python source."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

# The kind of `SourceError` (analysis/source.py) this rule reports (`rules/registry.py`, `error_finding`).
SOURCE_ERROR = "parse"

PARSE_ERROR = declare(
    "FSU901",
    "parse-error",
    role="parse-error",
    category="error",
    fix="none",
    phase="file",
    summary="The file is not valid Python source",
    messages="{problem}",
    candidates=(shape("unparsable"),),
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

# Only files that may patch FSDP2 are parsed (the prefilter): each sample installs a replacement.
_IMPORT = "from torch.distributed.fsdp._fully_shard import _fsdp_collectives\n\n\n"
_INSTALL = "\n\n_fsdp_collectives.foreach_reduce = reduce\n"
VALID = [Valid(f"{_IMPORT}def reduce(*args):\n    print('reducing')\n{_INSTALL}")]
INVALID = [Invalid(f"{_IMPORT}def reduce(*args):\n    print 'reducing'\n{_INSTALL}")]
