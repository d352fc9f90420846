"""A whole run, fast: prefilter, analyse files one by one (in a process pool when it pays), link what must be.

Phase 1 reads every file once and keeps only what the prefilter passes (on a big tree with a CPU free, the
files are read and judged by the prefilter and the ast tier in forked workers, `_judged`, and the verdicts
taken in run order); each of those is run through the engine *alone* (`engine.Run` over one file: parse,
analyse, link, findings, fix computed but not written), possibly from the cache, possibly in a worker process.
A worker returns plain data (`Outcome`): the file's result and the keys by which other files could change it.
libcst trees never cross a process boundary and are freed after each file, so memory follows the largest file
parsed, not the tree.

Phase 2 finds the (rare) files whose result depends on other files and runs the engine over those together,
exactly as a single run would:
- a file names something another file's fix deletes (installer calls, references to a replacement);
- a file names a part of a known patch module (whether that module is among the files changes the result);
- a patch-completeness finding whose missing counterpart another file patches.
Every other file's result is final after phase 1. `tests/test_batch.py` checks that the result equals the
plain engine's over all files at once (`engine.run_together`), with and without the pool.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Generator, Iterable, Optional, Sequence

from fsdp_unpatch.analysis.prefilter import prefilter_for
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.config.discovery import Candidate
from fsdp_unpatch.files.reading import SourceFile
from fsdp_unpatch.files.signals import checkpoint
from fsdp_unpatch.model import FileResult, Finding, Outcome, RunOptions, RunResult
from fsdp_unpatch.rules.registry import error_finding
from fsdp_unpatch.run.alone import analyze_all
from fsdp_unpatch.run.groups import Groups
from fsdp_unpatch.run.learned import Learned
from fsdp_unpatch.run.pool import WORKER, forked_map, forked_stream, pool_size

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.screen import Screen
    from fsdp_unpatch.run.cache import Cache


@dataclass
class _Item:
    index: int
    candidate: Candidate
    source: Optional[SourceFile] = None
    outcome: Optional[Outcome] = None
    cache_key: Optional[str] = None
    named_fsdp: bool = False  # passed the prefilter's first stage (holds one of its tokens)
    error: Optional[Finding] = field(default=None, repr=False)


# the run ------------------------------------------------------------------------------------------
# Files read ahead of the prefilter by a few threads (reads release the GIL; the prefilter does not): the
# disk works while this process searches, and at most this many files' bytes are held at once.
READ_AHEAD = 32
READ_THREADS = 4


@dataclass(frozen=True)
class _Known:
    """A file the cache's index of unchanged files holds: not read (`cache.Unchanged`)."""

    named: bool


def _read_ahead(
    known: Iterable[tuple[Candidate, Optional[bool]]],
) -> Generator[tuple[Candidate, object, None], None, None]:
    """(candidate, SourceFile or SourceError, or _Known when the cache's index says it is unchanged, None) for
    each (candidate, its `named` bit in that index or None), in order, read by a small thread pool. The None:
    this process judges the file itself (`_judged` says what a worker found)."""
    from concurrent.futures import ThreadPoolExecutor

    pending: deque = deque()
    with ThreadPoolExecutor(
        READ_THREADS, thread_name_prefix="fsdp-unpatch-read", initializer=_signals_to_the_main_thread
    ) as pool:
        try:
            for candidate, named in known:
                pending.append((candidate, pool.submit(_read, candidate) if named is None else _Known(named)))
                if len(pending) >= READ_AHEAD:
                    first, future = pending.popleft()
                    yield first, future if isinstance(future, _Known) else future.result(), None
            while pending:
                first, future = pending.popleft()
                yield first, future if isinstance(future, _Known) else future.result(), None
        finally:  # interrupted: drop what was not read yet
            for _, future in pending:
                if not isinstance(future, _Known):
                    future.cancel()


