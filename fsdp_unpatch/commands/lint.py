"""`fsdp-unpatch check` and `fsdp-unpatch fix`.

Exit status: 0 nothing to report (keep findings never fail a run), 1 findings remain (or, with
`fix --diff`, the fix would change something), 2 usage or input error.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, replace
from typing import Optional, Sequence

import click

from fsdp_unpatch.reporting import FORMATS, MACHINE_FORMATS, NEEDS_REPLACEMENTS

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


def _common(function):
    options = [
        click.argument("paths", nargs=-1, type=click.Path()),
        click.option("--output-format", default="full", show_default=True,
                     type=click.Choice(list(FORMATS)), help="How findings are reported."),
        click.option("--target-torch", metavar="X.Y",
                     help="torch release to migrate to (default: the installed torch, else the newest known)."),
        click.option("--select", multiple=True, metavar="CODES", help="Rule codes or prefixes to report."),
        click.option("--ignore", multiple=True, metavar="CODES", help="Rule codes or prefixes not to report."),
        click.option("--show-source/--no-show-source", default=True, help="Show the source line of each finding."),
        click.option("--no-color", is_flag=True, help="Never colour the output."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain (input errors still exit 2)."),
        click.option("-q", "--quiet", is_flag=True, help="Print the findings and nothing else: no summary, no progress."),
        click.option("--show-fixes", is_flag=True,
                     help="check: show what each fix would change; fix: list the fixes applied."),
        click.option("--force-exclude", is_flag=True,
                     help="Skip files named on the command line that a folder walk would skip (pre-commit, editors)."),
        click.option("--stdin-filename", metavar="PATH",
                     help="Read the source from standard input (path `-`) as if it were PATH (its config applies)."),
        # configuration (fsdp_unpatch/config.py): flags win over [tool.fsdp-unpatch]
        click.option("--config", "config", metavar="FILE", type=click.Path(dir_okay=False),
                     help="Read the settings from FILE instead of the nearest pyproject.toml."),
        click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
        click.option("--extend-select", multiple=True, metavar="CODES", help="Rule codes or prefixes to add."),
        click.option("--exclude", multiple=True, metavar="PATTERN",
                     help="Patterns to skip (replaces the configured and default ones)."),
        click.option("--extend-exclude", multiple=True, metavar="PATTERN", help="Patterns to skip, in addition."),
        click.option("--respect-gitignore/--no-respect-gitignore", default=None,
                     help="Skip files .gitignore names (default: yes)."),
        click.option("--statistics", is_flag=True, help="Count findings per rule and per target instead of listing them."),
        # speed (README, Performance)
        click.option("--jobs", "-j", type=click.IntRange(min=1), metavar="N",
                     help="Worker processes for parsing (default: the number of CPUs; used only when it pays)."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache (.fsdp_unpatch_cache/)."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@dataclass(frozen=True)
class Request:
    """What `check` or `fix` was asked to do, as click parsed it."""

    paths: tuple[str, ...]
    fix: bool
    diff: bool = False
    unsafe_fixes: bool = False
    exit_non_zero_on_fix: bool = False
    output_format: str = "full"
    target_torch: Optional[str] = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: Optional[bool] = None
    force_exclude: bool = False
    config: Optional[str] = None
    isolated: bool = False
    show_source: bool = True
    show_fixes: bool = False
    statistics: bool = False
    no_color: bool = False
    quiet: bool = False
    exit_zero: bool = False
    stdin_filename: Optional[str] = None
    jobs: Optional[int] = None
    no_cache: bool = False

    @classmethod
    def from_options(cls, **options) -> "Request":
        return cls(**{name: tuple(value) if isinstance(value, list) else value for name, value in options.items()})


def _execute(request: Request) -> int:
    from fsdp_unpatch.sourcefile import termination_as_interrupt

    received: list[str] = []
    try:
        with termination_as_interrupt() as received:
            status, result = _run_and_report(request)
    except BaseException as error:
        if not received and not isinstance(error, KeyboardInterrupt):
            raise
        # A group of files being written holds these signals until it is done; before that its temporaries
        # are removed (transaction.py): no file is half written, no group half fixed.
        done = ("; every file is either wholly fixed or untouched, and so is every group of linked files"
                if request.fix and not request.diff else "")
        why = f" ({received[-1]})" if received and received[-1] != "SIGINT" else ""
        click.echo(f"fsdp-unpatch: interrupted{why}{done}", err=True)
        return EXIT_INTERRUPTED
    if status == EXIT_ERROR or result is None:
        return status
    if request.exit_zero:
        return EXIT_CLEAN
    if request.exit_non_zero_on_fix and result.changed and not request.diff:
        return EXIT_FINDINGS
    return status


def _run_and_report(request: Request):
    """Run and print the report; returns the exit status and the run's result (None after a usage error)."""
    # Nothing here loads libcst: a run whose files the prefilter rejects never needs it.
    from fsdp_unpatch.batch import default_jobs, run
    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.discovery import MissingPath, discover
    from fsdp_unpatch.options import Options
    from fsdp_unpatch.reporting import ReportContext, formatter
    from fsdp_unpatch.results import RunOptions
    from fsdp_unpatch.config import Flags, settings_for
    from fsdp_unpatch.settings import SettingsError
    from fsdp_unpatch.versions import target_torch as choose_torch

    started = time.perf_counter()
    catalog = load_catalog()
    paths, fix, diff, output_format = request.paths, request.fix, request.diff, request.output_format
    stdin_filename, quiet, show_fixes = request.stdin_filename, request.quiet, request.show_fixes
    try:
        flags = Flags(
            select=request.select, ignore=request.ignore, extend_select=request.extend_select,
            exclude=request.exclude, extend_exclude=request.extend_exclude, target_torch=request.target_torch,
            respect_gitignore=request.respect_gitignore, force_exclude=request.force_exclude,
        )
        settings = settings_for([stdin_filename] if stdin_filename else list(paths), flags, catalog,
                                request.config, request.isolated)
        force_exclude = settings.force_exclude
        version, origin = choose_torch(settings.target_torch, catalog.newest_torch)
        if origin == "option" and not request.target_torch:
            origin = "configuration"  # `target-torch` in [tool.fsdp-unpatch], not --target-torch
    except (SettingsError, ValueError) as error:
        click.echo(f"fsdp-unpatch: error: {error}", err=True)
        return EXIT_ERROR, None
    from_stdin = "-" in paths
    if from_stdin and len(paths) > 1:
        click.echo("fsdp-unpatch: error: `-` (standard input) cannot be combined with other paths", err=True)
        return EXIT_ERROR, None
    if stdin_filename is not None and not from_stdin:
        click.echo("fsdp-unpatch: error: --stdin-filename needs the path `-`", err=True)
        return EXIT_ERROR, None
    # A path that does not exist is an input error like an unreadable file: named, and the others still run.
    missing = [p for p in paths if p != "-" and not os.path.lexists(p)]
    for path in missing:
        click.echo(f"fsdp-unpatch: error: {path}: no such file or directory", err=True)
    if missing and len(missing) == len(paths):
        return EXIT_ERROR, None
    paths = [p for p in paths if p not in missing]
    stdin_data = sys.stdin.buffer.read() if from_stdin else b""
    try:
        candidates = (
            stdin_candidates(stdin_data, stdin_filename, force_exclude, settings.exclusion()) if from_stdin
            else list(discover(paths or (".",), force_exclude=force_exclude, exclusion=settings.exclusion()))
        )
    except MissingPath as error:
        click.echo(f"fsdp-unpatch: error: {error}: no such file or directory", err=True)
        return EXIT_ERROR, None
    options = RunOptions(
        analysis=Options(target_torch=version, keep=settings.keep),
        fix=fix,
        write=not diff and not from_stdin,
        unsafe_fixes=request.unsafe_fixes,
        selected=settings.is_selected,
        replacements=output_format in NEEDS_REPLACEMENTS or (show_fixes and not fix),
        project_root=None if from_stdin else partial_project(paths or (".",)),
        covered=tuple(paths),
    )
    discovered = candidates
    if show_progress(sys.stderr, os.environ, output_format, quiet, len(candidates)):
        from fsdp_unpatch.progress import tracked

        candidates = tracked(candidates)  # an iterator: `fix` analyses `discovered` again, not this
    cache = None
    if not fix and not from_stdin and not request.no_cache:
        from fsdp_unpatch.cache import Cache, describe, outside_digest, project_root

        cache = Cache(project_root(paths or (".",)), describe(settings, options),
                      outside=outside_digest(options.project_root, options.covered))
        if cache.problem is not None and not quiet:
            click.echo(f"fsdp-unpatch: warning: {cache.problem}", err=True)
    from fsdp_unpatch.sourcefile import at_checkpoints

    with at_checkpoints():  # signals stop the run between files and between groups, never inside libcst
        result = run(candidates, catalog, options, jobs=request.jobs or default_jobs(), cache=cache)
        if fix and options.write and result.changed:
            result = _analysed_again(request, result, discovered, catalog, settings, options)
    color = not request.no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()
    context = ReportContext(
        catalog=catalog, fix_mode=fix, show_source=request.show_source, color=color,
        target_torch=str(version), target_torch_origin=origin, elapsed=time.perf_counter() - started,
        quiet=quiet, show_fixes=show_fixes,
    )
    if from_stdin and fix and not diff:
        # An editor's buffer: the fixed source (or the buffer unchanged) on stdout, the report on stderr.
        fixed = result.files[0].fixed if result.files else None
        sys.stdout.buffer.write(fixed if fixed is not None else stdin_data)
        sys.stdout.flush()
        sys.stderr.write(formatter(output_format)(result, replace(context, color=False)))
    elif diff:
        sys.stdout.flush()
        for changed in result.changed:
            try:
                mode = os.stat(changed.display).st_mode  # `deleted file mode` for git
            except OSError:
                mode = 0o100644
            sys.stdout.buffer.write(changed.diff(mode))
        sys.stdout.flush()
        if output_format == "full":
            from fsdp_unpatch.reporting.text import summary

            if not quiet:
                click.echo(summary(result, context), err=True)
        else:
            sys.stderr.write(formatter(output_format)(result, context))
    elif request.statistics:
        from fsdp_unpatch.reporting.statistics import statistics_report

        sys.stdout.write(statistics_report(result, context, output_format))
    else:
        sys.stdout.write(formatter(output_format)(result, context))
    remaining = result.remaining
    if missing or any(f.category == "error" for f in remaining):
        return EXIT_ERROR, result
    if diff:
        return (EXIT_FINDINGS if result.changed else EXIT_CLEAN), result
    if any(f.category in ("remove", "review") for f in remaining):
        return EXIT_FINDINGS, result
    return EXIT_CLEAN, result


