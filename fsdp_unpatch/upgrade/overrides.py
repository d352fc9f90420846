"""The overrides that stay after the migration, and the function each installs, read from the files.

`check` finds them (every finding with a target that is not removed); here each install site is traced to the
function it installs in the same file (`X.f = g`, `setattr(X, "f", g)`), and FSDP2 names the file imports are
listed, so that `analysis.py` can judge them against two releases.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from fsdp_unpatch.fingerprint.releases import Release
from fsdp_unpatch.upgrade.analysis import FSDP2_PACKAGES

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


@dataclass(frozen=True)
class Override:
    target: str  # release data id
    path: str
    line: int
    function: Optional[FunctionNode]
    originals: frozenset[str] = frozenset()  # names the override reaches the original by (a factory's parameters)


def _installed_name(tree: ast.Module, line: int) -> tuple[Optional[str], bool]:
    """(name of the installed function, whether it is a factory called with the original: `f = make(f)`)."""
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != line:
            continue
        value = None
        if isinstance(node, ast.Assign):
            value = node.value
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and len(node.args) == 3:
            value = node.args[2]
        factory = isinstance(value, ast.Call)
        if isinstance(value, ast.Call):
            value = value.func
        if isinstance(value, ast.Name):
            return value.id, factory
        if isinstance(value, ast.Attribute):
            return value.attr, factory
    return None, False


def _returned_function(factory: FunctionNode) -> Optional[FunctionNode]:
    """The function a factory returns (`def make(original): def wrapper(...): ...; return wrapper`)."""
    inner = {n.name: n for n in factory.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(factory):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and node.value.id in inner:
            return inner[node.value.id]
    return next(iter(inner.values()), None)


def _function_named(tree: ast.Module, name: str) -> Optional[FunctionNode]:
    return next(
        (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name), None
    )


def resolve_target(target: str, release: Release) -> str:
    """`_fsdp_param_group.foreach_reduce` (a name the module imports) -> `_fsdp_collectives.foreach_reduce`."""
    if target in release.functions or target.count(".") != 1:
        return target
    name = target.split(".")[1]
    homes = sorted(f for f in release.functions if f.count(".") == 1 and f.endswith(f".{name}"))
    return homes[0] if len(homes) == 1 else target


def overrides(findings, old: Release) -> list[Override]:
    """One override per (target, file, line) of the kept findings, with its function when found."""
    out: dict[tuple, Override] = {}
    trees: dict[str, Optional[ast.Module]] = {}
    for finding in findings:
        if not finding.target or finding.category in ("remove", "error") or finding.target.startswith("ops."):
            continue
        target = resolve_target(finding.target.removesuffix(".default"), old)
        key = (target, finding.path, finding.span.line)
        if key in out:
            continue
        if finding.path not in trees:
            try:
                trees[finding.path] = ast.parse(Path(finding.path).read_bytes())
            except (OSError, SyntaxError, ValueError):
                trees[finding.path] = None
        tree = trees[finding.path]
        name, factory = _installed_name(tree, finding.span.line) if tree is not None else (None, False)
        function = _function_named(tree, name) if tree is not None and name else None
        originals: frozenset[str] = frozenset()
        if function is not None and factory:
            originals = frozenset(a.arg for a in function.args.args)
            function = _returned_function(function)
        out[key] = Override(target, finding.path, finding.span.line, function, originals)
    return list(out.values())


def fsdp2_imports(path: str) -> list[tuple[str, str, int]]:
    """(module, name, line) of each `from <FSDP2 package>.<module> import <name>` of a file."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    out: list[tuple[str, str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for prefix in FSDP2_PACKAGES:
                if node.module.startswith(prefix):
                    module = node.module[len(prefix) :]
                    out.extend((module, a.name, node.lineno) for a in node.names if a.name != "*")
    return out
