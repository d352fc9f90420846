"""The line regions a fix rewrites, from the code of the top-level statements it changes.

Each fix that `check` reports carries its regions (the JSON `fix` field, SARIF, `--show-fixes`, the fixable
count). Generating the whole fixed module's code for each fix was most of a check of a real release: one
whole-module code generation per fix. Here the module's code is generated once, noting where each top-level
statement's code starts and ends (`layout.py`); a fix's text is that code with the statements its edits touch
generated anew. libcst writes a module as its header, statements and footer one after the other, and a
top-level statement the same wherever it stands, so the text is the fixed module's code byte for byte; the
regions are then found in it as before (`edits.replacement_regions`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

import libcst as cst

from fsdp_unpatch.analysis.plan import Edit, FileAnalysis
from fsdp_unpatch.fixes.edits import apply_edits, fixed_statements, replacement_regions
from fsdp_unpatch.fixes.layout import Layout
from fsdp_unpatch.fixes.module_edits import split
from fsdp_unpatch.fixes.node_facts import NodeFacts
from fsdp_unpatch.model import Replacement


def fix_regions(analysis: FileAnalysis, edits: Sequence[Edit], facts: NodeFacts) -> list[Replacement]:
    """The line regions of the analysed text that `edits` (edits of that file) rewrite, with their new text."""
    layout = facts.layout(analysis.module)
    node_edits, additions, delete = split(edits)
    fixed = None
    if layout.spliceable and not additions and not delete:
        changed = fixed_statements(analysis, node_edits, facts)
        if changed is not None:
            fixed = _spliced(analysis.module, layout, changed)
    if fixed is None:  # a module edit, or the module as libcst writes it at its end: generated whole
        fixed = apply_edits(analysis, edits, facts).code
    return replacement_regions(layout.code, fixed)


def file_regions(analysis: FileAnalysis, edits: Sequence[Edit], facts: NodeFacts) -> tuple[Replacement, ...]:
    """`fix_regions` in the lines of the file: an excerpt's analysis (`file_line`) numbers its own lines."""
    regions = fix_regions(analysis, edits, facts)
    file_line = analysis.file_line
    if file_line is None:
        return tuple(regions)
    column = analysis.file_column or (lambda _, column: column)
    text = analysis.file_text or (lambda text: text)
    return tuple(
        replace(
            r,
            line=file_line(r.line),
            column=column(r.line, r.column - 1) + 1,  # a region's columns are 1-based
            end_line=file_line(r.end_line),
            end_column=column(r.end_line, r.end_column - 1) + 1,
            content=text(r.content),
        )
        for r in regions
    )


def _spliced(module: cst.Module, layout: Layout, changed: dict[int, list[cst.BaseStatement]]) -> Optional[str]:
    """The module's code with the `changed` statements' code in place of theirs; None when nothing would be
    left (libcst then writes a lone newline)."""
    if not module.header and not module.footer and all(not changed.get(i, True) for i in range(len(module.body))):
        return None
    pieces = []
    at = 0
    for index in sorted(changed):
        start, end = layout.bounds[index]
        pieces.append(layout.code[at:start])
        pieces.extend(module.code_for_node(statement) for statement in changed[index])
        at = end
    pieces.append(layout.code[at:])
    return "".join(pieces)
