"""The upstream side of a comparison: FSDP2 functions of every supported torch release.

``data/upstream.json`` (written by ``scripts/gen_fingerprints.py`` from the released torch sources, and
checked by its ``--check``) holds, per target and release, the function's text without comments and
docstrings, the module it lives in and what its free names are bound to there; and, per target, the
callers of that target in each release with whether each runs under ``torch.no_grad``. Releases learnt with
``fsdp-unpatch catalog add`` carry the same for the targets of the file (their ``upstream`` part) and add to
it. A torch installed here that is newer than every release known is read from its ``.py`` files at run time.
torch is never imported.
"""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional, Union

from fsdp_unpatch.catalog import learnt
from fsdp_unpatch.catalog.learnt import version_key
from fsdp_unpatch.data import read_data
from fsdp_unpatch.fingerprint.normalise import dotted_name, is_library_impl, local_names
from fsdp_unpatch.fingerprint.scope import Scope, module_bindings

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "upstream.json"
FORMAT = 2

# FSDP2 package directories below a site-packages (or wheel) root, newest layout first.
FSDP2_DIRS = ("torch/distributed/fsdp/_fully_shard", "torch/distributed/_composable/fsdp")

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class UpstreamFunction:
    """One target in one torch release."""

    source: str  # the function, unparsed: no comments, no docstrings
    scope: Scope  # its module and what the free names of the function are bound to

    def to_json(self) -> dict:
        return {"source": self.source, "module": self.scope.module, "names": dict(sorted(self.scope.bindings.items()))}

    @classmethod
    def from_json(cls, entry: Mapping) -> UpstreamFunction:
        return cls(entry["source"], Scope(entry["module"], dict(entry["names"])))


def short_name(target: str) -> str:
    """The name a replacement would call to reach the original: the last part of the id."""
    parts = target.split(".")
    return parts[-1] if parts[-1] != "default" else parts[-2]


# ---------------------------------------------------------------------------------------------
# Reading torch sources
# ---------------------------------------------------------------------------------------------


def module_root(torch_parent: PathLike) -> Optional[Path]:
    """The FSDP2 package directory below a directory that contains ``torch/``."""
    base = Path(torch_parent)
    for rel in FSDP2_DIRS:
        if (base / rel / "_fsdp_collectives.py").is_file():
            return base / rel
    return None


def _package(root: Path) -> str:
    """The module name of an FSDP2 package directory."""
    return (
        "torch.distributed.fsdp._fully_shard" if root.name == "_fully_shard" else "torch.distributed._composable.fsdp"
    )


def _op_kernel(tree: ast.Module, op: str) -> Optional[ast.FunctionDef]:
    """The python kernel registered with ``torch.library.impl(lib, op, key)`` for a non-Meta key."""
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and is_library_impl(d) and len(d.args) >= 3:
                name, key = d.args[1], d.args[2]
                if (
                    isinstance(name, ast.Constant)
                    and name.value == op
                    and isinstance(key, ast.Constant)
                    and key.value != "Meta"
                ):
                    return node
    return None


def _class_method(tree: ast.Module, cls: str, method: str, seen: Optional[set] = None):
    """A method of a class of this module, looking through bases defined in the same module."""
    seen = set() if seen is None else seen
    if cls in seen:
        return None
    seen.add(cls)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method:
                    return item
            for base in node.bases:
                name = dotted_name(base)
                found = _class_method(tree, name.split(".")[-1], method, seen) if name else None
                if found is not None:
                    return found
    return None


