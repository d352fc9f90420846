"""`fix --report FILE.md`: the merge request's description, written from what the fix did and found.

What was removed (each override with its one-line proof against the target torch, then the code removed with
it), what was kept on purpose and why, what is left for review, the files changed, the `_foreach_copy_` call
sites (`fsdp-unpatch audit foreach-copy`'s table, with what the change does to each), the precondition (with
`doctor`'s verdict when its JSON report is given), `verify`'s result when given, and the design document's
link when configured. Two templates (`--template`, `report-template`): `plain` sections, or the Ascend
merge-request sections (【合入来源】【修改方案】【资料变更】【接口变更】【功能验证】【CheckList】), the default
for a Chinese reader. Every sentence comes from `merge_request_text.py`, so the description is in the
reader's language; findings' messages come as the run gave them, in the reader's language too (`localize.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from fsdp_unpatch import __version__, i18n
from fsdp_unpatch.audit.call_sites import ADDED, KINDS, REMOVED, STAYS, CallSite
from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.model import FileResult, Finding, RunResult
from fsdp_unpatch.quoting import printable
from fsdp_unpatch.quoting import quoted_path as _quoted
from fsdp_unpatch.reporting import ReportContext
from fsdp_unpatch.reporting import merge_request_text as t
from fsdp_unpatch.reporting.evidence import Doctor, Verified
from fsdp_unpatch.reporting.localize import localized
from fsdp_unpatch.reporting.text import target_torch_said
from fsdp_unpatch.rules.registry import role_of

OVERRIDE = "proven-override"  # the role of an install site of a removed override: what the description is about
# A replacement function, an installer: deleted by name, which their message starts with
REMOVES_A_FUNCTION = ("replacement", "installer")
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


@dataclass(frozen=True)
class Shape:
    """How the description is written: the template, the design document's link, and the `_foreach_copy_`
    audit of the change (`audit.call_sites.audit_change`: each call site with what the change does to it;
    None when not audited)."""

    template: str = "plain"  # "plain" or "ascend"
    design_doc: Optional[str] = None
    call_sites: Optional[Sequence[tuple[CallSite, str]]] = None


@dataclass
class _Facts:
    """What the description says, sorted once from the run's findings."""

    removed: list[Finding]
    also: list[Finding]
    kept: list[Finding]
    review: list[Finding]
    changed: list[FileResult]

    @classmethod
    def of(cls, result: RunResult) -> _Facts:
        findings = result.findings
        return cls(
            removed=[f for f in findings if f.fixed and role_of(f.code) == OVERRIDE],
            also=[f for f in findings if f.fixed and role_of(f.code) != OVERRIDE],
            kept=_once([f for f in findings if not f.fixed and f.category == "keep"]),
            review=[f for f in findings if not f.fixed and f.category != "keep"],
            changed=result.changed,
        )


def template_for(chosen: Optional[str]) -> str:
    """`--template` or `report-template` when given, else the Ascend template for a Chinese reader."""
    if chosen:
        return chosen
    return "ascend" if i18n.language() == i18n.CHINESE else "plain"


def merge_request(
    result: RunResult,
    context: ReportContext,
    doctor: Optional[Doctor] = None,
    verified: Optional[Verified] = None,
    shape: Shape = Shape(),
) -> str:
    facts = _Facts.of(result)
    if shape.template == "ascend":
        return _ascend(facts, context, doctor, verified, shape)
    return _plain(facts, context, doctor, verified, shape)


def _plain(
    facts: _Facts, context: ReportContext, doctor: Optional[Doctor], verified: Optional[Verified], shape: Shape
) -> str:
    removed, also, kept, review, changed = facts.removed, facts.also, facts.kept, facts.review, facts.changed
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
    if shape.design_doc:
        out.append(f"- {say(t.S_DESIGN, link=_link(shape.design_doc))}")
    out += ["", f"## {say(t.H_REMOVED)}", ""]
    if removed:
        out += [say(t.REMOVED_INTRO), ""]
        out += ["- " + _removed_item(f, context) for f in removed]
        out += _outside_note(removed)
    else:
        out.append(say(t.NONE_REMOVED))
    if also:
        out += ["", f"### {say(t.H_ALSO)}", ""]
        out += ["- " + _also_item(f, context) for f in also]
    out += ["", f"## {say(t.H_KEPT)}", ""]
    if kept:
        out += [say(t.KEPT_INTRO), ""]
        out += ["- " + _kept_item(f, context) for f in kept]
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
        out += ["- " + _file_item(f) for f in changed]
    else:
        out.append(say(t.NONE_FILES))
    if shape.call_sites is not None:
        out += ["", f"## {say(t.H_CALL_SITES)}", ""]
        out += _call_sites(shape.call_sites)
    out += ["", f"## {say(t.H_PRECONDITION)}", "", say(t.PRECONDITION), ""]
    out += _precondition(doctor)
    out += ["", f"## {say(t.H_VERIFY)}", ""]
    out += _verification(verified)
    out += ["", "---", "", say(t.FOOTER, version=__version__), ""]
    return "\n".join(out)


