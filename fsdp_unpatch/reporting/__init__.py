"""Report formats for `check` and `fix`: each module renders a run's findings one way.

A formatter is a function `(result, context) -> str` registered in FORMATS; the text formats print
with rich, the machine-readable ones return plain text and never colour it.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.runner import RunResult


@dataclass(frozen=True)
class ReportContext:
    catalog: Catalog
    fix_mode: bool = False
    show_source: bool = True
    color: bool = True
    target_torch: str = ""
    target_torch_origin: str = ""
    elapsed: float = 0.0


Formatter = Callable[[RunResult, ReportContext], str]

# format name -> "module:function"; imported only when used
FORMATS = {
    "full": "fsdp_unpatch.reporting.text:full",
    "concise": "fsdp_unpatch.reporting.text:concise",
    "json": "fsdp_unpatch.reporting.machine:json_report",
}


def formatter(name: str) -> Formatter:
    module, function = FORMATS[name].split(":")
    return getattr(importlib.import_module(module), function)
