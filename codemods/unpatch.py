"""Every safe fsdp-unpatch fix for one module, as `fsdp-unpatch fix` applies it."""

from __future__ import annotations

from fsdp_unpatch.rules.registry import codes

from ._base import UnpatchCodemod


class Unpatch(UnpatchCodemod):
    DESCRIPTION = "Apply every safe fsdp-unpatch fix to the module."
    CODES = codes(fix="safe")
