"""Every FSDP2 function and method of every known torch release.

The bundled data (``data/upstream_releases.json``, written and checked by ``scripts/gen_fingerprints.py``)
holds, deduplicated across releases, the text of each module-level function and each method of a top-level
class of the FSDP2 package (``ast.unparse``: no comments, no docstrings), and each module's top-level names.
Releases learnt with ``fsdp-unpatch catalog add`` (``upgrade/store.py``, files listed by ``catalog/learnt.py``)
add to it. It is loaded when a run compares releases: ``upgrade``, and a ``check`` that finds an override of a
target the proofs do not cover (its release verdict); a clean ``check`` never pays for it.
"""

from __future__ import annotations

import ast
import copy
import difflib
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional

from fsdp_unpatch.catalog import learnt
from fsdp_unpatch.catalog.learnt import version_key
from fsdp_unpatch.i18n import Phrase

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "upstream_releases.json"
FORMAT = 1
FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
# Below this share of equal statements a copy is its own code, not a copy of a release.
CLOSE_ENOUGH = 0.6


class BadReleaseData(ValueError):
    """A release data file that cannot be used; the message names the file."""


@dataclass(frozen=True)
class Release:
    """One torch release's FSDP2: function id -> text, module -> its top-level names, and where it came from."""

    version: str
    functions: Mapping[str, str]
    names: Mapping[str, frozenset[str]]
    origin: str  # "bundled" or the file of the user catalog

    def attributes_set(self, cls: str) -> frozenset[str]:
        """Every `self.<name>` a method of `cls` assigns, and the names its methods define."""
        out: set[str] = set()
        prefix = f".{cls}."
        for function_id, text in self.functions.items():
            if prefix not in f".{function_id}":
                continue
            out.add(function_id.rsplit(".", 1)[1])
            for node in ast.walk(ast.parse(text)):
                targets: list[ast.expr] = []
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for sub in ast.walk(target):
                        if (
                            isinstance(sub, ast.Attribute)
                            and isinstance(sub.value, ast.Name)
                            and sub.value.id == "self"
                        ):
                            out.add(sub.attr)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                    if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                        out.add(str(node.args[1].value))
        return frozenset(out)


# ---------------------------------------------------------------------------------------------
# Reading an FSDP2 package directory
# ---------------------------------------------------------------------------------------------


