"""Every safe fsdp-unpatch fix for one module, as `fsdp-unpatch fix` applies it."""

from __future__ import annotations

from codemods._base import UnpatchCodemod
from fsdp_unpatch.rules.registry import codes


class Unpatch(UnpatchCodemod):
    DESCRIPTION = "Apply every safe fsdp-unpatch fix to the module."
    CODES = codes(fix="safe")
