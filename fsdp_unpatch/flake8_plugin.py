"""flake8 plugin: `flake8 --select FSU` reports fsdp-unpatch's findings with the same codes and positions.

flake8 gives a plugin one file at a time, so this is single-file analysis: what `fsdp-unpatch check FILE`
reports for that file alone (a replacement another file still imports is only known to a run over the
project). flake8 applies its own `--select`/`--ignore`/`# noqa`; fsdp-unpatch's `# noqa: FSU...` comments
are honoured too.
"""
from __future__ import annotations

import io
import tokenize
from pathlib import Path
from typing import Iterator, Sequence

from fsdp_unpatch import __version__


def _encode(lines: Sequence[str]) -> bytes:
    """flake8 hands over decoded lines: encode them back with the file's declared encoding."""
    head = "".join(lines[:2]).encode("ascii", "replace")
    encoding, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
    return "".join(lines).encode(encoding)


class Plugin:
    name = "fsdp-unpatch"
    version = __version__

    def __init__(self, tree, filename: str, lines: Sequence[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from fsdp_unpatch.analysis import Options
        from fsdp_unpatch.catalog import load_catalog
        from fsdp_unpatch.discovery import Candidate
        from fsdp_unpatch.runner import RunOptions, run
        from fsdp_unpatch.versions import target_torch

        catalog = load_catalog()
        version, _ = target_torch(None, catalog.newest_torch)
        candidate = Candidate(Path(self.filename), self.filename, explicit=True, data=_encode(self.lines))
        result = run([candidate], catalog, RunOptions(analysis=Options(target_torch=version)))
        for finding in result.remaining:
            # flake8 columns are 0-based offsets; it adds 1 when it prints them
            yield finding.span.line, finding.span.column - 1, f"{finding.code} {finding.message}", type(self)
