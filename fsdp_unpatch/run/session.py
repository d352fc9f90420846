"""One run of the engine from the outside: settings, the files, the run options, the result.

The command line (`commands/lint.py`) and the Python API (`api.py`) both go through `prepare` and
`execute`, so that a run started either way reads the same configuration, walks the same files and
gives the same findings. Nothing here prints: bad input raises `UsageError` with the message to show.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional, Sequence

from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.i18n import translated

if TYPE_CHECKING:
    from fsdp_unpatch.catalog import Catalog
    from fsdp_unpatch.catalog.versions import TargetTorch
    from fsdp_unpatch.config.discovery import Candidate
    from fsdp_unpatch.config.request import Request
    from fsdp_unpatch.config.settings import Settings
    from fsdp_unpatch.fixes.journal import Repair
    from fsdp_unpatch.model import RunOptions, RunResult
    from fsdp_unpatch.run.cache import Cache
    from fsdp_unpatch.run.memory import Memory

# The environment variable that moves the cache, like RUFF_CACHE_DIR (the flag `--cache-dir` wins).
CACHE_DIR_VARIABLE = "FSDP_UNPATCH_CACHE_DIR"


class UsageError(Exception):
    """Bad flags, configuration or paths; the message says which."""


@dataclass
class Plan:
    catalog: Catalog
    settings: Settings
    target_torch: TargetTorch
    candidates: list[Candidate]
    options: RunOptions
    cache: Optional[Cache] = None
    missing: list[str] = field(default_factory=list)  # paths named that do not exist (reported, skipped)
    request: Optional[Request] = None
    memory: Optional[Memory] = None  # what earlier fixes removed (`memory.py`)
    # Shown once on standard error: a torch declaration that cannot be used, an installed torch outside it.
    warnings: list[str] = field(default_factory=list)
    repair: Optional[Repair] = None  # groups that a killed fix left half written, finished first (`journal.py`)

    @property
    def target_torch_origin(self) -> str:
        return self.target_torch.origin


def resolve_settings(request: Request, catalog: Catalog):
    """(settings, target torch, warnings to show once); UsageError for a bad flag or configuration."""
    from fsdp_unpatch.config import target_torch
    from fsdp_unpatch.config.files import settings_for
    from fsdp_unpatch.config.project import Project
    from fsdp_unpatch.config.settings import SettingsError

    try:
        anchor = [request.stdin_filename] if request.from_buffer and request.stdin_filename else list(request.paths)
        settings = settings_for(anchor, request, catalog)
        versions, problems = learnt_versions(request.catalog_dir)
        target, warnings = target_torch.choose(
            settings.target_torch,
            bool(request.target_torch),  # else `target-torch` in [tool.fsdp-unpatch]
            Project.of([p for p in anchor if p != "-"]).root,
            catalog.oldest_torch,
            catalog.newest_torch,
            versions,
            catalog.newest_release,
        )
    except (SettingsError, ValueError) as error:
        raise UsageError(translated(error)) from None
    return settings, target, problems + warnings


def learnt_versions(folder: Optional[str]) -> tuple[list[str], list[str]]:
    """The versions of the torch releases of the user catalog (`--catalog-dir`, else the environment's, else the
    default), which this process uses from now on; and an error per file that cannot be used. Without a release
    file (the usual case) this is one directory read: nothing is parsed."""
    from fsdp_unpatch.catalog import learnt

    learnt.configure(folder)
    if not learnt.files():
        return [], []
    from fsdp_unpatch.fingerprint.releases import learnt_releases

    releases, errors = learnt_releases()
    return [release.version for release in releases], errors


def cache_folder(flag: Optional[str], environ=os.environ) -> Optional[str]:
    """`--cache-dir`, else FSDP_UNPATCH_CACHE_DIR, else None (the project root's `.fsdp_unpatch_cache/`)."""
    return flag or environ.get(CACHE_DIR_VARIABLE) or None


def prepare(request: Request, buffer: Optional[bytes] = None, catalog: Optional[Catalog] = None) -> Plan:
    """Everything a run needs, before any file is read. Missing paths are collected, not raised,
    unless every path is missing. `buffer`: the source when the path is `-` (standard input, an editor)."""
    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.discovery import MissingPath, discover
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.config.project import Project
    from fsdp_unpatch.model import RunOptions
    from fsdp_unpatch.run import memory

    catalog = catalog or load_catalog()
    settings, target, warnings = resolve_settings(request, catalog)
    from_buffer = request.from_buffer
    missing = [] if from_buffer else [p for p in request.paths if not os.path.lexists(p)]
    if missing and len(missing) == len(request.paths):
        raise UsageError(_("{path}: no such file or directory").format(path=missing[0]))
    paths = [p for p in request.paths if p not in missing and not from_buffer] or ["."]
    # A buffer that stands for a file of a project is run with the whole project around it, as `fix .` in the
    # project's root runs that file (None: a module alone, or no project above it)
    around = _buffer_project(request) if from_buffer else None
    # What earlier fixes removed is remembered per project; without one (no identity to keep it under) nothing is.
    project = (None if around is None else Path(os.path.realpath(around))) if from_buffer else Project.of(paths).root
    record = (
        None if project is None else memory.Memory(_cache_folder([around] if around else paths, request), str(project))
    )
    remembered = record.read() if record is not None else {}
    catalog = memory.extend(catalog, remembered, Path(record.project) if record is not None else Path.cwd())
    try:
        if from_buffer:
            candidates = buffer_candidates(
                buffer or b"", request.stdin_filename, settings.force_exclude, settings.exclusion()
            )
            if around is not None and candidates:
                walked = discover([around], force_exclude=settings.force_exclude, exclusion=settings.exclusion())
                candidates = with_buffer(walked, candidates[0])
        else:
            candidates = list(discover(paths, force_exclude=settings.force_exclude, exclusion=settings.exclusion()))
        looking = request.show_settings or request.show_files  # they only say what a run would do
        # `check` and `fix --diff` write nothing: they say which group `fix` would finish
        repair = None if from_buffer or looking else _repair(paths, candidates, request.fix and not request.diff)
        if repair is not None and repair.done:  # a file the finished group deleted is no longer a candidate
            candidates = list(discover(paths, force_exclude=settings.force_exclude, exclusion=settings.exclusion()))
    except MissingPath as error:
        raise UsageError(_("{path}: no such file or directory").format(path=error)) from None
    options = RunOptions(
        analysis=Options(
            target_torch=target.lowest,
            keep=settings.keep,
            torch_releases=target.releases,
            deselected=frozenset(code for code in catalog.rules if not settings.is_selected(code)),
            judged_as=Version.parse(target.judged_as) if target.judged_as else None,
        ),
        fix=request.fix,
        # A journal it may not act on: the tree may be half fixed by someone else's run; nothing is written.
        write=not request.diff and not from_buffer and not (repair is not None and repair.problems),
        unsafe_fixes=request.unsafe_fixes,
        selected=settings.is_selected,
        fixable=settings.is_fixable,
        ignore_noqa=request.ignore_noqa,
        # SARIF and the like show every fix's replacements; `check --show-fixes` shows what fix would change
        replacements=request.replacements or (request.show_fixes and not request.fix),
        project_root=(None if around is not None else _buffer_root(request))
        if from_buffer
        else Project.of(paths).partial_root(paths),
        covered=((around,) if around is not None else _buffer_scope(request))
        if from_buffer
        else tuple(p for p in request.paths if p not in missing),
    )
    cache = None
    if not request.fix and not from_buffer and not request.no_cache:
        cache = _cache(paths, settings, options, request, memory.digest(remembered))
    return Plan(catalog, settings, target, candidates, options, cache, missing, request, record, warnings, repair)


def _buffer_project(request: Request) -> Optional[str]:
    """The root of the project a buffer's file lies in, as a run names it (relative to the current folder
    when it holds it, as `fix .` there shows the files), when the buffer is planned with its whole project
    (the language server, the Python API); None for a module alone, outside any project, or for a pipe
    (`--stdin-filename`: `fix FILE`, whose standard output cannot carry the other files)."""
    from fsdp_unpatch.config.project import Project
    from fsdp_unpatch.project.identity import shown_path

    if not (request.in_project and request.whole_project and request.stdin_filename):
        return None
    root = Project.of([request.stdin_filename]).root
    return None if root is None else shown_path(str(root))


def with_buffer(walked: Iterable[Candidate], buffer: Candidate) -> list[Candidate]:
    """The project's files, the buffer in place of the file it stands for (added when that file is not on
    disk, or excluded: a buffer named explicitly is checked, as `check FILE` checks it)."""
    real = os.path.realpath(buffer.path)
    files = list(walked)
    twin = next((i for i, c in enumerate(files) if c.problem is None and os.path.realpath(c.path) == real), None)
    if twin is None:
        return [*files, buffer]
    return [*files[:twin], buffer, *files[twin + 1 :]]


def _buffer_scope(request: Request) -> tuple[str, ...]:
    """What a buffer run covers: with `in_project`, the file the buffer stands for (its project is the rest)."""
    return (request.stdin_filename,) if request.in_project and request.stdin_filename else ()


def _buffer_root(request: Request) -> Optional[str]:
    from fsdp_unpatch.config.project import Project

    scope = _buffer_scope(request)
    return Project.of(list(scope)).partial_root(scope) if scope else None


def _repair(paths: Sequence[str], candidates: Sequence[Candidate], finish: bool) -> Repair:
    """Finish what a killed fix left half written in the folders of this run, before anything is read: a check
    must not call a half-migrated tree clean, and a fix must not plan on it."""
    from fsdp_unpatch.fixes.journal import repair

    folders = {os.path.dirname(c.path) for c in candidates} | {p for p in paths if os.path.isdir(p)}
    real = {os.path.realpath(folder) for folder in folders}  # one realpath a folder, not one a file
    real |= {os.path.dirname(os.path.realpath(c.path)) for c in candidates if os.path.islink(c.path)}
    return repair(real, finish)


def _cache_folder(paths: Sequence[str], request: Request) -> Path:
    from fsdp_unpatch.config.project import Project
    from fsdp_unpatch.run.cache import CACHE_DIR

    folder = cache_folder(request.cache_dir)
    return Path(folder) if folder else Project.of(paths).folder / CACHE_DIR


def _cache(paths: Sequence[str], settings, options, request: Request, remembered: str) -> Cache:
    from fsdp_unpatch.catalog import learnt
    from fsdp_unpatch.config.project import Project
    from fsdp_unpatch.run.cache import Cache
    from fsdp_unpatch.run.cache_key import catalog_digest, describe, outside_digest

    return Cache(
        Project.of(paths).folder,
        describe(settings, options),
        # what earlier fixes removed changes the analysis as the catalog does; so do the learnt torch releases
        catalog=f"{catalog_digest()}:{remembered}:{describe(learnt.state())}",
        outside=outside_digest(options.project_root, options.covered),
        folder=_cache_folder(paths, request),
    )


def analysed_again(plan: Plan, result: RunResult, jobs: Optional[int]) -> RunResult:
    """After a fix was written, the tree as `check` sees it now (README, Safety: "What fix reports is true").

    The fixed files get new line numbers, and what the fix deleted is gone; unchanged files come from the
    cache when there is one, so this costs about one analysis of the changed files.
    """
    from dataclasses import replace

    from fsdp_unpatch.run import memory
    from fsdp_unpatch.run.batch import run
    from fsdp_unpatch.run.pool import default_jobs

    # What this fix removed from modules the catalog does not know is remembered for later runs, this one first.
    project = Path(plan.memory.project) if plan.memory is not None else Path.cwd()
    removed = memory.removed_by(result, plan.catalog, project)
    # `--no-cache` writes nothing to the cache folder, the record included (it is still read: check agrees)
    if plan.memory is not None and plan.request is not None and not plan.request.no_cache:
        remembered = plan.memory.remember(removed)
    else:
        remembered = {**(plan.memory.read() if plan.memory is not None else {}), **removed}
    catalog = memory.extend(plan.catalog, remembered, project)
    deleted = {r.display for r in result.files if r.deleted}
    replacements = plan.request is not None and plan.request.replacements
    checking = replace(plan.options, fix=False, write=True, replacements=replacements)
    cache = None
    if plan.request is not None and not plan.request.no_cache:
        paths = list(checking.covered) or ["."]
        cache = _cache(paths, plan.settings, checking, plan.request, memory.digest(remembered))
    fresh = run(
        [c for c in plan.candidates if c.display not in deleted],
        catalog,
        checking,
        jobs=jobs or default_jobs(),
        cache=cache,
    )
    return result.after_fix(fresh)


def execute(plan: Plan, jobs: Optional[int] = None, candidates=None) -> RunResult:
    """Run the plan. After a fix that was written, what is left is what the tree holds now (`analysed_again`);
    the result's `written` keeps what the fix itself did (its files' old and new bytes, for diffs)."""
    from fsdp_unpatch.project.identity import one_walk

    if plan.options.fix and plan.options.write:  # a written file gets a new identity: each step walks afresh
        return _execute(plan, jobs, candidates)
    with one_walk():  # FSU306, the held-back verdict's key and the import net share one project walk
        result = _execute(plan, jobs, candidates)
    return _buffer_only(plan, result)


def _buffer_only(plan: Plan, result: RunResult) -> RunResult:
    """A buffer run with its project around it reports the buffer's file alone, as `fix .` reports that file;
    the other files its fix goes with (they are written with it, all or nothing) become `companions`."""
    if plan.request is None or not plan.request.from_buffer or len(result.files) < 2:
        return result
    here = next((i for i, c in enumerate(plan.candidates) if c.data is not None), None)
    if here is None or here >= len(result.files):
        return result
    group = next((g for g in result.transactions if here in g), [here])
    companions = [result.files[i] for i in group if i != here and result.files[i].fixed is not None]
    mine = result.files[here]
    if mine.fixed is None:
        companions = []
    return replace(result, files=[mine], transactions=[], companions=companions)


def _execute(plan: Plan, jobs: Optional[int], candidates) -> RunResult:
    from fsdp_unpatch.run.batch import run
    from fsdp_unpatch.run.held_back import mark_check, mark_fix_leftovers, refuse_unwritable
    from fsdp_unpatch.run.pool import default_jobs

    phase_one: Optional[list] = None if plan.options.fix else []  # reused by check's dry fix
    engines: Optional[dict] = None if plan.options.fix else {}  # the same
    result = run(
        plan.candidates if candidates is None else candidates,
        plan.catalog,
        plan.options,
        jobs=jobs or default_jobs(),
        cache=plan.cache,
        phase_one=phase_one,
        engines=engines,
    )
    if plan.options.fix and plan.options.write and result.changed:
        written = result
        result = analysed_again(plan, result, jobs)
        result.written = written.changed
    buffered = plan.request is not None and plan.request.from_buffer  # never written back: nothing to refuse
    if plan.options.fix and not plan.options.write and not buffered:  # `fix --diff` shows what `fix` would write
        refuse_unwritable(result)
        if plan.request is not None and not plan.request.diff:  # held back (a journal it may not act on)
            for file in result.files:
                file.hold_back()  # the summary counts only what was written: nothing
    if plan.options.fix:
        mark_fix_leftovers(result)
    else:  # "N fixable" is what `fix` would do: also when a group of fixes is held back at write time
        dry = lambda: _dry_fix(plan, phase_one or [], jobs or default_jobs(), buffered, engines)  # noqa: E731
        mark_check(result, dry, plan.cache, _verdict_key(plan))
    return result


def _verdict_key(plan: Plan):
    """What `held_back.mark_check` asks when it needs a verdict: the cache key of this plan's (None: none)."""

    def key() -> Optional[str]:
        from fsdp_unpatch.project.identity import roots_of
        from fsdp_unpatch.run.held_back import verdict_key

        if plan.cache is None or any(c.data is not None for c in plan.candidates):  # a buffer: never cached
            return None
        paths = [str(c.path) for c in plan.candidates]
        return verdict_key(plan.cache, paths, roots_of(plan.options, paths, []))

    return key


def _dry_fix(plan: Plan, phase_one: list, jobs: int, buffered: bool, engines: Optional[dict] = None) -> RunResult:
    """The plan's files run as `fix --diff` runs them: fixes computed, the import net applied, each group's
    files asked whether they could be written; nothing written. `phase_one`, `engines`: the check run's
    per-file items and linked groups' engines, reused (`dry_fix.py`: no file is analysed again)."""
    from dataclasses import replace

    from fsdp_unpatch.run.dry_fix import dry_fix
    from fsdp_unpatch.run.held_back import refuse_unwritable

    options = replace(plan.options, fix=True, write=False, unsafe_fixes=False, replacements=False)
    dry = dry_fix(phase_one, plan.catalog, options, jobs, engines)
    if not buffered:
        refuse_unwritable(dry)
    return dry


def buffer_candidates(data: bytes, name: Optional[str], force_exclude: bool, exclusion=None) -> list:
    """The editor's buffer under the name (and config) of `name`; none if that name is excluded."""
    from fsdp_unpatch.config.discovery import Candidate, force_excluded

    if (
        force_exclude
        and name is not None
        and (exclusion.excluded_anywhere(name) if exclusion is not None else force_excluded(name))
    ):
        return []
    return [Candidate(Path(name or "stdin.py"), name or "-", explicit=True, data=data)]
