"""FSU502 (noqa-missing-colon): a `# noqa` comment names FSU codes without a colon.

`# noqa FSU101` is read as a bare `# noqa` (flake8 and ruff read it so too): it silences every finding on its
line, not only FSU101's. ruff says so (PGH004, and a warning); this rule does, so that no suppression is
broader than it looks."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.analysis.suppression import NOQA_WITHOUT_COLON, NOT_SILENCED_WITHOUT_COLON, OWN_PREFIX, comments
from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    from fsdp_unpatch.analysis.planned import Located, Planned

    if analysis.spells_noqa is False:
        return  # no comment of the file can be a `# noqa` (tokenizing every file was a tenth of a run)
    try:
        text = analysis.text()
    except (SyntaxError, ValueError):  # bytes libcst decoded its own way: the text it parsed, generated
        text = analysis.module.code
    found, _ = comments(text)  # a text that stops tokenizing: the comments before that point
    for comment in found:
        match = NOQA_WITHOUT_COLON.match(comment.text)
        if match is None:
            continue
        codes = [c.upper() for c in re.split(r"[\s,]+", match.group("codes")) if c]
        if not any(c.startswith(OWN_PREFIX) for c in codes):
            continue  # other tools' codes: theirs to judge
        message = NOQA_MISSING_COLON.message(codes=" ".join(codes), fixed=", ".join(codes))
        end = comment.column + len(comment.text)
        yield Planned(NOQA_MISSING_COLON.code, Located(comment.line, comment.column, comment.line, end), message)


NOQA_MISSING_COLON = declare(
    "FSU502",
    "noqa-missing-colon",
    category="review",
    fix="none",
    phase="file",
    summary="A noqa comment names FSU codes without a colon",
    messages="`# noqa {codes}` has no colon, so it silences every finding on this line, not only {codes}; "
    "write `# noqa: {fixed}`",
    check=check,
    subject="module",
    candidates=(shape("suppression"),),
    doc="""
    ## What it does
    Reports a `# noqa` comment that names FSU codes without the colon (`# noqa FSU101`). Like flake8 and
    ruff, the tool reads such a comment as a bare `# noqa`, which silences every finding on its line.

    ## Why
    The comment looks as if it silenced one rule, and silences all of them: a new finding on that line
    would go unseen. ruff warns about it (and PGH004 reports it). Write `# noqa: FSU101`.

    ## Example
    ```python
    FSDPParamGroup.post_forward = _post_forward  # noqa FSU101
    ```
    """,
)

NOT_SILENCED_WITHOUT_COLON.add(NOQA_MISSING_COLON.code)  # `# noqa FSU502` cannot hide the finding it causes

# The comments name this rule's own code: `# noqa CODE` without a colon cannot silence it.
_CODE = NOQA_MISSING_COLON.code
VALID = [
    Valid(f"import torch  # noqa: {_CODE}\n"),
    Valid("import os  # noqa E401\n"),  # another tool's code: its own business
]
INVALID = [Invalid(f"import torch  # noqa {_CODE}\n"), Invalid(f"import torch  # NOQA E401, {_CODE}\n")]
