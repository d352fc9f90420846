"""The package's layers point one way (docs/development.md, Layout).

The import graph has no cycle, counting imports inside functions and `if TYPE_CHECKING:` ones: a type-only
import still says that one layer knows another. A cycle is where layers drift into each other. No module
imports a private name (`_x`) of another package, and no string literal of
the shipped code outside the rules spells a rule code. The packages are layers in a declared order, and a
module imports no higher layer but for the exceptions listed with their reasons."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "fsdp_unpatch"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    return _imports_of(ast.parse(path.read_bytes()), modules)


def _imports_of(tree: ast.Module, modules: set[str]) -> set[str]:
    found: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
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


def test_the_rule_contract_is_typed_below_the_rules() -> None:
    """The registry knows neither the planner that calls the checks nor the catalog that lists the rules: a
    check is typed by the protocols of `analysis/subjects.py`, which import no rule and no planner."""
    graph = _graph()
    above = ("fsdp_unpatch.analysis.plan", "fsdp_unpatch.catalog", "fsdp_unpatch.run")
    assert sorted(m for m in graph["fsdp_unpatch.rules.registry"] if m.startswith(above)) == []
    assert sorted(m for m in graph["fsdp_unpatch.analysis.subjects"] if m.startswith("fsdp_unpatch.rules")) == []


def test_type_only_imports_count() -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fsdp_unpatch.model import Finding\n"
    assert _imports_of(ast.parse(source), {"fsdp_unpatch.model"}) == {"fsdp_unpatch.model"}


def _private_imports(module: str, tree: ast.Module) -> list[str]:
    """`from fsdp_unpatch.<package>... import _name` where <package> is not the importer's own package."""
    own = module.split(".")[1] if module.count(".") else ""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fsdp_unpatch."):
            package = node.module.split(".")[1]
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__") and package != own:
                    found.append(f"{module}: from {node.module} import {alias.name}")
    return found


def test_the_private_import_finder_finds_one() -> None:
    source = "def f():\n    from fsdp_unpatch.files.writing import _secret\nfrom fsdp_unpatch.run.batch import _ok\n"
    assert _private_imports("fsdp_unpatch.run.probe", ast.parse(source)) == [
        "fsdp_unpatch.run.probe: from fsdp_unpatch.files.writing import _secret"
    ]


def test_no_module_imports_a_private_name_of_another_package() -> None:
    found = [
        private
        for path in sorted(PACKAGE.rglob("*.py"))
        for private in _private_imports(_module_name(path), ast.parse(path.read_bytes()))
    ]
    assert found == []


# No line cap: modules are sized by concept (issue 32 item 6: the planner is one module, not seven files split
# to stay under 500 lines). Their concerns are what the tests above and below hold.


def test_reading_and_writing_files_and_parsing_import_no_rule() -> None:
    """A `SourceError` carries a kind; the rules layer (`rules/registry.py`, `error_finding`) makes it a finding."""
    graph = _graph()
    below_rules = [
        name for name in graph if name.startswith("fsdp_unpatch.files") or name == "fsdp_unpatch.analysis.source"
    ]
    assert len(below_rules) > 4, "the modules were found"
    assert {name: sorted(m for m in graph[name] if m.startswith("fsdp_unpatch.rules")) for name in below_rules} == {
        name: [] for name in below_rules
    }


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


RULE_CODE = re.compile(r"FSU\d{3}")


