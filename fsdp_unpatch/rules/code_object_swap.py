"""FSU104 (code-object-swap): `__code__` of an FSDP2 function replaced in place."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Site
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def check(site: Site, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """`X.__code__ = f.__code__` (or setattr) on an FSDP2 function: X itself now runs other code. The
    planner hands such a site over without a verdict. Never fixed: only reported."""
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.semantic.names import is_fsdp2_private, target_id

    install = site.install
    if site.verdict is not None or install.attribute != "__code__":
        return
    from fsdp_unpatch.analysis.patterns import qualify  # a `__code__` swap is analysed with libcst

    owner = qualify(analysis.table, install.owner)
    target = target_id(owner, catalog) if owner else None
    if target is None or not is_fsdp2_private(target, catalog):
        return
    spelled = _short(analysis.code(install.report))
    if not install.via_setattr:
        spelled += f" = {_short(analysis.code(install.value), 40)}"
    yield Planned(
        CODE_OBJECT_SWAP.code, install.report, CODE_OBJECT_SWAP.message(spelled=spelled, target=target), target
    )


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


CODE_OBJECT_SWAP = declare(
    "FSU104",
    "code-object-swap",
    category="review",
    fix="none",
    phase="file",
    summary="`__code__` of an FSDP2 function replaced in place",
    messages="`{spelled}` swaps the code of FSDP2 internal `{target}` in place: every by-name import and saved "
    "original runs the new code too",
    check=check,
    subject="site",
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
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