def _without_docstring(node: ast.AST) -> ast.AST:
    body = getattr(node, "body", None)
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        node = copy.copy(node)
        node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return node


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (*FUNCTION_NODES, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else (node.target,):
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
    return names


def _methods(cls: ast.ClassDef, classes: Mapping[str, ast.ClassDef], seen: frozenset = frozenset()) -> dict:
    """name -> method of `cls`, with those it inherits from classes of the same module (as the attribute
    lookup finds them: its own first, then its bases in order)."""
    found: dict = {}
    for item in cls.body:
        if isinstance(item, FUNCTION_NODES):
            found.setdefault(item.name, item)
    for base in cls.bases:
        name = base.id if isinstance(base, ast.Name) else None
        if name is not None and name in classes and name not in seen and name != cls.name:
            for method, item in _methods(classes[name], classes, seen | {cls.name}).items():
                found.setdefault(method, item)
    return found


def read_package(root: Path) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(function id -> text, module -> sorted top-level names) of an FSDP2 package directory.

    Ids as the upstream data's targets: ``<module>.<function>`` and ``<module>.<Class>.<method>``."""
    functions: dict[str, str] = {}
    names: dict[str, list[str]] = {}
    for path in sorted(Path(root).glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = path.stem
        names[module] = sorted(_top_level_names(tree))
        classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        for node in tree.body:
            if isinstance(node, FUNCTION_NODES):
                functions[f"{module}.{node.name}"] = ast.unparse(_without_docstring(node)) + "\n"
            elif isinstance(node, ast.ClassDef):
                for name, item in _methods(node, classes).items():
                    functions[f"{module}.{node.name}.{name}"] = ast.unparse(_without_docstring(item)) + "\n"
    return functions, names


def _digest(value: object) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()[:12]


def to_json(releases: Mapping[str, tuple[dict[str, str], dict[str, list[str]]]], generated_from: str) -> dict:
    """The data file: each text and each name list stored once, releases point at them by digest."""
    bodies: dict[str, str] = {}
    name_sets: dict[str, list[str]] = {}
    functions: dict[str, dict[str, str]] = {}
    modules: dict[str, dict[str, str]] = {}
    versions = sorted(releases, key=version_key)
    for version in versions:
        found, names = releases[version]
        for function_id in sorted(found):
            key = _digest(found[function_id])
            bodies[key] = found[function_id]
            functions.setdefault(function_id, {})[version] = key
        for module in sorted(names):
            key = _digest(names[module])
            name_sets[key] = names[module]
            modules.setdefault(module, {})[version] = key
    return {
        "format": FORMAT,
        "generated_from": generated_from,
        "releases": versions,
        "functions": dict(sorted(functions.items())),
        "modules": dict(sorted(modules.items())),
        "bodies": dict(sorted(bodies.items())),
        "names": dict(sorted(name_sets.items())),
    }


def from_json(data: object, origin: str, where: str) -> list[Release]:
    """The releases of a data file; BadReleaseData naming `where` when it is not one."""
    try:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BadReleaseData(
                Phrase("{where}: not FSDP2 release data of format {format}", where=where, format=FORMAT)
            )
        bodies, name_sets = data["bodies"], data["names"]
        out = []
        for version in data["releases"]:
            functions = {f: bodies[vs[version]] for f, vs in data["functions"].items() if version in vs}
            names = {m: frozenset(name_sets[vs[version]]) for m, vs in data["modules"].items() if version in vs}
            if not all(isinstance(t, str) for t in functions.values()):
                raise BadReleaseData(Phrase("{where}: a function text is not a string", where=where))
            out.append(Release(str(version), functions, names, origin))
        return out
    except (KeyError, TypeError, AttributeError) as error:
        raise BadReleaseData(
            Phrase(
                "{where}: malformed FSDP2 release data ({kind}: {error})",
                where=where,
                kind=type(error).__name__,
                error=str(error),
            )
        ) from None


def bundled() -> list[Release]:
    """The releases shipped with the tool (loaded on first use only)."""
    from fsdp_unpatch.data import read_data

    return from_json(read_data(DATA_PATH), "bundled", str(DATA_PATH))


def learnt_releases(folder: Optional[Path] = None) -> tuple[list[Release], list[str]]:
    """The releases of the user catalog, and an error per file that cannot be used (naming the file)."""
    releases: list[Release] = []
    errors: list[str] = []
    for _, path in learnt.files(folder):
        try:
            releases.extend(from_json(learnt.read(path), str(path), str(path)))
        except BadReleaseData as error:
            errors.append(error.args[0] if isinstance(error.args[0], Phrase) else str(error))
        except (OSError, ValueError) as error:  # UnicodeDecodeError and json.JSONDecodeError are ValueErrors
            errors.append(Phrase("{path}: cannot read the release data ({error})", path=str(path), error=str(error)))
    return releases, errors


def all_releases(extra: Iterable[Release] = ()) -> dict[str, Release]:
    """version -> release, bundled first, learnt ones on top (a learnt release replaces a bundled one)."""
    out = {r.version: r for r in bundled()}
    for release in extra:
        out[release.version] = release
    return dict(sorted(out.items(), key=lambda item: version_key(item[0])))


def pick(releases: Mapping[str, Release], wanted: str) -> Optional[Release]:
    """The release for `wanted`: that exact version, else the newest patch release of that minor."""
    if wanted in releases:
        return releases[wanted]
    minor = version_key(wanted)[:2]
    same = [v for v in releases if version_key(v)[:2] == minor]
    return releases[max(same, key=version_key)] if same else None


def newest_at_or_below(releases: Mapping[str, Release], wanted: str) -> Optional[Release]:
    """`pick`, else (a release newer than every known one) the newest known release."""
    found = pick(releases, wanted)
    if found is None and releases and version_key(wanted)[:2] > version_key(max(releases, key=version_key))[:2]:
        return releases[max(releases, key=version_key)]
    return found


# ---------------------------------------------------------------------------------------------
# Comparing a body with the releases
# ---------------------------------------------------------------------------------------------


def function_node(text: str) -> ast.FunctionDef:
    node = ast.parse(text).body[0]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return node  # type: ignore[return-value]


def statements(text: str) -> list[str]:
    """The body of a function as one line per statement (nested blocks flattened, each as its own line)."""
    return list(_statements(text))


@functools.lru_cache(maxsize=2048)
def _statements(text: str) -> tuple[str, ...]:
    out: list[str] = []

    def visit(body: list, depth: int) -> None:
        for statement in body:
            head = ast.unparse(statement).splitlines()[0]
            out.append(("  " * depth) + head)
            for name in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(statement, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], (ast.stmt, ast.excepthandler)):
                    visit(inner, depth + 1)

    visit(function_node(text).body, 0)
    return tuple(out)


def statement_changes(old: str, new: str) -> tuple[list[str], list[str]]:
    """(statements only `old` has, statements only `new` has), in order."""
    a, b = statements(old), statements(new)
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            removed.extend(s.strip() for s in a[i1:i2])
        if tag in ("replace", "insert"):
            added.extend(s.strip() for s in b[j1:j2])
    return removed, added


def short(statement: str, width: int = 70) -> str:
    return statement if len(statement) <= width else statement[: width - 1] + "…"


def named_changes(removed: list[str], added: list[str], shown: int = 3) -> str:
    """`+ a; + b; - c (and 2 more)`: what a newer text adds (+) and drops (-), three of each at most (a `Phrase`
    when some are left out: the count's words are translated where it is printed)."""
    named = "; ".join(f"+ {short(s)}" for s in added[:shown]) + ("; " if added and removed else "")
    named += "; ".join(f"- {short(s)}" for s in removed[:shown])
    more = len(added) + len(removed) - min(shown, len(added)) - min(shown, len(removed))
    return Phrase("{named} (and {more} more)", named=named, more=more) if more > 0 else named


def closest_release(override: ast.FunctionDef | ast.AsyncFunctionDef, target: str, releases: Mapping[str, Release]):
    """The release whose text of `target` is nearest the override's body (the newest on a tie); None when no
    release shares at least CLOSE_ENOUGH of its statements."""
    mine = statements(ast.unparse(override))
    best, best_ratio = None, CLOSE_ENOUGH
    for version, release in releases.items():  # oldest first
        text = release.functions.get(target)
        if text is None:
            continue
        ratio = difflib.SequenceMatcher(a=mine, b=statements(text), autojunk=False).ratio()
        if ratio >= best_ratio:
            best, best_ratio = version, ratio
    return best


def same_text(releases: Mapping[str, Release], target: str, version: str) -> list[str]:
    """The releases (oldest first) whose text of `target` is the one `version` has."""
    text = releases[version].functions.get(target)
    return [v for v, release in releases.items() if text is not None and release.functions.get(target) == text]


# ---------------------------------------------------------------------------------------------
# The release verdict of a copy of a target the proofs do not cover (`check`)
# ---------------------------------------------------------------------------------------------

# Statements named in a verdict's one line (of each kind); the detail has them all.
SHOWN = 3


@dataclass(frozen=True)
class ReleaseVerdict:
    """A replacement's body against every known release of the target it overrides."""

    wraps: bool  # it calls the original: it is a wrapper, not a copy (nothing below is set)
    closest: tuple[str, ...] = ()  # the releases whose text is the nearest to the body, oldest first; (): none is
    judged: str = ""  # the release of the target torch it is judged against ("2.13.0"); "": none is known
    has_target: bool = True  # the judged release has the target at all
    added: tuple[str, ...] = ()  # statements the judged release has and the closest has not: what the copy drops
    removed: tuple[str, ...] = ()  # statements the closest has and the judged release has not
    diff: str = ""  # the closest release's text -> the judged release's, unified

    @property
    def still_has(self) -> bool:
        """The judged release's text is the one the body is closest to."""
        return self.judged in self.closest

    @property
    def newer(self) -> bool:
        """The body is closest to releases newer than the judged one."""
        return bool(self.closest) and version_key(self.closest[0]) > version_key(self.judged)

    @property
    def closest_text(self) -> str:
        """ "2.10.0" or "2.10.0-2.13.0"."""
        return self.closest[0] if len(self.closest) == 1 else f"{self.closest[0]}-{self.closest[-1]}"


def known_releases() -> dict[str, Release]:
    """Every release known now: bundled, and learnt (the user catalog's files as they are now)."""
    return _known_releases(learnt.state())


@functools.cache
def _known_releases(state: tuple) -> dict[str, Release]:
    return all_releases(learnt_releases()[0] if state else ())


def _parsed(source: str) -> Optional[ast.FunctionDef | ast.AsyncFunctionDef]:
    import textwrap
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return next((n for n in tree.body if isinstance(n, FUNCTION_NODES)), None)


def release_verdict(
    source: str, target: str, target_torch: str, original_names: frozenset[str] = frozenset()
) -> Optional[ReleaseVerdict]:
    """The verdict of a replacement function (`source`) of `target` (a release data id) for a run on
    `target_torch` ("2.13"; a release newer than every known one is judged as the newest); None when no
    known release has the target, or the function cannot be read."""
    from fsdp_unpatch.fingerprint.compare import calls_original

    releases = known_releases()
    if not any(target in release.functions for release in releases.values()):
        return None
    node = _parsed(source)
    if node is None:
        return None
    if calls_original(ast.unparse(node), target, original_names):
        return ReleaseVerdict(wraps=True)
    judged = newest_at_or_below(releases, target_torch)
    version = closest_release(node, target, releases)
    closest = tuple(same_text(releases, target, version)) if version is not None else ()
    if judged is None:
        return ReleaseVerdict(False, closest)
    judged_text = judged.functions.get(target)
    if judged_text is None:
        return ReleaseVerdict(False, closest, judged.version, has_target=False)
    if not closest or judged.version in closest:
        return ReleaseVerdict(False, closest, judged.version)
    closest_text = releases[closest[-1]].functions[target]
    removed, added = statement_changes(closest_text, judged_text)
    lines = difflib.unified_diff(
        closest_text.splitlines(),
        judged_text.splitlines(),
        f"torch {closest[-1]} {target.rsplit('.', 1)[-1]}",
        f"torch {judged.version} {target.rsplit('.', 1)[-1]}",
        n=1,
        lineterm="",
    )
    return ReleaseVerdict(False, closest, judged.version, True, tuple(added), tuple(removed), "\n".join(lines))
