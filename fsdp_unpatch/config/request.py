"""What a run was asked to do: by the command line (`check`, `fix`), the Python API or the flake8 plugin.

One type from the caller to the run: the request resolves to `Settings` (with the configuration file,
`config/files.py`), and the settings to the engine's `RunOptions` (`run/session.py`). Field names are the
command line's flags; None or empty means "not given": the configuration file, then the default, applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

STDIN = "-"


@dataclass(frozen=True)
class Request:
    paths: tuple[str, ...] = (".",)  # `-`: the source comes from a buffer (standard input, an editor)
    stdin_filename: Optional[str] = None  # the name the buffer is reported and configured under
    # The buffer is planned as that file, part of its project, as `check FILE` plans it (a deletion that
    # a file outside the run names is kept for now), not as a module alone (the command line's pipe)
    in_project: bool = False
    # With `in_project`: the buffer is planned with its whole project around it, as `fix .` in the project's
    # root plans that file (the language server, the Python API: their fix returns the other files' changes
    # too). Not for a pipe, whose standard output carries the buffer only: it is `fix FILE`, and a fix that
    # needs another file (outside that run) is held back, so that its output never breaks an import.
    whole_project: bool = False

    # what the run does
    fix: bool = False
    diff: bool = False  # with fix: compute the fixes, write nothing
    unsafe_fixes: bool = False
    replacements: bool = False  # attach each fix's replacements to its finding (SARIF, --show-fixes)
    no_cache: bool = False
    cache_dir: Optional[str] = None
    jobs: Optional[int] = None

    # the settings, over the configuration file
    config: Optional[str] = None  # the configuration file (the Python API's `config=`)
    # The command line's `--config` values: a configuration file or an inline `KEY = VALUE` setting each.
    config_options: tuple[str, ...] = ()
    isolated: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()  # adds to `ignore` (ruff's deprecated alias, kept for its users)
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    target_torch: Optional[str] = None
    respect_gitignore: Optional[bool] = None
    force_exclude: bool = False
    fixable: tuple[str, ...] = ()  # replaces the configured fixable rules
    unfixable: tuple[str, ...] = ()  # adds to the configured unfixable rules
    extend_fixable: tuple[str, ...] = ()  # adds to the fixable rules (configured or `--fixable`)
    ignore_noqa: bool = False  # report what noqa comments suppress
    # GLOB:CODES entries: `per_file_ignores` replaces the file's table, `extend_per_file_ignores` adds to it
    per_file_ignores: tuple[str, ...] = ()
    extend_per_file_ignores: tuple[str, ...] = ()

    # what the command line prints, and how it exits
    output_format: str = "full"
    output_file: Optional[str] = None
    extra_output: tuple[str, ...] = ()  # FORMAT:FILE, more reports of the same run
    show_source: bool = True
    show_fixes: bool = False
    show_kept: bool = False  # list keep findings in the human formats (they are always counted)
    statistics: bool = False
    color: Optional[str] = None
    no_color: bool = False
    quiet: bool = False
    exit_zero: bool = False
    exit_non_zero_on_fix: bool = False
    fix_only: bool = False
    add_noqa: bool = False
    show_settings: bool = False
    show_files: bool = False
    # the merge-request description of the fix (`reporting/merge_request.py`) and the evidence it cites
    report: Optional[str] = None
    doctor_report: Optional[str] = None
    verify_report: Optional[str] = None
    report_template: Optional[str] = None  # `--template ascend|plain` (over `report-template`)
    design_doc: Optional[str] = None  # `--design-doc URL` (over `design-doc`)

    @classmethod
    def from_options(cls, **options: Any) -> Request:
        """From click's keyword arguments (lists become tuples)."""
        values: dict[str, Any] = {name: tuple(v) if isinstance(v, list) else v for name, v in options.items()}
        if isinstance(values.get("config"), tuple):  # click's repeated `--config`: files and inline settings
            values["config_options"] = values.pop("config")
        if values.get("stdin_filename") is not None and not values.get("paths"):
            values["paths"] = (STDIN,)  # as in ruff: `--stdin-filename` alone reads standard input
        if values.get("stdin_filename") is not None:
            # An editor's pipe stands for that file in its project: what `fix PATH` writes, not a module alone
            values.setdefault("in_project", True)
        return cls(**values)

    @property
    def from_buffer(self) -> bool:
        return STDIN in self.paths

    @property
    def writes(self) -> bool:
        """Whether the fixes are written (never for a buffer, never with --diff)."""
        return self.fix and not self.diff and not self.from_buffer
