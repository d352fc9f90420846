"""The suppression rules (FSU5xx): `# noqa` comments that suppress nothing.

Planned by the engine (`run/engine.py`, `unused_noqa`) from what `analysis/suppression.py` reads of the
comments, once a file's other findings are known.
"""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare
from fsdp_unpatch.rules.unproven_override import UNPROVEN_OVERRIDE

UNUSED_NOQA = declare(
    "FSU501",
    "unused-noqa",
    category="review",
    fix="none",
    phase="file",
    summary="A `# noqa` names an FSU code that has no finding on its line",
    messages={
        "default": "unused `# noqa` code `{code}`: no {code} finding on this line; remove it",
        "unknown": "`# noqa` names unknown rule code `{code}`; remove it",
    },
    doc="""
    ## What it does
    Like ruff's RUF100: reports a code in a `# noqa: FSU...` comment on a line where no finding with that
    code is reported, and a code no rule has. Only FSU codes are checked, and only codes the run selects
    for the file; a bare `# noqa` and other tools' codes are left alone.

    ## Why
    A `# noqa: FSU001` that suppresses nothing would hide a future finding nobody looked at. Remove the
    code (or the comment).

    ## Example
    ```python
    import torch  # noqa: FSU001
    ```
    """,
)

_SITE = """from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _post_backward_and_log(self, *args):
    print("post-backward")


"""


def _noqa(code: str) -> str:
    # The code comes from its declaration (no rule code is spelled outside it), and "# " + "noqa" is split
    # so that linters do not read this line's string as a directive of their own.
    return "  # " + f"noqa: {code}\n"


VALID = [Valid(f"{_SITE}FSDPParamGroup.post_backward = _post_backward_and_log{_noqa(UNPROVEN_OVERRIDE.code)}")]
INVALID = [Invalid(f"{_SITE}print(FSDPParamGroup.post_backward){_noqa(UNPROVEN_OVERRIDE.code)}")]
