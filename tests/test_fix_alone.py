"""Every per-finding fix, as reported, applied alone leaves working code (docs/output-formats.md, "One fix, applied alone").

For each fixture tree, both examples and every rule case, each fix that SARIF (`fixes[].artifactChanges`) and
JSON (`fix.edits`) report is applied alone to a copy of the files, the way a code-scanning service or an
editor applies one quick fix. Each file it changes must still compile, pyflakes must find no undefined name
or unused import there that the original did not have, and every `from M import name` of the tree must still
find its name: a fix carries the edits of the fixes it needs, in its own file and in others, and removes only
the imports that exactly its edits leave unused. (`tests/realworld/test_fix_alone_releases.py`: the same for
the real releases.)
"""

from __future__ import annotations

import ast
import functools
import json
import warnings
from collections import Counter
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import unquote

import pytest
from pyflakes import checker, messages

from fsdp_unpatch.config.request import Request
from fsdp_unpatch.reporting import ReportContext, formatter
from fsdp_unpatch.run.session import execute, prepare
from tests.test_rule_cases import prepare as prepare_rule_case
from tests.test_rule_cases import rule_cases
from tests.upstream import expand, expanded_copy

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
# What a fix alone must never leave behind that was not there before.
BREAKAGE = (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport, messages.UnusedImport)


def _single_files(folder: Path, pattern: str) -> Callable[[Path], Path]:
    def build(work: Path) -> Path:
        for source in sorted(folder.glob(pattern)):
            case = work / source.name.split(".")[0]
            case.mkdir(parents=True)
            (case / f"{source.name.split('.')[0]}.py").write_text(expand(source.read_text()), encoding="utf-8")
        return work

    return build


def _tree(folder: Path) -> Callable[[Path], Path]:
    return lambda work: expanded_copy(folder, work / folder.name)


def _rule_case(code: str, case: str) -> Callable[[Path], Path]:
    return lambda work: prepare_rule_case(code, case, work)[0]


PROJECTS: dict[str, Callable[[Path], Path]] = {
    "examples/legacy_project": _tree(ROOT / "examples" / "legacy_project"),
    "examples/migrated_project": _tree(ROOT / "examples" / "migrated_project"),
    "fixtures/fix": _single_files(FIXTURES / "fix", "*.in.py"),
    "fixtures/unchanged": _tree(FIXTURES / "unchanged"),
    "fixtures/downstream": _tree(FIXTURES / "downstream"),
    "fixtures/downstream_migrated": _tree(FIXTURES / "downstream_migrated"),
    "fixtures/audit": _tree(FIXTURES / "audit"),
    "fixtures/verify": _tree(FIXTURES / "verify"),
    **{f"rules/{code}/{case}": _rule_case(code, case) for code, case in rule_cases()},
}


def reported_fixes(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[dict[str, list[tuple]]]]:
    """format -> each reported fix as {path: [(line, column, end_line, end_column, text)]}, from the SARIF
    and JSON reports of `check` on `root` (rendered by the formatters the command line uses)."""
    monkeypatch.chdir(root)
    plan = prepare(Request((".",), replacements=True, no_cache=True))
    result = execute(plan, 1)
    context = ReportContext(plan.catalog)
    sarif = json.loads(formatter("sarif")(result, context))
    fixes: dict[str, list] = {"sarif": [], "json": []}
    for found in sarif["runs"][0]["results"]:
        for fix in found.get("fixes", ()):
            fixes["sarif"].append(
                {
                    unquote(change["artifactLocation"]["uri"]): [
                        (
                            r["deletedRegion"]["startLine"],
                            r["deletedRegion"]["startColumn"],
                            r["deletedRegion"]["endLine"],
                            r["deletedRegion"]["endColumn"],
                            r["insertedContent"]["text"],
                        )
                        for r in change["replacements"]
                    ]
                    for change in fix["artifactChanges"]
                }
            )
    for finding in json.loads(formatter("json")(result, context)):
        if finding["fix"] is not None:
            edits: dict[str, list] = {}
            for edit in finding["fix"]["edits"]:
                edits.setdefault(edit["path"], []).append(
                    (edit["line"], edit["column"], edit["end_line"], edit["end_column"], edit["content"])
                )
            fixes["json"].append(edits)
    return fixes


def apply(text: str, replacements: list[tuple]) -> str:
    """Line/column (1-based, code points, end exclusive) replacements applied last first, as a SARIF consumer does."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return (starts[line - 1] if line <= len(starts) else starts[-1]) + column - 1

    for line, column, end_line, end_column, content in sorted(replacements, key=lambda r: r[:2], reverse=True):
        text = text[: offset(line, column)] + content + text[offset(end_line, end_column) :]
    return text


def breakage(text: str, path: str) -> Counter:
    """pyflakes' undefined names and unused imports in `text`, by kind and name (lines move under a fix)."""
    tree = _parsed(text)
    assert tree is not None, path
    found = checker.Checker(tree, filename=path).messages
    return Counter((type(m).__name__, str(m.message_args[0])) for m in found if isinstance(m, BREAKAGE))


