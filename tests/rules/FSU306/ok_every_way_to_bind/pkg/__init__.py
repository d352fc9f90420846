"""A package that binds names in every statement form (and a submodule it never imports itself)."""
import contextlib
import os as operating_system
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pkg.typed import only_for_checkers  # noqa: F401


def function():
    global made_global
    made_global = 1


class Klass:
    pass


assigned = 1
annotated: int = 2
first, (second, *rest) = 1, (2, 3)
for looped in range(1):
    pass
with contextlib.nullcontext() as managed:
    pass
try:
    from json import dumps as tried
except ImportError:
    tried = None
try:
    raise ValueError
except ValueError as caught:
    kept = caught
if operating_system.name == "nt":
    def conditional():
        return "windows"
else:
    conditional = None
[walrus := 1]