def _rule_code_literals(module: str, tree: ast.Module) -> list[str]:
    """String literals that spell a rule code (docstrings aside: they document, they decide nothing)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        f"{module}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and RULE_CODE.search(node.value)
    ]


def test_the_rule_code_finder_finds_one() -> None:
    source = '"""FSU001 in a docstring is documentation."""\nCODE = f"{x}: FSU002"\nif code == "FSU003":\n    pass\n'
    assert _rule_code_literals("m", ast.parse(source)) == ["m:2: ': FSU002'", "m:3: 'FSU003'"]


def test_no_rule_code_literal_outside_the_rules() -> None:
    """A rule's code is spelled once, in its declaration: everything else names the rule
    (`INSTALLER_CALL.code`), so that the code a decision reads is the rule's own. The shipped code counts
    (`fsdp_unpatch/` but its rules and generated data, `codemods/`); docs, tests and scripts do not."""
    roots = [PACKAGE, PACKAGE.parent / "codemods"]
    paths = [
        p
        for root in roots
        for p in sorted(root.rglob("*.py"))
        if not p.is_relative_to(PACKAGE / "rules") and not p.is_relative_to(PACKAGE / "data")
    ]
    assert len(paths) > 100, "the code was read"
    found = [hit for path in paths for hit in _rule_code_literals(path.name, ast.parse(path.read_bytes()))]
    assert found == []


RULES = "fsdp_unpatch.rules"
# The modules of the rules package that are not a rule: the package itself, the registry, the examples' types.
NOT_RULES = {RULES, f"{RULES}.registry", f"{RULES}.examples"}


def test_no_planner_step_imports_a_rule() -> None:
    """The planner's steps hand their subjects to the dispatcher (`analysis/dispatch.py`), the only module
    of `analysis/` that knows the rules: it imports the registry, which finds the rules by walking them."""
    graph = _graph()
    steps = [name for name in graph if name.startswith("fsdp_unpatch.analysis.")]
    assert len(steps) > 20, "the modules were found"
    importing = {
        name: sorted(m for m in graph[name] if m.startswith(RULES))
        for name in steps
        if name != "fsdp_unpatch.analysis.dispatch"
    }
    assert {name: rules for name, rules in importing.items() if rules} == {}
    assert sorted(m for m in graph["fsdp_unpatch.analysis.dispatch"] if m.startswith(RULES)) == [f"{RULES}.registry"]


def _declarations(tree: ast.Module) -> int:
    """How many `declare(...)` calls a module makes."""
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "declare"
    )


def test_each_rule_module_declares_one_rule_and_imports_no_other_rule() -> None:
    graph = _graph()
    paths = {_module_name(p): p for p in (PACKAGE / "rules").glob("*.py")}
    assert len(paths) > 25, "the rules were found"
    declared = {
        name: _declarations(ast.parse(path.read_bytes())) for name, path in paths.items() if name not in NOT_RULES
    }
    assert {name: n for name, n in declared.items() if n != 1} == {}
    other_rules = {
        name: sorted(m for m in graph[name] if m.startswith(RULES + ".") and m not in NOT_RULES) for name in declared
    }
    assert {name: rules for name, rules in other_rules.items() if rules} == {}


# The layers, lowest first (docs/development.md, Layout): a module may import its own layer or one below it.
# A top-level module (`model.py`, `cli.py`, ...) is its own layer.
LAYERS = [
    "lazy_re",  # below everything: the regular expressions compiled at their first use
    "files",
    "data",
    "i18n",
    "quoting",
    "catalog",
    "config",
    "project",
    "model",
    "fingerprint",
    "semantic",
    "analysis",
    "fixes",
    "rules",
    "audit",  # below the reports: the merge request includes the audit's table
    "reporting",
    "run",
    "upgrade",
    "api",
    "verification",
    "commands",
    "integrations",
    "cli",
    "__main__",
]
# Imports that still point up, each with why; the list may only shrink (issue 22, item 4).
UPWARD: dict[tuple[str, str], str] = {
    ("fsdp_unpatch.analysis.dispatch", "fsdp_unpatch.rules.registry"): "the engine calls the registered rules",
    ("fsdp_unpatch.catalog", "fsdp_unpatch.rules.registry"): "`Catalog.rules` lists the rules (lazy)",
    ("fsdp_unpatch.fixes.transaction", "fsdp_unpatch.rules.registry"): "a write error becomes a rule finding",
    ("fsdp_unpatch.config.show", "fsdp_unpatch.run.session"): "`config show` prints the session's plan",
    ("fsdp_unpatch.commands.server", "fsdp_unpatch.integrations.lsp_server"): "`server` starts the LSP (lazy)",
}


def _layer(module: str) -> str:
    return module.split(".")[1] if module.count(".") else module


def _upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Imports of a module of a layer above the importer's (type-only and lazy ones count)."""
    return {
        (name, other)
        for name, imported in graph.items()
        for other in imported
        if LAYERS.index(_layer(other)) > LAYERS.index(_layer(name))
    }


