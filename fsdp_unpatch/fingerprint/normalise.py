"""Normalisations: the named ways a copy may differ from upstream without doing anything else.

Each normalisation is one small unit: a rewrite of a function's ``ast`` (in place), the label a report
uses when the rewrite was needed to make a copy equal upstream, and examples -- pairs that must compare
equal with it and pairs that must not (a real change it must never hide). The test suite runs every
example of every unit, like a Fixit rule's VALID/INVALID lists.

A rewrite returns a *trace* (what it rewrote). When the candidate's trace differs from upstream's, the
normalisation was needed, and a `remove` finding names it ("up to: ...").

The framework is `normalisation.py`; the units are in `spelling.py` and `device_facts.py`; this module
puts them in order (`PIPELINE`). Stdlib only, Python >= 3.9.
"""

from __future__ import annotations

from fsdp_unpatch.fingerprint.device_facts import NO_GRAD, SAME_DEVICE_COPY, STREAMS
from fsdp_unpatch.fingerprint.normalisation import (
    TORCH_IMPORTS,
    Context,
    FunctionNode,
    Normalisation,
    Trace,
    all_args,
    local_names,
)
from fsdp_unpatch.fingerprint.same_device import dotted_name
from fsdp_unpatch.fingerprint.spelling import (
    ANNOTATIONS,
    DOCSTRINGS,
    NAMES,
    REGISTRATIONS,
    WALRUS,
    is_library_impl,
)

__all__ = [
    "ANNOTATIONS",
    "DOCSTRINGS",
    "EXAMPLE_IMPORTS",
    "NAMES",
    "NO_GRAD",
    "PIPELINE",
    "REGISTRATIONS",
    "SAME_DEVICE_COPY",
    "STREAMS",
    "WALRUS",
    "Context",
    "FunctionNode",
    "Normalisation",
    "Trace",
    "all_args",
    "dotted_name",
    "is_library_impl",
    "local_names",
]

# Order matters: names are resolved before the units that recognise resolved names (annotations that do
# nothing, torch's registration decorators, streams, the same-device copy, no_grad); the walrus is hoisted
# after names so that both sides hoist alike.
PIPELINE: tuple[Normalisation, ...] = (
    DOCSTRINGS,
    NAMES,
    ANNOTATIONS,
    REGISTRATIONS,
    WALRUS,
    STREAMS,
    SAME_DEVICE_COPY,
    NO_GRAD,
)
EXAMPLE_IMPORTS = (
    TORCH_IMPORTS + "from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState\n"
)