# Phase 1 in worker processes ----------------------------------------------------------------------
# A cold run over a big tree spends nearly all its time on each file alone: reading it, the prefilter's two
# stages (CPython parses every file that names FSDP2, for its syntax errors) and the ast tier. With a CPU
# free (`pool.pool_size`), that work is done in forked workers, JUDGE_CHUNK files a job, the bytes sent back
# only for the files worth analysing; this process takes the verdicts in run order and does the rest (cache,
# index of unchanged files, what the run learns) exactly as when it judges the files itself. Measured on this
# project's 2-core machine (docs/performance.md): the pool pays from about JUDGE_MIN_BYTES of files to read.
JUDGE_MIN_BYTES = 4_000_000
JUDGE_MIN_FILES = 64
JUDGE_CHUNK = 8


@dataclass(frozen=True)
class _Verdict:
    """What a worker found of a file it read: it spells a first-stage token (`named`), both stages pass it
    (`worth`), and, when the ast tier is on and both do, whether the tier finds it unable to hold a finding
    (`empty`; None: not asked)."""

    named: bool
    worth: bool
    empty: Optional[bool] = None


def _judge(chunk: Sequence[Candidate]) -> list[tuple[object, Optional[_Verdict]]]:
    """In a worker: each file read and judged as `run` judges it; a file not worth analysing comes back
    without its bytes (its stat is all the run keeps of it)."""
    catalog, options = WORKER["catalog"], WORKER["options"]
    prefilter, screen = prefilter_for(catalog), _screen(catalog)
    judged: list[tuple[object, Optional[_Verdict]]] = []
    for candidate in chunk:
        source = _read(candidate)
        if not isinstance(source, SourceFile):
            judged.append((source, None))
            continue
        named = prefilter.has_token(source.data)
        worth = prefilter.worth_parsing(source.data, str(candidate.path), named=named)
        empty = None
        if worth and options.screen:  # asked before the cache is: a cached file's answer goes unused
            empty = screen.holds_no_finding(source.data, candidate.path, options.excerpt_above)
        judged.append((source if worth else replace(source, data=b""), _Verdict(named, worth, empty)))
    return judged


def _judged(
    known: Sequence[tuple[Candidate, Optional[bool]]], workers: int, catalog: Catalog, options: RunOptions
) -> Generator[tuple[Candidate, object, Optional[_Verdict]], None, None]:
    """What `_read_ahead` gives, with each read file's `_Verdict`, from `workers` forked workers."""
    unread = [candidate for candidate, named in known if named is None]
    chunks = [unread[i : i + JUDGE_CHUNK] for i in range(0, len(unread), JUDGE_CHUNK)]
    stream = forked_stream(_judge, chunks, workers, catalog, options)
    waiting: deque = deque()
    try:
        for candidate, named in known:
            if named is not None:
                yield candidate, _Known(named), None
                continue
            if not waiting:
                waiting.extend(next(stream))
            source, verdict = waiting.popleft()
            yield candidate, source, verdict
    finally:  # interrupted: the workers are stopped at once
        stream.close()


def _size_at_least(candidates: Iterable[Candidate], enough: int) -> int:
    """The bytes of `candidates` by their stat, counted until `enough` (a big tree is not stat'ed twice)."""
    size = 0
    for candidate in candidates:
        if size >= enough:
            break
        if candidate.data is not None:
            size += len(candidate.data)
        elif candidate.problem is None:
            try:
                size += os.stat(candidate.path).st_size
            except (OSError, ValueError):
                pass
    return size


def _signals_to_the_main_thread() -> None:
    """A reader thread blocks Ctrl-C and termination signals, so that the kernel delivers them to the main
    thread, whose handling (held while a group is written, acted on at checkpoints) is the run's."""
    import signal

    if hasattr(signal, "pthread_sigmask"):
        names = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
        signal.pthread_sigmask(signal.SIG_BLOCK, {getattr(signal, n) for n in names if hasattr(signal, n)})


def _read(candidate: Candidate):
    from fsdp_unpatch.files.reading import SourceError, read_candidate

    try:
        return read_candidate(candidate)
    except SourceError as error:
        return error