def _analysed_again(request: Request, result, candidates, catalog, settings, options):
    """After a fix was written, the tree as `check` sees it now (README, Safety: "What fix reports is true").

    The fixed files get new line numbers, and what the fix deleted is gone; unchanged files come from the
    cache when there is one, so this costs about one analysis of the changed files.
    """
    from fsdp_unpatch.batch import default_jobs, run
    from fsdp_unpatch.reporting import NEEDS_REPLACEMENTS

    deleted = {r.display for r in result.files if r.deleted}
    checking = replace(options, fix=False, write=True,
                       replacements=request.output_format in NEEDS_REPLACEMENTS)
    cache = None
    if not request.no_cache:
        from fsdp_unpatch.cache import Cache, describe, outside_digest, project_root

        cache = Cache(project_root(request.paths or (".",)), describe(settings, checking),
                      outside=outside_digest(checking.project_root, checking.covered))
    fresh = run([c for c in candidates if c.display not in deleted], catalog, checking,
                jobs=request.jobs or default_jobs(), cache=cache)
    return result.after_fix(fresh)


# A progress bar only pays off on long runs; below this many files it would only flicker.
PROGRESS_MIN_FILES = 50


def show_progress(stream, environ, output_format: str, quiet: bool, files: int) -> bool:
    """A progress bar on standard error: for people at a terminal, never for pipes, CI or programs."""
    return (
        files >= PROGRESS_MIN_FILES
        and not quiet
        and output_format not in MACHINE_FORMATS
        and not environ.get("CI")
        and stream.isatty()
    )