def _ascend(
    facts: _Facts, context: ReportContext, doctor: Optional[Doctor], verified: Optional[Verified], shape: Shape
) -> str:
    """The Ascend merge-request template: 【合入来源】【修改方案】【资料变更】【接口变更】【功能验证】【CheckList】."""
    removed, also, kept, review, changed = facts.removed, facts.also, facts.kept, facts.review, facts.changed
    out = []
    if context.dry_run:
        out += [f"> {say(t.PREVIEW)}", ""]
    out += [f"# {t.ASCEND_SOURCE}", ""]
    out += [f"- [{'x' if kind == t.ASCEND_KIND else ' '}] {kind}" for kind in t.ASCEND_KINDS]
    out += ["", say(t.A_SOURCE)]

    out += ["", f"# {t.ASCEND_CHANGE}", ""]
    if shape.design_doc:
        out += [say(t.A_DESIGN, link=_link(shape.design_doc)), ""]
    out += [say(t.A_PLAN), ""]
    step = 0

    def numbered(text: str, items: list[str]) -> None:
        nonlocal step
        step += 1
        out.append(f"{step}. {text}")
        out.extend(f"   - {item}" for item in items)

    if removed:
        numbered(say(t.A_REMOVED, count=len(removed)), [_removed_item(f, context) for f in removed])
    else:
        numbered(say(t.A_NONE_REMOVED), [])
    if also:
        numbered(say(t.A_ALSO), [_also_item(f, context) for f in also])
    numbered(say(t.A_KEPT) if kept else say(t.A_NONE_KEPT), [_kept_item(f, context) for f in kept])
    numbered(say(t.A_REVIEW) if review else say(t.A_NONE_REVIEW), [_review_item(f) for f in review])
    numbered(say(t.A_FILES, count=len(changed)) if changed else say(t.A_NONE_FILES), [_file_item(f) for f in changed])
    if context.target_torch:
        torch, origin = target_torch_said(context)
        numbered(say(t.A_TORCH, torch=torch, origin=origin), [])
    numbered(say(t.A_PRECONDITION), [say(t.PRECONDITION)])
    outside = _outside_note(removed)
    if outside:
        out += outside
    if shape.call_sites is not None:
        out += ["", f"## {say(t.H_CALL_SITES)}", ""]
        out += _call_sites(shape.call_sites)

    out += ["", f"# {t.ASCEND_DOCS}", ""]
    documents = [f for f in changed if _is_document(f.display)]
    if documents:
        out.append(say(t.A_DOCS_CHANGED, files=_listed(f"`{_quoted(f.display)}`" for f in documents)))
    else:
        out.append(say(t.A_DOCS_NONE))

    out += ["", f"# {t.ASCEND_INTERFACE}", ""]
    public = [name for name in _removed_names(also) if not name.rsplit(".", 1)[-1].startswith("_")]
    if public:
        out.append(say(t.A_INTERFACE_PUBLIC, names=_listed(f"`{name}`" for name in public)))
    else:
        out.append(say(t.A_INTERFACE_NONE))

    out += ["", f"# {t.ASCEND_VERIFY}", "", say(t.A_SCENARIOS), ""]
    scenarios: list[tuple[str, list[str]]] = []
    if removed:
        targets = _listed(f"`{target}`" for target in dict.fromkeys(f.target or "?" for f in removed))
        scenarios.append((say(t.A_SCENARIO_NATIVE, targets=targets), []))
    if kept:
        scenarios.append((say(t.A_SCENARIO_KEPT, count=len(kept)), []))
    retest = _retests(shape.call_sites or ())
    if retest:
        scenarios.append((say(t.A_SCENARIO_SITES), retest))
    for n, (text, items) in enumerate(scenarios, 1):
        out.append(f"{n}. {text}")
        out.extend(f"   - {item}" for item in items)
    out += ["", say(t.A_METHOD), "", f"- {say(t.A_METHOD_VERIFY)}", f"- {say(t.A_METHOD_DOCTOR)}"]
    out += ["", say(t.A_RESULTS), ""]
    out += ["- " + line for line in _verification(verified) if line]
    out += ["- " + line if not line.startswith("- ") else "  " + line for line in _precondition(doctor) if line]

    out += ["", f"# {t.ASCEND_CHECKLIST}", ""]
    probe = doctor.probe if doctor is not None else None
    checks = [
        (bool(removed) and not _outside(removed), say(t.A_CHECK_PROOF)),
        (probe is not None and probe.status == "ok", say(t.A_CHECK_PRECONDITION)),
        (verified is not None and verified.matched and not verified.enhance_missing, say(t.A_CHECK_VERIFY)),
        (not review, say(t.A_CHECK_REVIEW)),
    ]
    out += [f"- [{'x' if done else ' '}] {text}" for done, text in checks]
    out += [f"- [ ] {text}" for text in t.ASCEND_SELF_CHECKS]
    out += ["", "---", "", say(t.FOOTER, version=__version__), ""]
    return "\n".join(out)


