"""Is a replacement function an upstream FSDP2 function, up to named normalisations?

The question the analysis asks before it removes a replacement. Three parts:
- `scope`: what a function's free names stand for in its module (so `dist` must be torch.distributed);
- `normalise`: the named normalisations, each with examples that must and must not match;
- `upstream`: the upstream functions of every supported torch release (a generated data file);
- `compare`: the comparison, the differing statements and a unified diff for reports.
"""

from fsdp_unpatch.fingerprint.compare import (
    Difference,
    Evidence,
    compare_functions,
    compare_to_upstream,
    known_targets,
    parse_function,
)
from fsdp_unpatch.fingerprint.normalise import PIPELINE, Normalisation, dotted_name
from fsdp_unpatch.fingerprint.scope import Scope, canonical
from fsdp_unpatch.fingerprint.upstream import (
    DATA_PATH,
    FSDP2_DIRS,
    extract_target_source,
    module_root,
    read_dirs,
    short_name,
    upstream_function,
    version_dirs,
    version_key,
)

__all__ = [
    "DATA_PATH",
    "FSDP2_DIRS",
    "PIPELINE",
    "Difference",
    "Evidence",
    "Normalisation",
    "Scope",
    "canonical",
    "compare_functions",
    "compare_to_upstream",
    "dotted_name",
    "extract_target_source",
    "known_targets",
    "module_root",
    "parse_function",
    "read_dirs",
    "short_name",
    "upstream_function",
    "version_dirs",
    "version_key",
]
