"""The configuration file: `.fsdp-unpatch.toml`, `fsdp-unpatch.toml` or `[tool.fsdp-unpatch]` in `pyproject.toml`.

Found as ruff finds `.ruff.toml`, `ruff.toml` and `pyproject.toml`: upward from the first path given (or the
current folder), the first folder holding one of them wins, and in a folder the standalone files come first
(`.fsdp-unpatch.toml`, then `fsdp-unpatch.toml`; their keys at the top level, without the table prefix; an
empty one still counts), then a `pyproject.toml` with a `[tool.fsdp-unpatch]` table. The file's folder is the
project root that relative patterns start from. `--config FILE` names the file instead: a `pyproject.toml`
(its `[tool.fsdp-unpatch]` table) or any other TOML file (its `[tool.fsdp-unpatch]` table, else its top
level); `--config KEY=VALUE` settings (`inline.py`) override the file's, and command-line flags win over both.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from fsdp_unpatch.catalog import Catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config import inline
from fsdp_unpatch.config.project import start_folder
from fsdp_unpatch.config.request import Request
from fsdp_unpatch.config.settings import Settings, SettingsError, parse_codes, parse_per_file_ignores
from fsdp_unpatch.files.regular import read_regular
from fsdp_unpatch.i18n import N_, translated
from fsdp_unpatch.i18n import gettext as _

SECTION = "fsdp-unpatch"
# the standalone files, in the order a folder's files are tried (pyproject.toml comes after them)
STANDALONE = (".fsdp-unpatch.toml", "fsdp-unpatch.toml")
# key -> what its value must be (for the error message)
KEYS = {
    "select": N_("a list of rule codes or prefixes"),
    "ignore": N_("a list of rule codes or prefixes"),
    "extend-select": N_("a list of rule codes or prefixes"),
    "per-file-ignores": N_("a table of glob = [rule codes]"),
    "exclude": N_("a list of gitwildmatch patterns"),
    "extend-exclude": N_("a list of gitwildmatch patterns"),
    "target-torch": N_('a torch version string such as "2.13"'),
    "keep": N_("a list of catalog target ids"),
    "respect-gitignore": N_("true or false"),
    "force-exclude": N_("true or false"),
    "fixable": N_("a list of rule codes or prefixes"),
    "unfixable": N_("a list of rule codes or prefixes"),
    "extend-ignore": N_("a list of rule codes or prefixes"),
    "extend-fixable": N_("a list of rule codes or prefixes"),
    "lang": N_('"en" or "zh-CN"'),
    "report-template": N_('"ascend" or "plain"'),
    "design-doc": N_("a link to the design document (a URL, on one line)"),
}
# `fix --report`'s templates (`reporting/merge_request.py`): the Ascend merge-request sections, or plain sections
REPORT_TEMPLATES = ("ascend", "plain")
CODE_LISTS = ("select", "ignore", "extend-select", "fixable", "unfixable", "extend-ignore", "extend-fixable")


@dataclass(frozen=True)
class FileConfig:
    path: Path
    values: dict[str, Any] = field(default_factory=dict)  # validated, keys as in the file

    @property
    def root(self) -> Path:
        return self.path.parent


def _section(data: dict, path: Path, explicit: bool) -> Optional[dict]:
    tool = data.get("tool")
    if isinstance(tool, dict) and SECTION in tool:
        return tool[SECTION]
    if (explicit or path.name in STANDALONE) and path.name != "pyproject.toml":
        return data
    return None


def _read(path: Path) -> dict:
    """The file's TOML; SettingsError naming the file (and line) when it cannot be read or is not TOML."""
    try:
        data = read_regular(path)  # a FIFO or a device is refused, never waited on
    except OSError as error:
        raise SettingsError(
            _("{path}: cannot read the configuration ({reason})").format(path=path, reason=error.strerror or error)
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:  # TOML is UTF-8; say where it is not
        line = data.count(b"\n", 0, error.start) + 1
        raise SettingsError(
            _("{path}: line {line}: not valid TOML (not UTF-8: byte {byte})").format(
                path=path, line=line, byte=f"{data[error.start]:#04x}"
            )
        ) from None
    if sys.version_info >= (3, 11):  # here, not at the top: a folder without pyproject.toml never needs it
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"at line (\d+)", str(error))
        line = int(found.group(1)) if found else text.count("\n") + (not text.endswith("\n"))  # the end
        raise SettingsError(
            _("{path}: line {line}: not valid TOML ({reason})").format(path=path, line=line, reason=error)
        ) from None


