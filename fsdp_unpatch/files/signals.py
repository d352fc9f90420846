"""Signals during a run: Ctrl-C, SIGTERM and SIGHUP unwind the run the same way, are acted on only between
files while libcst runs (`at_checkpoints`), and are held back while a file is being written (`signals_deferred`).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator, Union

_DEFERRED_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name)
)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised like Ctrl-C so that the run unwinds the same way (clean-up, exit 130)."""


# Signals received, and whether they are acted on only at checkpoints (inside `at_checkpoints`).
_SIGNALS: dict = {"received": [], "at_checkpoints": False}


def _interrupt(name: str) -> KeyboardInterrupt:
    return KeyboardInterrupt() if name == "SIGINT" else Terminated(name)


@contextmanager
def termination_as_interrupt() -> Iterator[list[str]]:
    """Within the block, SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt: temporaries are removed, a group
    of files being written is finished (or rolled back), and the command exits 130 with its message.

    Yields the names of the signals received, so that the caller knows the run was interrupted whatever
    exception the interrupt came out as.
    """
    received: list[str] = []

    def interrupt(signum: int, frame) -> None:
        received.append(signal.Signals(signum).name)
        if not _SIGNALS["at_checkpoints"]:
            raise _interrupt(received[-1])

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                number = getattr(signal, name)
                previous[number] = signal.signal(number, interrupt)
    _SIGNALS["received"] = received
    try:
        yield received
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        _SIGNALS["received"] = []


@contextmanager
def at_checkpoints() -> Iterator[None]:
    """Within the block, a signal is acted on at the next `checkpoint()` (between files, between groups),
    never in the middle of libcst: an exception raised inside its native parser's callbacks or its metadata
    clean-up comes out as another error, or aborts the process at exit."""
    before = _SIGNALS["at_checkpoints"]
    _SIGNALS["at_checkpoints"] = True
    try:
        yield
    finally:
        _SIGNALS["at_checkpoints"] = before
    checkpoint()


def checkpoint() -> None:
    """Raise KeyboardInterrupt (or Terminated) if a signal arrived since the run started."""
    received = _SIGNALS["received"]
    if received:
        raise _interrupt(received[-1])


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C (and termination signals) until the block is done: a write is finished, then the run stops.

    The signals are blocked, not lost: the kernel delivers them when the block ends, and Python raises
    KeyboardInterrupt (or the process terminates) right there, between two files. The kernel may also hand a
    process-wide signal to another thread of the process (torch's, an embedding application's), whose mask
    this block cannot change; Python would then act on it in this thread at once. So, in the main thread,
    the handlers only note such a signal during the block, and it is raised again once the block is done.
    """
    noted: list[int] = []
    handlers: dict[int, Union[Callable, int]] = {}
    if threading.current_thread() is threading.main_thread():
        for number in _DEFERRED_SIGNALS:
            current = signal.getsignal(number)
            if current is not None:  # None: a handler set outside Python, which could not be put back
                handlers[number] = current
                signal.signal(number, lambda signum, frame: noted.append(signum))
    masked = hasattr(signal, "pthread_sigmask")  # not POSIX: the rename itself is still atomic
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS) if masked else None
    try:
        yield
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
        if previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a blocked signal arrives now, to its handler
        for number in dict.fromkeys(noted):
            signal.raise_signal(number)
