"""`--extra-output FORMAT:FILE`: more reports of the same run, each a file in one of the output formats.

The GitHub Action asks one run for its annotations, its SARIF file, its job summary and its counts, so that
they agree and the tree is analysed once. Each file holds exactly what `--output-format FORMAT` prints.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Optional, Sequence

from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.reporting import FORMATS, ReportContext, formatter


def parse(values: Sequence[str], output_file: Optional[str] = None) -> list[tuple[str, str]]:
    """(format, file) of each value; ValueError with the message to show for a malformed one, or for a file
    given twice (with `--output-file` too): the later report would replace the earlier one unseen."""
    outputs = []
    taken = {os.path.realpath(output_file)} if output_file else set()
    for value in values:
        name, colon, path = value.partition(":")
        if not colon or not name or not path:
            raise ValueError(
                _("--extra-output: expected FORMAT:FILE (such as sarif:report.sarif), not {value}").format(
                    value=repr(value)
                )
            )
        if name not in FORMATS:
            raise ValueError(
                _("--extra-output: unknown format {name} (one of {formats})").format(
                    name=repr(name), formats=", ".join(FORMATS)
                )
            )
        if os.path.realpath(path) in taken:
            raise ValueError(
                _("--extra-output: {path} is given twice; each report needs a file of its own").format(path=path)
            )
        taken.add(os.path.realpath(path))
        outputs.append((name, path))
    return outputs


def write(outputs: Sequence[tuple[str, str]], result, context: ReportContext) -> None:
    """Write each report (uncoloured); OSError for a file that cannot be written."""
    plain = replace(context, color=False)
    for name, path in outputs:
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(formatter(name)(result, plain))
