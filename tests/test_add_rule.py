"""The scaffold (`scripts/add_rule.py`): adding a rule is one module, its cases and the generated README row.

Run in a copy of the parts of the repository it reads and writes, never in this tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NEW = ["FSU199", "patched-hook", "--category", "review", "--fix", "none", "--phase", "file"]


def copy_of_repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache")
    for part in ("fsdp_unpatch", "scripts", "tests/rules"):
        shutil.copytree(REPO / part, copy / part, ignore=ignore)
    for name in ("README.md", "pyproject.toml", "docs/rules.md"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, copy / name)
    return copy


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def run(copy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=copy, capture_output=True, text=True)


@pytest.fixture
def scaffolded(tmp_path: Path) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    copy = copy_of_repo(tmp_path)
    before = tree(copy)
    done = run(copy, "scripts/add_rule.py", *NEW, "--summary", "An FSDP2 hook replaced by hand")
    assert done.returncode == 0, done.stderr
    return copy, before, tree(copy)


def test_the_scaffold_touches_only_the_rule_module_its_cases_and_the_readme(scaffolded) -> None:
    copy, before, after = scaffolded
    changed = {name for name in after.keys() | before.keys() if before.get(name) != after.get(name)}
    assert changed == {
        "fsdp_unpatch/rules/patched_hook.py",
        "tests/rules/FSU199/fires/example.py",
        "tests/rules/FSU199/ok_fires/example.py",
        "README.md",
        "docs/rules.md",  # the rule's section of the reference, which its findings' `url` links
    }
    readme_before = before["README.md"].decode().splitlines()
    readme_after = after["README.md"].decode().splitlines()
    added = [line for line in readme_after if line not in readme_before]
    assert len(readme_after) == len(readme_before) + 1 and added[0].startswith("| FSU199 | patched-hook | review |")


def test_the_registry_lists_the_scaffolded_rule(scaffolded) -> None:
    copy, _, _ = scaffolded
    probe = (
        "from fsdp_unpatch.rules.registry import rule\n"
        "r = rule('FSU199')\n"
        "print(r.name, r.category, r.fix, r.phase, r.module, r.check is not None)\n"
    )
    done = run(copy, "-c", probe)
    assert done.stdout.split() == ["patched-hook", "review", "none", "file", "patched_hook", "True"], done.stderr
    assert run(copy, "scripts/gen_readme_rules.py", "--check").returncode == 0


def test_the_scaffolded_module_passes_the_linters(scaffolded) -> None:
    copy, _, _ = scaffolded
    module = "fsdp_unpatch/rules/patched_hook.py"
    for args in (("check", module), ("format", "--check", module)):
        done = run(copy, "-m", "ruff", *args)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_scaffold_refuses_a_taken_code_or_name_and_writes_nothing(tmp_path: Path) -> None:
    copy = copy_of_repo(tmp_path)
    before = tree(copy)
    taken_code = run(copy, "scripts/add_rule.py", "FSU001", "patched-hook", *NEW[2:])
    taken_name = run(copy, "scripts/add_rule.py", "FSU199", "collective-override", *NEW[2:])
    assert taken_code.returncode == 2 and "FSU001 is taken" in taken_code.stderr
    assert taken_name.returncode == 2 and "collective-override is taken" in taken_name.stderr
    assert tree(copy) == before


def test_a_run_phase_rule_is_scaffolded_with_a_run_check(tmp_path: Path) -> None:
    copy = copy_of_repo(tmp_path)
    before = tree(copy)
    done = run(
        copy,
        "scripts/add_rule.py",
        "FSU499",
        "patched-twice",
        "--category",
        "review",
        "--fix",
        "none",
        "--phase",
        "run",
        "--case",
        "twice",
    )
    assert done.returncode == 0, done.stderr
    after = tree(copy)
    changed = {name for name in after.keys() | before.keys() if before.get(name) != after.get(name)}
    assert changed == {
        "fsdp_unpatch/rules/patched_twice.py",
        "tests/rules/FSU499/twice/example.py",
        "tests/rules/FSU499/ok_twice/example.py",
        "README.md",
        "docs/rules.md",
    }
    probe = "from fsdp_unpatch.rules.registry import rule\nr = rule('FSU499')\nprint(r.phase, r.subject)\n"
    assert run(copy, "-c", probe).stdout.split() == ["run", "run"]
    for args in (("check", "fsdp_unpatch/rules/patched_twice.py"), ("format", "--check", "fsdp_unpatch/rules")):
        linted = run(copy, "-m", "ruff", *args)
        assert linted.returncode == 0, linted.stdout + linted.stderr


# A `check` filled in by hand, in the scaffolded module only: it reports each module's first statement.
FIRST_STATEMENT = """\
    from fsdp_unpatch.analysis.planned import Planned

    yield Planned(PATCHED_HOOK.code, analysis.module.body[0], PATCHED_HOOK.message(placeholders="here"))
"""
# A patch the ast tier and the prefilter let through to the analysis.
INSTALL_SITE = """\
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


def _post_backward(self):
    return None


