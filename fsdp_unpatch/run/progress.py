"""A progress bar on standard error for long runs at a terminal (the caller decides when)."""

from __future__ import annotations

import os
import time
from typing import Any, Iterator, Optional, Sequence, TypeVar

from fsdp_unpatch.i18n import N_
from fsdp_unpatch.i18n import gettext as _

T = TypeVar("T")


# A bar only pays off on long runs: it appears once the work has taken this long, so short runs never flicker.
PROGRESS_AFTER_S = 1.0
PROGRESS_MIN_ITEMS = 2


def show_progress(stream, environ, machine_format: bool, quiet: bool, items: int) -> bool:
    """A progress bar on standard error: for people at a terminal, never for pipes, CI or programs."""
    return (
        items >= PROGRESS_MIN_ITEMS and not quiet and not machine_format and not environ.get("CI") and stream.isatty()
    )


def tracked(
    items: Sequence[T], description: str = N_("Scanning"), after: Optional[float] = None, console=None
) -> Iterator[T]:
    """Yield `items`; once `after` seconds have passed (default: `FSDP_UNPATCH_PROGRESS_AFTER`, else 1 s), a
    transient rich progress bar on standard error advances as each is consumed (started with what is done)."""
    if after is None:
        try:
            after = float(os.environ.get("FSDP_UNPATCH_PROGRESS_AFTER", PROGRESS_AFTER_S))
        except ValueError:
            after = PROGRESS_AFTER_S
    started = time.monotonic()
    progress: Any = None
    task: Any = None
    try:
        for done, item in enumerate(items, 1):
            yield item
            if progress is not None:
                progress.advance(task)
            elif time.monotonic() - started >= after:
                from rich.console import Console
                from rich.progress import Progress

                progress = Progress(console=console or Console(stderr=True), transient=True)
                progress.start()
                task = progress.add_task(_(description), total=len(items), completed=done)
    finally:
        if progress is not None:
            progress.stop()


class Phases:
    """The phase a long command is in, as a transient rich spinner on standard error with the time it has
    taken (`verify`: 25 s migrating and starting, 40 s training, in silence before); off, it says nothing."""

    def __init__(self, enabled: bool, console=None) -> None:
        self._status = None
        if enabled:
            from rich.console import Console

            self._status = (console or Console(stderr=True)).status("")

    def __enter__(self) -> Phases:
        if self._status is not None:
            self._status.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._status is not None:
            self._status.stop()

    def now(self, phase: str) -> None:
        if self._status is not None:
            self._status.update(_(phase))


def phases_shown(stream, environ, output_format: str) -> bool:
    """A phase display: for a person at a terminal, never for pipes, CI or JSON output."""
    return output_format != "json" and not environ.get("CI") and bool(getattr(stream, "isatty", lambda: False)())
