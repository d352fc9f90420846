"""The scaffold (`scripts/add_rule.py`): adding a rule is one module, its cases and the generated README row.

Run in a copy of the parts of the repository it reads and writes, never in this tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.rules.registry import SUBJECT_KINDS

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


# Issue 32 item 2: a rule of each kind the scaffold writes, with a candidate declaration, fires from the command
# line with no other file edited. Its check, filled in by hand, reports where each subject it is handed lies:
# the subject's own node, or the first statement of the module for the kinds handed every analysed module.
WHERE = {
    "site": "site.install.report",
    "replacement": "replacement.function",
    "installer": "installer.function",
    "copy": "copy.node",
    "patches": "analysis.module.body[0]",
    "installer-calls": "analysis.module.body[0]",
    "module": "analysis.module.body[0]",
    "reference": "subject.reference.node",
    "tests": "analysis.module.body[0]",
    "strings": "analysis.module.body[0]",
}
REPORTS = """\
    from fsdp_unpatch.analysis.planned import Planned

    yield Planned(SHARDED_CALL.code, {where}, SHARDED_CALL.message(placeholders="{kind}"))
"""
REPORTS_EACH_MODULE = """\
    from fsdp_unpatch.analysis.decisions import Add
    from fsdp_unpatch.analysis.planned import Planned

    for analysis in analyses:
        yield Add(analysis, Planned(SHARDED_CALL.code, analysis.module.body[0], SHARDED_CALL.message(placeholders="run")))
"""
# The kinds whose check yields no `Planned`: a decision on what an earlier fix left (remains), a finding of a
# file once every finding is planned (planned), findings on the run's files (imports).
REPORTS_OTHER = {
    "remains": """\
    from fsdp_unpatch.analysis.decisions import Add
    from fsdp_unpatch.analysis.planned import Planned

    yield Add(analysis, Planned(SHARDED_CALL.code, analysis.module.body[0], SHARDED_CALL.message(placeholders="remains")))
""",
    "planned": """\
    from fsdp_unpatch.model import Finding, Span

    message = SHARDED_CALL.message(placeholders="planned")
    yield Finding(code=SHARDED_CALL.code, category="review", path=planned.display, span=Span(1, 1, 1, 1), message=message)
""",
    "imports": """\
    from fsdp_unpatch.analysis.subjects import FileFinding
    from fsdp_unpatch.model import Finding, Span

    message = SHARDED_CALL.message(placeholders="imports")
    for index, display in enumerate(imports.displays):
        found = Finding(code=SHARDED_CALL.code, category="review", path=display, span=Span(1, 1, 1, 1), message=message)
        yield FileFinding(index, found)
""",
}
# A call of `fully_shard`, in a file that patches nothing: only a declaration brings it to a rule.
SHARDING = "from torch.distributed.fsdp import fully_shard\n\n\ndef shard(model):\n    fully_shard(model)\n"
# `fully_shard(` in a docstring only: the call shape is tested on the syntax tree, so no rule is handed it.
NOTES = '"""Shard each block: call fully_shard(block) before the model."""\n\nBLOCKS = 4\n'
# An override that stays (FSU101, review), through a dotted path: the `ast` model decides such a file alone.
HOOKS = """\
\"\"\"Logs each post-backward of an FSDP2 parameter group.\"\"\"
import torch


def _post_backward_and_log(self, *args, **kwargs):
    print("post-backward")


torch.distributed.fsdp._fully_shard._fsdp_param_group.FSDPParamGroup.post_backward = _post_backward_and_log
"""
# A proven copy installed by an installer that is called: a replacement and an installer that go.
INSTALLED_COPY = """\
import torch
import torch.distributed as dist
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


# @upstream _fsdp_param_group.FSDPParamGroup.finalize_backward _sharded_finalize_backward npu-stream


def install():
    FSDPParamGroup.finalize_backward = _sharded_finalize_backward


