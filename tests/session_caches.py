"""Results computed from static data, kept for the whole test session (installed by tests/conftest.py).

`fingerprint.compare_to_upstream` against the bundled upstream data is a pure function of its arguments and of
the user catalog's release files (the data file and the installed torch do not change during a run; the release
files' state is part of the key, as in `default_upstream`'s cache), and the fixtures repeat the same
replacements many times over: the engine's calls are answered from a memo. A call with `upstream_dirs` (a
test's own upstream folder) is never memoised.
"""

from __future__ import annotations

from typing import Callable, Optional

from fsdp_unpatch.catalog import learnt
from fsdp_unpatch.fingerprint import Evidence, Scope


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
