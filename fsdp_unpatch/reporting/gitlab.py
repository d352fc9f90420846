"""GitLab code quality (a Code Climate subset): the JSON list a job stores as `artifacts:reports:codequality`.

Each finding is an object with the fields GitLab documents as required: `description`, `check_name`,
`fingerprint`, `severity` (info, minor, major, critical, blocker) and `location` (`path` and
`lines.begin`; `lines.end` too). GitLab compares fingerprints between the merge request and its target
branch to tell new findings from old ones, so the fingerprint leaves the line number out (a finding
that only moved stays the same); equal findings in one file are told apart by their order.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from fsdp_unpatch.model import Finding, RunResult
from fsdp_unpatch.reporting import ReportContext

SEVERITIES = {"remove": "major", "review": "minor", "keep": "info", "error": "critical"}


def fingerprint(finding: Finding, occurrence: int) -> str:
    parts = (finding.code, finding.path, finding.target or "", finding.message, str(occurrence))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def issue(finding: Finding, occurrence: int) -> dict:
    return {
        "type": "issue",
        "check_name": finding.code,
        "description": f"{finding.code} [{finding.category}] {finding.message}",
        "categories": ["Bug Risk"] if finding.category in ("remove", "error") else ["Style"],
        "fingerprint": fingerprint(finding, occurrence),
        "severity": SEVERITIES.get(finding.category, "minor"),
        "location": {"path": finding.path, "lines": {"begin": finding.span.line, "end": finding.span.end_line}},
    }


def gitlab_report(result: RunResult, context: ReportContext) -> str:
    seen: Counter = Counter()
    issues = []
    for finding in result.remaining:
        key = (finding.code, finding.path, finding.target, finding.message)
        issues.append(issue(finding, seen[key]))
        seen[key] += 1
    return json.dumps(issues, indent=2) + "\n"
