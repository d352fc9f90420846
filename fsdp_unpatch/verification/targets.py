"""The FSDP2 install targets that `verify` watches, as data.

Target ids follow the catalog (`fsdp_unpatch/data/catalog.toml`): relative to the FSDP2 package root
(`torch.distributed.fsdp._fully_shard`, or `torch.distributed._composable.fsdp` on torch < 2.6), or
`ops.<namespace>.<op>[.<overload>]` for custom ops under `torch.ops`. When the catalog can be read,
its `remove` targets are the collective overrides and its `keep` targets the enhance patch; the
tuples below are the fallback and the minimum set.
"""

from __future__ import annotations

from dataclasses import dataclass

FSDP2_ROOTS = ("torch.distributed.fsdp._fully_shard", "torch.distributed._composable.fsdp")

# The overrides that the migration removes (native FSDP2 covers them).
COLLECTIVE_TARGETS: tuple[str, ...] = (
    "_fsdp_collectives._get_param_all_gather_inputs",
    "ops.fsdp.all_gather_copy_in",
    "ops.fsdp.all_gather_copy_in.default",
    "_fsdp_param_group.FSDPParamGroup.finalize_backward",
)

# The enhance patch, which the migration keeps.
ENHANCE_TARGETS: tuple[str, ...] = (
    "_fsdp_collectives.DefaultAllGather.allocate",
    "_fsdp_collectives.DefaultReduceScatter.allocate",
    "_fsdp_collectives.foreach_reduce",
    "_fsdp_param_group.foreach_reduce",
    "_fsdp_param_group.FSDPParamGroup.post_forward",
    "_fsdp_param_group.FSDPParamGroup.post_backward",
    "_fsdp_state.FSDPState._post_forward",
)


@dataclass(frozen=True)
class WatchList:
    collective: tuple[str, ...]
    enhance: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        return self.collective + self.enhance

    def to_json(self) -> dict:
        return {"collective": list(self.collective), "enhance": list(self.enhance)}

    @classmethod
    def from_json(cls, data: dict) -> WatchList:
        return cls(tuple(data["collective"]), tuple(data["enhance"]))


def _merge(first: tuple[str, ...], extra: list[str]) -> tuple[str, ...]:
    return first + tuple(t for t in extra if t not in first)


def watch_list() -> WatchList:
    """The targets to watch: the fallback tuples, extended by the catalog's remove/keep targets."""
    collective, enhance = COLLECTIVE_TARGETS, ENHANCE_TARGETS
    try:
        from fsdp_unpatch.catalog import load_catalog

        targets = load_catalog().targets
        collective = _merge(collective, [t.id for t in targets.values() if t.category == "remove"])
        enhance = _merge(enhance, [t.id for t in targets.values() if t.category == "keep"])
    except Exception:  # the catalog is optional here: the tuples above are enough to verify
        pass
    return WatchList(collective, enhance)