def run(
    candidates: Iterable[Candidate],
    catalog: Catalog,
    options: RunOptions,
    *,
    jobs: int = 1,
    cache: Optional[Cache] = None,
    phase_one: Optional[list] = None,
    engines: Optional[dict] = None,
) -> RunResult:
    """Findings (and fixes) for `candidates`, as `runner.run_together` would give them, with less work.
    `phase_one`: a list that receives each file's phase-1 item; `engines`: a dict that receives the engine of
    each linked group run here that holds a safe fix, by its files' displays (`check`'s dry fix reuses both,
    `dry_fix.py`)."""
    prefilter = prefilter_for(catalog)
    learned = Learned()  # what phase 1 learns of each file serves the linked phase (`learned.py`)
    items: list[_Item] = []
    pending: list[_Item] = []
    use_cache = cache is not None and not options.fix
    # The index of unchanged files (`cache.Unchanged`): files found empty before whose stat has not changed.
    unchanged, recorded = None, None
    if use_cache:
        from fsdp_unpatch.run.cache import Unchanged

        found = cache.get(cache.unchanged_key(), counted=False)  # type: ignore[union-attr]
        unchanged = found if isinstance(found, Unchanged) else Unchanged()
        recorded = Unchanged()

    def known(candidate: Candidate) -> Optional[bool]:
        if unchanged is None or candidate.data is not None or candidate.problem is not None:
            return None  # a buffer (standard input) is never a file on disk
        return unchanged.holds(candidate.display, candidate.path)

    def record(item: _Item, source: SourceFile) -> None:
        if recorded is not None:
            stat_ = recorded.stat_of(source)
            if stat_ is not None:
                recorded.files[item.candidate.display] = (stat_, item.named_fsdp)

    status = [(candidate, known(candidate)) for candidate in candidates]
    unread = [candidate for candidate, named in status if named is None]
    size = _size_at_least(unread, JUDGE_MIN_BYTES)
    workers = pool_size(jobs, len(unread), size, min_jobs=JUDGE_MIN_FILES, min_bytes=JUDGE_MIN_BYTES)
    reading = _read_ahead(status) if workers <= 1 else _judged(status, workers, catalog, options)
    try:  # an interrupt closes the reader (and joins its threads, or kills its workers) at once
        for index, (candidate, source, verdict) in enumerate(reading):
            checkpoint()
            item = _Item(index, candidate)
            items.append(item)
            if isinstance(source, _Known):  # unchanged since a run found nothing in it: not even read
                item.named_fsdp = source.named
                item.outcome = Outcome(FileResult(candidate.display))
                recorded.files[candidate.display] = unchanged.files[candidate.display]  # type: ignore[union-attr]
                continue
            if not isinstance(source, SourceFile):  # a SourceError: the file could not be read
                item.error = error_finding(candidate.display, source)  # type: ignore[arg-type]
                item.outcome = Outcome(FileResult(candidate.display, findings=[item.error]))
                continue
            if verdict is None:  # judged here
                item.named_fsdp = prefilter.has_token(source.data)
                worth = prefilter.worth_parsing(source.data, str(candidate.path), named=item.named_fsdp)
            else:  # by a worker (`_judge`), as above
                item.named_fsdp, worth = verdict.named, verdict.worth
            if not worth:
                item.outcome = Outcome(FileResult(candidate.display))
                record(item, source)
                continue  # the bytes are dropped here: memory stays flat however large the tree
            item.source = source
            if use_cache:
                item.cache_key = cache.key(candidate, source.data)  # type: ignore[union-attr]
                found = cache.get(item.cache_key)  # type: ignore[union-attr]
                item.outcome = found if isinstance(found, Outcome) else None
                if item.outcome is not None:
                    item.outcome.result.original = source.data  # entries hold findings, not sources
            if (
                item.outcome is None
                and options.screen
                and (
                    verdict.empty
                    if verdict is not None and verdict.empty is not None
                    else _screen(catalog).holds_no_finding(source.data, candidate.path, options.excerpt_above)
                )
            ):
                # the ast tier (`analysis/screen.py`): this file, alone, can hold no finding; no libcst for it
                item.outcome = Outcome(FileResult(candidate.display))
                item.source = None
                learned.record_verdict(source, options, False)
                if use_cache:
                    cache.put(item.cache_key, item.outcome)  # type: ignore[union-attr]
                    record(item, source)
                continue
            if item.outcome is None:
                pending.append(item)
                learned.remember_source(source)
                if options.screen:
                    learned.record_verdict(source, options, True)
    finally:
        reading.close()
    if recorded is not None:
        # files of the project outside this run keep their records
        taken = {item.candidate.display for item in items}
        for display, entry in unchanged.files.items():  # type: ignore[union-attr]
            if display not in taken:
                recorded.files.setdefault(display, entry)
        if recorded.files != unchanged.files:  # type: ignore[union-attr]
            cache.put(cache.unchanged_key(), recorded)  # type: ignore[union-attr]
    outcomes = analyze_all(
        [(i.candidate, i.source) for i in pending if i.source is not None],  # pending items were all read
        catalog,
        options,
        jobs,
        learned,
        () if use_cache else _surely_linked(pending, catalog),
    )
    for item, outcome in zip(pending, outcomes):
        item.outcome = outcome
        if use_cache:
            cache.put(item.cache_key, outcome)  # type: ignore[union-attr]
    if phase_one is not None:  # copies: phase 2 below replaces the items' outcomes
        phase_one.extend(replace(item) for item in items)
    # A group of one file gives what phase 1 gave that file alone.
    groups = [group for group in _linked(items, prefilter) if len(group) > 1]
    if options.fix:
        # Fixes are applied (written, files deleted) by the engine itself, over the files they change.
        grouped = {i for group in groups for i in group}
        groups += [
            [i]
            for i, item in enumerate(items)
            if i not in grouped and item.outcome is not None and item.outcome.result.fixed is not None
        ]
    grouped_items = [items[i] for group in groups for i in group]
    learned.retain((item.candidate.display, item.source.data) for item in grouped_items if item.source is not None)
    # Workers compute; only this process writes, group by group, all or nothing (`transaction.py`).
    results = _run_groups(
        [[items[i] for i in group] for group in groups],
        catalog,
        replace(options, write=False),
        cache if use_cache else None,
        jobs,
        learned,
        engines,
    )
    transactions: list[list[int]] = []
    for group, (files, linked) in zip(groups, results):
        for index, result in zip(group, files):
            items[index].outcome = Outcome(result)
        transactions += [[group[i] for i in members] for members in linked]
    files = [item.outcome.result for item in items]  # type: ignore[union-attr]
    from fsdp_unpatch.run.import_findings import report_imports

    paths = [str(item.candidate.path) for item in items]
    buffers = {i: item.candidate.data for i, item in enumerate(items) if item.candidate.data is not None}
    if options.fix:  # the import net: no fix breaks an import (README, Safety)
        from fsdp_unpatch.project.identity import roots_of
        from fsdp_unpatch.run.import_net import guard

        guard(files, transactions, paths, roots_of(options, paths, [paths[i] for i in buffers]))
    named = {i: item.named_fsdp for i, item in enumerate(items) if item.error is None}
    report_imports(files, paths, buffers, options, catalog, cache if use_cache else None, named)
    if options.fix and options.write:
        from fsdp_unpatch.fixes.transaction import commit_groups

        commit_groups(files, transactions)
    unsafe_left = sum(
        1 for r in files for f in r.findings if f.fix is not None and f.fix.applicability == "unsafe" and not f.fixed
    )
    return RunResult(files=files, unsafe_fixes_left=unsafe_left if options.fix else 0, transactions=transactions)


