"""FSU402 (redundant-class-patch): the same class attribute is patched again through another module."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from fsdp_unpatch.rules.examples import Invalid, Valid
from fsdp_unpatch.rules.registry import declare, shape

if TYPE_CHECKING:
    from fsdp_unpatch.analysis.patched import Patched
    from fsdp_unpatch.analysis.planned import Planned
    from fsdp_unpatch.analysis.subjects import ModuleSubject, Patches
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.config.options import Options


def redundant_class_patches(patched: Iterable[Patched], classes: dict[str, str]) -> list[tuple[Patched, Patched]]:
    """FSU402: (earlier, later) where both patch the same class attribute through different modules."""
    first: dict[str, Patched] = {}
    pairs = []
    for site in patched:
        parts = site.target.split(".")
        if len(parts) < 3 or parts[1] not in classes:
            continue
        earlier = first.setdefault(site.target, site)
        if earlier is not site and _module_of(earlier.qualified, parts[1]) != _module_of(site.qualified, parts[1]):
            pairs.append((earlier, site))
    return pairs


def _module_of(qualified: str, cls: str) -> str:
    return qualified.split(f".{cls}.")[0]


def check(patches: Patches, analysis: ModuleSubject, catalog: Catalog, options: Options) -> Iterator[Planned]:
    """The second patch of a class attribute, through another module."""
    from fsdp_unpatch.analysis.planned import Planned

    for earlier, later in redundant_class_patches(patches.patched, dict(catalog.classes)):
        yield Planned(
            REDUNDANT_CLASS_PATCH.code,
            later.install.report,
            REDUNDANT_CLASS_PATCH.message(
                later=_relative(catalog, later.qualified),
                earlier=_relative(catalog, earlier.qualified),
                line=analysis.position(earlier.install.report).start.line,
            ),
            later.target,
        )


def _relative(catalog: Catalog, qualified: str) -> str:
    """A qualified name under an FSDP2 root, without the root."""
    for root in catalog.fsdp2_roots:
        if qualified.startswith(root + "."):
            return qualified[len(root) + 1 :]
    return qualified


REDUNDANT_CLASS_PATCH = declare(
    "FSU402",
    "redundant-class-patch",
    category="keep",
    fix="none",
    phase="file",
    summary="The same class attribute is patched again through another module",
    messages="`{later}` is the same class attribute as `{earlier}` (line {line}): patching it again is redundant",
    check=check,
    subject="patches",
    candidates=(shape("fsdp2-store"), shape("fsdp2-patch")),
    doc="""
    ## What it does
    Reports the second of two assignments that set the same attribute of an FSDP2 class through two
    modules, such as `_fsdp_collectives.DefaultAllGather.allocate = f` and
    `_fsdp_param_group.DefaultAllGather.allocate = f`.

    ## Why
    The class was imported by name, and a class is shared, not copied: the second assignment is redundant
    (harmless; information only).

    ## Example
    ```python
    _fsdp_collectives.DefaultAllGather.allocate = _allocate
    _fsdp_param_group.DefaultAllGather.allocate = _allocate  # FSU402
    ```
    """,
)

VALID = [
    Valid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _allocate(self, size, *, dtype, device):
    return None


_fsdp_collectives.DefaultAllGather.allocate = _allocate
"""
    )
]
INVALID = [
    Invalid(
        """from torch.distributed.fsdp._fully_shard import _fsdp_collectives, _fsdp_param_group


def _allocate(self, size, *, dtype, device):
    return None


_fsdp_collectives.DefaultAllGather.allocate = _allocate
_fsdp_param_group.DefaultAllGather.allocate = _allocate
"""
    )
]
