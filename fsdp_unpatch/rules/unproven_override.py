"""FSU101 (unproven-override): override of an FSDP2 internal that is not proven safe to remove."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional, Sequence

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.collect import RawInstall
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Site
    from fsdp_unpatch.catalog import Catalog, Target
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.fingerprint import Difference
    from fsdp_unpatch.semantic.verdicts import Comparison, Relation, SiteVerdict

# The verdicts this rule says: an override that stays for review.
KINDS = ("unproven", "unknown", "reviewed", "outside_enhance")


def check(site: Site, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """An override that is not proven safe to remove."""
    if site.verdict is not None and site.verdict.kind in KINDS:
        yield report(site.install, site.verdict, options.proof_releases)


def check_module(analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """Overrides installed in a shape no install site stands for (`analysis/indirect_installs.py`), but for
    a `setattr` in a loop, which FSU105 reports."""
    from fsdp_unpatch.analysis.indirect_installs import found_in
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.semantic.text import short

    for found in found_in(analysis, catalog):
        if not found.loop:
            spelled = short(found.code)
            message = UNPROVEN_OVERRIDE.message(
                "installed-indirectly", spelled=spelled, target=found.target, how=found.how
            )
            yield Planned(UNPROVEN_OVERRIDE.code, found.at, message, found.target)


UNPROVEN_OVERRIDE = declare(
    "FSU101",
    "unproven-override",
    category="review",
    fix="none",
    phase="file",
    summary="Override of an FSDP2 internal that is not proven safe to remove",
    messages={
        "unknown": "`{spelled}` overrides FSDP2 internal `{target}`; no upstream copy is known to prove it redundant",
        "unknown-release": "`{spelled}` overrides FSDP2 internal `{target}`, which no proof covers; {described}",
        "outside-enhance": "`{spelled}` overrides FSDP2 internal `{target}` outside the enhance patch; {described}",
        "reviewed": "`{spelled}` overrides FSDP2 internal `{target}`{versions}; {described}",
        "not-a-function": "`{target}` is replaced by `{value}`, not by a function defined here; a wrapper or "
        "factory may add behaviour, check before deleting",
        "bound-twice": "`{name}` is bound more than once here; which definition `{target}` gets depends on when "
        "the installer runs, check by hand",
        "wraps-original": "`{name}` wraps the original `{target}` and may add behaviour; check before deleting",
        "differs": "`{name}` differs from {version}`{upstream}` in {count}: {shown}{more}; check what it adds "
        "before deleting",
        "installed-elsewhere": "`{target}` is also installed {how} at line {line}: deleting this site would leave "
        "the override in place; review both",
        "installed-indirectly": "`{spelled}` overrides FSDP2 internal `{target}` {how}; an override installed "
        "this way is never proven nor deleted: review it",
        "unjudged": "`{spelled}` overrides FSDP2 internal `{target}`; no site of this file is judged ({why}): "
        "review it",
    },
    check=check,
    subject="site",
    also={"module": check_module},
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
    doc="""
    ## What it does
    Reports a statement that replaces an FSDP2 private symbol when the replacement is a wrapper that calls
    the original, carries other logic than upstream, or targets a symbol the catalog has no upstream copy
    of. The message names the differences from upstream. Only names some supported torch release defines
    are overrides: a new attribute (a flag, a saved original under a new name) and the restore of a
    saved original are not reported; an install that is restored says so (`scoped`).

    A replacement of a target no proof covers gets a release verdict: the torch releases whose body it is
    closest to, whether the target torch still has that body, and the statements the target torch changed
    in it (what a copy drops; `--show-source` shows the diff between the two releases).

    Also reported: an override installed in a shape no plain install site stands for (unpacked from a
    tuple, stored through `vars()` or `__dict__`, on an owner looked up in `sys.modules`, through
    `importlib.import_module` or `getattr`, or by a decorator handed an FSDP2 owner and a name); and a proven
    copy's site when the file also installs the same target that way: deleting it would leave the override
    installed. In a file whose sites cannot be judged (CPython's `ast` does not parse it, or its model does
    not pair with the libcst tree), every override is reported with the reason and none is removed.

    ## Why
    Such an override may add behaviour native FSDP2 lacks; deleting it without reading it could change
    training. Never fixed.

    ## Example
    ```python
    def _post_backward(self, *args, **kwargs):
        _log_memory()
        return _orig_post_backward(self, *args, **kwargs)

    FSDPParamGroup.post_backward = _post_backward  # FSU101: wraps the original
    ```
    """,
)

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def show():
    print(_fsdp_collectives.foreach_reduce)
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _reduce_quietly(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce = _reduce_quietly
"""
    )
]


def report(site: RawInstall, verdict: SiteVerdict, torch: Sequence[Version] = ()) -> Planned:
    """An override that stays for review: what it is, and how it differs from upstream when that is known
    (a copy's proof names the release of the run's target `torch` it matches)."""
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.catalog import first_sentence
    from fsdp_unpatch.semantic.text import short

    spelled, target, entry, detail = short(verdict.site), verdict.target, verdict.entry, None
    if verdict.kind == "unknown" and verdict.relation is not None and verdict.relation.release is not None:
        said, detail = release_described(verdict.relation)
        message = UNPROVEN_OVERRIDE.message("unknown-release", spelled=spelled, target=target, described=said)
    elif verdict.kind == "unknown":
        message = UNPROVEN_OVERRIDE.message("unknown", spelled=spelled, target=target)
    elif verdict.kind in ("reviewed", "outside_enhance"):
        assert entry is not None
        described, detail = describe(verdict.relation, entry, torch)
        if verdict.kind == "reviewed":
            versions = f" ({entry.versions})" if entry.versions else ""
            if described and verdict.relation is not None and verdict.relation.kind == "release":
                described = f"{described}; {first_sentence(entry.why)}"  # what it is against upstream, then why
            described = described or first_sentence(entry.why)
            message = UNPROVEN_OVERRIDE.message(
                "reviewed", spelled=spelled, target=target, versions=versions, described=described
            )
        else:
            described = described or "native FSDP2 has no counterpart for what it may add"
            message = UNPROVEN_OVERRIDE.message("outside-enhance", spelled=spelled, target=target, described=described)
    elif verdict.reason == "unjudged":
        message = UNPROVEN_OVERRIDE.message("unjudged", spelled=spelled, target=target, why=verdict.why)
    else:
        assert verdict.kind == "unproven" and entry is not None
        message, detail = _obstacle(verdict, entry)
    return Planned(UNPROVEN_OVERRIDE.code, site.report, message, target, detail=detail)


