"""Removed names inside string literals (FSU304): code for `python -c`, `exec`, `textwrap.dedent`, mock targets.

The tool does not rewrite code inside strings. It reports each occurrence (review) at the file line and
column where the name stands inside the literal, computed from the literal's raw source text, so a
triple-quoted block points at its own line. Docstrings are documentation, not code: skipped. Planned when
the run links files (`run/linking.py`), which hands each file the names the run removes (`strings`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Union

from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    import libcst as cst
    from libcst.metadata import CodePosition, CodeRange

    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Strings
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options

    StringPart = Union[cst.SimpleString, cst.FormattedStringText]


def _docstring_nodes(body: cst.BaseSuite | list) -> list[cst.CSTNode]:
    import libcst as cst

    statements = body.body if isinstance(body, (cst.IndentedBlock, cst.Module)) else []
    if statements and isinstance(statements[0], cst.SimpleStatementLine):
        first = statements[0].body[0] if statements[0].body else None
        if isinstance(first, cst.Expr) and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString)):
            return [first.value]
    return []


def name_pattern(names: Iterable[str]) -> re.Pattern:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
    return re.compile(rf"(?<!\w)({alternatives})(?!\w)")


def occurrences(raw: str, start: CodePosition, pattern: re.Pattern) -> list[tuple[str, CodeRange]]:
    """Each match of a name in a literal's raw text, at its file position (line 1-based, column 0-based)."""
    from libcst.metadata import CodePosition, CodeRange

    found = []
    for match in pattern.finditer(raw):
        index = match.start(1)
        newlines = raw.count("\n", 0, index)
        if newlines:
            column = index - raw.rindex("\n", 0, index) - 1
        else:
            column = start.column + index
        line = start.line + newlines
        name = match.group(1)
        found.append((name, CodeRange(CodePosition(line, column), CodePosition(line, column + len(name)))))
    return found


def check(strings: Strings, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Each removed name inside a string literal of the file, but in the code another fix deletes."""
    yield from plan_strings(analysis, strings.removed, strings.skipped)


def plan_strings(
    analysis: ModuleSubject,
    removed: Mapping[str, str],
    skipped: Iterable[cst.CSTNode] = (),
) -> list[Planned]:
    """FSU304 findings. `removed`: removed name -> what replaces it (for the message).

    `skipped`: nodes whose strings are not reported (code that another finding deletes as a whole).
    """
    import libcst as cst

    from fsdp_unpatch.analysis.planned import Planned

    if not removed:
        return []
    pattern = name_pattern(removed)
    skip = {id(n) for n in skipped}
    parts: list[StringPart] = []

    class _Visitor(cst.CSTVisitor):
        def _skip_docstring(self, body) -> None:
            skip.update(id(n) for n in _docstring_nodes(body))

        def visit_Module(self, node: cst.Module) -> None:
            self._skip_docstring(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            self._skip_docstring(node.body)
            return id(node) not in skip

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            self._skip_docstring(node.body)
            return id(node) not in skip

        def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> bool:
            return id(node) not in skip

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            if id(node) not in skip and pattern.search(node.value):
                parts.append(node)

        def visit_FormattedString(self, node: cst.FormattedString) -> bool:
            return id(node) not in skip

        def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
            if pattern.search(node.value):
                parts.append(node)

    analysis.module.visit(_Visitor())
    planned = []
    for part in parts:
        start = analysis.position(part).start
        for name, where in occurrences(part.value, start, pattern):
            stand_in = cst.Name(name)
            analysis.place(stand_in, where)
            planned.append(
                Planned(
                    REMOVED_NAME_IN_STRING.code,
                    stand_in,
                    REMOVED_NAME_IN_STRING.message(name=name, replacement=removed[name]),
                    None,
                )
            )
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
