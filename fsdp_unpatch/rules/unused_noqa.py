"""The suppression rules (FSU5xx): `# noqa` comments that suppress nothing.

Checked once a file's other findings are planned (`planned`: the engine's results hand each file over,
`run/noqa_findings.py`), from what `analysis/suppression.py` reads of the comments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Callable, Iterable, Iterator, Mapping

from fsdp_unpatch.analysis.suppression import OWN_PREFIX
from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.subjects import PlannedFile
    from fsdp_unpatch.analysis.suppression import NoqaCode
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.model import Finding


def check(planned: PlannedFile, catalog: Catalog, options: Options) -> Iterator[Finding]:
    """FSU501 findings for the `# noqa` codes of a file that suppress nothing (none when the run does not
    report FSU501 for it: its comments are then not read)."""
    from fsdp_unpatch.model import Finding, Span

    if not planned.selected(UNUSED_NOQA.code):
        return
    for noqa, message in unused_noqa(planned.comments(), planned.found, planned.selected, catalog.rules, planned.later):
        yield Finding(
            code=UNUSED_NOQA.code,
            category=UNUSED_NOQA.category,
            path=planned.display,
            span=Span(noqa.line, noqa.column, noqa.line, noqa.end_column),
            message=message,
        )


def unused_noqa(
    comments: Iterable[NoqaCode],
    found: Mapping[int, AbstractSet[str]],
    selected: Callable[[str], bool],
    known: Iterable[str],
    later: AbstractSet[str] = frozenset(),
) -> list[tuple[NoqaCode, str]]:
    """(code position, message) for FSU codes in `# noqa` comments that suppress nothing.

    `comments`: the codes of the file's `# noqa` comments (`noqa_code_positions`);
    `found`: line -> codes of the findings the analysis made on that line (before suppression);
    `selected(code)`: whether the run reports that code for this file. Other tools' codes, and FSU
    codes the run does not select here, are left alone; so are `later` codes, whose findings are made after
    the plan (FSU306): whether such a comment silences one is not known here.
    """
    known = set(known)
    unused = []
    for noqa in comments:
        code = noqa.code
        if not code.startswith(OWN_PREFIX) or code == UNUSED_NOQA.code:
            continue  # other tools' codes are theirs; FSU501 itself is used by silencing this check
        if code not in known:
            unused.append((noqa, UNUSED_NOQA.message("unknown", code=code)))
        elif selected(code) and code not in later and code not in found.get(noqa.line, set()):
            unused.append((noqa, UNUSED_NOQA.message(code=code)))
    return unused


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
    check=check,
    subject="planned",
    candidates=(shape("suppression"),),
    doc="""
    ## What it does
    Like ruff's RUF100: reports a code in a `# noqa: FSU...` comment on a line where no finding with that
    code is reported, and a code no rule has. Only FSU codes are checked, and only codes the run selects
    for the file; a bare `# noqa` and other tools' codes are left alone, and so is `FSU306` (broken-import),
    whose findings are made over the whole run after this check.

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
    # "# " + "noqa" is split
    # so that linters do not read this line's string as a directive of their own.
    return "  # " + f"noqa: {code}\n"


def __getattr__(name: str) -> list:
    """`VALID` and `INVALID`, made when first read: their `# noqa` names the code of the rule that reports
    the wrapper's install site (unproven-override), which the registry gives once every rule is declared
    (no rule module imports another)."""
    if name not in ("VALID", "INVALID"):
        raise AttributeError(name)
    from fsdp_unpatch.rules.registry import all_rules

    reported = next(rule.code for rule in all_rules().values() if rule.name == "unproven-override")
    if name == "VALID":
        return [Valid(f"{_SITE}FSDPParamGroup.post_backward = _post_backward_and_log{_noqa(reported)}")]
    return [Invalid(f"{_SITE}print(FSDPParamGroup.post_backward){_noqa(reported)}")]