def _obstacle(verdict: SiteVerdict, entry: Target) -> tuple[str, Optional[str]]:
    """Why a removable target's site is not removed, and the diff against upstream when it differs."""
    from fsdp_unpatch.semantic.text import short

    if verdict.reason == "not-a-function":
        return UNPROVEN_OVERRIDE.message("not-a-function", target=entry.id, value=short(verdict.value)), None
    if verdict.reason == "bound-twice":
        return UNPROVEN_OVERRIDE.message("bound-twice", name=verdict.replacement, target=entry.id), None
    if verdict.reason == "installed-elsewhere":
        assert verdict.elsewhere is not None
        how, line = verdict.elsewhere
        return UNPROVEN_OVERRIDE.message("installed-elsewhere", target=entry.id, how=how, line=line), None
    assert verdict.comparison is not None
    if verdict.reason == "wraps-original":
        return UNPROVEN_OVERRIDE.message("wraps-original", name=verdict.comparison.name, target=entry.id), None
    return difference_message(verdict.comparison, entry), verdict.comparison.evidence.diff or None


def describe(
    relation: Optional[Relation], entry: Target, torch: Sequence[Version] = ()
) -> tuple[Optional[str], Optional[str]]:
    """How a kept site's replacement relates to upstream, for its message, and the diff when it differs."""
    from fsdp_unpatch.fingerprint.wording import proof
    from fsdp_unpatch.semantic.text import short

    if relation is None:
        return None, None
    if relation.kind == "factory":
        return f"it installs `{short(relation.value)}`, a wrapper or factory that may add behaviour", None
    if relation.kind == "release":
        return release_described(relation)
    comparison = relation.comparison
    assert comparison is not None
    if relation.kind == "wraps-original":
        return f"`{comparison.name}` wraps the original and may add behaviour", None
    if relation.kind == "differs":
        return difference_message(comparison, entry), comparison.evidence.diff or None
    return f"`{comparison.name}` {proof(entry.fingerprint or entry.id, comparison.evidence, torch)}", None


def release_described(relation: Relation) -> tuple[str, Optional[str]]:
    """What a replacement of a target no proof covers is against the known releases (`fingerprint/releases.py`):
    the release its body is closest to, whether the target torch still has that body, and what the target torch
    changed in it (what a copy drops), with the diff between the two releases as the detail."""
    from fsdp_unpatch.fingerprint.releases import SHOWN, short

    verdict, name = relation.release, relation.value
    assert verdict is not None
    if verdict.wraps:
        return f"`{name}` wraps the original and may add behaviour", None
    if not verdict.closest:
        return f"`{name}` is close to the body of no torch release: its own code", None
    closest = f"`{name}` is closest to the body of torch {verdict.closest_text}"
    if not verdict.judged:
        return closest, None
    if not verdict.has_target:
        return f"{closest}; torch {verdict.judged} no longer has it", None
    if verdict.still_has:
        return f"{closest}, which torch {verdict.judged} still has", None
    changes = [f"+ `{short(s)}`" for s in verdict.added[:SHOWN]] + [f"- `{short(s)}`" for s in verdict.removed[:SHOWN]]
    left = len(verdict.added) + len(verdict.removed) - len(changes)
    shown = "; ".join(changes) + (f"; and {left} more" if left > 0 else "")
    if verdict.newer:
        return f"{closest}, newer than torch {verdict.judged}'s, which differs: {shown}", verdict.diff or None
    return f"{closest}; against torch {verdict.judged} it drops: {shown}", verdict.diff or None


def difference_message(comparison: Comparison, entry: Target) -> str:
    """What the copy does differently first (three statements at most), counted in file lines; statements
    that differ only in what a name is bound to after."""
    from fsdp_unpatch.fingerprint import short_name
    from fsdp_unpatch.semantic.text import plural

    evidence = comparison.evidence
    version = f"torch {evidence.torch_version} " if evidence.torch_version else ""
    ordered = sorted(evidence.differences, key=lambda d: d.rebound)
    shown = "; ".join(_difference(d, comparison.first_line) for d in ordered[:3])
    more = "" if len(evidence.differences) <= 3 else f"; and {len(evidence.differences) - 3} more"
    return UNPROVEN_OVERRIDE.message(
        "differs",
        name=comparison.name,
        version=version,
        upstream=short_name(entry.fingerprint or entry.id),
        count=plural(len(evidence.differences), "statement"),
        shown=shown,
        more=more,
    )


def _difference(d: Difference, first_line: int) -> str:
    if not d.line:
        return f"missing `{d.text}`"
    rebound = " (reads like upstream, but a name in it is bound to something else)" if d.rebound else ""
    return f"line {first_line + d.line - 1}: `{d.text}`{rebound}"
