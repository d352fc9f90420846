"""What a run has learned about each file, kept for the rest of the run: its bytes as read, whether it is worth
analysing (prefilter and ast tier), its excerpts, and its libcst tree.

Phase 1 analyses each file alone, the linked phase analyses some of them again as a group (`batch.py`), and
the engine analyses a file again when another file changes what it must know (`engine.Run.link`). All of them
ask one `Learned`, so a file is read once and parsed by libcst at most once per process: a libcst tree is
immutable, and every analysis wraps it without copying it.

A tree takes about 580 times its source in memory. A tree is kept past its file's phase-1 analysis when that
file is likely to be linked (its outcome names a known patch part, deletes names or patches targets), else
only while such trees hold less than KEEP_BYTES of source in all; `retain` then drops the trees of the files
no group needs. A tree that was not kept is parsed again when a group needs it. Files analysed in worker
processes (`pool.py`) leave no tree here: trees never cross a process boundary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Optional, Union

from fsdp_unpatch.analysis.prefilter import prefilter_for
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.files.reading import SourceError, SourceFile
from fsdp_unpatch.model import RunOptions

if TYPE_CHECKING:
    import libcst as cst

    from fsdp_unpatch.analysis.holes import Excerpt

# Source bytes of trees kept for files that phase 1 did not find linked (about 75 MiB of trees).
KEEP_BYTES = 128 * 1024

_Key = tuple[str, bytes]  # a file as the run holds it: its display path and its bytes


def _verdict_key(source: SourceFile, options: RunOptions) -> tuple:
    return (source.display, source.data, options.screen, options.excerpt_above)


class Learned:
    def __init__(self) -> None:
        self.sources: dict[str, SourceFile] = {}
        self.verdicts: dict[tuple, bool] = {}
        self.excerpts: dict[tuple, Optional[Excerpt]] = {}
        # per file, per parsed text (the whole file or an excerpt): the tree, or why libcst refused it
        self.trees: dict[_Key, dict[bytes, Union[cst.Module, SourceError]]] = {}
        self._unlinked_bytes = 0

    # bytes ------------------------------------------------------------------------------------------
    def remember_source(self, source: SourceFile) -> None:
        self.sources[source.display] = source

    def source(self, display: str) -> Optional[SourceFile]:
        return self.sources.get(display)

    # prefilter and ast tier -------------------------------------------------------------------------
    def worth_analysing(self, source: SourceFile, catalog: Catalog, options: RunOptions) -> bool:
        """Whether the engine analyses this file: the prefilter passes it and the ast tier (when on) does not
        find it unable to hold a finding alone; decided once per file and settings."""
        key = _verdict_key(source, options)
        if key not in self.verdicts:
            from fsdp_unpatch.analysis.screen import screen_for  # not for a run whose files all come from the cache

            self.verdicts[key] = prefilter_for(catalog).worth_parsing(source.data, str(source.path)) and not (
                options.screen and screen_for(catalog).holds_no_finding(source.data, source.path, options.excerpt_above)
            )
        return self.verdicts[key]

    def record_verdict(self, source: SourceFile, options: RunOptions, worth: bool) -> None:
        """What the batch decided of a file it read (the same tests, `batch.run`)."""
        self.verdicts[_verdict_key(source, options)] = worth

    # excerpts ---------------------------------------------------------------------------------------
    def excerpt(self, key: tuple, build: Callable[[], Optional[Excerpt]]) -> Optional[Excerpt]:
        if key not in self.excerpts:
            self.excerpts[key] = build()
        return self.excerpts[key]

    # libcst trees -----------------------------------------------------------------------------------
    def parse(self, file: _Key, text: SourceFile, parse: Callable[[SourceFile], cst.Module]) -> cst.Module:
        """The tree of `text` (the file itself, or its excerpt), parsed with `parse` the first time only."""
        known = self.trees.setdefault(file, {})
        if text.data not in known:
            try:
                known[text.data] = parse(text)
            except SourceError as error:
                known[text.data] = error
        found = known[text.data]
        if isinstance(found, SourceError):
            raise found
        return found

    def settle(self, file: _Key, linked: bool) -> None:
        """After a file's analysis alone: keep its trees if it is `linked`, or while the budget allows."""
        size = sum(len(text) for text in self.trees.get(file, ()))
        if linked:
            return
        if self._unlinked_bytes + size > KEEP_BYTES:
            self.trees.pop(file, None)
        else:
            self._unlinked_bytes += size

    def retain(self, files: Iterable[_Key]) -> None:
        """Drop every tree but those of `files` (the files the linked phase analyses again)."""
        wanted = set(files)
        for file in [f for f in self.trees if f not in wanted]:
            del self.trees[file]
        self.sources = {display: s for display, s in self.sources.items() if (display, s.data) in wanted}
