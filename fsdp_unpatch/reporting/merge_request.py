"""`fix --report FILE.md`: the merge request's description, written from what the fix did and found.

What was removed (each override with its one-line proof, then the code removed with it), what was kept on
purpose and why, what is left for review, the files changed, the precondition (with `doctor`'s verdict when
its JSON report is given) and `verify`'s result when given. Every sentence comes from
`merge_request_text.py`, so the description is in the reader's language; findings' messages come as the
run gave them, in the reader's language too (`localize.py`).
"""

from __future__ import annotations

import re
from typing import Optional

from fsdp_unpatch import __version__, i18n
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.model import Finding, RunResult
from fsdp_unpatch.quoting import printable
from fsdp_unpatch.quoting import quoted_path as _quoted
from fsdp_unpatch.reporting import ReportContext
from fsdp_unpatch.reporting import merge_request_text as t
from fsdp_unpatch.reporting.evidence import Doctor, Verified
from fsdp_unpatch.reporting.localize import localized
from fsdp_unpatch.reporting.text import target_torch_said
from fsdp_unpatch.rules.collective_override import COLLECTIVE_OVERRIDE

OVERRIDE = COLLECTIVE_OVERRIDE.code  # an install site of a removed override: what the description is about
say = t.say


def _where(finding: Finding) -> str:
    return f"{_quoted(finding.path)}:{finding.span.line}"


def _proof(finding: Finding, catalog: Catalog) -> str:
    """The proof an FSU001 message carries (`{replacement} {proof}`), in the reader's language (the proof
    fragment translated alone: never the whole message, whose cut target says nothing); else the message."""
    template = catalog.rule(finding.code).messages["default"]  # a finding's message is English
    pattern = "".join(
        f"(?P<{part[1:-1]}>.+?)" if part.startswith("{") else re.escape(part)
        for part in re.split(r"(\{\w+\})", template)
        if part
    )
    match = re.match(pattern, finding.message)
    if match is None or "proof" not in match.groupdict():
        return localized(finding.message)
    return f"`{match['replacement']}` {localized(match['proof'])}"


def _once(findings: list[Finding]) -> list[Finding]:
    """One finding a target at one place: two rules on one install site (FSU201 and FSU402 on an aliased
    class attribute) are one patch kept, listed and counted once."""
    seen: set[tuple[str, int, str]] = set()
    out = []
    for f in findings:
        key = (f.path, f.span.line, f.target or f.code)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _why_kept(finding: Finding, catalog: Catalog) -> str:
    """Why the catalog keeps the target, else the finding's message (an override the configuration keeps)."""
    target = catalog.targets.get(finding.target or "")
    if target is None or target.category != "keep":
        return localized(finding.message)
    return i18n.reason(target.why)


def _text(value: str) -> str:
    """One line of Markdown: control characters escaped (a hostile name stays on its line)."""
    return printable(value).replace("\n", " ")