def test_the_layer_check_finds_an_upward_import() -> None:
    graph = {"fsdp_unpatch.files.reading": {"fsdp_unpatch.run.batch"}, "fsdp_unpatch.run.batch": set()}
    assert _upward(graph) == {("fsdp_unpatch.files.reading", "fsdp_unpatch.run.batch")}


def test_every_package_has_a_layer() -> None:
    graph = _graph()
    assert {_layer(name) for name in graph if name != "fsdp_unpatch"} - set(LAYERS) == set()


def test_no_layer_imports_one_above_it() -> None:
    graph = _graph()
    graph.pop("fsdp_unpatch", None)  # the package's __init__ names its version only
    upward = _upward(graph)
    assert sorted(upward - set(UPWARD)) == []
    assert sorted(set(UPWARD) - upward) == [], "no longer upward: take it off the list"


# The one module that computes module names (issue 32): every other module asks it.
MODULE_NAMES = "fsdp_unpatch.project.identity"


def _spells_init_file(tree: ast.Module) -> bool:
    """Whether a module spells `__init__.py`, as a computation of module names from package folders must."""
    return any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and "__init__.py" in node.value
        for node in ast.walk(tree)
        if not isinstance(node, ast.Expr)  # a docstring may name the file
    ) and any(isinstance(n, ast.Constant) and n.value == "__init__.py" for n in ast.walk(tree))


def test_the_module_name_finder_finds_one() -> None:
    tree = ast.parse('def name(folder):\n    return (folder / "__init__.py").is_file()\n')
    assert _spells_init_file(tree)
    assert not _spells_init_file(ast.parse('"""A docstring that says __init__.py."""\n'))


def test_only_the_project_model_computes_module_names() -> None:
    computing = {
        _module_name(p)
        for p in PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts and _spells_init_file(ast.parse(p.read_bytes()))
    }
    assert computing == {MODULE_NAMES}


# Issue 32 item 2: every rule runs through one dispatcher. A module outside `rules/` and the dispatcher knows
# the rules through the registry's metadata (`all_rules`, `codes`, `rule`, `with_role`, `error_finding`) only.
DISPATCHER = "fsdp_unpatch.analysis.dispatch"


def _rule_module_imports(module: str, tree: ast.Module) -> list[str]:
    """Imports of a rule module (any module of `fsdp_unpatch.rules` but the registry), at any depth of the
    module (in a function, under `if TYPE_CHECKING:`), absolute or relative."""
    package = module.split(".")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # `from ..rules import x` inside the package
                base = ".".join(package[: len(package) - node.level] + ([base] if base else []))
            names = [f"{base}.{alias.name}" for alias in node.names] if base == RULES else [base]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith(RULES + ".") and not name.startswith(f"{RULES}.registry"):
                found.append(f"{module}:{node.lineno}: {name}")
    return found


def test_the_rule_import_finder_finds_each_spelling() -> None:
    source = (
        "from fsdp_unpatch.rules.registry import rule\n"
        "from fsdp_unpatch.rules import registry\n"
        "from fsdp_unpatch.rules.unused_noqa import UNUSED_NOQA\n"
        "def f():\n"
        "    from fsdp_unpatch.rules import broken_import, registry\n"
        "    import fsdp_unpatch.rules.parse_error\n"
        "    from ..rules import fix_not_written\n"
    )
    assert _rule_module_imports("fsdp_unpatch.run.probe", ast.parse(source)) == [
        "fsdp_unpatch.run.probe:3: fsdp_unpatch.rules.unused_noqa",
        "fsdp_unpatch.run.probe:5: fsdp_unpatch.rules.broken_import",
        "fsdp_unpatch.run.probe:6: fsdp_unpatch.rules.parse_error",
        "fsdp_unpatch.run.probe:7: fsdp_unpatch.rules.fix_not_written",
    ]