def _parse(path: Path) -> tuple[str, ast.Module]:
    return _parse_cached(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _parse_cached(path: str, mtime: int) -> tuple[str, ast.Module]:
    """One parse per file version (the generator reads each release's modules once per target)."""
    source = Path(path).read_text(encoding="utf-8")
    return source, ast.parse(source)


def find_target(root: PathLike, target: str):
    """(function node, module tree, module file stem) of ``target`` in the FSDP2 package dir, or None.

    Target ids: ``ops.<ns>.<op>`` (the python kernel for the non-Meta dispatch keys),
    ``<module>.<function>`` or ``<module>.<Class>.<method>``.
    """
    root = Path(root)
    parts = target.split(".")
    if parts[0] == "ops":
        if len(parts) < 3:
            return None
        for path in sorted(root.glob("*.py")):
            source, tree = _parse(path)
            node = _op_kernel(tree, parts[2]) if parts[2] in source else None
            if node is not None:
                return node, tree, path.stem
        return None
    path = root / f"{parts[0]}.py"
    if len(parts) not in (2, 3) or not path.is_file():
        return None
    _, tree = _parse(path)
    if len(parts) == 2:
        for statement in tree.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == parts[1]:
                return statement, tree, path.stem
        return None
    node = _class_method(tree, parts[1], parts[2])
    return (node, tree, path.stem) if node is not None else None


def extract_target_source(root: PathLike, target: str) -> Optional[str]:
    """The exact text of ``target`` (decorators included) in an FSDP2 package directory, or None."""
    found = find_target(root, target)
    if found is None:
        return None
    node, _, stem = found
    lines = (Path(root) / f"{stem}.py").read_text(encoding="utf-8").splitlines(keepends=True)
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return "".join(lines[start - 1 : node.end_lineno])


def _free_names(fn: ast.AST) -> set[str]:
    assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
    local = local_names(fn)
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id not in local}


def upstream_function(root: PathLike, target: str) -> Optional[UpstreamFunction]:
    """``target`` as read from one FSDP2 package directory."""
    found = find_target(root, target)
    if found is None:
        return None
    node, tree, stem = found
    module = f"{_package(Path(root))}.{stem}"
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    imported = module_bindings(tree, module)
    names = {}
    for name in _free_names(node):
        if name in imported:
            names[name] = imported[name]
        elif name in defined:
            names[name] = f"{module}.{name}"
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        node = copy.copy(node)  # the parsed module is shared: change a shallow copy
        node.body = body[1:] or [ast.Pass()]
    return UpstreamFunction(ast.unparse(node) + "\n", Scope(module, names))


def _under_no_grad(stack: list[ast.AST]) -> bool:
    """Whether the innermost function on `stack` runs its code under ``torch.no_grad``."""
    for node in reversed(stack):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            if any(
                dotted_name(i.context_expr.func if isinstance(i.context_expr, ast.Call) else i.context_expr)
                in ("torch.no_grad", "no_grad")
                for i in node.items
            ):
                return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return any(
                dotted_name(d.func if isinstance(d, ast.Call) else d) in ("torch.no_grad", "no_grad")
                for d in node.decorator_list
            )
    return False


def callers(root: PathLike, target: str) -> list[tuple[str, bool]]:
    """Every FSDP2 function that calls ``target`` by its short name: (``module.function``, under no_grad)."""
    wanted = short_name(target)
    out = []
    for path in sorted(Path(root).glob("*.py")):
        _, tree = _parse(path)

        def visit(node: ast.AST, stack: list[ast.AST]) -> None:
            if isinstance(node, ast.Call):
                name = dotted_name(node.func) or ""
                if name.split(".")[-1] == wanted or name.endswith(f"{wanted}.default"):
                    owner = next(
                        (s.name for s in reversed(stack) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))),
                        "<module>",
                    )
                    out.append((f"{path.stem}.{owner}", _under_no_grad(stack)))  # noqa: B023 (walked in this iteration)
            for child in ast.iter_child_nodes(node):
                visit(child, stack + [node])

        visit(tree, [])
    return sorted(set(out))


# ---------------------------------------------------------------------------------------------
# The data file
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Upstream:
    """Every known release of every target, and the no_grad facts."""

    functions: Mapping[str, Mapping[str, UpstreamFunction]]  # target -> version -> function
    callers: Mapping[str, Mapping[str, tuple[tuple[str, bool], ...]]]  # target -> version -> callers

    def no_grad_proven(self, target: str) -> bool:
        """Every release that has the target calls it only from code running under no_grad."""
        versions = self.callers.get(target)
        if not versions or set(versions) != set(self.functions.get(target, {})):
            return False
        return all(found and all(under for _, under in found) for found in versions.values())


def _digest(entry: dict) -> str:
    return hashlib.sha1(json.dumps(entry, sort_keys=True).encode("utf-8")).hexdigest()[:12]


def to_json(upstream: Upstream, generated_from: str) -> dict:
    bodies: dict[str, dict] = {}
    targets: dict[str, dict[str, str]] = {}
    for target, versions in upstream.functions.items():
        for version in sorted(versions, key=version_key):
            entry = versions[version].to_json()
            key = _digest(entry)
            bodies[key] = entry
            targets.setdefault(target, {})[version] = key
    return {
        "format": FORMAT,
        "generated_from": generated_from,
        "targets": targets,
        "callers": {
            t: {v: [list(c) for c in found] for v, found in sorted(vs.items(), key=lambda i: version_key(i[0]))}
            for t, vs in upstream.callers.items()
        },
        "bodies": dict(sorted(bodies.items())),
    }


