"""The `# noqa` codes of a file once its findings are planned, handed to the `planned` checks (FSU501: codes
on lines where the analysis found no such finding; the codes read through an excerpt and its holes for a
large file)."""

from __future__ import annotations

from dataclasses import replace

from fsdp_unpatch.analysis.dispatch import dispatch
from fsdp_unpatch.analysis.subjects import PlannedFile
from fsdp_unpatch.analysis.suppression import NoqaCode, noqa_code_positions, reported
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.model import Finding, RunOptions
from fsdp_unpatch.rules.registry import all_rules
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
    """What the `planned` checks find in a file with `# noqa` comments, but where a noqa comment of the
    finding's own code suppresses it."""
    display = unit.candidate.display
    if unit.source is None or unit.skipped or unit.error is not None or b"noqa" not in unit.source.data:
        return []
    encoding = unit.analysis.module.encoding if unit.analysis is not None else "utf-8"
    text = unit.source.data.decode(encoding, "replace")
    found: dict[int, set[str]] = {}
    for planned in unit.analysis.planned if unit.analysis is not None else ():
        found.setdefault(unit.position(planned.node).start.line, set()).add(planned.code)
    subject = PlannedFile(
        display,
        found,
        lambda: noqa_comments(unit, text),
        lambda code: options.selected(code, display),
        frozenset(code for code, rule in all_rules().items() if rule.subject == "imports"),
    )
    findings = list(dispatch("planned", subject, catalog, options=options.analysis))
    if not findings:
        return []
    # FSU501 named in a noqa comment silences it even under `--ignore-noqa`, as RUF100 in ruff's.
    return reported(findings, lambda f: f.span.line, lambda: text, ignore_noqa=False)
