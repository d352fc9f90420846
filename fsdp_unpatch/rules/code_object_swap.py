"""FSU104 (code-object-swap): `__code__` of an FSDP2 function replaced in place."""

from __future__ import annotations

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare

CODE_OBJECT_SWAP = declare(
    "FSU104",
    "code-object-swap",
    category="review",
    fix="none",
    phase="file",
    summary="`__code__` of an FSDP2 function replaced in place",
    messages="`{spelled}` swaps the code of FSDP2 internal `{target}` in place: every by-name import and saved "
    "original runs the new code too",
    doc="""
    ## What it does
    Reports `X.__code__ = f.__code__` (or its `setattr`) where X is an FSDP2 function.

    ## Why
    The FSDP2 function object itself runs other code. Unlike an assignment it reaches every by-name import
    and every saved original (they are the same object), and it survives `importlib.reload` of the
    patching module. Never fixed: restoring the original code needs the original code object.

    ## Example
    ```python
    _fsdp_collectives.foreach_reduce.__code__ = _my_reduce.__code__  # FSU104
    ```
    """,
)

VALID = [
    Valid(
        """def _mine(*args):
    return 1


def _faster(*args):
    return 2


_mine.__code__ = _faster.__code__
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _faster(*args, **kwargs):
    return None


_fsdp_collectives.foreach_reduce.__code__ = _faster.__code__
"""
    )
]
