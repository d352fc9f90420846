"""Is a replacement function an upstream FSDP2 function, up to named normalisations?

The question the analysis asks before it removes a replacement. Three parts:
- `scope`: what a function's free names stand for in its module (so `dist` must be torch.distributed);
- `normalise`: the named normalisations, each with examples that must and must not match;
- `upstream`: the upstream functions of every supported torch release (a generated data file);
- `compare`: the comparison, the differing statements and a unified diff for reports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Each name's module, imported when the name is first read (PEP 562): the ast screen imports
# `fingerprint.same_device` on every run, and must not load the upstream data and its readers with it.
_HOME = {
    **dict.fromkeys(
        ["Difference", "Evidence", "compare_functions", "compare_to_upstream", "known_targets", "parse_function"],
        "compare",
    ),
    **dict.fromkeys(["PIPELINE", "Normalisation", "dotted_name"], "normalise"),
    **dict.fromkeys(["Scope", "canonical"], "scope"),
    **dict.fromkeys(
        [
            "DATA_PATH",
            "FSDP2_DIRS",
            "extract_target_source",
            "module_root",
            "read_dirs",
            "short_name",
            "upstream_function",
            "version_dirs",
            "version_key",
        ],
        "upstream",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


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
