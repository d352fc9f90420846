"""Module names as imports spell them: a relative import made absolute. Pure Python, no libcst, so that both
tiers (the ast screen and the libcst names) share it."""

from __future__ import annotations

from typing import Optional


def resolve_relative(module: Optional[str], is_package: bool, level: int, name: str) -> Optional[str]:
    """Turn `from ..x import y` into an absolute module name, given the importing module's name (as
    `identity.module_name` gives it); None when the import climbs above the top package. Shared by the ast tier
    (`screen.py`) and the libcst tier (`names.py`), so it lives here, where no libcst is loaded."""
    if level == 0:
        return name
    if module is None:
        return None
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + ([name] if name else []))