def find_config(paths: Sequence[str], cwd: Optional[str] = None) -> Optional[Path]:
    """The nearest standalone file or `pyproject.toml` with a `[tool.fsdp-unpatch]` table, upward from the
    first path."""
    start = start_folder(paths, cwd)  # the project's rule, links resolved (`project.py`)
    for folder in (start, *start.parents):
        for name in STANDALONE:
            if (folder / name).is_file():
                return folder / name
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            # A pyproject.toml that is not TOML (or not UTF-8) may hold our table, broken header and all:
            # like ruff, the run stops there and says which file and line (SettingsError from _read).
            data = _read(candidate)
            if _section(data, candidate, explicit=False) is not None:
                return candidate
    return None


def _must_be(where: str, key: str, value: Any) -> str:
    return _("{where} must be {what}, not {value}").format(where=where, what=_(KEYS[key]), value=repr(value))


def _strings(value: Any, key: str, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(_must_be(f"{where}: `{key}`", key, value))
    return value


def load_config(path: Path, catalog: Catalog, explicit: bool = True) -> FileConfig:
    """Read and check the configuration; any bad key or value raises SettingsError naming it and the file."""
    data = _read(path)
    section = _section(data, path, explicit)
    if section is None:
        if explicit:
            raise SettingsError(_("{path}: no [tool.{section}] table").format(path=path, section=SECTION))
        return FileConfig(path)
    if not isinstance(section, dict):
        raise SettingsError(_("{path}: [tool.{section}] must be a table").format(path=path, section=SECTION))
    table = _(" in [tool.{section}]").format(section=SECTION) if section is not data else ""
    return FileConfig(path, checked(section, str(path), table, catalog))


def checked(section: dict, source: str, table: str, catalog: Catalog) -> dict[str, Any]:
    """The settings of `section` (a file's table, or one `--config KEY=VALUE`), checked and converted;
    SettingsError naming `source` (the file, or the option), the key and the problem."""
    known = sorted(catalog.rules)
    values: dict[str, Any] = {}
    for key, value in section.items():
        where = f"{source}: `{key}`"
        if key not in KEYS:
            raise SettingsError(
                _("{path}: unknown key `{key}`{table} (known: {known})").format(
                    path=source, key=key, table=table, known=", ".join(KEYS)
                )
            )
        if key in CODE_LISTS:
            values[key] = parse_codes(_strings(value, key, source), where, known)
        elif key in ("exclude", "extend-exclude"):
            values[key] = tuple(_strings(value, key, source))
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise SettingsError(_must_be(where, key, value))
            values[key] = tuple(
                (glob, parse_codes(_strings(codes, key, source), f"{where} for {glob!r}", known))
                for glob, codes in value.items()
            )
        elif key == "target-torch":
            if not isinstance(value, str):
                raise SettingsError(_must_be(where, key, value))
            try:
                Version.parse(value)
            except ValueError as error:
                raise SettingsError(f"{where}: {translated(error)}") from None
            values[key] = value
        elif key == "lang":
            from fsdp_unpatch.i18n import LanguageError, normalise

            if not isinstance(value, str):
                raise SettingsError(_must_be(where, key, value))
            try:
                values[key] = normalise(value, where)
            except LanguageError as error:
                raise SettingsError(str(error)) from None
        elif key == "report-template":
            if value not in REPORT_TEMPLATES:
                raise SettingsError(_must_be(where, key, value))
            values[key] = value
        elif key == "design-doc":
            if not isinstance(value, str) or not value.strip() or not value.isprintable():
                raise SettingsError(_must_be(where, key, value))
            values[key] = value.strip()
        elif key == "keep":
            unknown = [t for t in _strings(value, key, source) if t not in catalog.targets]
            if unknown:
                raise SettingsError(
                    _("{where}: unknown target id {target} (see `fsdp-unpatch rules --targets`)").format(
                        where=where, target=repr(unknown[0])
                    )
                )
            values[key] = frozenset(value)
        else:  # respect-gitignore, force-exclude
            if not isinstance(value, bool):
                raise SettingsError(_must_be(where, key, value))
            values[key] = value
    return values


def resolve(
    flags: Request,
    file: Optional[FileConfig],
    catalog: Catalog,
    inline: Optional[dict] = None,
    project_root: Optional[Path] = None,
) -> Settings:
    """Command-line flags over the `--config KEY=VALUE` settings (`inline`) over the file over the defaults
    (`--select` replaces the file's selection, `--fixable` its fixable rules). Globs and patterns are relative
    to the configuration file's folder, else to `project_root` (as in ruff), else to the current folder."""
    known = sorted(catalog.rules)
    values = {**(file.values if file is not None else {}), **(inline or {})}
    select = parse_codes(flags.select, "--select", known)
    extend_select = parse_codes(flags.extend_select, "--extend-select", known)
    if not select:
        select = values.get("select", ("FSU",))
        extend_select = values.get("extend-select", ()) + extend_select
    exclude = _patterns(flags.exclude) or values.get("exclude")
    return Settings(
        select=select,
        ignore=values.get("ignore", ())
        + values.get("extend-ignore", ())
        + parse_codes(flags.ignore, "--ignore", known)
        + parse_codes(flags.extend_ignore, "--extend-ignore", known),
        extend_select=extend_select,
        per_file_ignores=(
            parse_per_file_ignores(flags.per_file_ignores, "--per-file-ignores", known)
            if flags.per_file_ignores
            else values.get("per-file-ignores", ())
        )
        + parse_per_file_ignores(flags.extend_per_file_ignores, "--extend-per-file-ignores", known),
        exclude=tuple(exclude) if exclude is not None else None,
        extend_exclude=values.get("extend-exclude", ()) + _patterns(flags.extend_exclude),
        target_torch=flags.target_torch or values.get("target-torch"),
        keep=values.get("keep", frozenset()),
        respect_gitignore=flags.respect_gitignore
        if flags.respect_gitignore is not None
        else values.get("respect-gitignore", True),
        force_exclude=flags.force_exclude or values.get("force-exclude", False),
        fixable=(parse_codes(flags.fixable, "--fixable", known) or values.get("fixable", ("FSU",)))
        + values.get("extend-fixable", ())
        + parse_codes(flags.extend_fixable, "--extend-fixable", known),
        unfixable=values.get("unfixable", ()) + parse_codes(flags.unfixable, "--unfixable", known),
        lang=values.get("lang"),
        report_template=flags.report_template or values.get("report-template"),
        design_doc=flags.design_doc or values.get("design-doc"),
        root=str(file.root) if file is not None else str(project_root or "."),
        config=str(file.path) if file is not None else None,
    )


def settings_for(paths: Sequence[str], request: Request, catalog: Catalog) -> Settings:
    """The run's settings: `--config FILE`, else the nearest configuration file (none with `--isolated`),
    under the `--config KEY=VALUE` settings."""
    named, settings = inline.split(request.config_options)
    if named is not None and request.config is not None and named != request.config:
        raise SettingsError(inline.one_file_at_most(request.config, named))
    overrides: dict[str, Any] = {}
    for value, table in settings:
        overrides.update(checked(table, inline.label(value), "", catalog))
    config = request.config or named
    if config is not None:
        file: Optional[FileConfig] = load_config(Path(config), catalog, explicit=True)
    elif request.isolated:
        file = None
    else:
        found = find_config(paths)
        file = load_config(found, catalog, explicit=False) if found is not None else None
    from fsdp_unpatch.config.project import Project

    return resolve(request, file, catalog, overrides, Project.of(list(paths)).root)


def _patterns(values: Sequence[str]) -> tuple[str, ...]:
    """`--exclude a.py,b.py` -> ("a.py", "b.py"): ruff's comma-separated lists, on the flag and repeated."""
    return tuple(p.strip() for value in values for p in value.split(",") if p.strip())
