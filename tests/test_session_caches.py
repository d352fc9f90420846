"""The session's memo of upstream comparisons (tests/session_caches.py) answers only what it was asked before."""

from __future__ import annotations

from pathlib import Path

from fsdp_unpatch import fingerprint
from fsdp_unpatch.fingerprint import Scope, compare_to_upstream
from tests.helpers import check_tree
from tests.session_caches import memoised
from tests.upstream import expanded_copy

FIXTURES = Path(__file__).parent / "fixtures"
GET_INPUTS = "_fsdp_collectives._get_param_all_gather_inputs"
# A replacement that calls the collective through `dist`: whether it can equal upstream depends on what
# `dist` is bound to in its module.
SOURCE = "def f(group):\n    return dist.get_world_size(group)\n"


def _counting():
    calls: list[tuple] = []

    def compare(source, target, **kwargs):
        calls.append((source, target, kwargs.get("scope"), kwargs.get("original_names"), kwargs.get("upstream_dirs")))
        return compare_to_upstream(source, target, **kwargs)

    return compare, calls


def test_a_call_seen_before_is_answered_from_the_memo_with_the_same_evidence() -> None:
    compare, calls = _counting()
    cached = memoised(compare)
    scope = Scope("vendor.patch", {"dist": "torch.distributed"})
    first = cached(SOURCE, GET_INPUTS, scope=scope)
    again = cached(SOURCE, GET_INPUTS, scope=Scope("vendor.patch", {"dist": "torch.distributed"}))
    assert again == first == compare_to_upstream(SOURCE, GET_INPUTS, scope=scope)
    assert len(calls) == 1


def test_every_argument_is_part_of_the_key() -> None:
    compare, calls = _counting()
    cached = memoised(compare)
    torch_dist = Scope("vendor.patch", {"dist": "torch.distributed"})
    cached(SOURCE, GET_INPUTS, scope=torch_dist)
    cached(SOURCE.replace("group", "pg"), GET_INPUTS, scope=torch_dist)
    cached(SOURCE, "ops.fsdp.all_gather_copy_in", scope=torch_dist)
    cached(SOURCE, GET_INPUTS, scope=Scope("vendor.patch", {"dist": "vendor.fake_dist"}))
    cached(SOURCE, GET_INPUTS, scope=Scope("vendor.other", {"dist": "torch.distributed"}))
    cached(SOURCE, GET_INPUTS)
    cached(SOURCE, GET_INPUTS, scope=torch_dist, original_names=frozenset({"f"}))
    assert len(calls) == 7


def test_a_call_with_its_own_upstream_folders_is_never_memoised(tmp_path: Path) -> None:
    compare, calls = _counting()
    cached = memoised(compare)
    for _ in range(2):
        cached(SOURCE, GET_INPUTS, upstream_dirs=[tmp_path])
    assert len(calls) == 2 and cached.memo == {}  # type: ignore[attr-defined]


def test_the_engine_asks_the_session_memo(tmp_path: Path) -> None:
    """conftest.py installs the memo where the engine looks up the comparison; a run that compares a
    replacement leaves its question in the memo, and a second run gets the same findings."""
    assert fingerprint.compare_to_upstream is not compare_to_upstream
    memo = fingerprint.compare_to_upstream.memo  # type: ignore[attr-defined]
    root = expanded_copy(FIXTURES / "downstream", tmp_path / "tree")
    memo.clear()  # what other tests asked would hide a bypass
    first = check_tree(root)
    assert memo, "the run compared no replacement: the memo was bypassed"
    second = check_tree(root)
    assert [(f.code, f.message) for f in second.findings] == [(f.code, f.message) for f in first.findings]


def test_the_import_search_memo_searches_again_when_a_rewrite_or_a_file_under_the_roots_changes(
    tmp_path: Path, monkeypatch
) -> None:
    """`imports_searched_once` answers only the same search of the same files: a rewrite that differs in one
    byte, or an importer written meanwhile, is searched afresh (and finds what it must)."""
    import os

    from fsdp_unpatch.run import import_net
    from fsdp_unpatch.run.import_net import Rewrite
    from tests.session_caches import imports_searched_once

    searched: list[int] = []
    real = import_net.breakages

    def counted(rewrites, roots, extra=(), exempt=frozenset()):
        searched.append(1)
        return real(rewrites, roots, extra, exempt)

    monkeypatch.setattr(import_net, "breakages", counted)
    (tmp_path / "pyproject.toml").write_text("")
    patch = tmp_path / "patch.py"
    patch.write_text("VALUE = 1\n")
    before = patch.read_bytes()
    user = tmp_path / "user.py"
    user.write_text("import os\n")
    with imports_searched_once():
        one = [Rewrite(0, str(patch), before, b"OTHER = 1\n")]
        assert import_net.breakages(one, [str(tmp_path)]) == []
        assert import_net.breakages(list(one), [str(tmp_path)]) == [] and len(searched) == 1
        assert import_net.breakages([Rewrite(0, str(patch), before, b"OTHER = 2\n")], [str(tmp_path)]) == []
        assert len(searched) == 2
        user.write_text("from patch import VALUE\n")
        os.utime(user, ns=(1, 1))  # another time than the first search saw, even on a coarse clock
        broken = import_net.breakages(one, [str(tmp_path)])
        assert len(searched) == 3 and [b.index for b in broken] == [0] and "imports VALUE" in broken[0].reason
    assert import_net.breakages is counted


def test_the_parse_memo_answers_only_the_same_bytes() -> None:
    from fsdp_unpatch.analysis import prefilter
    from tests.session_caches import memoised_parses

    seen: list[bytes] = []
    real = prefilter._parses

    def counted(data: bytes) -> bool:
        seen.append(data)
        return real(data)

    parses = memoised_parses(counted)
    assert parses(b"x = 1\n") and parses(b"x = 1\n") and seen == [b"x = 1\n"]
    assert not parses(b"def f(:\n") and not parses(b"def f(:\n") and len(seen) == 2
    assert parses(b"x = 2\n") and len(seen) == 3
