"""Results computed from static data, kept for the whole test session (installed by tests/conftest.py).

`fingerprint.compare_to_upstream` against the bundled upstream data is a pure function of its arguments and of
the user catalog's release files (the data file and the installed torch do not change during a run; the release
files' state is part of the key, as in `default_upstream`'s cache), and the fixtures repeat the same
replacements many times over: the engine's calls are answered from a memo. A call with `upstream_dirs` (a
test's own upstream folder) is never memoised.

Whether CPython parses a file (`prefilter._parses`, a function of its bytes alone) is answered from a memo too:
the prefilter compiles every file that names FSDP2 but cannot hold a finding, in every run over the installed
torch and the real releases.

The import net's searches of the real releases (`imports_searched_once`) are kept too, keyed on everything they
read: the tier and excerpt comparisons of a release plan the same fixes several times over.
"""

from __future__ import annotations

import hashlib
import os
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

from fsdp_unpatch.catalog import learnt
from fsdp_unpatch.fingerprint import Evidence, Scope
from fsdp_unpatch.run import import_net


def memoised(compare: Callable[..., Evidence]) -> Callable[..., Evidence]:
    """`compare` (compare_to_upstream's signature) answering a call it has seen from a memo."""
    memo: dict[tuple, Evidence] = {}

    def compare_to_upstream(
        function_source: str,
        target: str,
        *,
        scope: Optional[Scope] = None,
        original_names: frozenset[str] = frozenset(),
        upstream_dirs=None,
    ) -> Evidence:
        if upstream_dirs is not None:
            return compare(
                function_source, target, scope=scope, original_names=original_names, upstream_dirs=upstream_dirs
            )
        scope_key = None if scope is None else scope.key()
        key = (function_source, target, scope_key, frozenset(original_names), learnt.state())
        if key not in memo:
            memo[key] = compare(function_source, target, scope=scope, original_names=original_names)
        return memo[key]

    compare_to_upstream.memo = memo  # type: ignore[attr-defined]  # for tests/test_session_caches.py
    return compare_to_upstream


def memoised_parses(parses: Callable[[bytes], bool]) -> Callable[[bytes], bool]:
    """`parses` (`prefilter._parses`) answering bytes it has seen from a memo (keyed on a digest of the bytes)."""
    memo: dict[tuple[int, bytes], bool] = {}

    def _parses(data: bytes) -> bool:
        key = (len(data), hashlib.blake2b(data, digest_size=32).digest())
        if key not in memo:
            memo[key] = parses(data)
        return memo[key]

    _parses.memo = memo  # type: ignore[attr-defined]  # for tests/test_session_caches.py
    return _parses


def _disk_state(roots) -> tuple:
    """What the import net can read of `roots` besides the rewrites: every file under them, by path, size and
    modification time (a file written meanwhile changes the key)."""
    if roots is None:
        return ()
    state = []
    for root in roots:
        for folder, _, names in os.walk(root) if os.path.isdir(root) else [("", [], [root])]:
            for name in names:
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    state.append((path, None))
                    continue
                state.append((path, stat.st_size, stat.st_mtime_ns))
    return tuple(state)


# (cwd, rewrites, roots, other paths, exempt names, the files under the roots) -> what the import net found
_SEARCHES: dict[tuple, list] = {}


@contextmanager
def imports_searched_once() -> Iterator[None]:
    """Within the block, the import net (`import_net.breakages`) answers a search made before in the session
    from a memo: its result is a function of the rewrites (each file's bytes before and after), the roots, the
    other paths, the exempt names and the files it reads under the roots (their paths, sizes and times are part
    of the key). Runs that plan the same fixes of the same tree (two tiers of the analysis, an excerpt and the
    whole file, the batch and the plain engine, in tests/test_tiers.py and tests/test_excerpts.py alike) search
    once; runs whose fixes differ in one byte, or whose tree changed, search each."""
    real = import_net.breakages

    def breakages(rewrites, roots, extra=(), exempt=frozenset()):
        key = (
            os.getcwd(),  # relative roots are the cwd's
            tuple(rewrites),
            None if roots is None else tuple(roots),
            tuple(extra),
            frozenset(exempt),
            _disk_state(roots),
        )
        if key not in _SEARCHES:
            _SEARCHES[key] = real(rewrites, roots, extra, exempt)
        return list(_SEARCHES[key])

    import_net.breakages = breakages
    try:
        yield
    finally:
        import_net.breakages = real
