"""SARIF 2.1.0, the format code-scanning services read (GitHub's upload-sarif among them).

One run; `tool.driver.rules` lists every rule of the rule registry (`fsdp_unpatch/rules/`); each remaining
finding is a result with its location and, where the engine has a fix, the fix's replacements (whole-line
regions) in every file it changes: each fix applies alone.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from fsdp_unpatch import README_URL, __version__, rule_url
from fsdp_unpatch.model import Finding, Replacement, RunResult
from fsdp_unpatch.reporting import ReportContext
from fsdp_unpatch.reporting.fix_state import HELD_BACK, fix_state
from fsdp_unpatch.rules.registry import Rule, all_rules

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = README_URL  # the project's README (no package index publishes fsdp-unpatch)
# keep findings never fail a run: they are notes, not problems
LEVELS = {"remove": "error", "review": "warning", "keep": "note", "error": "error"}


def artifact_uri(path: str) -> str:
    """A relative path stays relative (GitHub resolves it against the checkout); an absolute one is a file URI."""
    pure = PurePath(path)
    if pure.is_absolute():
        return pure.as_uri()
    return quote(pure.as_posix())


def _region(line: int, column: int, end_line: int, end_column: int) -> dict:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _replacement(replacement: Replacement) -> dict:
    return {
        "deletedRegion": _region(replacement.line, replacement.column, replacement.end_line, replacement.end_column),
        "insertedContent": {"text": replacement.content},
    }


def _rule(rule: Rule) -> dict:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc, "markdown": rule.doc},
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"level": LEVELS[rule.category]},
        "properties": {"category": rule.category, "fix": rule.fix, "phase": rule.phase},
    }


def _result(finding: Finding, rule_index: dict[str, int]) -> dict:
    span = finding.span
    uri = artifact_uri(finding.path)
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVELS.get(finding.category, "warning"),
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": uri},
                    "region": _region(span.line, span.column, span.end_line, span.end_column),
                }
            }
        ],
        "properties": {"category": finding.category},
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.target:
        result["properties"]["target"] = finding.target
    state = fix_state(finding)
    if state is not None:  # "safe", "unsafe" or "held back": what `fix` does with it in this tree
        result["properties"]["fix"] = state
    if state == HELD_BACK:
        result["properties"]["heldBack"] = finding.held_back
    changes = finding.fix.changes(finding.path) if finding.fix is not None else []
    if finding.fix is not None and changes:
        # One fix, applicable alone: the edits it carries in other files are changes of those artifacts.
        result["fixes"] = [
            {
                "description": {"text": finding.fix.description + f" ({state or finding.fix.applicability} fix)"},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": artifact_uri(path)},
                        "replacements": [_replacement(r) for r in replacements],
                    }
                    for path, replacements in changes
                ],
            }
        ]
    return result


def sarif_log(result: RunResult, context: ReportContext) -> dict:
    rules = list(all_rules().values())
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "fsdp-unpatch",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                # libcst counts columns in code points, not in SARIF's default UTF-16 units
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, rule_index) for f in result.remaining],
            }
        ],
    }


def sarif_report(result: RunResult, context: ReportContext) -> str:
    return json.dumps(sarif_log(result, context), indent=2) + "\n"