def _screen(catalog: Catalog) -> Screen:
    """The ast tier (`analysis/screen.py`), imported when a file the cache does not hold reaches it: a run whose
    files all come from the cache never does (`tests/test_startup_imports.py`)."""
    from fsdp_unpatch.analysis.screen import screen_for

    return screen_for(catalog)


def _surely_linked(pending: Sequence[_Item], catalog: Catalog) -> frozenset[int]:
    """The indices of the `pending` files that phase 2 is sure to run in a group of several: those that spell
    a part of a known patch module, when two or more do (`_linked` joins them all). Only the other files'
    results can be read before then (no cache here: no other run reads these)."""
    from fsdp_unpatch.run.alone import names_a_patch_part

    spelling = frozenset(i for i, item in enumerate(pending) if names_a_patch_part(item.source, catalog))  # type: ignore[arg-type]
    return spelling if len(spelling) > 1 else frozenset()


def _linked_work(group: Sequence[_Item]) -> tuple[list[FileResult], list[list[int]]]:
    return _run_linked(group, WORKER["catalog"], WORKER["options"], WORKER.get("cache"), WORKER.get("learned"))


def _run_groups(
    groups: Sequence[Sequence[_Item]],
    catalog: Catalog,
    options: RunOptions,
    cache: Optional[Cache],
    workers: int,
    learned: Optional[Learned] = None,
    engines: Optional[dict] = None,
) -> list[tuple[list[FileResult], list[list[int]]]]:
    """Each group through the engine, in a process pool when there are several groups and work enough
    (`engines`: see `run`; an engine in a worker process stays there)."""
    size = sum(len(item.source.data) for group in groups for item in group if item.source is not None)
    workers = pool_size(workers, len(groups), size, min_jobs=2)
    if workers <= 1:
        return [_run_linked(group, catalog, options, cache, learned, engines) for group in groups]
    WORKER["cache"], WORKER["learned"] = cache, learned  # inherited by the forked workers
    try:
        return forked_map(_linked_work, groups, workers, catalog, options)
    finally:
        WORKER.pop("cache", None)
        WORKER.pop("learned", None)


