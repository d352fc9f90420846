"""The rule registry is the one place a rule is declared: every code, name and message lives in its
declaration, and what lists rules (README, `rules`, codemods, flake8, SARIF, the batch layer) reads it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from fsdp_unpatch.rules import registry

PACKAGE = Path(registry.__file__).resolve().parent.parent
CODE = re.compile(r"\bFSU\d{3}\b")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _declarations(tree: ast.AST) -> set[int]:
    """ids of every node inside a `declare(...)` call."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "declare":
            found.update(id(n) for n in ast.walk(node))
    return found


def code_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal naming a rule code outside declarations and docstrings."""
    tree = ast.parse(source)
    allowed = _docstrings(tree) | _declarations(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in allowed
        and CODE.search(node.value)
    ]


def test_the_literal_check_sees_a_code_in_a_string() -> None:
    assert code_literals('x = "FSU001"\nf"{y} (FSU003)"\n') == [(1, "FSU001"), (2, " (FSU003)")]
    assert code_literals('"""Module FSU001."""\ndeclare("FSU001", "x", doc="see FSU002")\n# FSU003\n') == []


@pytest.mark.parametrize("path", sorted(p.relative_to(PACKAGE.parent) for p in PACKAGE.rglob("*.py")), ids=str)
def test_no_rule_code_as_a_literal_outside_its_declaration(path: Path) -> None:
    found = code_literals((PACKAGE.parent / path).read_text(encoding="utf-8"))
    assert found == [], f"{path}: use the rule's declaration (`RULE.code`, `registry.codes(...)`): {found}"


def test_codemods_name_no_code_by_hand() -> None:
    codemods = PACKAGE.parent / "codemods"
    for path in sorted(codemods.glob("*.py")):
        assert code_literals(path.read_text(encoding="utf-8")) == [], path


def test_codemods_apply_rules_that_have_fixes_and_unpatch_every_safe_one() -> None:
    import importlib

    from fsdp_unpatch.codemods._base import codemod_classes

    for name in ("unpatch", "remove_collective_overrides", "collapse_foreach_copy", "remove_installer_calls"):
        importlib.import_module(f"fsdp_unpatch.codemods.{name}")
    by_name = {cls.__name__: cls for cls in codemod_classes()}
    assert by_name["Unpatch"].CODES == registry.codes(fix="safe") and "FSU301" in by_name["Unpatch"].CODES
    assert by_name["RemoveCollectiveOverrides"].CODES == {"FSU001", "FSU002", "FSU003", "FSU004"}
    for cls in by_name.values():
        assert all(registry.rule(code).fix != "none" for code in cls.CODES), cls


def test_every_rule_is_declared_once_with_the_whole_anatomy() -> None:
    rules = registry.all_rules()
    assert list(rules) == sorted(rules) and len(rules) >= 25
    assert len({r.name for r in rules.values()}) == len(rules)
    for rule in rules.values():
        assert re.fullmatch(r"FSU\d{3}", rule.code)
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", rule.name), rule.name  # kebab case; `vendored-fsdp2`
        assert rule.category in registry.CATEGORIES and rule.fix in registry.APPLICABILITIES
        assert rule.phase in ("file", "run") and set(rule.exports) <= set(registry.CROSS_FILE_KEYS)
        assert rule.summary and rule.messages
        assert (rule.check is None) == (rule.subject is None) and rule.subject in (None, *registry.SUBJECT_KINDS)
        sections = [line for line in rule.doc.splitlines() if line.startswith("## ")]
        assert sections == list(registry.DOC_SECTIONS), (rule.code, sections)


def test_each_rule_is_its_own_module_named_after_it() -> None:
    """One module a rule, found by walking the package: its file is the rule's name (`collective_override.py`
    for FSU001), and it declares that rule alone; the shared modules declare none."""
    import importlib

    found = {module.rsplit(".", 1)[-1] for module in registry.rule_modules()}
    assert found == {rule.name.replace("-", "_") for rule in registry.all_rules().values()}
    for rule in registry.all_rules().values():
        assert rule.module == rule.name.replace("-", "_"), rule.code
    for shared in sorted(registry.SHARED_MODULES):
        module = importlib.import_module(f"fsdp_unpatch.rules.{shared}")
        assert not [v for v in vars(module).values() if isinstance(v, registry.Rule) and v.module == shared], shared
    assert not list((PACKAGE / "rules").glob("declared/*.py"))  # (a stale __pycache__ may stay behind)


def test_the_source_layer_names_no_rule_and_every_error_kind_is_a_rule() -> None:
    """Reading, parsing and writing raise a typed error (its kind); the error rules make it a finding."""
    from typing import get_args

    from fsdp_unpatch.files.reading import SourceError, SourceErrorKind
    from fsdp_unpatch.rules.registry import code_of_kind, error_finding

    tree = ast.parse((PACKAGE / "analysis" / "source.py").read_text(encoding="utf-8"))
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    assert [m for m in imported if m.startswith("fsdp_unpatch.rules")] == []
    assert set(code_of_kind()) == set(get_args(SourceErrorKind))
    assert set(code_of_kind().values()) == registry.codes(category="error")
    finding = error_finding("pkg/a.py", SourceError("parse", "syntax error: bad", 3, 5))
    assert (finding.code, finding.message, finding.span.line, finding.span.column) == (
        "FSU901",
        "syntax error: bad",
        3,
        5,
    )


def test_a_code_range_says_the_category() -> None:
    ranges = {"0": {"remove", "review"}, "1": {"review"}, "2": {"keep"}, "3": {"remove", "review"}, "9": {"error"}}
    for rule in registry.all_rules().values():
        if rule.code[3] in ranges:
            assert rule.category in ranges[rule.code[3]], rule.code
    assert all(r.fix == "none" for r in registry.all_rules().values() if r.category in ("keep", "error"))


def test_a_message_template_takes_its_fields() -> None:
    rule = registry.rule("FSU004")
    assert rule.message(call="_apply_fsdp_patch()") == "`_apply_fsdp_patch()` calls an installer that is removed"
    with pytest.raises(KeyError):
        rule.message()


def test_codes_selects_by_applicability_category_and_phase() -> None:
    safe = registry.codes(fix="safe")
    assert {"FSU001", "FSU002", "FSU003", "FSU004", "FSU301"} <= safe
    assert "FSU005" not in safe and "FSU302" not in safe
    assert registry.codes(category="error") == {"FSU901", "FSU902", "FSU903", "FSU904"}
    assert registry.codes(phase="run") == {"FSU004", "FSU301", "FSU302", "FSU303", "FSU304", "FSU305", "FSU306"}
    assert registry.codes(fix="unsafe", category="review") == {"FSU005"}


def test_declaring_a_code_twice_differently_fails() -> None:
    first = registry.rule("FSU001")
    with pytest.raises(ValueError, match="declared twice"):
        registry.declare(
            first.code,
            "another-name",
            category=first.category,
            fix=first.fix,
            phase=first.phase,
            summary=first.summary,
            messages=dict(first.messages),
            doc=first.doc,
        )
    assert registry.rule("FSU001") is first


def test_the_batch_layer_computes_every_cross_file_key_a_rule_exports() -> None:
    """A rule whose findings depend on other files declares what it exports; the batch layer must compute
    exactly those keys, or the parallel path would silently differ from a run over all files at once."""
    from fsdp_unpatch.analysis.plan import Options
    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.discovery import discover
    from fsdp_unpatch.model import RunOptions
    from fsdp_unpatch.run.alone import cross_file_keys
    from fsdp_unpatch.run.engine import Run

    example = PACKAGE.parent / "examples" / "legacy_project" / "legacy_npu" / "distributed" / "fsdp"
    engine = Run(load_catalog(), RunOptions(Options(target_torch=Version.parse("2.13")), fix=True, write=False))
    engine.load(list(discover([str(example / "_add_fsdp_patch.py")])))
    engine.link()
    keys = cross_file_keys(engine)
    declared = {key for rule in registry.all_rules().values() for key in rule.exports}
    assert set(keys) == declared == set(registry.CROSS_FILE_KEYS)
    assert "_apply_fsdp_patch" in keys["deleted-names"]


def test_the_readme_rules_table_is_the_registry() -> None:
    import subprocess
    import sys

    from fsdp_unpatch.commands.docs import markdown_table

    rows = markdown_table().splitlines()[2:]
    assert [row.split(" | ")[0].lstrip("| ") for row in rows] == list(registry.all_rules())
    script = PACKAGE.parent / "scripts" / "gen_readme_rules.py"
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_readme_check_fails_on_a_stale_table(tmp_path: Path) -> None:
    import importlib.util

    script = PACKAGE.parent / "scripts" / "gen_readme_rules.py"
    spec = importlib.util.spec_from_file_location("gen_readme_rules", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    assert module.with_table(readme) == readme
    stale = readme.replace("| FSU904 | file-too-large |", "| FSU904 | too-large |")
    assert stale != readme and module.with_table(stale) == readme


def test_a_check_comes_with_its_subject_kind() -> None:
    first = registry.rule("FSU105")
    with pytest.raises(ValueError, match="go together"):
        registry.declare(
            "FSU999",
            "checked-without-subject",
            category="review",
            fix="none",
            phase="file",
            summary="s",
            messages="m",
            doc=first.doc,
            check=first.check,
        )
    assert "FSU999" not in registry.all_rules()


def test_rules_markdown_output_is_the_table(tmp_path: Path) -> None:
    from tests.integration import cli

    result = cli("rules", "--output-format", "markdown", cwd=tmp_path)
    assert result.returncode == 0
    from fsdp_unpatch.commands.docs import markdown_table

    assert result.stdout.decode() == markdown_table() + "\n"


def test_a_rule_is_a_value() -> None:
    rule = registry.rule("FSU001")
    assert hash(rule) == hash(registry.rule("FSU001")) and {rule} == {registry.rule("FSU001")}


def test_rules_targets_markdown_is_a_table(tmp_path: Path) -> None:
    from tests.integration import cli

    lines = cli("rules", "--targets", "--output-format", "markdown", cwd=tmp_path).stdout.decode().splitlines()
    assert lines[:2] == ["| target | category | torch | native device-agnostic since |", "| --- | --- | --- | --- |"]
    assert "| ops.fsdp.all_gather_copy_in | remove | torch 2.5+ | 2.8 |" in lines


def test_listing_the_rules_loads_no_libcst() -> None:
    """The configuration checks rule codes on runs that parse nothing: the declarations must stay data."""
    import subprocess
    import sys

    probe = (
        "import sys\nfrom fsdp_unpatch.rules.registry import all_rules\nall_rules()\nprint('libcst' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.split() == ["False"], done.stderr


def test_a_rule_may_check_several_kinds_of_subject_one_check_a_kind() -> None:
    """FSU401 checks a file's patches and then the run; a second check of the same kind, or of an unknown
    kind, is refused at the declaration."""
    stale = registry.rule("FSU401")
    assert [kind for kind, _ in stale.checks()] == ["run", "patches"]
    assert stale.check_of("patches") is not None and stale.check_of("site") is None
    first = registry.rule("FSU105")
    for also in ({"module": first.check}, {"everything": first.check}):
        with pytest.raises(ValueError, match="one check per kind of subject"):
            registry.declare(
                "FSU998",
                "checked-twice",
                category="review",
                fix="none",
                phase="file",
                summary="s",
                messages="m",
                doc=first.doc,
                check=first.check,
                subject="module",
                also=also,  # type: ignore[arg-type]
            )
    assert "FSU998" not in registry.all_rules()