def test_no_module_outside_the_rules_and_the_dispatcher_imports_a_rule_module() -> None:
    """The run hands each subject to `dispatch(kind, ...)`; what it needs to know of a rule (which code is
    the installer's deletion) it asks the registry (`registry.with_role`), which walks the rule modules.
    The shipped code counts: `fsdp_unpatch/` and `codemods/`."""
    codemods = PACKAGE.parent / "codemods"  # shipped as `fsdp_unpatch.codemods` (package-dir)
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py") if not p.is_relative_to(PACKAGE / "rules")}
    modules.update({f"fsdp_unpatch.codemods.{p.stem}": p for p in codemods.glob("*.py")})
    assert len(modules) > 100 and "fsdp_unpatch.codemods.unpatch" in modules, "the code was read"
    found = [
        hit
        for name, path in sorted(modules.items())
        if name != DISPATCHER and "__pycache__" not in path.parts
        for hit in _rule_module_imports(name, ast.parse(path.read_bytes()))
    ]
    assert found == []


# The one module that walks folders (issue 32): discovery, the project model and the build digest ask it.
FOLDER_WALK = "fsdp_unpatch.files.walk"
_WALKS = {"walk", "fwalk", "rglob"}  # os.walk, os.fwalk, Path.walk, Path.rglob (a local `def walk` is no call of them)
_LISTINGS = {"scandir", "listdir", "iterdir", "glob", "iglob"}  # one folder, unless a loop descends with them


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _is_walk(call: ast.Call, from_os: dict[str, str]) -> bool:
    """A call that walks a tree whatever calls it: `os.walk`, `Path.rglob`, a recursive glob."""
    name = _called(call)
    if isinstance(call.func, ast.Attribute) and name in _WALKS:
        return getattr(call.func.value, "id", None) != "ast"
    if isinstance(call.func, ast.Name) and from_os.get(name) in _WALKS:
        return True
    pattern = call.args[0] if call.args else None
    return name in {"glob", "iglob"} and (
        any(k.arg == "recursive" for k in call.keywords)
        or (isinstance(pattern, ast.Constant) and "**" in str(pattern.value))
    )


def _descends(node: ast.AST) -> bool:
    """Code whose listings may go down a tree: a `while` loop (over a stack of folders), a function that
    calls itself, a `for` loop over a list that it adds to."""
    if isinstance(node, ast.While):
        return True
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return any(_called(call) == node.name for call in calls)
    if isinstance(node, ast.For) and isinstance(node.iter, ast.Name):
        grown = node.iter.id
        return any(
            isinstance(c.func, ast.Attribute)
            and c.func.attr in {"append", "extend", "insert"}
            and getattr(c.func.value, "id", None) == grown
            for c in calls
        )
    return False


def _walks_folders(tree: ast.Module) -> list[int]:
    """Lines where a module walks folders itself: a call of a walk (not `ast.walk`, not a local `def walk`),
    or a listing (`os.scandir`, `os.listdir`, `Path.iterdir`, `glob`) in code that descends. A listing of a
    folder, or of each of some given folders, is no walk."""
    from_os = {  # what `from os import walk as w` binds, by the name it binds
        a.asname or a.name: a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module == "os"
        for a in n.names
    }
    found = {n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and _is_walk(n, from_os)}
    for node in ast.walk(tree):
        if _descends(node):
            found.update(n.lineno for n in ast.walk(node) if isinstance(n, ast.Call) and _called(n) in _LISTINGS)
    return sorted(found)


