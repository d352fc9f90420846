"""The Python API: what `fsdp-unpatch check` and `fix` do, for a CI script or an editor plugin.

    from fsdp_unpatch.api import check_paths, check_source, fix_paths

    findings = check_paths(["src/"])                  # list[Finding], sorted by path, line, column
    [f.to_dict() for f in findings]                   # the objects of `--output-format json`
    result = fix_paths(["src/"], dry_run=True)        # FixResult: what is left, what would change
    sys.stdout.buffer.write(result.diff())             # bytes: each file in its own encoding

Every function reads the same configuration as the command line (the nearest `pyproject.toml` with a
`[tool.fsdp-unpatch]` table, or `config=`, or none with `isolated=True`); keyword arguments win over it,
as flags do. The target torch is chosen as on the command line too: `target_torch=`, the configuration, the
torch the project declares, the installed torch, the newest known. Bad input (an unknown rule code, a bad
configuration, a path that does not exist) raises `UsageError` with the message the command line would
print. Files that cannot be read or parsed are findings of category `error` (FSU9xx), as in the JSON output,
not exceptions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Iterable, Optional, Sequence, Union

from fsdp_unpatch.config.request import STDIN, Request
from fsdp_unpatch.model import Finding, Fix, Span
from fsdp_unpatch.run.session import UsageError, execute, prepare

__all__ = [
    "Finding",
    "Fix",
    "FixResult",
    "FixedFile",
    "FixedSource",
    "Span",
    "UsageError",
    "check_paths",
    "check_source",
    "fix_paths",
    "fix_source",
]


@dataclass(frozen=True)
class FixResult:
    """What `fix_paths` did: the findings left, the files it changed (or would change) and their diffs."""

    remaining: list[Finding]
    fixed: list[Finding]
    changed: list[str] = field(default_factory=list)  # paths of the files changed, as reported
    written: bool = True  # False with dry_run: nothing was written
    diffs: dict[str, bytes] = field(default_factory=dict)  # path -> git-style unified diff, the file's own bytes

    def diff(self) -> bytes:
        return b"".join(self.diffs[path] for path in self.changed)


@dataclass(frozen=True)
class FixedFile:
    """Another file that a source's fix changes with it (`fix` writes them together, all or nothing)."""

    path: str  # as reported (relative to the current folder when it lies under it)
    original: bytes  # the file's bytes on disk, which the fix was computed from
    source: bytes  # its new bytes (empty when the fix deletes it)
    deleted: bool = False
    encoding: str = "utf-8"


@dataclass(frozen=True)
class FixedSource:
    """What `fix_source` made of a module's source: the new source (the old one, byte for byte, when nothing
    was fixed) and the findings left; with `in_project=True`, the other files of the project that its fix
    changes with it (`fix` in the project writes them together; a caller that applies `source` alone leaves
    them to do)."""

    source: bytes
    remaining: list[Finding]
    elsewhere: tuple[FixedFile, ...] = ()


def _settings(select, ignore, extend_select, per_file_ignores, target_torch, exclude, extend_exclude) -> dict:
    """The keyword arguments every function shares, as the command line's flags."""
    return dict(
        select=_codes(select),
        ignore=_codes(ignore),
        extend_select=_codes(extend_select),
        per_file_ignores=tuple(per_file_ignores or ()),
        target_torch=target_torch,
        exclude=tuple(exclude or ()),
        extend_exclude=tuple(extend_exclude or ()),
    )


def _codes(value: Union[str, Iterable[str], None]) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _paths(paths: Union[str, os.PathLike[str], Sequence]) -> tuple[str, ...]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return tuple(os.fspath(p) for p in paths)


def check_paths(
    paths: Union[str, Sequence] = (".",),
    *,
    select: Union[str, Iterable[str], None] = None,
    ignore: Union[str, Iterable[str], None] = None,
    extend_select: Union[str, Iterable[str], None] = None,
    per_file_ignores: Optional[Iterable[str]] = None,
    exclude: Optional[Iterable[str]] = None,
    extend_exclude: Optional[Iterable[str]] = None,
    target_torch: Optional[str] = None,
    config: Optional[str] = None,
    isolated: bool = False,
    use_cache: bool = False,
    jobs: Optional[int] = 1,
) -> list[Finding]:
    """The findings `fsdp-unpatch check PATHS` reports (keep findings included), sorted by path, line, column.

    `per_file_ignores` entries are `GLOB:CODES` strings, as on the command line. The result cache is not
    used unless `use_cache=True`; `jobs=None` parses in as many processes as there are CPUs.
    """
    settings = _settings(select, ignore, extend_select, per_file_ignores, target_torch, exclude, extend_exclude)
    # each fix with its edits (`Fix.replacements`, `fix.edits` in JSON), as `--output-format json` reports it
    request = Request(
        _paths(paths), replacements=True, no_cache=not use_cache, config=config, isolated=isolated, **settings
    )
    plan = prepare(request)
    _raise_missing(plan.missing)
    return execute(plan, jobs).remaining


