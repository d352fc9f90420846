"""The verdict on one install site: what the site is, with the facts that show it, and no message.

FSU001, FSU101, FSU102 and FSU201 are outcomes of one decision about one site (`semantic/sites.py`
makes it); each rule turns the verdicts of its kinds into its finding (`report(site, verdict)`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Optional

if TYPE_CHECKING:
    from fsdp_unpatch.catalog import Target
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.fingerprint import Evidence
    from fsdp_unpatch.fingerprint.releases import ReleaseVerdict

Kind = Literal[
    "proven",  # the replacement is upstream plus the NPU tweaks: the site goes (FSU001)
    "too_old",  # proven, but the target torch's native path does not serve the device yet (FSU102)
    "unproven",  # `reason` says why it cannot be proven (FSU101)
    "unknown",  # an FSDP2 private symbol with no upstream copy to compare with (FSU101)
    "reviewed",  # a target the catalog never removes (FSU101)
    "outside_enhance",  # an enhance target overridden outside the enhance installers (FSU101)
    "enhance",  # installed by an enhance installer, or a keep target the configuration keeps (FSU201)
    "configured_keep",  # any other target the configuration's `keep` declares intentional (FSU201)
]
# Why a removable target's replacement is not proven (kind "unproven").
# "unjudged": the file's `ast` model cannot be built or does not pair with the libcst facts (`why` says which).
Reason = Literal["not-a-function", "bound-twice", "wraps-original", "differs", "installed-elsewhere", "unjudged"]
# How a replacement relates to upstream, for a site that is never removed ("reviewed", "outside_enhance"), or
# for one of a target no proof covers ("unknown" too): "release", its body against every known release.
RelationKind = Literal["factory", "wraps-original", "differs", "matches", "release"]

KEPT_REPLACEMENT_KINDS = frozenset({"too_old", "unproven", "reviewed"})  # their replacement stays as it is


@dataclass(frozen=True)
class Comparison:
    """The replacement function against upstream: its name, the evidence, and the file line its compared
    source starts on (the blank and comment lines above the `def` included: differences count from it)."""

    name: str
    evidence: Evidence
    first_line: int


@dataclass(frozen=True)
class Relation:
    """What a kept site installs, as far as it can be told: a factory call (`value`), a function compared
    with upstream (`comparison`), or a function of a target no proof covers against every known release of
    it (`release`; `value` is the function's name)."""

    kind: RelationKind
    value: str = ""  # the installed expression's source, for a factory; the function's name, for a release
    comparison: Optional[Comparison] = None
    release: Optional[ReleaseVerdict] = None


@dataclass(frozen=True)
class SiteVerdict:
    """What one install site is (`kind`) and the facts that show it; which fields a kind fills is noted
    beside each."""

    kind: Kind
    target: str  # the catalog id of the FSDP2 symbol the site overrides
    site: str  # the install site's source
    entry: Optional[Target] = None  # the catalog's entry (a by-name twin: its twin's, as a review target)
    reason: Optional[Reason] = None  # kind "unproven"
    value: str = ""  # the installed expression's source
    replacement: str = ""  # kind "unproven" for "bound-twice": the name of the function it installs
    comparison: Optional[Comparison] = None  # kinds "proven", "too_old", and "unproven" for wraps/differs
    relation: Optional[Relation] = None  # kinds "reviewed" and "outside_enhance"; "unknown" for a release
    since: Optional[Version] = None  # kind "too_old": the first release whose native path serves the device
    target_torch: Optional[Version] = None  # kind "too_old": the release the run must be right on
    releases: tuple[Version, ...] = ()  # kind "too_old": every release the project allows, oldest first
    elsewhere: Optional[tuple[str, int]] = None  # reason "installed-elsewhere": how and at which line the file
    # also installs the target
    why: str = ""  # reason "unjudged": why no site of the file is judged

    @property
    def replacement_kept(self) -> bool:
        """The site stays, and so does the body of the function it installs."""
        return self.kind in KEPT_REPLACEMENT_KINDS