def _run_linked(
    group: Sequence[_Item],
    catalog: Catalog,
    options: RunOptions,
    cache: Optional[Cache],
    learned: Optional[Learned] = None,
    engines: Optional[dict] = None,
) -> tuple[list[FileResult], list[list[int]]]:
    """The engine over the linked files together (its results, and its groups of fixes written all or
    nothing); cached under the keys of all of them. With `engines`, one whose results hold a safe fix is kept.

    Sound because the group's result depends only on its files (bytes, paths, module names) and on what
    every key holds besides (tool, catalog, configuration); the group itself is recomputed every run.
    """
    checkpoint()
    key = None
    if cache is not None:
        keys = []
        for item in group:
            if item.cache_key is None:
                data = item.source.data if item.source is not None else _reread(item.candidate)
                if data is None:
                    break
                item.cache_key = cache.key(item.candidate, data)
            keys.append(item.cache_key)
        else:
            key = cache.group_key(keys)
            found = cache.get(key)
            if isinstance(found, list) and len(found) == len(group):
                for item, result in zip(group, found):
                    result.original = item.source.data if item.source is not None else _reread(item.candidate)
                return found, []
    from fsdp_unpatch.run.engine import run_together  # loads libcst: only when the group is not cached

    candidates = [item.candidate for item in group]
    kept: list = []
    together = run_together(candidates, catalog, options, guard=False, learned=learned, kept=kept)  # run() guards
    if engines is not None and any(_safe(f) for file in together.files for f in file.findings):
        engines[group_key(group)] = kept[0]
    if key is not None:
        cache.put(key, together.files)  # type: ignore[union-attr]
    return together.files, together.transactions


def _safe(finding: Finding) -> bool:
    return finding.fix is not None and finding.fix.applicability == "safe"


def group_key(group: Sequence[_Item]) -> tuple[str, ...]:
    """A linked group's files, as `run`'s `engines` keeps its engine."""
    return tuple(item.candidate.display for item in group)


