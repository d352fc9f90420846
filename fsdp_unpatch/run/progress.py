"""A progress bar on standard error for long runs at a terminal (the caller decides when)."""

from __future__ import annotations

from typing import Iterator, Sequence, TypeVar

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