def from_json(data: Mapping) -> Upstream:
    if data.get("format") != FORMAT:
        raise ValueError(f"unsupported upstream data format {data.get('format')!r}")
    bodies = {key: UpstreamFunction.from_json(entry) for key, entry in data["bodies"].items()}
    functions = {t: {v: bodies[key] for v, key in vs.items()} for t, vs in data["targets"].items()}
    found = {
        t: {v: tuple((c[0], bool(c[1])) for c in cs) for v, cs in vs.items()}
        for t, vs in data.get("callers", {}).items()
    }
    return Upstream(functions, found)


def read_dirs(dirs: Mapping[str, Path], targets: Iterable[str]) -> Upstream:
    """The targets as found in FSDP2 package directories, by version."""
    functions: dict[str, dict[str, UpstreamFunction]] = {}
    found: dict[str, dict[str, tuple]] = {}
    for target in targets:
        for version, root in dirs.items():
            function = upstream_function(root, target)
            if function is not None:
                functions.setdefault(target, {})[version] = function
                found.setdefault(target, {})[version] = tuple(callers(root, target))
    return Upstream(functions, found)


def _installed_torch() -> Optional[tuple[str, Path]]:
    """(version, FSDP2 package dir) of the installed torch, found without importing it."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        version = importlib.metadata.version("torch").split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return None
    root = module_root(Path(list(spec.submodule_search_locations)[0]).parent)
    return (version, root) if root is not None else None


def default_upstream(path: str = str(DATA_PATH)) -> Upstream:
    """The data file, plus the releases of the user catalog, plus the installed torch when it is newer than
    every release in them."""
    return _default_upstream(path, learnt.state())


def merged(upstream: Upstream, other: Upstream) -> Upstream:
    """`upstream` with the releases of `other` (which win where both have a release)."""
    targets = set(upstream.functions) | set(other.functions)
    functions = {t: {**upstream.functions.get(t, {}), **other.functions.get(t, {})} for t in targets}
    found = {t: {**upstream.callers.get(t, {}), **other.callers.get(t, {})} for t in targets}
    return Upstream(functions, found)


def learnt_upstream(files: Iterable[str]) -> Upstream:
    """The `upstream` parts of learnt release files; a file without one (or with one that cannot be used: the
    release list says why, `catalog list`) adds nothing."""
    upstream = Upstream({}, {})
    for path in files:
        try:
            data = learnt.read(Path(path))
            part = data.get("upstream") if isinstance(data, dict) else None
            if part is not None:
                upstream = merged(upstream, from_json(part))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return upstream


@functools.cache
def _default_upstream(path: str, learnt_state: tuple) -> Upstream:
    upstream = from_json(read_data(path))
    if learnt_state:
        upstream = merged(upstream, learnt_upstream(file for file, _, _ in learnt_state))
    installed = _installed_torch()
    if installed is None:
        return upstream
    version, root = installed
    known = [v for versions in upstream.functions.values() for v in versions]
    if known and not all(version_key(version) > version_key(v) for v in known):
        return upstream
    live = read_dirs({version: root}, upstream.functions)
    functions = {t: {**vs, **live.functions.get(t, {})} for t, vs in upstream.functions.items()}
    found = {t: {**upstream.callers.get(t, {}), **live.callers.get(t, {})} for t in functions}
    return Upstream(functions, found)


def _dir_version(path: Path) -> str:
    info = path / "SOURCE.json"
    if info.is_file():
        try:
            return json.loads(info.read_text(encoding="utf-8"))["version"]
        except (ValueError, KeyError):
            pass
    return path.name


def version_dirs(dirs: Iterable[PathLike]) -> dict[str, Path]:
    """version -> FSDP2 package dir, for directories that contain ``torch/`` (named by version) or whose
    subdirectories do (e.g. ``/work/torch_upstream``)."""
    out: dict[str, Path] = {}
    for d in dirs:
        d = Path(d)
        root = module_root(d)
        if root is not None:
            out[_dir_version(d)] = root
            continue
        if d.is_dir():
            for sub in sorted(d.iterdir()):
                root = module_root(sub)
                if root is not None:
                    out[_dir_version(sub)] = root
    return out
