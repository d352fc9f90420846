"""`--statistics`: how many findings per rule and per target, instead of the findings themselves.

Counts the findings still standing after the run (with `fix`, what the fix left). Text: one aligned
table per view, like ruff's `--statistics`; `--output-format json`: {"rules": [...], "targets": [...]}.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsdp_unpatch.model import RunResult
    from fsdp_unpatch.reporting import ReportContext


def counts(result: RunResult, context: ReportContext) -> dict:
    remaining = result.remaining
    by_rule = Counter(f.code for f in remaining)
    fixable = Counter(f.code for f in remaining if f.fix is not None and f.held_back is None)
    by_target: dict[str, Counter] = {}
    for finding in remaining:
        if finding.target:
            by_target.setdefault(finding.target, Counter())[finding.code] += 1
    rules = [
        {
            "code": code,
            "name": context.catalog.rule(code).name,
            "category": context.catalog.rule(code).category,
            "count": count,
            "fixable": fixable[code],
        }
        for code, count in sorted(by_rule.items(), key=lambda item: (-item[1], item[0]))
    ]
    targets = [
        {"target": target, "count": sum(codes.values()), "codes": dict(sorted(codes.items()))}
        for target, codes in sorted(by_target.items(), key=lambda item: (-sum(item[1].values()), item[0]))
    ]
    return {"rules": rules, "targets": targets}


def statistics_report(result: RunResult, context: ReportContext, output_format: str = "full") -> str:
    data = counts(result, context)
    if output_format in ("json", "json-lines"):
        return json.dumps(data, indent=2) + "\n"
    from fsdp_unpatch.i18n import gettext as _

    if not data["rules"]:
        return _("No findings.") + "\n"
    lines = [_("Per rule:")]
    width = max(len(str(r["count"])) for r in data["rules"])
    for rule in data["rules"]:
        mark = "[*]" if rule["fixable"] else "[ ]"
        lines.append(f"{rule['count']:>{width}}\t{rule['code']}\t{mark} {rule['name']} ({rule['category']})")
    if data["targets"]:
        lines.append("")
        lines.append(_("Per target:"))
        width = max(len(str(t["count"])) for t in data["targets"])
        for target in data["targets"]:
            codes = ", ".join(f"{code} x{n}" if n > 1 else code for code, n in target["codes"].items())
            lines.append(f"{target['count']:>{width}}\t{target['target']}\t{codes}")
    return "\n".join(lines) + "\n"
