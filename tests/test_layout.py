"""The package's import graph has no cycle (imports inside functions count; `if TYPE_CHECKING:` ones, which
never run, do not). A cycle is where layers drift into each other: the layout (docs/development.md) keeps
each stage importing only the ones it builds on."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "fsdp_unpatch"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_bytes())
    found: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # `from fsdp_unpatch.run import batch` imports the module batch
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return {name for name in found if name in modules}


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    # a package's own __init__ is imported with any of its modules: not an edge worth a cycle
    return {
        name: {m for m in _imports(path, modules) if m != name and not name.startswith(m + ".")}
        for name, path in paths.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_package_has_no_import_cycle() -> None:
    graph = _graph()
    assert "fsdp_unpatch.run.batch" in graph and graph["fsdp_unpatch.run.batch"], "the graph was read"
    assert _cycles(graph) == []


def test_the_package_list_in_pyproject_is_every_package_folder() -> None:
    """setuptools builds from the listed packages: a listed folder that is gone breaks `pip install`, and a
    folder left out is missing from the wheel."""
    import re

    root = PACKAGE.parent
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    listed = set(re.findall(r'"(fsdp_unpatch(?:\.\w+)*)"', text.split("packages = [", 1)[1].split("]", 1)[0]))
    folders = {
        ".".join(init.parent.relative_to(root).parts)
        for init in PACKAGE.rglob("__init__.py")
        if "__pycache__" not in str(init)
    }
    folders.add("fsdp_unpatch.codemods")  # mapped from the top-level `codemods/` folder (package-dir)
    assert listed == folders