install()
"""
# What names the replacement of INSTALLED_COPY in the other files of its project: a reference and a string,
# on lines with a `# noqa` comment, and a test module that tests it.
ELSEWHERE = {
    "adapter/__init__.py": "",
    "adapter/user.py": "from adapter.patch import _sharded_finalize_backward  # noqa: FSU101\n\n"
    'STEP = _sharded_finalize_backward\nTARGET = "adapter.patch._sharded_finalize_backward"\n',
    "tests/test_patch.py": "from adapter.patch import _sharded_finalize_backward\n\n\n"
    "def test_finalize():\n    _sharded_finalize_backward(None)\n",
}


def _project(kind: str) -> dict[str, str]:
    """The files of the small project each case checks: a module that calls `fully_shard`, one that only
    names it in a docstring, and what gives the kind its subjects."""
    files = {"model.py": SHARDING, "notes.py": NOTES}
    if kind in ("site", "patches", "installer-calls"):
        files["hooks.py"] = HOOKS
    elif kind in ("replacement", "installer"):
        from tests.upstream import expand

        files["adapter.py"] = expand(INSTALLED_COPY)
    elif kind == "copy":
        files["buffers.py"] = (REPO / "tests/rules/FSU005/special_case_in_a_helper/buffers.py").read_text()
    elif kind in ("reference", "tests", "strings", "remains", "planned", "imports"):
        from tests.upstream import expand

        files.update({**ELSEWHERE, "adapter/patch.py": expand(INSTALLED_COPY)})
    return files


def _reported(stdout: str) -> set[str]:
    """`path:line:column` of each FSU198 finding."""
    return {line.split(": FSU198")[0] for line in stdout.splitlines() if ": FSU198 [review]" in line}


# (kind, --candidates, where FSU198 fires): every kind with the `fully_shard(` call declared (the kinds whose
# subjects come from install sites or copies declare those too, as the scaffold writes them); a `module` and
# a `run` rule that declare plain stores, handed the file the `ast` model would otherwise decide alone; and a
# `module` rule that declares nothing, which no file reaches.
FIRES = {
    "site": {"project/hooks.py:9:1"},
    "patches": {"project/model.py:1:1", "project/hooks.py:1:1"},
    "replacement": {"project/adapter.py:6:1"},
    "installer": {"project/adapter.py:28:1"},
    "copy": {"project/buffers.py:6:5"},
    "installer-calls": {"project/model.py:1:1", "project/hooks.py:1:1"},
    "module": {"project/model.py:1:1"},
    "run": {"project/model.py:1:1"},
    # the run's linking: the reference outside the test that goes; the files that spell the removed name
    "reference": {"project/adapter/user.py:3:8"},
    "tests": {"project/adapter/patch.py:1:1", "project/adapter/user.py:1:1", "project/tests/test_patch.py:1:1"},
    "strings": {"project/adapter/patch.py:1:1", "project/adapter/user.py:1:1", "project/tests/test_patch.py:1:1"},
    # every file analysed when the linking begins (the test module is parsed later, for the name it spells)
    "remains": {"project/model.py:1:1", "project/adapter/patch.py:1:1", "project/adapter/user.py:1:1"},
    "planned": {"project/adapter/user.py:1:1"},  # the file with a `# noqa` comment
    "imports": {  # every file of the run
        f"project/{name}:1:1"
        for name in ("model.py", "notes.py", "adapter/__init__.py", "adapter/patch.py", "adapter/user.py")
    }
    | {"project/tests/test_patch.py:1:1"},
}
CASES = [(kind, "fully_shard(", FIRES[kind]) for kind in SUBJECT_KINDS] + [
    ("module", "fsdp2-store", {"project/hooks.py:1:1"}),
    ("run", "fsdp2-store", {"project/hooks.py:1:1"}),
    ("module", "", set()),
]


def test_every_kind_the_scaffold_writes_has_a_case() -> None:
    assert set(FIRES) == set(SUBJECT_KINDS)


@pytest.mark.parametrize(("kind", "candidates", "fires"), CASES, ids=[f"{k}-{c or 'none'}" for k, c, _ in CASES])
def test_a_scaffolded_rule_of_each_kind_fires_from_the_cli_on_what_it_declares(
    tmp_path: Path, kind: str, candidates: str, fires: set[str]
) -> None:
    """The gates that spare files a parse (the prefilter, the `ast` screen, the `ast` findings) are compiled
    from what the registered rules declare, so the scaffold's rule is handed the files that hold its shapes,
    and only those (`notes.py` spells `fully_shard(` in a docstring), with nothing but its module edited."""
    copy = copy_of_repo(tmp_path)
    files = {"hooks.py": HOOKS, "notes.py": NOTES} if candidates == "fsdp2-store" else _project(kind)
    before = tree(copy)
    phase = "run" if kind == "run" else "file"
    args = ["FSU198", "sharded-call", "--category", "review", "--fix", "none", "--phase", phase, "--subject", kind]
    done = run(copy, "scripts/add_rule.py", *args, *(["--candidates", candidates] if candidates else []))
    assert done.returncode == 0, done.stderr
    module = copy / "fsdp_unpatch" / "rules" / "sharded_call.py"
    changed = {name for name, data in tree(copy).items() if before.get(name) != data}
    assert changed == {
        "fsdp_unpatch/rules/sharded_call.py",
        "tests/rules/FSU198/fires/example.py",
        "tests/rules/FSU198/ok_fires/example.py",
        "README.md",
        "docs/rules.md",
    }
    text = module.read_text(encoding="utf-8")
    declared = {"fully_shard(": 'call("fully_shard")', "fsdp2-store": 'shape("fsdp2-store")', "": None}[candidates]
    assert declared is None or declared in text.split("candidates=(")[1].split("    doc=")[0], text
    assert text.count("    yield from ()\n") == 1
    if kind in REPORTS_OTHER:
        body = REPORTS_OTHER[kind]
    else:
        body = REPORTS_EACH_MODULE if kind == "run" else REPORTS.format(where=WHERE[kind], kind=kind)
    module.write_text(text.replace("    yield from ()\n", body), encoding="utf-8")
    project = copy / "project"
    project.mkdir()
    for name, source in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(source, encoding="utf-8")
    check = ("-m", "fsdp_unpatch", "check", "--no-cache", "--isolated", "--output-format", "concise")
    fired = run(copy, *check, "--target-torch", "2.13", "project")
    assert fired.returncode in (0, 1), fired.stdout + fired.stderr
    assert _reported(fired.stdout) == fires, fired.stdout + fired.stderr
    # the other rules' findings are those of a run that does not check it at all
    ignored = run(copy, *check, "--target-torch", "2.13", "--ignore", "FSU198", "project")
    others = [line for line in fired.stdout.splitlines() if ": FSU198 [review]" not in line and ":" in line]
    assert others == [line for line in ignored.stdout.splitlines() if ":" in line and "Found" not in line]
