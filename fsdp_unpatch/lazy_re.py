"""Regular expressions compiled at their first use, not when their module is imported.

`re.compile` costs from 0.02 ms to 2 ms a pattern (a class of wide Unicode ranges costs the most), and the
modules every run imports hold patterns that only some runs use: those of a requirements file, of a noqa
comment, of a file the cache does not hold yet. `LazyPattern(pattern, flags)` stands where `re.compile(pattern,
flags)` stood: the pattern is compiled the first time one of its methods is looked up, and from then on the
compiled pattern's own methods answer (nothing stands in between: a hot loop pays no more than before).
`tests/test_startup_imports.py` keeps a warm `check` from compiling more than it uses.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, Callable, Generic, Iterator, Optional

# the methods of `re.Pattern` that this project calls
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "split", "sub", "subn")


class LazyPattern(Generic[AnyStr]):
    """`re.compile(pattern, flags)`, compiled when first used."""

    # Set on the instance at the first use (`__getattr__` runs only while they are not): the compiled pattern's.
    search: Callable[..., Optional[re.Match[AnyStr]]]
    match: Callable[..., Optional[re.Match[AnyStr]]]
    fullmatch: Callable[..., Optional[re.Match[AnyStr]]]
    finditer: Callable[..., Iterator[re.Match[AnyStr]]]
    findall: Callable[..., list[Any]]
    split: Callable[..., list[Any]]
    sub: Callable[..., AnyStr]
    subn: Callable[..., tuple[AnyStr, int]]

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.lazy_flags = flags

    def __getattr__(self, name: str) -> Any:
        if name not in _METHODS:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self.lazy_flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.lazy_flags})"
