"""Report formats for `check` and `fix`: each module renders a run's findings one way.

A formatter is a function `(result, context) -> str` registered in FORMATS; the text formats print
with rich, the machine-readable ones return plain text and never colour it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from fsdp_unpatch.catalog import Catalog

if TYPE_CHECKING:  # the registry is read by the CLI before anything heavy is imported
    from fsdp_unpatch.model import RunResult


@dataclass(frozen=True)
class ReportContext:
    catalog: Catalog
    fix_mode: bool = False
    show_source: bool = True
    color: bool = True
    target_torch: str = ""
    target_torch_origin: str = ""
    # the target torch is newer than every release known: the newest known release, which the run judged by
    target_torch_judged_as: str = ""
    elapsed: float = 0.0
    quiet: bool = False  # findings only: no summary
    show_fixes: bool = False  # enumerate the fixes applied (fix) or show what each fix would change (check)
    dry_run: bool = False  # `--diff`: the fixes were computed, nothing was written
    unsafe_fixes: bool = False  # `--unsafe-fixes`: `fix` with the same flags applies unsafe fixes too
    link_base: str = ""  # markdown: URL prefix of the checked-out files (GitHub), else links are relative
    show_kept: bool = False  # `--show-kept`: the human formats also list what is kept on purpose


Formatter = Callable[["RunResult", ReportContext], str]

# format name -> "module:function"; imported only when used
FORMATS = {
    "full": "fsdp_unpatch.reporting.text:full",
    "concise": "fsdp_unpatch.reporting.text:concise",
    "json": "fsdp_unpatch.reporting.machine:json_report",
    "json-lines": "fsdp_unpatch.reporting.machine:json_lines_report",
    "sarif": "fsdp_unpatch.reporting.sarif:sarif_report",
    "github": "fsdp_unpatch.reporting.github:github_report",
    "junit": "fsdp_unpatch.reporting.junit:junit_report",
    "gitlab": "fsdp_unpatch.reporting.gitlab:gitlab_report",
    "pylint": "fsdp_unpatch.reporting.pylint:pylint_report",
    "grouped": "fsdp_unpatch.reporting.text:grouped",
    "markdown": "fsdp_unpatch.reporting.markdown:markdown_report",
    "rdjson": "fsdp_unpatch.reporting.rdjson:rdjson_report",
    "azure": "fsdp_unpatch.reporting.azure:azure_report",
}
# formats meant for programs: no colour, no progress bar, no summary on standard output
MACHINE_FORMATS = frozenset(
    {"json", "json-lines", "sarif", "github", "junit", "gitlab", "pylint", "markdown", "rdjson", "azure"}
)
# formats whose fixes carry replacement regions (JSON: `fix.edits`, rdjson: suggestions)
NEEDS_REPLACEMENTS = frozenset({"sarif", "json", "json-lines", "rdjson"})


def formatter(name: str) -> Formatter:
    module, function = FORMATS[name].split(":")
    return getattr(importlib.import_module(module), function)