def test_the_folder_walk_finder_finds_one() -> None:
    walks = [
        "import os\nfor folder, subs, names in os.walk(root):\n    pass\n",
        "from os import walk as w\nfound = list(w(root))\n",
        "def f(root):\n    return list(root.rglob('*.py'))\n",
        "import glob\nfound = glob.glob('src/**/*.py', recursive=True)\n",
        "def f(root):\n    return list(root.glob('**/*.py'))\n",
        # a stack of folders, as discovery's walk was written
        "import os\ndef f(root):\n    stack = [root]\n    while stack:\n"
        "        for e in os.scandir(stack.pop()):\n            stack.append(e.path)\n",
        # a function that calls itself on each subfolder
        "import os\ndef f(folder):\n    for name in os.listdir(folder):\n        f(os.path.join(folder, name))\n",
        # a for loop over a list it grows
        "import os\ndef f(root):\n    folders = [root]\n    for folder in folders:\n"
        "        folders.extend(e.path for e in os.scandir(folder) if e.is_dir())\n",
    ]
    for source in walks:
        assert _walks_folders(ast.parse(source)), source
    listings = [
        # one folder, and each of some given folders: no walk (journal.py, cache.py, upstream.py)
        "import os\ndef f(folder):\n    return sorted(os.listdir(folder))\n",
        "import os\ndef f(folders):\n    for folder in sorted(set(folders)):\n        names = os.listdir(folder)\n",
        "def f(root):\n    return sorted(root.glob('*.py'))\n",
        "import ast\nfor node in ast.walk(tree):\n    pass\n",
        "def f(body):\n    def walk(block):\n        for s in block:\n            walk(s.body)\n    walk(body)\n",
    ]
    for source in listings:
        assert not _walks_folders(ast.parse(source)), source


def test_only_one_module_walks_folders() -> None:
    """The shipped code counts: `fsdp_unpatch/` and `codemods/`."""
    paths = [p for p in [*PACKAGE.rglob("*.py"), *(PACKAGE.parent / "codemods").glob("*.py")]]
    walking = {
        _module_name(p) if p.is_relative_to(PACKAGE) else f"codemods.{p.stem}": lines
        for p in paths
        if "__pycache__" not in p.parts and (lines := _walks_folders(ast.parse(p.read_bytes())))
    }
    assert sorted(walking) == [FOLDER_WALK], walking


# Issue 32 item 1: one module applies noqa comments to findings (`suppression.reported`, and `--ignore-noqa` with
# it); every path hands its findings to it. Reading comments to add one (`fixes/add_noqa.py`) or to report one
# (FSU502) applies none.
SUPPRESSION = "fsdp_unpatch.analysis.suppression"
_NOQA_TESTS = ("is_suppressed", "noqa_codes")  # the per-line tests of a noqa comment


def _reads_ignore_noqa(node: ast.AST) -> bool:
    """Whether `node` reads `ignore_noqa` itself: what a call is handed (`reported(..., ignore_noqa=o.ignore_noqa)`)
    is the callee's to apply."""
    if isinstance(node, ast.Call):
        return _reads_ignore_noqa(node.func)
    if (isinstance(node, ast.Name) and node.id == "ignore_noqa") or (
        isinstance(node, ast.Attribute) and node.attr == "ignore_noqa"
    ):
        return True
    return any(_reads_ignore_noqa(child) for child in ast.iter_child_nodes(node))


