"""The folders a project's modules are imported from (its import roots), as its packaging files declare them.

A project's own package is found by Python under the folders on `sys.path` when the project runs: the project
folder itself (tests, scripts, `python -m`) and where its build configuration puts the packages:

- setuptools in `pyproject.toml`: `[tool.setuptools] package-dir` (`{"" = "lib"}`; `{"pkg" = "lib/pkg"}` says
  `lib` too) and `[tool.setuptools.packages.find] where`;
- setuptools in `setup.cfg`: `[options] package_dir` (`= lib`) and `[options.packages.find] where`;
- poetry: `[tool.poetry] packages = [{include = "pkg", from = "lib"}]`;
- hatch: `[tool.hatch.build.targets.wheel] packages = ["src/pkg"]` (and the same under `[tool.hatch.build]`).

With none of these, the roots are inferred as setuptools' automatic discovery does: the project folder and
its `src/` folder. A package under any other folder of the tree (a stale `build/lib/` copy that
`python setup.py build` or `pip wheel` leave behind) is never on `sys.path`: `identity.py` gives no module
name of the project's own packages to a file there. A mapping that renames a package (`{"pkg" = "source"}`)
says no root: the folder is not importable under its own name from the tree. Stdlib only (and tomli before
Python 3.11, as the configuration reads `pyproject.toml`).
"""

from __future__ import annotations

import os
import sys
from functools import partial
from typing import Any, Iterable, Iterator, Optional

from fsdp_unpatch.files.regular import read_regular


def import_roots(folder: str, names: Iterable[str]) -> set[str]:
    """The import roots of the project in `folder` (absolute), whose listing holds `names`: the folder itself,
    and the folders its `pyproject.toml` and `setup.cfg` declare, else its `src/` (absolute, normalised). A
    declared folder outside the project, or a file that cannot be read or parsed, declares nothing."""
    listed = set(names)
    declared: list[str] = []
    if "pyproject.toml" in listed:
        declared += _from_pyproject(_table(os.path.join(folder, "pyproject.toml")))
    if "setup.cfg" in listed:
        declared += _from_setup_cfg(os.path.join(folder, "setup.cfg"))
    found = {root for root in map(partial(_inside, folder), declared) if root is not None}
    return {folder, *(found or [os.path.join(folder, "src")])}


def _inside(folder: str, relative: str) -> Optional[str]:
    """`relative` (a declared folder, `/`-separated) made absolute, when it lies in `folder`."""
    if not relative or os.path.isabs(relative):
        return None if relative else folder
    root = os.path.normpath(os.path.join(folder, *relative.split("/")))
    return root if root == folder or root.startswith(folder + os.sep) else None


def _table(path: str) -> dict[str, Any]:
    try:
        text = read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    if sys.version_info >= (3, 11):  # here, not at the top: most folders of a walk have no packaging file
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _get(table: Any, *keys: str) -> Any:
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _from_pyproject(table: dict[str, Any]) -> Iterator[str]:
    setuptools = _get(table, "tool", "setuptools")
    yield from _package_dir(_get(setuptools, "package-dir"))
    yield from _strings(_get(setuptools, "packages", "find", "where"))
    for package in _get(table, "tool", "poetry", "packages") or ():
        if isinstance(package, dict) and isinstance(package.get("include"), str):
            where = package.get("from", "")
            yield where if isinstance(where, str) else ""
    for build in (_get(table, "tool", "hatch", "build"), _get(table, "tool", "hatch", "build", "targets", "wheel")):
        for package in _strings(_get(build, "packages")):
            yield package.rstrip("/").rpartition("/")[0]


def _package_dir(mapping: Any) -> Iterator[str]:
    """The roots a `package-dir` mapping says: `""`'s folder, and the folder above a package mapped to a
    folder of its own name (`{"a.b" = "src/a/b"}`: `src`)."""
    if not isinstance(mapping, dict):
        return
    for package, where in mapping.items():
        if not isinstance(package, str) or not isinstance(where, str) or where.startswith(("/", os.sep)):
            continue  # an absolute folder lies outside the project
        parts = [p for p in where.replace(os.sep, "/").split("/") if p not in ("", ".")]
        names = package.split(".") if package else []
        if len(parts) >= len(names) and parts[len(parts) - len(names) :] == names:
            yield "/".join(parts[: len(parts) - len(names)])


def _from_setup_cfg(path: str) -> Iterator[str]:
    import configparser  # only for a project that has a setup.cfg: a warm check of others never loads it

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(read_regular(path).decode("utf-8"), path)
    except (OSError, UnicodeDecodeError, configparser.Error):
        return
    if parser.has_option("options", "package_dir"):
        mapping = {}
        for line in parser.get("options", "package_dir").splitlines():
            package, equals, where = line.partition("=")
            if equals:
                mapping[package.strip()] = where.strip()
        yield from _package_dir(mapping)
    if parser.has_option("options.packages.find", "where"):
        for line in parser.get("options.packages.find", "where").replace(",", "\n").splitlines():
            if line.strip():
                yield line.strip()
