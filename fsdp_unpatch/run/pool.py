"""Worker processes for a run: how many pay for themselves, and a map over forked workers that inherit the
run's catalog and options (set once per worker, not sent with every job)."""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

# The pool pays for itself (fork, libcst in each worker) only with this much source to parse, and only on
# CPUs that are idle: measured on this project's 2-core machine with the other core busy, two workers were
# slower than one at every size (1 to 6 files of 13 KB or 64 KB: e.g. 6 x 64 KB took 8.1 s in the pool,
# 6.0 s alone), so the pool is used only when the load average leaves a second CPU free.
POOL_MIN_BYTES = 200_000
POOL_MIN_FILES = 4


def idle_cpus() -> int:
    """CPUs this process may use that the 1-minute load average leaves free (this process counts as one)."""
    cpus = default_jobs()
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):  # no load average on this platform: trust the CPU count
        return cpus
    return max(1, min(cpus, int(cpus - load + 1)))


def pool_size(workers: int, jobs: int, size: int, min_jobs: int = POOL_MIN_FILES) -> int:
    """How many worker processes to use for `jobs` pieces of work of `size` bytes in all; 1: no pool."""
    if workers <= 1 or jobs < min_jobs or size < POOL_MIN_BYTES:
        return 1
    return max(1, min(workers, jobs, idle_cpus()))


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# What every worker holds: the catalog and options of the run (`init_worker`), and what the caller adds
# before the pool forks (inherited, never pickled).
WORKER: dict = {}


def init_worker(catalog: Any, options: Any) -> None:
    WORKER["catalog"], WORKER["options"] = catalog, options


def forked_map(function: Callable, jobs: Sequence, workers: int, catalog: Any, options: Any) -> list:
    """`function` over `jobs` in `workers` forked processes, results in the order of `jobs`."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import libcst  # noqa: F401 - loaded once here, inherited by the forked workers

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker, initargs=(catalog, options)) as pool:
        return list(pool.map(function, jobs, chunksize=1))
