"""Removed names inside string literals (FSU304): code for `python -c`, `exec`, `textwrap.dedent`, mock targets.

The tool does not rewrite code inside strings. It reports each occurrence (review) at the file line and
column where the name stands inside the literal, computed from the literal's raw source text, so a
triple-quoted block points at its own line. Docstrings are documentation, not code: skipped. Planned when
the run links files (`run/linking.py`), which hands each file the names the run removes (`strings`).

The literals are read from the `ast` model (issue 32 item 4: libcst only writes), split into the parts libcst
has a node for (`semantic/literals.py`: each literal of a concatenation, each stretch of an f-string's text),
each at libcst's place (`planned.Located`); docstrings as libcst's tree counts them. Without a model (syntax
newer than the running Python) nothing is reported: the rule only asks for review.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Located, Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Place, Strings
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def name_pattern(names: Iterable[str]) -> re.Pattern:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
    return re.compile(rf"(?<!\w)({alternatives})(?!\w)")


def occurrences(raw: str, line: int, column: int, pattern: re.Pattern) -> list[tuple[str, Located]]:
    """Each match of a name in a literal's raw text that starts at (`line` 1-based, `column` 0-based), at its
    place (the columns of a later line count from that line's start)."""
    from fsdp_unpatch.analysis.planned import Located

    found = []
    for match in pattern.finditer(raw):
        index = match.start(1)
        newlines = raw.count("\n", 0, index)
        at = index - raw.rindex("\n", 0, index) - 1 if newlines else column + index
        name = match.group(1)
        found.append((name, Located(line + newlines, at, line + newlines, at + len(name))))
    return found


def check(strings: Strings, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Each removed name inside a string literal of the file, but in the code another fix deletes."""
    yield from plan_strings(analysis, strings.removed, strings.skipped)


def plan_strings(analysis: ModuleSubject, removed: Mapping[str, str], skipped: Sequence[Place] = ()) -> list[Planned]:
    """FSU304 findings. `removed`: removed name -> what replaces it (for the message).

    `skipped`: the places (as `analysis.position` gives them) of code another finding deletes as a whole; a
    string inside one is not reported.
    """
    from fsdp_unpatch.analysis.planned import Located, Planned
    from fsdp_unpatch.semantic.literals import docstrings, parts, string_nodes, string_span

    model = analysis.model
    if not removed or model is None or model.tree is None:
        return []
    pattern = name_pattern(removed)
    spelled = re.compile("|".join(re.escape(n) for n in removed))  # a name anywhere in a literal's source
    text = analysis.node_text
    regions = [((r.start.line, r.start.column), (r.end.line, r.end.column)) for r in skipped]
    found = []
    for node in string_nodes(model.tree):
        start, end = string_span(text, node)
        if spelled.search(text.text, start, end):
            found.append((start, end, node))
    if not found:
        return []
    documenting = {id(node) for node in docstrings(model.tree, text)}
    planned = []
    for start, end, node in sorted(found, key=lambda f: f[0]):
        if id(node) in documenting:
            continue
        if regions:
            where = analysis.position(Located(*text.place(start), *text.place(end)))
            first, last = (where.start.line, where.start.column), (where.end.line, where.end.column)
            if any(low <= first and last <= high for low, high in regions):
                continue
        lexed = parts(text.text, start, end)
        for part in lexed.parts if lexed is not None else ():
            if not pattern.search(part.text):
                continue
            line, column = text.place(part.offset)
            for name, at in occurrences(part.text, line, column, pattern):
                message = REMOVED_NAME_IN_STRING.message(name=name, replacement=removed[name])
                planned.append(Planned(REMOVED_NAME_IN_STRING.code, at, message, None))
    return planned


REMOVED_NAME_IN_STRING = declare(
    "FSU304",
    "removed-name-in-string",
    category="review",
    fix="none",
    phase="run",
    summary="A removed patch name inside a string literal (code run by `python -c`, `exec`, a mock target)",
    messages="this string names `{name}`, which the migration removes ({replacement}); code in strings is not "
    "rewritten: update it by hand",
    check=check,
    subject="strings",
    candidates=(shape("patch-part"),),
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
