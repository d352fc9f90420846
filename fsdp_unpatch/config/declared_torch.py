"""The torch a project declares, read from its files at the project root; nothing is executed.

Read: `pyproject.toml` (`[project]` dependencies and optional dependencies), `requirements*.txt` (with their
`-r` / `-c` includes), `setup.cfg` (`install_requires`, `extras_require`), `setup.py` (literal
`install_requires=[...]` and `extras_require={...}`, read with `ast`). A `torch-npu` requirement counts as
torch of the same minor release (torch-npu X.Y runs on torch X.Y); so does torch-npu's own version
(`torch_npu/version.py`, else `version.txt`), which alone decides for torch-npu itself.

A declaration allows a set of torch minor releases. The lines of one list hold together (an install meets
them all); separate lists (an extra, another requirements file, another file) and lines under different
environment markers are alternatives: the project may run on any release one of them allows. A requirement
without a version (`torch`) declares nothing.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence

from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.files.regular import read_regular
from fsdp_unpatch.i18n import gettext as _
from fsdp_unpatch.lazy_re import LazyPattern

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

# packaging (about 10 ms to import: its markers bring in sysconfig, subprocess and logging), the TOML parser
# and configparser are imported where a file that needs them is read: a project that declares its torch in
# `torch_npu/version.py`, or names no torch in its requirements, never loads them (`tests/test_startup_imports.py`).
TORCH_NAMES = ("torch", "torch-npu")
_NAME = LazyPattern(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_INCLUDE = LazyPattern(r"^(?:-r|--requirement|-c|--constraint)(?:\s*=?\s*)(\S+)")
_COMMENT = LazyPattern(r"(^|\s)#.*$")
_OPTION = LazyPattern(r"\s+--?[A-Za-z]")  # per-requirement options (`--hash=...`) follow the requirement


@dataclass(frozen=True)
class Line:
    """One requirement on torch (or torch-npu), where it is written and the releases it allows."""

    where: str  # "requirements.txt:3"
    text: str  # as written: "torch==2.7.1"
    marker: str  # its environment marker, "" without one
    releases: frozenset[Version]
    constraint: bool = False  # from a `-c` constraints file


@dataclass(frozen=True)
class Declared:
    releases: frozenset[Version]  # among the releases asked about
    lines: tuple[Line, ...]  # the requirements that decided

    @property
    def origin(self) -> str:
        """ "pyproject.toml: torch==2.7.1" (several files: "; " between them)."""
        by_file: dict[str, list[str]] = {}
        for line in self.lines:
            by_file.setdefault(line.where.rsplit(":", 1)[0], []).append(line.text)
        return "; ".join(f"{path}: {', '.join(dict.fromkeys(texts))}" for path, texts in by_file.items())

    @property
    def where(self) -> str:
        return ", ".join(dict.fromkeys(line.where for line in self.lines))

    @property
    def texts(self) -> str:
        return ", ".join(f"`{text}`" for text in dict.fromkeys(line.text for line in self.lines))


def allowed(specifier: SpecifierSet, releases: Iterable[Version]) -> frozenset[Version]:
    """The minor releases that hold a version the specifier allows. Tried: X.Y.0 to X.Y.9, each version the
    specifier names and the micro release after it (an exclusive bound like `>2.7.1` still allows 2.7.2)."""
    from packaging.version import InvalidVersion
    from packaging.version import Version as PackageVersion

    named = []
    for clause in specifier:
        try:
            named.append(PackageVersion(clause.version.removesuffix(".*")))
        except InvalidVersion:  # `===` may name anything
            continue
    out = set()
    for release in releases:
        candidates = {f"{release}.{micro}" for micro in range(10)}
        for version in named:
            if tuple(version.release[:2]) == (release.major, release.minor):
                micro = version.release[2] if len(version.release) > 2 else 0
                candidates |= {str(version), f"{release}.{micro + 1}"}
        if any(specifier.contains(c, prereleases=True) for c in candidates):
            out.add(release)
    return frozenset(out)


class Reader:
    """Reads one project's declarations; `problems` collects what could not be read (file and line)."""

    def __init__(self, root: Path, releases: Sequence[Version]):
        self.root = root
        self.releases = tuple(releases)
        self.problems: list[str] = []

    def declared(self) -> Optional[Declared]:
        own = self.torch_npu_version()
        if own is not None:
            return Declared(own.releases, (own,))
        found = [
            d
            for d in (self.pyproject(), *self.requirements_files(), self.setup_cfg(), self.setup_py())
            if d is not None
        ]
        if not found:
            return None
        usable = [d for d in found if d.releases]
        for unusable in found if usable else ():  # a source that allows nothing is a mistake, not a choice
            if not unusable.releases:
                self.problems.append(
                    _("{where}: {texts} allows no torch release the catalog knows; it is not used").format(
                        where=unusable.where, texts=unusable.texts
                    )
                )
        found = usable or found
        return Declared(frozenset().union(*(d.releases for d in found)), tuple(x for d in found for x in d.lines))

    # one requirement, one list ----------------------------------------------------------------------------
    def line(self, text: str, where: str) -> Optional[Line]:
        """The requirement if it names torch or torch-npu with a version; a problem if it cannot be read."""
        name = _NAME.match(text)
        if name is None or not _names_torch(name.group(1)):
            return None
        from packaging.requirements import InvalidRequirement, Requirement
        from packaging.utils import canonicalize_name

        try:
            requirement = Requirement(text)
        except InvalidRequirement as error:
            why = str(error).splitlines()[0]  # packaging adds the text and a caret below
            self.problems.append(
                _("{where}: cannot read the requirement `{text}` ({why}); it is not used").format(
                    where=where, text=text, why=why
                )
            )
            return None
        if canonicalize_name(requirement.name) not in TORCH_NAMES or not requirement.specifier:
            return None
        marker = str(requirement.marker) if requirement.marker is not None else ""
        return Line(where, " ".join(text.split()), marker, allowed(requirement.specifier, self.releases))

    @staticmethod
    def together(lines: Sequence[Line]) -> Optional[Declared]:
        """One list. Each environment marker of its requirements is an install: the unmarked lines and the
        lines under that marker all apply there. A constraint (`-c`) narrows an install but makes none."""
        if not lines:
            return None
        required = [x for x in lines if not x.constraint] or list(lines)
        groups = [
            [x for x in lines if x.marker in ("", marker)] for marker in dict.fromkeys(x.marker for x in required)
        ]
        releases = frozenset().union(*(frozenset.intersection(*(x.releases for x in g)) for g in groups))
        return Declared(releases, tuple(dict.fromkeys(x for g in groups for x in g)))

    def alternatives(self, core: Sequence[Line], extras: Iterable[Sequence[Line]]) -> Optional[Declared]:
        """A package's own requirements, else any of its extras (an install with the extra adds it)."""
        if core:
            return self.together(core)
        found = [d for d in map(self.together, extras) if d is not None]
        if not found:
            return None
        return Declared(frozenset().union(*(d.releases for d in found)), tuple(x for d in found for x in d.lines))

    # the files --------------------------------------------------------------------------------------------
    def relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def text(self, path: Path) -> Optional[str]:
        try:  # a FIFO or a device found by the `requirements*.txt` glob would block or never end
            return read_regular(path).decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            self.problems.append(
                _("{path}: cannot be read ({error}); it is not used").format(path=self.relative(path), error=error)
            )
            return None

    def lines_of(self, path: Path, texts: Iterable[str], source: str) -> list[Line]:
        """Requirements found in a file's data (TOML, setup.cfg), placed by searching the file's text."""
        numbered = source.splitlines()
        out = []
        for text in texts:
            text = text.strip()
            name = _NAME.match(text)
            if name is None or not _names_torch(name.group(1)):
                continue  # searching every requirement's line made a long list quadratic
            number = next((i for i, line in enumerate(numbered, 1) if text and text in line), 0)
            found = self.line(text, f"{self.relative(path)}:{number}" if number else self.relative(path))
            if found is not None:
                out.append(found)
        return out

    def pyproject(self) -> Optional[Declared]:
        path = self.root / "pyproject.toml"
        source = self.text(path) if path.is_file() else None
        if source is None:
            return None
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover
            import tomli as tomllib
        try:
            project = tomllib.loads(source).get("project", {})
        except tomllib.TOMLDecodeError as error:
            self.problems.append(
                _("{path}: not valid TOML ({error}); its dependencies are not used").format(
                    path="pyproject.toml", error=error
                )
            )
            return None
        core = self.lines_of(path, _strings(project.get("dependencies")), source)
        optional = project.get("optional-dependencies")
        extras = [
            self.lines_of(path, _strings(values), source)
            for values in (optional.values() if isinstance(optional, dict) else ())
        ]
        return self.alternatives(core, extras)

    def requirements_files(self) -> Iterator[Declared]:
        for path in sorted(self.root.glob("requirements*.txt")):
            declared = self.together(list(self.requirements(path, set())))
            if declared is not None:
                yield declared

    def requirements(self, path: Path, seen: set[Path], constraint: bool = False) -> Iterator[Line]:
        """pip's requirements format: comments, line continuations, per-line options, `-r` / `-c` includes
        (relative to the including file; their lines count as the including file's)."""
        resolved = path.resolve()
        if resolved in seen:
            return
        seen.add(resolved)
        source = self.text(path)
        if source is None:
            return
        for number, logical in _logical_lines(source):
            text = _COMMENT.sub("", logical).strip()
            include = _INCLUDE.match(text)
            if include is not None:
                target = path.parent / include.group(1)
                if target.is_file():
                    yield from self.requirements(target, seen, constraint or text.startswith(("-c", "--c")))
                else:
                    self.problems.append(
                        _("{where}: `{text}`: no such file; it is not used").format(
                            where=f"{self.relative(path)}:{number}", text=text
                        )
                    )
                continue
            if not text or text.startswith("-"):
                continue  # pip options (`-e .`, `--index-url`)
            found = self.line(_OPTION.split(text, 1)[0].strip(), f"{self.relative(path)}:{number}")
            if found is not None:
                yield replace(found, constraint=constraint)

    def setup_cfg(self) -> Optional[Declared]:
        path = self.root / "setup.cfg"
        source = self.text(path) if path.is_file() else None
        if source is None:
            return None
        import configparser

        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(source)
        except configparser.Error as error:
            self.problems.append(
                _("{path}: cannot be read ({error}); it is not used").format(
                    path="setup.cfg", error=" ".join(str(error).split())
                )
            )
            return None
        core = self.lines_of(path, _cfg_list(parser.get("options", "install_requires", fallback="")), source)
        extras = (
            [self.lines_of(path, _cfg_list(value), source) for _option, value in parser.items("options.extras_require")]
            if parser.has_section("options.extras_require")
            else []
        )
        return self.alternatives(core, extras)

    def setup_py(self) -> Optional[Declared]:
        path = self.root / "setup.py"
        source = self.text(path) if path.is_file() else None
        if source is None:
            return None
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError) as error:
            self.problems.append(
                _("{path}: does not parse ({error}); its requirements are not used").format(
                    path="setup.py", error=error
                )
            )
            return None
        literals = {
            target.id: node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        core: list[Line] = []
        extras: list[list[Line]] = []
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            for keyword in call.keywords:
                value = (
                    literals.get(keyword.value.id, keyword.value)
                    if isinstance(keyword.value, ast.Name)
                    else keyword.value
                )
                if keyword.arg == "install_requires":
                    core += self.setup_py_lines(value)
                elif keyword.arg == "extras_require" and isinstance(value, ast.Dict):
                    extras += [self.setup_py_lines(v) for v in value.values]
        return self.alternatives(core, extras)

    def setup_py_lines(self, node: ast.AST) -> list[Line]:
        """The string literals of a literal list or tuple; anything computed is not read."""
        if not isinstance(node, (ast.List, ast.Tuple)):
            return []
        out = []
        for item in node.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                found = self.line(item.value.strip(), f"setup.py:{item.lineno}")
                if found is not None:
                    out.append(found)
        return out

    def torch_npu_version(self) -> Optional[Line]:
        """torch-npu's own version: `__version__` in torch_npu/version.py, else version.txt beside the package."""
        package = self.root / "torch_npu"
        if not package.is_dir():
            return None
        module = package / "version.py"
        if module.is_file():
            source = self.text(module)
            found = _assigned_string(source, "__version__") if source is not None else None
            if found is not None:
                literal, number = found
                if literal is not None:
                    return self.own_version(literal, f"torch_npu/version.py:{number}")
                self.problems.append(
                    _("{where}: `__version__` is computed, not a string literal; it is not used").format(
                        where=f"torch_npu/version.py:{number}"
                    )
                )
        plain = self.root / "version.txt"
        if plain.is_file():
            source = self.text(plain)
            first = next(((i, s.strip()) for i, s in enumerate((source or "").splitlines(), 1) if s.strip()), None)
            if first is not None:
                return self.own_version(first[1], f"version.txt:{first[0]}")
        return None

    def own_version(self, text: str, where: str) -> Optional[Line]:
        try:
            release = Version.parse(text)
        except ValueError:
            self.problems.append(
                _("{where}: `{text}` is not a torch-npu version; it is not used").format(where=where, text=text)
            )
            return None
        return Line(where, f"torch-npu {text}", "", frozenset({release}))


def _names_torch(name: str) -> bool:
    """Whether a requirement's name is torch or torch-npu (`packaging.utils.canonicalize_name` in `TORCH_NAMES`).
    Every other name is told apart by its first five letters, without importing packaging: a canonical name
    replaces runs of `-_.` with `-` and lowers the case, so one that begins with `torch` comes from a name
    that does, whatever its case."""
    if name[:5].lower() != "torch":
        return False
    from packaging.utils import canonicalize_name

    return canonicalize_name(name) in TORCH_NAMES


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _cfg_list(value: str) -> list[str]:
    """A setup.cfg list: one entry a line (or `;`-free comma lists on one line), comments dropped."""
    out = []
    for line in value.splitlines():
        line = _COMMENT.sub("", line).strip()
        if line:
            out.append(line)
    return out


def _logical_lines(source: str) -> Iterator[tuple[int, str]]:
    """(first physical line number, text) with backslash continuations joined."""
    pending, start = "", 0
    for number, line in enumerate(source.splitlines(), 1):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def _assigned_string(source: str, name: str) -> Optional[tuple[Optional[str], int]]:
    """The string literal a module assigns (or annotates) to `name` at its top level, and its line; None for
    the string when the value is computed."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            literal = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
            return literal, node.lineno
    return None


def declared_torch(root: Path, releases: Sequence[Version]) -> tuple[Optional[Declared], list[str]]:
    """What the project at `root` declares, among `releases`; and the problems met reading it."""
    reader = Reader(root, releases)
    return reader.declared(), reader.problems
