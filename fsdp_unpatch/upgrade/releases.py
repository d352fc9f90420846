"""Every FSDP2 function and method of every known torch release.

The bundled data (``data/upstream_releases.json``, written and checked by ``scripts/gen_fingerprints.py``)
holds, deduplicated across releases, the text of each module-level function and each method of a top-level
class of the FSDP2 package (``ast.unparse``: no comments, no docstrings), and each module's top-level names.
Releases learnt with ``fsdp-unpatch catalog add`` (``upgrade/store.py``) add to it. Only the commands that
compare releases load it (``upgrade``): ``check`` never pays for it.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional

from fsdp_unpatch.fingerprint.upstream import version_key

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "upstream_releases.json"
FORMAT = 1
FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)


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
            raise BadReleaseData(f"{where}: not FSDP2 release data of format {FORMAT}")
        bodies, name_sets = data["bodies"], data["names"]
        out = []
        for version in data["releases"]:
            functions = {f: bodies[vs[version]] for f, vs in data["functions"].items() if version in vs}
            names = {m: frozenset(name_sets[vs[version]]) for m, vs in data["modules"].items() if version in vs}
            if not all(isinstance(t, str) for t in functions.values()):
                raise BadReleaseData(f"{where}: a function text is not a string")
            out.append(Release(str(version), functions, names, origin))
        return out
    except (KeyError, TypeError, AttributeError) as error:
        raise BadReleaseData(f"{where}: malformed FSDP2 release data ({type(error).__name__}: {error})") from None


def bundled() -> list[Release]:
    """The releases shipped with the tool (loaded on first use only)."""
    from fsdp_unpatch.data import read_data

    return from_json(read_data(DATA_PATH), "bundled", str(DATA_PATH))


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