def check_source(
    source: Union[str, bytes],
    path: str = "module.py",
    *,
    select: Union[str, Iterable[str], None] = None,
    ignore: Union[str, Iterable[str], None] = None,
    target_torch: Optional[str] = None,
    config: Optional[str] = None,
    isolated: bool = False,
    in_project: bool = False,
) -> list[Finding]:
    """The findings for one module's source, reported under `path` (whose configuration applies; the file
    need not exist and is never read). Single-file analysis: a module alone; with `in_project=True`, what
    `check .` in the project's root gives for that file were it this source (an editor's buffer, as the
    language server sees it; `check --stdin-filename PATH -` is `check PATH` instead)."""
    data, request = _buffer_request(source, path, select, ignore, target_torch, config, isolated, in_project)
    request = replace(request, replacements=True)
    return execute(prepare(request, data), 1).remaining


def _buffer_request(
    source: Union[str, bytes],
    path: str,
    select: Union[str, Iterable[str], None],
    ignore: Union[str, Iterable[str], None],
    target_torch: Optional[str],
    config: Optional[str],
    isolated: bool,
    in_project: bool,
) -> tuple[bytes, Request]:
    """An editor's or a caller's buffer as the request `check`/`fix --stdin-filename PATH -` makes of it."""
    data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
    settings = _settings(select, ignore, None, None, target_torch, None, None)
    request = Request(
        (STDIN,),
        stdin_filename=path,
        in_project=in_project,
        # the whole project around the buffer, as `fix .`: `fix_source` returns the other files it changes
        whole_project=in_project,
        no_cache=True,
        config=config,
        isolated=isolated,
        **settings,
    )
    return data, request


def fix_source(
    source: Union[str, bytes],
    path: str = "module.py",
    *,
    unsafe_fixes: bool = False,
    select: Union[str, Iterable[str], None] = None,
    ignore: Union[str, Iterable[str], None] = None,
    target_torch: Optional[str] = None,
    config: Optional[str] = None,
    isolated: bool = False,
    in_project: bool = False,
) -> FixedSource:
    """One module's source with its fixes applied (or unchanged, byte for byte), as if it were `path` (whose
    configuration applies; the file is never read or written): a module alone, and the findings it reports
    (an error, FSU903, says why a fix that another file depends on was held back). With `in_project=True`,
    what `fix .` in the project's root writes to that file were it this source (an editor's buffer, as the
    language server fixes it), and in `elsewhere` what it writes to the other files with it: write them with
    `source` or not at all. (`fix --stdin-filename PATH -`, whose output is the buffer alone, is `fix PATH`.)"""
    data, request = _buffer_request(source, path, select, ignore, target_torch, config, isolated, in_project)
    request = replace(request, fix=True, unsafe_fixes=unsafe_fixes)
    result = execute(prepare(request, data), 1)
    fixed = result.files[0].fixed if result.files else None
    elsewhere = tuple(
        FixedFile(file.display, file.original or b"", file.fixed or b"", file.deleted, file.encoding)
        for file in result.companions
    )
    return FixedSource(data if fixed is None else fixed, result.remaining, elsewhere)


def fix_paths(
    paths: Union[str, Sequence] = (".",),
    *,
    dry_run: bool = False,
    unsafe_fixes: bool = False,
    select: Union[str, Iterable[str], None] = None,
    ignore: Union[str, Iterable[str], None] = None,
    extend_select: Union[str, Iterable[str], None] = None,
    per_file_ignores: Optional[Iterable[str]] = None,
    exclude: Optional[Iterable[str]] = None,
    extend_exclude: Optional[Iterable[str]] = None,
    target_torch: Optional[str] = None,
    config: Optional[str] = None,
    isolated: bool = False,
    jobs: Optional[int] = 1,
) -> FixResult:
    """Apply the safe fixes (and the unsafe ones with `unsafe_fixes=True`) under PATHS, as `fsdp-unpatch fix`;
    with `dry_run=True` write nothing (`fix --diff`). Files are written with the same guarantees, and what is
    left is what the tree holds afterwards (its lines as they are now), as `fix` reports it."""
    settings = _settings(select, ignore, extend_select, per_file_ignores, target_torch, exclude, extend_exclude)
    request = Request(
        _paths(paths),
        fix=True,
        diff=dry_run,
        unsafe_fixes=unsafe_fixes,
        replacements=True,
        no_cache=True,
        config=config,
        isolated=isolated,
        **settings,
    )
    plan = prepare(request)
    _raise_missing(plan.missing)
    result = execute(plan, jobs)
    changed = result.written if not dry_run else result.changed  # after writing, `files` are the tree as it is now
    return FixResult(
        remaining=result.remaining,
        fixed=[f for f in result.findings if f.fixed],
        changed=[file.display for file in changed],
        written=not dry_run,
        diffs={file.display: file.diff() for file in changed},
    )


def _raise_missing(missing: list[str]) -> None:
    if missing:
        raise UsageError("\n".join(f"{path}: no such file or directory" for path in missing))
