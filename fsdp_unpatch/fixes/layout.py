"""A module's code, generated once with where each top-level statement's code stands in it (`regions.py`
swaps the code of the statements a fix changes)."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True)
class Layout:
    """A module's code, and the (start, end) offsets in it of each top-level statement's code; `spliceable`:
    a statement's code can be swapped for another's (the module keeps its last newline, so libcst writes it
    as its header, statements and footer one after the other)."""

    code: str
    bounds: tuple[tuple[int, int], ...]
    spliceable: bool


def layout_of(module: cst.Module) -> Layout:
    """The module's code (`module.code`), generated once, a top-level statement at a time."""
    if not module.has_trailing_newline or not (module.header or module.body or module.footer):
        return Layout(module.code, (), False)  # libcst drops the last newline, or writes a lone one
    pieces = [module.code_for_node(line) for line in module.header]
    at = sum(map(len, pieces))
    bounds = []
    for statement in module.body:
        pieces.append(module.code_for_node(statement))
        bounds.append((at, at + len(pieces[-1])))
        at = bounds[-1][1]
    pieces.extend(module.code_for_node(line) for line in module.footer)
    return Layout("".join(pieces), tuple(bounds), True)