def _noqa_applied(module: str, tree: ast.Module) -> list[str]:
    """Where a module decides whether a `# noqa` silences a finding: a call of a per-line test, or `ignore_noqa`
    read as a condition (`if`, `and`/`or`, `not`, a comprehension's `if`). Copying the option into another
    (`ignore_noqa=request.ignore_noqa`) or handing it to a call decides nothing."""
    found = []
    for node in ast.walk(tree):
        conditions: list[ast.AST] = []
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in _NOQA_TESTS:
                found.append(f"{module}:{node.lineno}: {name}()")
        elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            conditions = [node.test]
        elif isinstance(node, ast.BoolOp):
            conditions = list(node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            conditions = [node.operand]
        elif isinstance(node, ast.comprehension):
            conditions = list(node.ifs)
        found += [f"{module}:{c.lineno}: ignore_noqa" for c in conditions if _reads_ignore_noqa(c)]  # type: ignore[attr-defined]
    return sorted(set(found))


def test_the_noqa_finder_finds_each_way_to_apply_one() -> None:
    source = (
        "def selection(units, options):\n"
        "    for unit in units:\n"
        "        if options.ignore_noqa or not is_suppressed(lines, line, code):\n"
        "            yield unit\n"
        "    return [f for f in found if not options.ignore_noqa]\n"
        "def codes(lines, line):\n"
        "    return suppression.noqa_codes(lines, line)\n"
    )
    assert _noqa_applied("fsdp_unpatch.run.probe", ast.parse(source)) == [
        "fsdp_unpatch.run.probe:3: ignore_noqa",
        "fsdp_unpatch.run.probe:3: is_suppressed()",
        "fsdp_unpatch.run.probe:5: ignore_noqa",
        "fsdp_unpatch.run.probe:7: noqa_codes()",
    ]
    passed_on = (
        "options = RunOptions(ignore_noqa=request.ignore_noqa)\n"
        "shown = [('ignore-noqa', request.ignore_noqa)]\n"
        "if reported(found, line, text, ignore_noqa=options.ignore_noqa):\n"
        "    pass\n"
    )
    assert _noqa_applied("fsdp_unpatch.run.probe", ast.parse(passed_on)) == []


def test_only_the_suppression_module_applies_noqa() -> None:
    codemods = PACKAGE.parent / "codemods"
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    paths.update({f"fsdp_unpatch.codemods.{p.stem}": p for p in codemods.glob("*.py")})
    applying = {name for name, path in paths.items() if _noqa_applied(name, ast.parse(path.read_bytes()))}
    assert applying == {SUPPRESSION}, sorted(
        hit for name, path in sorted(paths.items()) for hit in _noqa_applied(name, ast.parse(path.read_bytes()))
    )


# The one module that computes what a module binds at top level (issue 32): every other module reads its views.
TOP_LEVEL_BINDINGS = "fsdp_unpatch.project.bindings"
# Walks that still read top-level bindings their own way, each with why; the list may only shrink.
OWN_BINDING_WALKS = {
    "fsdp_unpatch.fingerprint.releases": "a package's names as the shipped upstream data records them "
    "(top-level statements only, not their blocks); `upgrade` learns a release the same way",
    "fsdp_unpatch.fingerprint.upstream": "the free names of an upstream function, as the shipped fingerprints "
    "were generated; changing it means regenerating them from every release's sources",
}
_DEFINITION_NODES = {"ClassDef"}
_BINDING_NODES = {"Store", "Assign", "AugAssign", "AnnAssign"}
_FUNCTION_NODES = {"FunctionDef", "AsyncFunctionDef", "FunctionNode"}


def _type_names(node: ast.AST, constants: dict[str, set[str]]) -> set[str]:
    """The node types an `isinstance` test spells: `ast.ClassDef`, `cst.Assign`, a tuple of them, or a
    module-level name bound to such a tuple."""
    if isinstance(node, ast.Tuple):
        return {name for element in node.elts for name in _type_names(element, constants)}
    if isinstance(node, ast.Starred):
        return _type_names(node.value, constants)
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Name):
        return constants.get(node.id, {node.id})
    return set()