def _linked(items: Sequence[_Item], prefilter) -> list[list[int]]:
    """The files whose results depend on other files (phase 2), as independent groups in run order.

    Two files are in one group when one names what the other's fix deletes (or cannot be read, so may),
    when one patches a by-name twin the other misses, or when both name parts of a known patch module. Files of different groups
    cannot change each other's results, so each group is run on its own.
    """
    groups = Groups()
    join = groups.join

    outcomes = [(i, item.outcome) for i, item in enumerate(items) if item.outcome is not None]
    known_patch = [i for i, o in outcomes if o.together]
    join(known_patch)
    patched_by: dict[str, set[int]] = {}
    for i, outcome in outcomes:
        for target in outcome.patched:
            patched_by.setdefault(target, set()).add(i)
    for i, outcome in outcomes:
        for target in outcome.missing:
            others = patched_by.get(target, set()) - {i}
            if others:
                join([i, *sorted(others)])
    for exporter, importers in _alias_links(items, prefilter):
        join([exporter, *importers])
    # A file that cannot be read may name anything: it is decided with every file whose fix deletes a name.
    unreadable = [i for i, item in enumerate(items) if item.error is not None]
    exporters = [i for i, o in outcomes if o.exports]
    if unreadable and exporters:
        join(unreadable + exporters)
    names = sorted({name for _, o in outcomes for name in o.exports})
    if names:
        encoded = [n.encode() for n in names]
        mentioned_by: dict[bytes, list[int]] = {n: [] for n in encoded}
        # A name that holds a first-stage token can only be in files that passed the first stage.
        anywhere = not all(prefilter.has_token(name) for name in encoded)
        for i, item in enumerate(items):
            if not (anywhere or item.named_fsdp or item.source is not None):
                continue
            data = item.source.data if item.source is not None else _reread(item.candidate)
            if data is None:
                continue
            for name in encoded:
                if name in data:
                    mentioned_by[name].append(i)
        for files in mentioned_by.values():
            if len(files) > 1:
                join(files)
    return sorted(groups.members().values())


def _alias_links(items: Sequence[_Item], prefilter) -> list[tuple[int, list[int]]]:
    """Files that may bind names to FSDP2 modules or classes, with the files of their package that may import
    them (`engine.Run.link_module_aliases` decides exactly). Only the project's own modules (not torch), and
    only importers that hold an FSDP token, as the engine: a file the unchanged index skips stays unread.

    Near-linear in the files: the importers are searched among the files under the package's folder (a range
    of the sorted paths, not every file), once per (folder, module's last name, names): a thousand copies of
    one patch module beside each other share one search."""
    from bisect import bisect_left

    from fsdp_unpatch.analysis.byte_search import imports_from
    from fsdp_unpatch.project.identity import module_name as module_name_of

    def data_of(item: _Item) -> Optional[bytes]:
        return item.source.data if item.source is not None else _reread(item.candidate)

    readable = [i for i, item in enumerate(items) if item.named_fsdp and item.error is None]
    placed = sorted((os.path.abspath(items[j].candidate.path), j) for j in readable)
    paths = [path for path, _ in placed]
    searched: dict[tuple[str, str, frozenset], list[int]] = {}
    links = []
    for i in readable:
        item = items[i]
        module = module_name_of(item.candidate.path, real=True)[0]
        if not module or module == "torch" or module.startswith("torch."):
            continue
        data = data_of(item)
        names = prefilter.fsdp2_bindings(data) if data is not None else set()
        if not names:
            continue
        base = os.path.join(str(_package_folder(item.candidate.path, module)), "")
        key = (base, module.rsplit(".", 1)[-1], frozenset(names))
        if key not in searched:
            found = []
            for index in range(bisect_left(paths, base), len(paths)):
                if not paths[index].startswith(base):
                    break
                j = placed[index][1]
                other_data = data_of(items[j])
                if other_data is not None and imports_from(other_data, key[1], names):
                    found.append(j)
            searched[key] = sorted(found)
        importers = [j for j in searched[key] if j != i]
        if importers:
            links.append((i, importers))
    return links


def _package_folder(path: Path, module: str) -> Path:
    """The folder holding the top package of `module` (the file's folder for a top-level module)."""
    folder = Path(os.path.abspath(path)).parent
    for _ in range(module.count(".")):
        folder = folder.parent
    return folder


def _reread(candidate: Candidate) -> Optional[bytes]:
    source = _read(candidate)
    return getattr(source, "data", None)
