"""A progress bar on standard error for long runs at a terminal (the caller decides when)."""

from __future__ import annotations

from typing import Any, Iterator, Sequence, TypeVar

from fsdp_unpatch.i18n import N_
from fsdp_unpatch.i18n import gettext as _

T = TypeVar("T")


def tracked(items: Sequence[T], description: str = N_("Scanning")) -> Iterator[T]:
    """Yield `items`, advancing a transient rich progress bar on standard error as each is consumed."""
    from rich.console import Console
    from rich.progress import Progress

    description = _(description)
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=len(items))
        for item in items:
            yield item
            progress.advance(task)


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