def module_names(root: Path) -> dict[str, str]:
    """Module name -> path (relative to `root`) of every Python file under `root`."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts:
            names[".".join(parts)] = path.relative_to(root).as_posix()
    return names


def _parsed(text: str) -> Optional[ast.Module]:
    try:
        with warnings.catch_warnings():  # a real tree's invalid escape sequences are not ours to report
            warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
            return ast.parse(text.lstrip("\ufeff"))
    except (SyntaxError, ValueError):  # a file of the tree no CPython parses: it neither binds nor imports
        return None


@functools.cache
def _module_facts(text: str) -> tuple[frozenset[str], tuple[tuple[int, Optional[str], tuple[str, ...]], ...]]:
    """A module's top-level bindings (`*` when it may bind any) and its `from` imports (level, module, names),
    from one parse. Kept per text: a release's files are read for every fix, and releases share most files."""
    tree = _parsed(text)
    if tree is None:
        return frozenset({"*"}), ()
    names: set[str] = set()
    statements = list(tree.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, (ast.If, ast.Try, ast.With)):
            statements += statement.body + getattr(statement, "orelse", []) + getattr(statement, "finalbody", [])
            statements += [s for h in getattr(statement, "handlers", []) for s in h.body]
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in statement.names}
        else:
            names |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    imports = tuple(
        (node.level, node.module, tuple(alias.name for alias in node.names))
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    )
    return frozenset(names | ({"*"} if "__getattr__" in names else set())), imports


def bound_names(text: str) -> frozenset[str]:
    """Names a module binds at top level (in `if`/`try`/`with` blocks too); `*` when it may bind any."""
    return _module_facts(text)[0]


def imported_names(text: str, module: str, path: str) -> set[tuple[str, str]]:
    """(module, name) of each `from module import name` in a file, relative imports resolved."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    found: set[tuple[str, str]] = set()
    for level, imported, names in _module_facts(text)[1]:
        base = package.split(".")[: len(package.split(".")) - level + 1] if level else []
        source = ".".join([*base, *([imported] if imported else [])])
        found |= {(source, name) for name in names}
    return found


class Project:
    """A tree's modules, what each binds and what each file imports from the others, read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules = module_names(root)
        self.texts = {
            path: (root / path).read_text(encoding="utf-8", errors="surrogateescape") for path in self.modules.values()
        }
        self.module_of = {path: module for module, path in self.modules.items()}
        self.bound = {module: bound_names(self.texts[path]) for module, path in self.modules.items()}
        self.imports = {path: imported_names(text, self.module_of[path], path) for path, text in self.texts.items()}

    def text(self, path: str) -> str:
        if path not in self.texts:  # not a module name (a file in a folder that is no identifier)
            self.texts[path] = (self.root / path).read_text(encoding="utf-8", errors="surrogateescape")
        return self.texts[path]

    def broken_imports(self, changed: dict[str, str]) -> Counter:
        """`from M import name` of a project module M that does not bind `name` (nor has a submodule `name`),
        among the imports of the `changed` files (path -> text) and the imports from them."""
        bound = dict(self.bound)
        imports = dict(self.imports)
        for path, text in changed.items():
            if path in self.module_of:
                bound[self.module_of[path]] = bound_names(text)
                imports[path] = imported_names(text, self.module_of[path], path)
        touched = {self.module_of[path] for path in changed if path in self.module_of}
        broken: Counter = Counter()
        for path, found in imports.items():
            for source, name in found:
                if path not in changed and source not in touched:
                    continue
                if source in bound and name != "*" and not {name, "*"} & bound[source]:
                    if f"{source}.{name}" not in bound:
                        broken[(path, f"from {source} import {name}")] += 1
        return broken


def problems_of(project: Project, fix: dict[str, list[tuple]]) -> list[str]:
    before = {path: project.text(path) for path in fix}
    after = {}
    problems = []
    for path, replacements in fix.items():
        after[path] = apply(before[path], replacements)
        try:
            compile(after[path].lstrip("\ufeff"), path, "exec", dont_inherit=True)
        except SyntaxError as error:
            problems.append(f"{path}: does not compile: {error}")
            continue
        new = breakage(after[path], path) - breakage(before[path], path)
        problems += [f"{path}: {kind} {name!r}" for kind, name in sorted(new)]
    if not problems:  # every file parses: what other files import from the changed ones is still there
        new = project.broken_imports(after) - project.broken_imports(before)
        problems += [f"{path}: {statement}: the name is gone" for path, statement in sorted(new)]
    return problems


@pytest.mark.parametrize("name", list(PROJECTS))
def test_each_reported_fix_applied_alone_leaves_working_code(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = PROJECTS[name](tmp_path / "work")
    fixes = reported_fixes(root, monkeypatch)
    project = Project(root)
    assert len(fixes["sarif"]) == len(fixes["json"])
    failures = []
    for format_name, reported in fixes.items():
        for fix in reported:
            for problem in problems_of(project, fix):
                failures.append(f"{format_name} fix over {sorted(fix)}: {problem}")
    assert failures == []


def test_show_fixes_shows_the_edits_a_fix_carries_in_other_files(tmp_path: Path) -> None:
    """`check --show-fixes`: the call's fix shows the installer's deletion in patch.py, and the installer's
    fix the call's deletion in `__init__.py`, each under a hunk header that names the other file."""
    from tests.integration import cli

    root = prepare_rule_case("FSU004", "call_in_another_module", tmp_path)[0]
    result = cli("check", "--show-fixes", "--no-show-source", "--no-cache", ".", cwd=root)
    assert result.returncode == 1, result.stderr
    previews = {}
    for block in result.stdout.decode().split("\nnpu_adapter/"):
        header, _, preview = block.partition("\n")
        previews[header.split(" [")[0].removeprefix("npu_adapter/")] = preview + "\n"
    call = next(p for h, p in previews.items() if h.startswith("__init__.py:6:5: FSU004"))
    installer = next(p for h, p in previews.items() if h.startswith("patch.py:28:5: FSU003"))
    assert "    @@ npu_adapter/patch.py line 26 @@\n" in call and "-     _apply_npu_collectives_patch()\n" in call
    assert "    @@ npu_adapter/__init__.py line 6 @@\n    -     _apply_npu_collectives_patch()\n" in installer
