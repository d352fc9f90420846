"""What FSU306 costs a cold run (issue 23): each file gets one stat (its identity and its facts' record), the
attribute walk of an importer runs only when one of its aliases stands for a project module, CPython's parse
runs without the cyclic collector, and a module is searched for names bound by `import *` or `globals()` only
when a name is not spelled as bound. The findings stay the same."""

from __future__ import annotations

import ast
import gc
import os
from collections import Counter
from pathlib import Path

from fsdp_unpatch.analysis import bindings
from fsdp_unpatch.rules import broken_import


def _project(root: Path) -> list[str]:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(  # a patch module (it installs over FSDP2): FSU306 judges imports from it
        "from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup\n\n\n"
        "def present():\n    return 1\n\n\nOTHER = 2\nFSDPParamGroup.post_forward = present\n"
    )
    (package / "user.py").write_text(
        "import os\nfrom pkg.mod import present, missing, OTHER\n\n\nprint(os.path.basename(present()), OTHER)\n"
    )
    return sorted(str(p) for p in root.rglob("*.py"))


def _findings(root: Path, paths: list[str]) -> list[tuple[str, int, str]]:
    found = broken_import.findings(paths, paths, [None] * len(paths), [str(root)])
    return [(Path(paths[i]).name, f.span.line, f.message) for i, f in found]


def test_each_file_gets_one_stat(tmp_path: Path, monkeypatch) -> None:
    """The project walk's stat gives each file's identity and the stat its facts record: one per file."""
    paths = _project(tmp_path)
    broken_import.prefilter_for(broken_import.load_catalog())  # loaded before counting: the rules' own files
    taken: Counter = Counter()
    real = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: taken.update([os.fspath(path)]) or real(path, *a, **k))
    assert [name for name, _, _ in _findings(tmp_path, paths)] == ["user.py"]
    monkeypatch.undo()
    assert {p: n for p, n in taken.items() if p.endswith(".py")} == dict.fromkeys(paths, 1), taken


def test_no_attribute_walk_when_no_alias_stands_for_a_project_module(tmp_path: Path, monkeypatch) -> None:
    paths = _project(tmp_path)
    walks: list[object] = []
    real = bindings._attribute_reads
    monkeypatch.setattr(bindings, "_attribute_reads", lambda *args: walks.append(args) or real(*args))
    found = _findings(tmp_path, paths)
    assert [(name, line) for name, line, _ in found] == [("user.py", 2)]
    assert "`missing` is imported from `pkg.mod`" in found[0][2]
    assert walks == []  # `os` is no module of the project: its reads are not walked for


def test_parse_runs_without_the_cyclic_collector(monkeypatch) -> None:
    seen: list[bool] = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *args, **kwargs: seen.append(gc.isenabled()) or real(*args, **kwargs))
    assert gc.isenabled()
    tree = bindings.parse(b"x = 1\n")
    monkeypatch.undo()
    assert tree is not None and seen == [False] and gc.isenabled()


def test_open_module_search_only_for_a_name_not_spelled_as_bound(tmp_path: Path, monkeypatch) -> None:
    paths = _project(tmp_path)
    project = broken_import.project_files([str(tmp_path)])
    targets = broken_import._Targets(
        project, {}, broken_import.ImportFacts(), broken_import.prefilter_for(broken_import.load_catalog())
    )
    module = next(e for e in project.files.values() if e.paths[0].endswith("mod.py"))
    assert targets.may_bind(module, "present") and targets.may_bind(module, "OTHER")
    assert targets.open == {}  # both spelled as bound: `import *` and the like were not searched for
    assert not targets.may_bind(module, "missing")
    assert targets.open == {module.key: False}
    assert paths
