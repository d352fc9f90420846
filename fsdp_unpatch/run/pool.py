"""Worker processes for a run: how many pay for themselves, and a map over forked workers that inherit the
run's catalog and options (set once per worker, not sent with every job)."""

from __future__ import annotations

import os
from collections import deque
from typing import Any, Callable, Generator, Iterable, Sequence

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


def pool_size(
    workers: int, jobs: int, size: int, min_jobs: int = POOL_MIN_FILES, min_bytes: int = POOL_MIN_BYTES
) -> int:
    """How many worker processes to use for `jobs` pieces of work of `size` bytes in all; 1: no pool."""
    if workers <= 1 or jobs < min_jobs or size < min_bytes:
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


# Stream ---------------------------------------------------------------------------------------------
# Chunks sent ahead to each worker of `forked_stream`: enough that none waits for the next, few enough that
# the results waiting in this process stay small.
AHEAD_PER_WORKER = 64
# How long `forked_stream` waits for a result before it asks again whether a signal came (seconds).
POLL_SECONDS = 0.05
_STOPPING = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")


def forked_stream(
    function: Callable, jobs: Iterable, workers: int, catalog: Any, options: Any
) -> Generator[Any, None, None]:
    """`function` over `jobs` in `workers` forked processes, lazily: the results in the order of `jobs`, at
    most AHEAD_PER_WORKER jobs per worker sent ahead of the one awaited. Unlike `forked_map`, libcst is not
    loaded (the work is the `ast` tier's and the prefilter's), and a signal stops the stream at once: the
    workers ignore Ctrl-C (a terminal sends it to all of them) and die of termination signals without a word,
    while this process, which acts on them (`files/signals.py`: a KeyboardInterrupt raised here, or noted and
    raised by `checkpoint()` every POLL_SECONDS), kills the workers when the stream is closed early."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from fsdp_unpatch.files.signals import checkpoint, signals_deferred

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_quiet_worker, initargs=(catalog, options))
    pending: deque = deque()
    finished = False
    try:
        queue = iter(jobs)
        # The workers are forked at the first submit: with the signals held (blocked, and only noted by this
        # process's handlers), so that none reaches a worker before it has set its own handling, and none
        # stops this process between a fork and the executor's note of the worker (which would be left alive).
        with signals_deferred():
            for job in queue:
                pending.append(pool.submit(function, job))
                if len(pending) >= workers * AHEAD_PER_WORKER:
                    break
        while pending:
            first = pending.popleft()
            while not wait([first], POLL_SECONDS, FIRST_COMPLETED).done:
                checkpoint()
            result = first.result()
            with signals_deferred():  # a submit may fork a worker: held as the first ones are
                for job in queue:
                    pending.append(pool.submit(function, job))
                    break
            yield result
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:  # interrupted (or closed early): the workers' work is of no use, they are killed now
            _kill(pool)


def _init_quiet_worker(catalog: Any, options: Any) -> None:
    """A `forked_stream` worker: the run's catalog and options; Ctrl-C ignored (the parent decides), the
    termination signals back to their defaults (no Python handler, no traceback), then unblocked."""
    import signal

    init_worker(catalog, options)
    for name in _STOPPING:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN if name == "SIGINT" else signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        names = [getattr(signal, name) for name in _STOPPING if hasattr(signal, name)]
        signal.pthread_sigmask(signal.SIG_UNBLOCK, names)


def _kill(pool: Any) -> None:
    """Stop `pool` at once: its jobs not started are dropped, its workers killed (the work in hand is thrown
    away) and reaped."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # the executor's own: no public way
    manager = getattr(pool, "_executor_manager_thread", None)  # forgotten by the first shutdown below
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        if process.is_alive():
            process.kill()
    if manager is not None:
        # It reaps the workers it sees die; only once it is done may this thread join them: two threads
        # waiting for one process leave it unreaped to one of them (still among `active_children()`).
        manager.join()
    pool.shutdown(wait=True)
    for process in workers:
        process.join()
