"""Azure Pipelines logging commands: one `##vso[task.logissue ...]` line a finding, as ruff's `azure` format.

    ##vso[task.logissue type=error;sourcepath=pkg/patch.py;linenumber=3;columnnumber=1;code=FSU001;]message

The agent shows each as an error or a warning of the step. Azure has no lower level, and `keep` findings never
fail a run, so they are left out here (every machine format keeps them). Values are escaped as the agent's
task library does: `%` as `%AZP25`, CR and LF everywhere, and `;` and `]` in properties as well; other control
characters are written as C escapes.
"""

from __future__ import annotations

from fsdp_unpatch.model import Finding, RunResult
from fsdp_unpatch.quoting import printable
from fsdp_unpatch.reporting import ReportContext

TYPES = {"remove": "error", "review": "warning", "error": "error"}  # `keep`: not an issue


def escape_data(value: str) -> str:
    return printable(value.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    return escape_data(value).replace(";", "%3B").replace("]", "%5D")


def azure_line(finding: Finding) -> str:
    properties = {
        "type": TYPES.get(finding.category, "warning"),
        "sourcepath": finding.path,
        "linenumber": str(finding.span.line),
        "columnnumber": str(finding.span.column),
        "code": finding.code,
    }
    rendered = "".join(f"{key}={escape_property(value)};" for key, value in properties.items())
    return f"##vso[task.logissue {rendered}]{escape_data(finding.message)}"


def azure_report(result: RunResult, context: ReportContext) -> str:
    return "".join(azure_line(f) + "\n" for f in result.remaining if f.category in TYPES)