def _binding_walks(tree: ast.Module) -> list[str]:
    """The functions of a module that compute top-level bindings: they test for `class` statements (of
    CPython's `ast` or libcst) and for assignment targets, and are not about one function's own scope (which
    binds parameters: it tests `arg` nodes or is handed a function node)."""
    constants: dict[str, set[str]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            if isinstance(statement.targets[0], ast.Name):
                constants[statement.targets[0].id] = _type_names(statement.value, constants)
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        tested: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
                if len(node.args) == 2:
                    tested |= _type_names(node.args[1], constants)
        handed = {name for a in function.args.args if a.annotation for name in _type_names(a.annotation, {})}
        one_scope = "arg" in tested or bool(handed & _FUNCTION_NODES)
        if tested & _DEFINITION_NODES and tested & _BINDING_NODES and not one_scope:
            found.append(function.name)
    return found


def test_the_binding_walk_finder_finds_one() -> None:
    offender = (
        "import ast\nimport libcst as cst\nDEFS = (cst.FunctionDef, cst.ClassDef)\n"
        "def names(tree):\n    for node in ast.walk(tree):\n        if isinstance(node, ast.ClassDef): yield node.name\n"
        "        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store): yield node.id\n"
        "def counted(module):\n    for s in module.body:\n        if isinstance(s, DEFS): yield s.name.value\n"
        "        elif isinstance(s, cst.Assign): yield from s.targets\n"
    )
    assert _binding_walks(ast.parse(offender)) == ["names", "counted"]
    local = (
        "import ast\ndef local_names(fn: FunctionNode):\n    for node in ast.walk(fn):\n"
        "        if isinstance(node, ast.ClassDef): yield node.name\n"
        "        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store): yield node.id\n"
        "def installs(tree):\n    return [n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.FunctionDef))]\n"
    )
    assert _binding_walks(ast.parse(local)) == []  # one function's scope; sites, no class statement


def test_only_the_project_model_computes_top_level_bindings() -> None:
    """The shipped code counts: `fsdp_unpatch/` and `codemods/`."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    paths.update({f"fsdp_unpatch.codemods.{p.stem}": p for p in (PACKAGE.parent / "codemods").glob("*.py")})
    computing = {name for name, path in paths.items() if _binding_walks(ast.parse(path.read_bytes()))}
    assert computing - set(OWN_BINDING_WALKS) == {TOP_LEVEL_BINDINGS}
    assert set(OWN_BINDING_WALKS) <= computing, "no longer a walk of its own: take it off the list"


# Issue 32 item 4: libcst only writes. The audit never writes a file: it reads with CPython's `ast`.
AUDIT = PACKAGE / "audit"


def _libcst_imports(tree: ast.Module) -> list[int]:
    """The lines that import libcst, at any depth of the module (in a function, under `if TYPE_CHECKING:`)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "libcst")
        or (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "libcst" for a in node.names))
    ]


def test_the_libcst_import_finder_finds_each_spelling() -> None:
    source = (
        "import libcst as cst\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from libcst.metadata import PositionProvider\n"
        "def f():\n"
        "    import os, libcst.matchers\n"
        "    from .libcst import x\n"
        "    import libcstx\n"
    )
    assert _libcst_imports(ast.parse(source)) == [1, 4, 6]


def test_no_module_of_the_audit_imports_libcst() -> None:
    modules = sorted(AUDIT.glob("*.py"))
    assert len(modules) >= 3, "the audit was read"
    found = {path.name: _libcst_imports(ast.parse(path.read_bytes())) for path in modules}
    assert {name: lines for name, lines in found.items() if lines} == {}


# The modules outside `fixes/` and `codemods/` that still import libcst (to read code, or to name its types),
# on the way to issue 32's end, where none does. The list may only shrink: a new module that imports libcst
# fails here, and a listed module that no longer does must be taken off.
STILL_IMPORTING_LIBCST = {
    "analysis": (
        "blocks collect decisions file_analysis patterns plan planned positions "
        "references site_judging source standing statement_shape subjects test_modules"
    ),
    "rules": (
        "override_replacement patch_installer removed_function_test "
        "removed_function_test_module removed_symbol_reference"
    ),
    "run": "alone engine learned linking orphans pool test_plans unit",
}


def test_libcst_is_imported_by_no_module_beyond_those_still_listed() -> None:
    found = set()
    for path in PACKAGE.rglob("*.py"):
        layer = path.relative_to(PACKAGE).parts[0]
        if "__pycache__" in path.parts or layer == "fixes" or path.name.startswith("compiled_"):
            continue
        if _libcst_imports(ast.parse(path.read_bytes())):
            found.add(_module_name(path))
    listed = {
        f"fsdp_unpatch.{layer}.{name}" for layer, names in STILL_IMPORTING_LIBCST.items() for name in names.split()
    }
    assert sorted(found - listed) == [], "a module that reads code reads the model (issue 32 item 4)"
    assert sorted(listed - found) == [], "no longer imports libcst: take it off STILL_IMPORTING_LIBCST"
