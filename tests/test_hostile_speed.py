"""A warm `check` trusts a file's stat when it last changed well before the run (the project walk's stat keys the
FSU306 findings and the held-back verdict). A hostile edit that keeps the size and puts the modification time
back, or a same-size file renamed over the old one, must still be seen: the warm run says what a cold one says."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

# The stat rule trusts only files last changed this long before the run (`run/cache.py`, RACY_NS), plus a margin.
_SETTLE_S = 2.2

_UNBOUND = '"""Installers of the cluster stack (the FSDP2 one went away in the migration)."""\nREADY = 1\n'
# Same size as _UNBOUND, and it binds the name the importer asks for.
_BOUND = "_apply_fsdp_patch = 1  # bound again by a hand edit\n"
_BOUND += "#" * (len(_UNBOUND) - len(_BOUND) - 1) + "\n"


def _tree(root: Path) -> Path:
    (root / "stack" / "fsdp").mkdir(parents=True)
    (root / "stack" / "__init__.py").write_text("")
    (root / "stack" / "fsdp" / "__init__.py").write_text("")
    (root / "stack" / "fsdp" / "installers.py").write_text(_UNBOUND)
    (root / "stack" / "boot.py").write_text(
        "from stack.fsdp.installers import _apply_fsdp_patch\n\n_apply_fsdp_patch()\n"
    )
    return root / "stack" / "fsdp" / "installers.py"


def _json_check(root: Path, *flags: str) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "fsdp_unpatch", "check", "--output-format", "json", *flags, "."],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _check(root: Path, *flags: str) -> list[tuple]:
    return sorted((f["code"], f["path"], f["line"]) for f in _json_check(root, *flags))


def _same_size_edit_mtime_put_back(path: Path) -> None:
    before = os.stat(path)
    path.write_text(_BOUND)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _renamed_over(path: Path) -> None:
    before = os.stat(path)
    spare = path.with_name("installers.py.new")
    spare.write_text(_BOUND)
    os.utime(spare, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(spare, path)


@pytest.mark.parametrize("edit", [_same_size_edit_mtime_put_back, _renamed_over], ids=["utime", "rename-over"])
def test_warm_fsu306_sees_a_same_size_edit_whose_time_was_put_back(tmp_path, edit):
    target = _tree(tmp_path)
    assert len(_BOUND) == len(_UNBOUND)
    time.sleep(_SETTLE_S)  # every file now stands for its content by its stat
    first = _check(tmp_path)
    assert [code for code, *_ in first] == ["FSU306"]
    assert _check(tmp_path) == first  # the warm entry is used
    old = os.stat(target)
    edit(target)
    new = os.stat(target)
    assert (new.st_size, new.st_mtime_ns) == (old.st_size, old.st_mtime_ns)  # only the change time tells
    time.sleep(_SETTLE_S)  # the edit, too, is old enough to be trusted by its stat
    assert _check(tmp_path) == _check(tmp_path, "--no-cache") == []


_EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"
_IMPORTS_REMOVED = "from legacy_npu.distributed.fsdp._add_fsdp_patch import _patched_finalize_backward\n"
_IMPORTS_KEPT = "from legacy_npu.distributed.fsdp._add_fsdp_patch import FSDPMemCache\n"
_IMPORTS_KEPT += "#" * (len(_IMPORTS_REMOVED) - len(_IMPORTS_KEPT) - 1) + "\n"


def _held_back(root: Path, *flags: str) -> list[tuple]:
    return sorted((f["path"], f["line"], f["fix"]["held_back"]) for f in _json_check(root, *flags) if f["fix"])


@pytest.mark.parametrize("edit", ["utime", "rename-over"])
def test_warm_held_back_verdict_sees_an_importer_changed_with_its_time_put_back(tmp_path, edit):
    shutil.copytree(_EXAMPLE, tmp_path / "p")
    root = tmp_path / "p"
    importer = root / "legacy_npu" / "extra.py"
    importer.write_text(_IMPORTS_KEPT)
    time.sleep(_SETTLE_S)
    first = _held_back(root)
    assert first and all(held is None for *_, held in first)  # nothing holds the fixes back yet
    assert _held_back(root) == first
    before = os.stat(importer)
    spare = importer.with_name("extra.py.new") if edit == "rename-over" else importer
    spare.write_text(_IMPORTS_REMOVED)
    os.utime(spare, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(spare, importer)
    after = os.stat(importer)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    time.sleep(_SETTLE_S)
    warm = _held_back(root)
    assert warm == _held_back(root, "--no-cache")
    assert all(held is not None and "legacy_npu/extra.py:1" in held for *_, held in warm)


# A review-only module in my own words: a test helper swaps an FSDP2 internal and puts it back in a `finally`.
_REVIEW_ONLY = b'''"""Counts all-gathers for the length of one test."""

import contextlib

import torch


@contextlib.contextmanager
def counting(counter):
    saved = torch.distributed.fsdp._fully_shard._fsdp_param_group.foreach_all_gather

    def counted(*args, **kwargs):
        counter.append(len(args))  # note
        return saved(*args, **kwargs)

    torch.distributed.fsdp._fully_shard._fsdp_param_group.foreach_all_gather = counted
    try:
        yield counter
    finally:
        torch.distributed.fsdp._fully_shard._fsdp_param_group.foreach_all_gather = saved
'''

_SITE = b"torch.distributed.fsdp._fully_shard._fsdp_param_group.foreach_all_gather = counted\n"

# The same module as hostile text: line endings, indentation, encodings and comments the ast model and libcst
# must read alike (positions, messages, suppressions).
_HOSTILE_TEXTS = {
    "crlf": _REVIEW_ONLY.replace(b"\n", b"\r\n"),
    "cr-only": _REVIEW_ONLY.replace(b"\n", b"\r"),
    "tabs": _REVIEW_ONLY.replace(b"    ", b"\t"),
    "form-feed": _REVIEW_ONLY.replace(b"\n\n\n@contextlib", b"\n\n\x0c\n@contextlib"),
    "no-final-newline": _REVIEW_ONLY.rstrip(b"\n"),
    "bom": b"\xef\xbb\xbf" + _REVIEW_ONLY,
    "latin-1": b"# -*- coding: latin-1 -*-\n" + _REVIEW_ONLY.replace(b"# note", b"# caf\xe9 \xe9t\xe9"),
    "wide-characters": _REVIEW_ONLY.replace(
        b"    " + _SITE,
        "    n = '\u6f22\u5b57\u00e9'; ".encode() + _SITE,
    ),
    "noqa-on-the-site": _REVIEW_ONLY.replace(b"= counted\n", b"= counted  # noqa: FSU101\n"),
    "noqa-of-another-code": _REVIEW_ONLY.replace(b"= counted\n", b"= counted  # noqa: E501\n"),
    "skip-file": b"# fsdp-unpatch: skip-file\n" + _REVIEW_ONLY,
    "continuation": _REVIEW_ONLY.replace(
        b"foreach_all_gather = counted\n", b"foreach_all_gather = \\\n        counted\n"
    ),
    "semicolon": _REVIEW_ONLY.replace(
        b"    " + _SITE,
        b"    n = 1; " + _SITE,
    ),
}


# Texts the tier leaves to libcst on purpose: a suppression on a site, a text that is not plain UTF-8, no file to
# report at all.
_LEFT_TO_LIBCST = frozenset({"skip-file", "noqa-on-the-site", "bom", "latin-1"})


def _spy(decide, decided: list[bool]):
    def spy(unit, catalog, options) -> bool:
        decided.append(decide(unit, catalog, options))
        return decided[-1]

    return spy


@pytest.mark.parametrize("variant", sorted(_HOSTILE_TEXTS))
def test_hostile_text_of_a_review_only_file_is_reported_as_libcst_reports_it(tmp_path, monkeypatch, variant):
    from fsdp_unpatch.run import on_ast
    from tests.integration import cli

    (tmp_path / "probes.py").write_bytes(_HOSTILE_TEXTS[variant])
    outputs = []
    decided: list[bool] = []
    for tier in (True, False):
        with monkeypatch.context() as patched:
            if not tier:
                patched.setattr(on_ast, "decide", lambda unit, catalog, options: False)
            else:
                patched.setattr(on_ast, "decide", _spy(on_ast.decide, decided))
            runs = [
                cli("check", "--no-cache", *flags, ".", cwd=tmp_path)
                for flags in (["--output-format", "json"], ["--output-format", "sarif"], ["--show-fixes"])
            ]
        outputs.append([(r.returncode, re.sub(rb"Took [0-9.]+ s", b"", r.stdout), r.stderr) for r in runs])
    assert outputs[0] == outputs[1]
    assert any(decided) == (variant not in _LEFT_TO_LIBCST)  # else the model, not libcst, gave the answer
    found = json.loads(outputs[0][0][1])
    assert [f["code"] for f in found] == ([] if variant in ("skip-file", "noqa-on-the-site") else ["FSU101"])
    text = _HOSTILE_TEXTS[variant].decode("latin-1" if variant == "latin-1" else "utf-8-sig")
    for finding in found:  # the finding points at the site, its column counted in characters
        line = re.split(r"\r\n|\r|\n", text)[finding["line"] - 1]  # not str.splitlines: a form feed ends no line
        assert line[finding["column"] - 1 :].startswith("torch.distributed"), (line, finding["column"])


_PATCH = Path("legacy_npu") / "distributed" / "fsdp" / "_add_fsdp_patch.py"
_CALLER = Path("legacy_npu") / "_api_patches.py"
_INSTALLS = (
    b"    torch.ops.fsdp.all_gather_copy_in.default = _patched_all_gather_copy_in\n"
    b"    torch.ops.fsdp.all_gather_copy_in = _patched_all_gather_copy_in\n"
    b"    _ParamGroup.finalize_backward = _patched_finalize_backward\n"
)
_OVERRIDE = b"_ParamGroup.finalize_backward = _patched_finalize_backward"


def _layouts(patch: bytes) -> dict[str, bytes]:
    """The example's patch module laid out as a hostile hand would: the statements a fix changes adjacent,
    sharing a line, nested, last in the file without a newline, followed by comments only."""
    assert _INSTALLS in patch
    one_line = b"    " + b"; ".join(line.strip() for line in _INSTALLS.splitlines()) + b"\n"
    return {
        "adjacent-defs": patch.replace(b"\n\n\n# Copy of", b"\n# Copy of").replace(
            b"\n\n\ndef _apply", b"\ndef _apply"
        ),
        "semicolons": patch.replace(_INSTALLS, one_line),
        "crlf": patch.replace(b"\n", b"\r\n"),
        "form-feed": patch.replace(b"\n\n\n# Copy of", b"\n\n\x0c\n# Copy of"),
        "top-level-if": patch + b"\nif hasattr(torch, 'npu'):\n    " + _OVERRIDE + b"\n",
        "top-level-try": patch + b"\ntry:\n    " + _OVERRIDE + b"\nexcept AttributeError:\n    pass\n",
        "last-without-newline": patch + b"\n" + _OVERRIDE,
        "last-shares-a-line": patch + b"\nREADY = 1; " + _OVERRIDE,
        "comments-after": patch + b"\n" + _OVERRIDE + b"\n# the end\n    # an indented comment\n",
    }


@pytest.mark.parametrize("layout", sorted(_layouts((_EXAMPLE / _PATCH).read_bytes())))
def test_fix_regions_spliced_from_statements_are_the_whole_modules(tmp_path, monkeypatch, layout):
    from fsdp_unpatch.fixes import regions
    from tests.integration import cli

    shutil.copytree(_EXAMPLE, tmp_path / "p")
    root = tmp_path / "p"
    (root / _PATCH).write_bytes(_layouts((_EXAMPLE / _PATCH).read_bytes())[layout])
    spliced: list[bool] = []
    real = regions._spliced

    def counted(*args):
        spliced.append(real(*args) is not None)
        return real(*args)

    outputs = []
    for splice in (True, False):
        with monkeypatch.context() as patched:
            patched.setattr(regions, "_spliced", counted if splice else (lambda *args: None))
            runs = [
                cli("check", "--no-cache", *flags, ".", cwd=root)
                for flags in (["--output-format", "json"], ["--show-fixes"])
            ]
            runs.append(cli("fix", "--diff", "--no-cache", ".", cwd=root))
        outputs.append(
            [(r.returncode, *(re.sub(rb"Took [0-9.]+ s", b"", o) for o in (r.stdout, r.stderr))) for r in runs]
        )
    assert any(spliced)  # the statements' code was spliced for some fix
    assert outputs[0] == outputs[1]
    assert b"_patched_finalize_backward" in outputs[0][-1][1]  # the diff removes the override