def partial_project(paths: Sequence[str]) -> Optional[str]:
    """The project root when the run covers only part of the project; None when it covers all of it or
    there is no project (no `pyproject.toml` or `.git` above the paths) to protect."""
    from fsdp_unpatch.discovery import enclosing_project

    root = enclosing_project(os.path.realpath(paths[0]))
    if root is None or any(os.path.realpath(p) == str(root) for p in paths):
        return None
    return str(root)


def stdin_candidates(data: bytes, stdin_filename: Optional[str], force_exclude: bool, exclusion=None) -> list:
    """The editor's buffer under the name (and config) of `stdin_filename`; none if that name is excluded."""
    from pathlib import Path

    from fsdp_unpatch.discovery import Candidate, force_excluded

    if force_exclude and stdin_filename is not None and (
        exclusion.excluded_anywhere(stdin_filename) if exclusion is not None else force_excluded(stdin_filename)
    ):
        return []
    return [Candidate(Path(stdin_filename or "stdin.py"), stdin_filename or "-", explicit=True, data=data)]


@click.command()
@_common
def check(**options) -> None:
    """Report FSDP2 monkey-patches under PATHS (default: the current folder)."""
    sys.exit(_execute(Request.from_options(fix=False, **options)))


@click.command()
@_common
@click.option("--diff", is_flag=True, help="Print the changes as a unified diff and write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that change what a test suite checks.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when the fix changed a file, even if nothing remains.")
def fix(**options) -> None:
    """Remove the overrides native FSDP2 now covers, in place (`--diff` to preview)."""
    sys.exit(_execute(Request.from_options(fix=True, **options)))