def merge_request(
    result: RunResult,
    context: ReportContext,
    doctor: Optional[Doctor] = None,
    verified: Optional[Verified] = None,
) -> str:
    findings = result.findings
    removed = [f for f in findings if f.fixed and f.code == OVERRIDE]
    also = [f for f in findings if f.fixed and f.code != OVERRIDE]
    kept = _once([f for f in findings if not f.fixed and f.category == "keep"])
    review = [f for f in findings if not f.fixed and f.category != "keep"]
    changed = result.changed
    out = [f"# {say(t.TITLE)}", ""]
    if context.dry_run:
        out += [f"> {say(t.PREVIEW)}", ""]
    out += [f"## {say(t.H_SUMMARY)}", ""]
    out += [
        f"- {say(t.S_REMOVED, count=len(removed))}",
        f"- {say(t.S_ALSO, count=len(also))}",
        f"- {say(t.S_KEPT, count=len(kept))}",
        f"- {say(t.S_REVIEW, count=len(review))}",
        f"- {say(t.S_FILES, count=len(changed))}",
    ]
    if context.target_torch:
        torch, origin = target_torch_said(context)
        if context.target_torch_judged_as:
            out.append(f"- {say(t.S_TORCH_NEWER, torch=torch, origin=origin, newest=context.target_torch_judged_as)}")
        else:
            out.append(f"- {say(t.S_TORCH, torch=torch, origin=origin)}")
    out += ["", f"## {say(t.H_REMOVED)}", ""]
    if removed:
        out += [say(t.REMOVED_INTRO), ""]
        out += [
            "- " + say(t.REMOVED_ITEM, target=f.target or "?", where=_where(f), proof=_text(_proof(f, context.catalog)))
            for f in removed
        ]
    else:
        out.append(say(t.NONE_REMOVED))
    if also:
        out += ["", f"### {say(t.H_ALSO)}", ""]
        out += [
            "- "
            + say(
                t.ALSO_ITEM,
                code=f.code,
                name=context.catalog.rule(f.code).name,
                where=_where(f),
                message=_text(localized(f.message)),
            )
            for f in also
        ]
    out += ["", f"## {say(t.H_KEPT)}", ""]
    if kept:
        out += [say(t.KEPT_INTRO), ""]
        out += [
            "- "
            + say(t.KEPT_ITEM, target=f.target or f.code, where=_where(f), why=_text(_why_kept(f, context.catalog)))
            for f in kept
        ]
    else:
        out.append(say(t.NONE_KEPT))
    out += ["", f"## {say(t.H_REVIEW)}", ""]
    if review:
        out += [say(t.REVIEW_INTRO), ""]
        out += ["- " + _review_item(f) for f in review]
    else:
        out.append(say(t.NONE_REVIEW))
    out += ["", f"## {say(t.H_FILES)}", ""]
    if changed:
        out += ["- " + say(t.FILE_DELETED if f.deleted else t.FILE_CHANGED, path=_quoted(f.display)) for f in changed]
    else:
        out.append(say(t.NONE_FILES))
    out += ["", f"## {say(t.H_PRECONDITION)}", "", say(t.PRECONDITION), ""]
    out += _precondition(doctor)
    out += ["", f"## {say(t.H_VERIFY)}", ""]
    out += _verification(verified)
    out += ["", "---", "", say(t.FOOTER, version=__version__), ""]
    return "\n".join(out)


def _review_item(finding: Finding) -> str:
    line = say(
        t.REVIEW_ITEM,
        code=finding.code,
        category=finding.category,
        where=_where(finding),
        message=_text(localized(finding.message)),
    )
    if finding.held_back is not None:
        line += " (" + say(t.HELD_BACK, why=_text(localized(finding.held_back))) + ")"
    elif finding.fix is not None and finding.fix.applicability == "unsafe":
        line += " (" + say(t.UNSAFE) + ")"
    return line


def _precondition(doctor: Optional[Doctor]) -> list[str]:
    if doctor is None:
        return [say(t.DOCTOR_NOT_RUN)]
    out = [
        say(
            t.DOCTOR_SOURCE,
            file=_quoted(doctor.file),
            torch=doctor.torch or say(t.UNKNOWN),
            device=doctor.device or say(t.UNKNOWN),
            **doctor.summary,
        ),
        "",
    ]
    probe = doctor.probe
    cited = [c for c in doctor.checks if c in doctor.plugins or c is probe or c.status in ("warn", "fail")]
    for check in cited:
        out.append("- " + say(t.DOCTOR_CHECK, status=check.status, name=check.name, message=_text(check.message)))
    out.append("")
    if probe is not None and probe.status == "ok":
        out.append(say(t.DOCTOR_HOLDS))
    elif probe is not None and probe.status == "fail":
        out.append(say(t.DOCTOR_FAILS))
    else:
        out.append(say(t.DOCTOR_UNDECIDED, status=probe.status if probe is not None else say(t.UNKNOWN)))
    return out


def _verification(verified: Optional[Verified]) -> list[str]:
    if verified is None:
        return [say(t.VERIFY_NOT_RUN)]
    file = _quoted(verified.file)
    if not verified.matched:
        where = verified.first_divergence or {}
        return [
            say(
                t.VERIFY_DIFFER,
                file=file,
                comparison=verified.comparison,
                step=where.get("step", "?"),
                config=where.get("config", "?"),
            )
        ]
    if verified.enhance_missing:
        return [
            say(t.VERIFY_TARGETS_DIFFER, file=file, comparison=verified.comparison),
            "",
            say(t.VERIFY_ENHANCE_MISSING, targets=", ".join(f"`{name}`" for name in verified.enhance_missing)),
        ]
    out = [
        say(
            t.VERIFY_MATCH,
            file=file,
            steps=verified.steps,
            tensors=verified.tensors,
            comparison=verified.comparison,
            device=verified.device,
            world=verified.world_size,
        )
    ]
    if verified.enhance_installed:
        out += ["", say(t.VERIFY_ENHANCE_KEPT, count=len(verified.enhance_installed))]
    return out
