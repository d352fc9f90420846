"""How a message says what a comparison proved: several rules say it (a proven site, the replacement that
goes with it, a kept site whose replacement is a copy), so it is said once, here, below the rules."""

from __future__ import annotations

from typing import Sequence

from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.fingerprint.compare import Evidence
from fsdp_unpatch.fingerprint.upstream import short_name


def proof(upstream: str, evidence: Evidence, target: Sequence[Version] = ()) -> str:
    """ "matches torch 2.9.1 `finalize_backward` up to: ..." for a proven copy of `upstream` (the catalog
    target's fingerprint name, or its id), against the run's target releases: the newest matched release
    within `target` (a run that targets 2.9 reads 2.9.1, not the newest release the body is the same in),
    else the newest match, said to be outside the target. No `target`: the newest match."""
    version, normalisations, outside = evidence.torch_version, evidence.normalisations, ""
    if target:
        found = evidence.match_in({str(v) for v in target})
        if found is not None:
            version, normalisations = found
        else:
            outside = " (outside the target torch)"
    up_to = f" up to: {'; '.join(normalisations)}" if normalisations else " exactly"
    return f"matches torch {version} `{short_name(upstream)}`{outside}{up_to}"
