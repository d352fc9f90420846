"""The run's cross-file searches in a file's bytes, before any parse: which files may import a name another
file binds or removes (the linking step asks them of every file of the run; a miss here is a file not parsed)."""

from __future__ import annotations

import re
from typing import Iterable


def imports_from(data: bytes, module: str, names: Iterable[bytes]) -> bool:
    """Whether the file may import one of `names` from the module whose last name is `module`:
    `from ...module import name`, or `module.name` (after `import ...module` or `from . import module`)."""
    spelled = module.encode("utf-8", "surrogateescape")  # a file name need not be UTF-8
    if spelled not in data:
        return False  # both expressions spell it (a literal test first: `re` tries them at every byte)
    segment = re.escape(spelled)
    for name in names:
        if name not in data:
            continue
        word = re.escape(name)
        if re.search(rb"\b" + segment + rb"[ \t]+import\b[^;#]*?\b" + word + rb"\b", data) or re.search(
            rb"\b" + segment + rb"[ \t]*\.[ \t]*" + word + rb"\b", data
        ):
            return True
    return False


def mentions(data: bytes, names: Iterable[bytes]) -> bool:
    """Whether the file names any of `names` (the explicit cross-file searches of the link step)."""
    return any(name in data for name in names)
