"""The statements of a libcst block: an indented block's, none of a block on its header's line (`if x: y`),
which holds small statements, not statements."""

from __future__ import annotations

from typing import Sequence

import libcst as cst


def body_statements(block: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    return ()
