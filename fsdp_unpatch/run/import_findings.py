"""FSU306's `imports` check over a run's files: the project's imports, after the fixes are planned.

Apart from the import net (`import_net.py`), which only a fix needs: a `check` whose files all come from the
cache loads neither it nor the syntax-tree helpers it reads (`tests/test_startup_imports.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Optional, Sequence

if TYPE_CHECKING:
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.model import FileResult, RunOptions


def report_imports(
    files: Sequence[FileResult],
    paths: Sequence[str],
    buffers: Mapping[int, bytes],
    options: RunOptions,
    catalog: Optional[Catalog],
    cache=None,
    named: Optional[Mapping[int, bool]] = None,
) -> None:
    """The findings of the `imports` checks (FSU306) on the run's files, added to `files` (the results, in the
    order of `paths`); `buffers[i]`: an editor's bytes for file i; `cache`: the run cache, or None; `named[i]`:
    whether file i spells a prefilter token, where the run knows it."""
    from fsdp_unpatch.analysis.dispatch import dispatch
    from fsdp_unpatch.analysis.import_subjects import ProjectImports

    subject = ProjectImports(paths, [f.display for f in files], buffers, options, cache, named or {})
    for found in dispatch("imports", subject, catalog, options=options.analysis):
        files[found.index].findings.append(found.finding)