def _listed(items: Iterable[str]) -> str:
    """Items of a sentence, separated as the reader's language does (`a, b` in English, `a、b` in Chinese)."""
    return ("、" if i18n.language() == i18n.CHINESE else ", ").join(items)


def _removed_item(finding: Finding, context: ReportContext) -> str:
    return say(
        t.REMOVED_ITEM,
        target=finding.target or "?",
        where=_where(finding),
        proof=_text(_proof(finding, context.catalog)),
    )


def _also_item(finding: Finding, context: ReportContext) -> str:
    return say(
        t.ALSO_ITEM,
        code=finding.code,
        name=context.catalog.rule(finding.code).name,
        where=_where(finding),
        message=_text(localized(finding.message)),
    )


def _kept_item(finding: Finding, context: ReportContext) -> str:
    return say(
        t.KEPT_ITEM,
        target=finding.target or finding.code,
        where=_where(finding),
        why=_text(_why_kept(finding, context.catalog)),
    )


def _file_item(file: FileResult) -> str:
    return say(t.FILE_DELETED if file.deleted else t.FILE_CHANGED, path=_quoted(file.display))


OUTSIDE = "(outside the target torch)"  # what `fingerprint/wording.py` writes into a proof then


def _outside(removed: list[Finding]) -> list[Finding]:
    """The removals whose proof names a release outside the target torch."""
    return [f for f in removed if OUTSIDE in f.message]


def _outside_note(removed: list[Finding]) -> list[str]:
    return ["", say(t.OUTSIDE_TARGET)] if _outside(removed) else []


def _link(value: str) -> str:
    """The design document's link as Markdown: `<URL>` for a URL, else the text on one line."""
    text = _text(value)
    return f"<{text}>" if re.match(r"^[a-z][a-z0-9+.-]*://\S+$", text, re.IGNORECASE) else text


DOCUMENT_SUFFIXES = (".md", ".rst", ".txt", ".adoc")


def _is_document(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return path.lower().endswith(DOCUMENT_SUFFIXES) or "docs" in parts[:-1]


def _removed_names(also: list[Finding]) -> list[str]:
    """The functions the fix deleted (FSU002's replacement, FSU003's installer): each message starts with
    the function's name in backticks."""
    names = []
    for finding in also:
        if role_of(finding.code) in REMOVES_A_FUNCTION:
            match = re.match(r"`([A-Za-z_][\w.]*)`", finding.message)
            if match:
                names.append(match[1])
    return list(dict.fromkeys(names))


def _retests(sites: Sequence[tuple[CallSite, str]]) -> list[str]:
    """What to re-test for the call sites (those removed with an override too: native FSDP2 copies there
    now), each once, in the reader's language."""
    return list(dict.fromkeys(t.sentence(site.retest) for site, _change in sites if site.retest))


def _call_sites(sites: Sequence[tuple[CallSite, str]]) -> list[str]:
    """The audit's table (`fsdp-unpatch audit foreach-copy`), with a column for what this change does."""
    if not sites:
        return [say(t.NO_CALL_SITES)]
    files = len({site.path for site, _change in sites})
    headers = (t.COLUMN_SITE, t.COLUMN_KIND, t.COLUMN_FAST_PATH, t.COLUMN_DECIDED, t.COLUMN_RETEST, t.COLUMN_CHANGE)
    out = [
        t.say_count(t.CALL_SITES_INTRO, files, count=len(sites), files=files),
        "",
        "| " + " | ".join(say(h) for h in headers) + " |",
        "|" + " --- |" * len(headers),
    ]
    changes = {REMOVED: t.SITE_REMOVED, STAYS: t.SITE_STAYS, ADDED: t.SITE_ADDED}
    for site, change in sites:
        where = f"`{site.path}:{site.line}` `{site.function}`: `{site.code}`"
        cells = (
            where,
            t.word(KINDS[site.kind]),
            t.word(site.fast_path),
            t.sentence(site.decided_by),
            t.sentence(site.retest) if site.retest else "-",
            say(changes[change]),
        )
        out.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return out


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|")


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
