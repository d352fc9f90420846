"""How a message says what a comparison proved: several rules say it (a proven site, the replacement that
goes with it, a kept site whose replacement is a copy), so it is said once, here, below the rules."""

from __future__ import annotations

from fsdp_unpatch.fingerprint.compare import Evidence
from fsdp_unpatch.fingerprint.upstream import short_name


def proof(upstream: str, evidence: Evidence) -> str:
    """ "matches torch 2.9.1 `finalize_backward` up to: ..." for a proven copy of `upstream` (the catalog
    target's fingerprint name, or its id)."""
    up_to = f" up to: {'; '.join(evidence.normalisations)}" if evidence.normalisations else " exactly"
    return f"matches torch {evidence.torch_version} `{short_name(upstream)}`{up_to}"
