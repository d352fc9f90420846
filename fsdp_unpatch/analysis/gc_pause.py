"""Cyclic garbage collection paused while CPython builds a syntax tree."""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """No cyclic garbage collection inside: syntax trees hold no cycles, and the collector would walk the
    growing heap of a large file's nodes many times over (CPython's parse took four times as long with it)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
