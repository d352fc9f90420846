"""FSU501: `# noqa` codes on lines where the analysis found no such finding (the codes read through an
excerpt and its holes for a large file)."""

from __future__ import annotations

from dataclasses import replace

from fsdp_unpatch.analysis.suppression import NoqaCode, is_suppressed, noqa_code_positions
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.files.lines import python_lines
from fsdp_unpatch.model import Finding, RunOptions, Span
from fsdp_unpatch.rules.unused_noqa import UNUSED_NOQA, unused_noqa
from fsdp_unpatch.run.unit import Unit


def noqa_comments(unit: Unit, text: str) -> list[NoqaCode]:
    """The file's `# noqa` codes. An excerpt's file is tokenized through the excerpt and the holes that
    spell `noqa` (tokenizing 4 MB of Python takes seconds); their lines are the file's."""
    excerpt = unit.excerpt
    if excerpt is None:
        return noqa_code_positions(text)
    assert unit.analysis is not None
    encoding = unit.analysis.module.encoding
    found = [
        replace(c, line=excerpt.file_line(c.line))
        for c in noqa_code_positions(excerpt.text.decode(encoding, "replace"))
    ]
    for first_line, original in excerpt.holes_spelling(b"noqa"):
        found += [
            replace(c, line=first_line + c.line - 1) for c in noqa_code_positions(original.decode(encoding, "replace"))
        ]
    return found


def unused_noqa_findings(unit: Unit, options: RunOptions, catalog: Catalog) -> list[Finding]:
    """FSU501 findings for `# noqa` codes on lines where the analysis found no such finding."""
    display = unit.candidate.display
    if unit.source is None or unit.skipped or unit.error is not None or b"noqa" not in unit.source.data:
        return []
    if not options.selected(UNUSED_NOQA.code, display):
        return []
    encoding = unit.analysis.module.encoding if unit.analysis is not None else "utf-8"
    text = unit.source.data.decode(encoding, "replace")
    found: dict[int, set[str]] = {}
    for planned in unit.analysis.planned if unit.analysis is not None else ():
        found.setdefault(unit.position(planned.node).start.line, set()).add(planned.code)
    lines = python_lines(text)
    rule = catalog.rule(UNUSED_NOQA.code)
    return [
        Finding(
            code=UNUSED_NOQA.code,
            category=rule.category,
            path=display,
            span=Span(noqa.line, noqa.column, noqa.line, noqa.end_column),
            message=message,
        )
        for noqa, message in unused_noqa(
            noqa_comments(unit, text),
            found,
            lambda code: options.selected(code, display),
            catalog.rules,
        )
        if not is_suppressed(lines, noqa.line, UNUSED_NOQA.code)
    ]
