"""`check`'s dry fix (`held_back.py`) from what the check run already learnt: no file is read or analysed again.

`fix --diff` runs phase 1 (each file alone) and phase 2 (linked groups, and each file with a fix) with fixes
computed. Phase 1's outcomes do not depend on whether fixes are computed: a fix is planned in every run and
only applied at the end, and the keys that link files (names a fix deletes, patched targets) come from the
plan. So the check run's phase-1 items serve as they are, and only phase 2 runs again, over the groups that
hold a safe fix `check` counts: a group without one applies nothing, and its verdict asks nothing of it.
A linked group that the check run analysed in this process is not even run again: its engine, kept
(`batch.run(engines=...)`), gives its results under the dry fix's options (`engine.Run.again`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.model import FileResult, RunOptions, RunResult
from fsdp_unpatch.run.batch import _Item, _linked, _run_groups, group_key


def _has_safe_fix(result: FileResult) -> bool:
    return any(f.fix is not None and f.fix.applicability == "safe" for f in result.findings)


def dry_fix(
    items: Sequence[_Item], catalog: Catalog, options: RunOptions, jobs: int, engines: Optional[dict] = None
) -> RunResult:
    """The run's files as `fix --diff` would plan them (`options`: fix on, nothing written), from the check
    run's phase-1 `items` (`batch.run(phase_one=...)`) and its kept `engines`, the import net applied. Files
    of no group keep their phase-1 result: they change nothing."""
    from fsdp_unpatch.analysis.prefilter import prefilter_for
    from fsdp_unpatch.project.identity import roots_of
    from fsdp_unpatch.run.import_net import guard

    options = replace(options, write=False)
    groups = [group for group in _linked(items, prefilter_for(catalog)) if len(group) > 1]
    grouped = {i for group in groups for i in group}
    groups += [[i] for i, item in enumerate(items) if i not in grouped and item.outcome is not None]
    groups = [g for g in groups if any(_has_safe_fix(items[i].outcome.result) for i in g)]  # type: ignore[union-attr]
    files = [item.outcome.result for item in items]  # type: ignore[union-attr]
    transactions: list[list[int]] = []
    engines = engines or {}
    kept = [engines.pop(group_key([items[i] for i in g]), None) for g in groups]
    fresh = iter(
        _run_groups([[items[i] for i in g] for g, e in zip(groups, kept) if e is None], catalog, options, None, jobs)
    )
    for group, engine in zip(groups, kept):
        if engine is not None:
            together = engine.again(options)
            results, linked = together.files, together.transactions
        else:
            results, linked = next(fresh)
        for index, result in zip(group, results):
            files[index] = result
        transactions += [[group[i] for i in members] for members in linked]
    paths = [str(item.candidate.path) for item in items]
    buffers = [paths[i] for i, item in enumerate(items) if item.candidate.data is not None]
    guard(files, transactions, paths, roots_of(options, paths, buffers))
    return RunResult(files=files, transactions=transactions)