FSDPParamGroup.post_backward = _post_backward
"""


def test_the_scaffolded_module_alone_is_dispatched(scaffolded) -> None:
    """Filling in the module's `check` is all it takes for the engine to run it: nothing else lists it."""
    copy, _, _ = scaffolded
    module = copy / "fsdp_unpatch" / "rules" / "patched_hook.py"
    text = module.read_text(encoding="utf-8")
    assert text.count("    yield from ()\n") == 1
    module.write_text(text.replace("    yield from ()\n", FIRST_STATEMENT), encoding="utf-8")
    project = copy / "project"
    project.mkdir()
    (project / "patch.py").write_text(INSTALL_SITE, encoding="utf-8")
    args = ("-m", "fsdp_unpatch", "check", "--no-cache", "--isolated", "--output-format", "concise")
    fired = run(copy, *args, "--target-torch", "2.13", "project")
    assert "patch.py:1:1: FSU199 [review] TODO: the finding's message, with here" in fired.stdout, fired.stdout
    ignored = run(copy, *args, "--target-torch", "2.13", "--ignore", "FSU199", "project")
    assert "FSU199" not in ignored.stdout and ignored.stdout.strip(), ignored.stdout + ignored.stderr


# A site rule's `check` filled in by hand: it reports every install site the semantic model gave a verdict.
EVERY_JUDGED_SITE = """\
    from fsdp_unpatch.analysis.planned import Planned

    if site.verdict is not None:
        yield Planned(WRAPPED_HOOK.code, site.install.report, WRAPPED_HOOK.message(placeholders=site.verdict.kind))
"""


def test_a_site_rule_is_scaffolded_and_dispatched_with_each_site_and_its_verdict(tmp_path: Path) -> None:
    """`--subject site`: the check takes one install site and the verdict on it; filled in, it runs on
    every site the planner judges, with no other file edited."""
    copy = copy_of_repo(tmp_path)
    before = tree(copy)
    args = ["FSU198", "wrapped-hook", "--category", "review", "--fix", "none", "--phase", "file", "--subject", "site"]
    done = run(copy, "scripts/add_rule.py", *args, "--case", "wrapped")
    assert done.returncode == 0, done.stderr
    module = copy / "fsdp_unpatch" / "rules" / "wrapped_hook.py"
    changed = {name for name, data in tree(copy).items() if before.get(name) != data}
    assert changed == {
        "fsdp_unpatch/rules/wrapped_hook.py",
        "tests/rules/FSU198/wrapped/example.py",
        "tests/rules/FSU198/ok_wrapped/example.py",
        "README.md",
        "docs/rules.md",
    }
    for lint in (("check", str(module)), ("format", "--check", str(module))):
        linted = run(copy, "-m", "ruff", *lint)
        assert linted.returncode == 0, linted.stdout + linted.stderr
    probe = "from fsdp_unpatch.rules.registry import rule\nr = rule('FSU198')\nprint(r.phase, r.subject)\n"
    assert run(copy, "-c", probe).stdout.split() == ["file", "site"]
    text = module.read_text(encoding="utf-8")
    assert "def check(site: Site, analysis: ModuleSubject, catalog: Catalog, options: Options)" in text
    assert text.count("    yield from ()\n") == 1
    module.write_text(text.replace("    yield from ()\n", EVERY_JUDGED_SITE), encoding="utf-8")
    project = copy / "project"
    project.mkdir()
    (project / "patch.py").write_text(INSTALL_SITE, encoding="utf-8")
    check = ("-m", "fsdp_unpatch", "check", "--no-cache", "--isolated", "--output-format", "concise")
    fired = run(copy, *check, "--target-torch", "2.13", "project")
    assert "patch.py:8:1: FSU198 [review] TODO: the finding's message, with outside_enhance" in fired.stdout, (
        fired.stdout
    )
    ignored = run(copy, *check, "--target-torch", "2.13", "--ignore", "FSU198", "project")
    assert "FSU198" not in ignored.stdout and ignored.stdout.strip(), ignored.stdout + ignored.stderr


# A module rule's `check` filled in by hand: every call of `fully_shard`, in a file with no install site at all.
EVERY_FULLY_SHARD_CALL = """\
    import libcst as cst

    from fsdp_unpatch.analysis.planned import Planned

    calls = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "fully_shard":
                calls.append(node)

    analysis.module.visit(Calls())
    for call in calls:
        yield Planned(SHARDED_CALL.code, call, SHARDED_CALL.message(placeholders="fully_shard"))
"""
SHARDING = "from torch.distributed.fsdp import fully_shard\n\n\ndef shard(model):\n    fully_shard(model)\n"


@pytest.mark.parametrize("declared", [True, False])
def test_a_rule_that_declares_its_candidates_fires_from_the_cli(tmp_path: Path, declared: bool) -> None:
    """Issue 32 item 2: the gates that spare files a parse are built from the rules' declarations, so a
    scaffolded rule fires with no other file edited; without the declaration such a file never reaches it."""
    copy = copy_of_repo(tmp_path)
    extra = ["--candidates", "fully_shard"] if declared else []
    done = run(copy, "scripts/add_rule.py", "FSU198", "sharded-call", "--category", "review", "--fix", "none",
               "--phase", "file", *extra)  # fmt: skip
    assert done.returncode == 0, done.stderr
    module = copy / "fsdp_unpatch" / "rules" / "sharded_call.py"
    text = module.read_text(encoding="utf-8")
    assert ('candidates=("fully_shard",)' in text) is declared
    module.write_text(text.replace("    yield from ()\n", EVERY_FULLY_SHARD_CALL), encoding="utf-8")
    project = copy / "project"
    project.mkdir()
    (project / "model.py").write_text(SHARDING, encoding="utf-8")
    args = ("-m", "fsdp_unpatch", "check", "--no-cache", "--isolated", "--output-format", "concise")
    fired = run(copy, *args, "--target-torch", "2.13", "project")
    assert ("model.py:5:5: FSU198 [review]" in fired.stdout) is declared, fired.stdout + fired.stderr
