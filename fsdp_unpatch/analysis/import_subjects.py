"""The subject of the `imports` checks (`ProjectImports`) and what they yield (`FileFinding`), as
`analysis/subjects.py` types every other kind (it re-exports these two).

Apart from the others because every run hands the `imports` checks its files, a run whose files all come
from the cache too: that run imports this module, not the records of the planner's subjects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from fsdp_unpatch.model import Finding, RunOptions


@dataclass(frozen=True)
class ProjectImports:
    """The files of a run, for the imports in them, once the fixes are planned (the engine and the batch layer
    hand them over): `paths[i]`, `displays[i]`, `buffers[i]` (an editor's bytes for file i, when the caller has
    them), the run's options (its selection, its noqa handling, its project), `cache`: the run cache
    (`run/cache.py`), which keeps what a check learns of each file, or None. Its checks yield `FileFinding`s."""

    paths: Sequence[str]
    displays: Sequence[str]
    buffers: Mapping[int, bytes]
    run: RunOptions
    cache: Any = None
    # named[i]: whether file i spells a token of the prefilter's first stage, where the run already asked
    named: Mapping[int, bool] = field(default_factory=dict)


@dataclass(frozen=True)
class FileFinding:
    """A finding of a whole-run check, with the index of its file among the subject's."""

    index: int
    finding: Finding

    @property
    def code(self) -> str:
        return self.finding.code
