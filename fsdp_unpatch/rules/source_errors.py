"""A file that could not be checked or fixed, as a finding: the `SourceError` that reading, parsing or
writing raised (`files/`, `analysis/source.py`, `fixes/`, `run/`) carries its kind; the error rule that declares that
kind (`SOURCE_ERROR` in `parse_error.py`, `read_error.py`, ...) gives the finding its code."""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING

from fsdp_unpatch.rules.registry import RULES_PACKAGE, all_rules

if TYPE_CHECKING:
    from fsdp_unpatch.files.reading import SourceError
    from fsdp_unpatch.model import Finding


@functools.cache
def code_of_kind() -> dict[str, str]:
    """Each source-error kind -> the code of the rule that reports it."""
    found: dict[str, str] = {}
    for rule in all_rules().values():
        kind = getattr(importlib.import_module(f"{RULES_PACKAGE}.{rule.module}"), "SOURCE_ERROR", None)
        if kind is not None:
            found[kind] = rule.code
    return found


def error_finding(display: str, error: SourceError) -> Finding:
    from fsdp_unpatch.model import Finding, Span

    span = Span(error.line, error.column, error.line, error.column)
    return Finding(code=code_of_kind()[error.kind], category="error", path=display, span=span, message=str(error))
