"""The fast run (prefilter, per-file phase, pool, cache) gives what the plain engine gives over all files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.discovery import discover
from fsdp_unpatch.config.options import Options
from fsdp_unpatch.config.settings import Settings
from fsdp_unpatch.model import FileResult, Finding, RunOptions, RunResult, Span
from fsdp_unpatch.run import pool
from fsdp_unpatch.run.batch import Outcome, run
from fsdp_unpatch.run.cache import CACHE_DIR, Cache
from fsdp_unpatch.run.cache_key import describe
from fsdp_unpatch.run.engine import run_together
from tests.upstream import expanded_copy

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _trees(tmp_path: Path) -> list[Path]:
    return [
        expanded_copy(FIXTURES / "downstream", tmp_path / "downstream"),
        expanded_copy(FIXTURES / "fix", tmp_path / "fix"),
        expanded_copy(FIXTURES / "unchanged", tmp_path / "unchanged"),
        expanded_copy(ROOT / "examples" / "legacy_project", tmp_path / "legacy_project"),
    ]


def _options(fix: bool = False, torch: str = "2.13", **kwargs) -> RunOptions:
    return RunOptions(analysis=Options(target_torch=Version.parse(torch)), fix=fix, write=False, **kwargs)


def _plain(result: RunResult) -> list:
    return [
        (r.display, [json.dumps(f.to_dict(), sort_keys=True) for f in r.findings], r.fixed, r.deleted)
        for r in result.files
    ] + [result.unsafe_fixes_left]


@pytest.fixture
def always_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(pool, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(pool, "idle_cpus", lambda: 2)  # a busy machine would otherwise run alone


@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix-diff"])
def test_same_result_as_the_plain_engine_alone_and_in_a_pool(fix: bool, tmp_path: Path, always_pool) -> None:
    catalog = load_catalog()
    for tree in _trees(tmp_path):
        options = _options(fix=fix, unsafe_fixes=True)
        expected = _plain(run_together(discover([str(tree)]), catalog, options))
        assert any(files[1] for files in expected[:-1]), f"{tree.name} must yield findings"
        assert _plain(run(discover([str(tree)]), catalog, options, jobs=1)) == expected, tree.name
        assert _plain(run(discover([str(tree)]), catalog, options, jobs=2)) == expected, tree.name


def test_cross_file_findings_come_from_the_linked_phase(tmp_path: Path) -> None:
    """An installer removed in one file and called in another: the call's FSU004 needs both files."""
    tree = expanded_copy(ROOT / "examples" / "legacy_project", tmp_path / "legacy_project")
    result = run(discover([str(tree)]), load_catalog(), _options())
    codes = {(Path(f.path).name, f.code) for f in result.findings}
    assert ("_api_patches.py", "FSU004") in codes and ("_add_fsdp_patch.py", "FSU003") in codes


def test_a_module_alias_bound_in_another_file_is_followed_by_the_linked_phase(tmp_path: Path) -> None:
    """`compat.py` binds FSDP2 modules (the prefilter drops it: it patches nothing); `hooks.py` patches through
    them: the batch layer links the two files and finds what the plain engine finds."""
    import shutil

    tree = tmp_path / "case"
    shutil.copytree(ROOT / "tests" / "rules" / "FSU101" / "module_alias_from_another_file", tree)
    expected = _plain(run_together(discover([str(tree)]), load_catalog(), _options()))
    assert _plain(run(discover([str(tree)]), load_catalog(), _options())) == expected
    result = run(discover([str(tree)]), load_catalog(), _options())
    assert {(Path(f.path).name, f.code) for f in result.findings} >= {("hooks.py", "FSU101")}


def test_fix_writes_the_same_files_with_and_without_a_pool(tmp_path: Path, always_pool) -> None:
    catalog = load_catalog()
    trees = {}
    for jobs in (1, 2):
        tree = expanded_copy(FIXTURES / "downstream", tmp_path / f"jobs{jobs}")
        options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")), fix=True, unsafe_fixes=True)
        run(discover([str(tree)]), catalog, options, jobs=jobs)
        trees[jobs] = {p.relative_to(tree): p.read_bytes() for p in sorted(tree.rglob("*.py"))}
    unfixed = expanded_copy(FIXTURES / "downstream", tmp_path / "unfixed")
    before = {p.relative_to(unfixed): p.read_bytes() for p in sorted(unfixed.rglob("*.py"))}
    assert trees[1] != before, "the fix must change the tree for this test to mean something"
    assert trees[1] == trees[2]


def test_cli_json_is_the_same_with_one_and_two_jobs(tmp_path: Path) -> None:
    tree = expanded_copy(FIXTURES / "fix", tmp_path / "tree")
    # enough source to parse that the pool is used (pool.POOL_MIN_BYTES)
    filler = "\n".join(f"# filler line {i} " + "x" * 60 for i in range(400)) + "\n"
    for path in sorted(tree.glob("*.in.py")):
        path.write_text(path.read_text() + filler)
    outputs = []
    for jobs in ("1", "2"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "fsdp_unpatch",
                "check",
                "--no-cache",
                "--jobs",
                jobs,
                "--output-format",
                "json",
                ".",
            ],
            cwd=tree,
            capture_output=True,
        )
        assert done.returncode == 1, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] and outputs[0] == outputs[1]


# cache ----------------------------------------------------------------------------------------------
def _cached_run(tree: Path, cache: Cache, options: RunOptions) -> RunResult:
    return run(discover([str(tree)]), load_catalog(), options, cache=cache)


def _codes(result: RunResult) -> list[tuple[str, str]]:
    return sorted((Path(f.path).name, f.code) for f in result.findings)


def _cache(tree: Path, settings: Settings, options: RunOptions, catalog: str | None = None) -> Cache:
    return Cache(tree, describe(settings, options), catalog=catalog)


def test_warm_cache_gives_the_same_findings_from_the_cache(tmp_path: Path) -> None:
    tree = expanded_copy(FIXTURES / "unchanged", tmp_path / "tree")
    options, settings = _options(), Settings()
    cold = _cache(tree, settings, options)
    first = _cached_run(tree, cold, options)
    assert cold.hits == 0 and cold.misses > 0
    warm = _cache(tree, settings, options)
    second = _cached_run(tree, warm, options)
    assert warm.hits == cold.misses and warm.misses == 0
    assert _plain(second) == _plain(first) and first.findings
    folder = tree / CACHE_DIR
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert not [p for p in folder.rglob("*.tmp")]


def test_changed_file_gives_fresh_findings(tmp_path: Path) -> None:
    tree = expanded_copy(FIXTURES / "unchanged", tmp_path / "tree")
    options, settings = _options(), Settings()
    before = _codes(_cached_run(tree, _cache(tree, settings, options), options))
    assert ("extra_statement_copy.py", "FSU101") in before
    target = tree / "extra_statement_copy.py"
    target.write_text(target.read_text().replace("C._get_param_all_gather_inputs = _synced_inputs\n", ""))
    after = _codes(_cached_run(tree, _cache(tree, settings, options), options))
    assert ("extra_statement_copy.py", "FSU101") not in after


def test_changed_configuration_gives_fresh_findings(tmp_path: Path) -> None:
    tree = expanded_copy(FIXTURES / "unchanged", tmp_path / "tree")
    new, old = _options(torch="2.13"), _options(torch="2.7")
    first = _codes(_cached_run(tree, _cache(tree, Settings(target_torch="2.13"), new), new))
    second = _codes(_cached_run(tree, _cache(tree, Settings(target_torch="2.7"), old), old))
    assert ("old_torch_target.py", "FSU102") in second and ("old_torch_target.py", "FSU102") not in first
    ignoring = Settings(ignore=("FSU201",))
    options = _options(selected=ignoring.is_selected)
    third = _codes(_cached_run(tree, _cache(tree, ignoring, options), options))
    assert ("enhance_patch.py", "FSU201") in first and ("enhance_patch.py", "FSU201") not in third


def _doctor_entries(tree: Path, cache: Cache) -> int:
    """Replace every cache entry by an outcome with a finding no analysis makes (signed: the owner's own)."""
    entries = [p for p in (tree / CACHE_DIR / "entries").rglob("*") if p.is_file()]

    def fake(display: str) -> FileResult:
        return FileResult(display, findings=[Finding("FSU999", "error", display, Span(1, 1, 1, 1), "planted")])

    for path in entries:
        entry = cache.get(path.name)
        if isinstance(entry, Outcome):  # one file's outcome
            cache.put(path.name, Outcome(fake(entry.result.display)))
        elif isinstance(entry, list):  # the results of files linked together
            cache.put(path.name, [fake(result.display) for result in entry])
        # else: FSU306's import facts of the run's files (`project/import_facts.py`), no findings to plant
    return len(entries)


def test_changed_catalog_ignores_entries_of_the_old_one(tmp_path: Path) -> None:
    tree = expanded_copy(FIXTURES / "unchanged", tmp_path / "tree")
    options, settings = _options(), Settings()
    expected = _codes(_cached_run(tree, _cache(tree, settings, options, catalog="catalog-1"), options))
    assert _doctor_entries(tree, _cache(tree, settings, options, catalog="catalog-1")) > 0
    # the same catalog reads the (planted) entries: proof that the cache is what answers
    planted = _codes(_cached_run(tree, _cache(tree, settings, options, catalog="catalog-1"), options))
    assert {code for _, code in planted} == {"FSU999"}
    # another catalog digest never sees them
    fresh = _cached_run(tree, _cache(tree, settings, options, catalog="catalog-2"), options)
    assert _codes(fresh) == expected


def test_corrupt_entries_are_misses_not_crashes(tmp_path: Path) -> None:
    tree = expanded_copy(FIXTURES / "unchanged", tmp_path / "tree")
    options, settings = _options(), Settings()
    expected = _plain(_cached_run(tree, _cache(tree, settings, options), options))
    entries = [p for p in (tree / CACHE_DIR / "entries").rglob("*") if p.is_file()]
    results = [p for p in entries if _kind(p) in ("outcome", "group")]
    for number, path in enumerate(entries):
        path.write_bytes(b"" if number % 2 else b"\x80\x04garbage")
    cache = _cache(tree, settings, options)
    assert _plain(_cached_run(tree, cache, options)) == expected
    # each file's (or group's) results asked for once, and missed; what else the run keeps (FSU306's import
    # facts, the index of unchanged files: written only for files older than the racy window) is not counted
    assert results and cache.hits == 0 and cache.misses == len(results)


def _kind(entry: Path) -> str:
    """What a cache entry holds (`run/cache.py`: outcome, group, held, unchanged, imports)."""
    return json.loads(entry.read_bytes())["value"]["kind"]


def test_fix_does_not_use_the_cache(tmp_path: Path) -> None:
    tree = expanded_copy(FIXTURES / "unchanged", tmp_path / "tree")
    options, settings = _options(), Settings()
    _cached_run(tree, _cache(tree, settings, options), options)
    _doctor_entries(tree, _cache(tree, settings, options))
    fixing = _options(fix=True)
    result = _cached_run(tree, _cache(tree, settings, fixing), fixing)
    assert "FSU999" not in {f.code for f in result.findings} and result.findings


def test_check_creates_the_cache_at_the_project_root_and_clean_removes_it(tmp_path: Path) -> None:
    project = expanded_copy(FIXTURES / "unchanged", tmp_path / "project")
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    sub = project / "sub"
    sub.mkdir()
    shutil.copy(project / "enhance_patch.py", sub / "enhance_patch.py")

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "fsdp_unpatch", *args], cwd=sub, capture_output=True)

    assert cli("check", ".").returncode == 0
    assert (project / CACHE_DIR / ".gitignore").is_file() and not (sub / CACHE_DIR).exists()
    assert cli("check", "--no-cache", ".").returncode == 0
    done = cli("clean")
    assert done.returncode == 0 and not (project / CACHE_DIR).exists()
    assert b"No cache" in cli("clean").stdout


# lazy start -----------------------------------------------------------------------------------------
def test_a_tree_without_candidates_never_imports_libcst(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "plain.py").write_text("import os\n\n\ndef f():\n    return os.sep\n")
    (tmp_path / "pkg" / "prose.py").write_text("# FSDP mentioned in prose only\nfsdp_enabled = True\n")
    probe = (
        "import sys\n"
        "from fsdp_unpatch.cli import main\n"
        "try:\n    main(['check', '.'])\nexcept SystemExit as done:\n    status = done.code\n"
        "print(status, 'libcst' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.split()[-2:] == ["0", "False"], done.stderr
    (tmp_path / "pkg" / "patch.py").write_text("import torch\ntorch.ops.fsdp.all_gather_copy_in = lambda *a: None\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.split()[-1] == "True", done.stderr  # the probe can see libcst when it is needed


def _imports(path: Path) -> set[str]:
    """Every module a source file imports (at the top or inside a function)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_engine_does_not_import_the_batch_layer() -> None:
    """One direction only: the batch layer (and the cache, the session) call the engine, never the reverse."""
    package = Path(__file__).resolve().parent.parent / "fsdp_unpatch"
    batch_layer = {"fsdp_unpatch.run.batch", "fsdp_unpatch.run.cache", "fsdp_unpatch.run.session"}
    batch_layer |= {"fsdp_unpatch.run.alone", "fsdp_unpatch.run.pool", "fsdp_unpatch.run.cache_key"}
    engine_side = [package / "run" / "engine.py", package / "run" / "linking.py", package / "model.py"]
    engine_side += sorted((package / "analysis").glob("*.py")) + sorted((package / "rules").glob("*.py"))
    engine_side += sorted((package / "fixes").glob("*.py"))
    for path in engine_side:
        assert not _imports(path) & batch_layer, path
    # the cache holds the batch layer's outcomes, and gets their type from the model
    assert "fsdp_unpatch.run.batch" not in _imports(package / "run" / "cache.py")


def test_the_pool_is_used_only_with_work_enough_and_a_free_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "idle_cpus", lambda: 2)
    assert pool.pool_size(2, 10, 10 * pool.POOL_MIN_BYTES) == 2
    assert pool.pool_size(2, 1, 10 * pool.POOL_MIN_BYTES) == 1  # one file: nothing to share
    assert pool.pool_size(2, 10, pool.POOL_MIN_BYTES - 1) == 1  # too little to parse
    assert pool.pool_size(1, 10, 10 * pool.POOL_MIN_BYTES) == 1  # --jobs 1
    monkeypatch.setattr(pool, "idle_cpus", lambda: 1)  # the other CPU is busy
    assert pool.pool_size(2, 10, 10 * pool.POOL_MIN_BYTES) == 1
    monkeypatch.undo()  # the CPUs the load average leaves free
    monkeypatch.setattr(pool.os, "getloadavg", lambda: (0.2, 0.0, 0.0))
    monkeypatch.setattr(pool, "default_jobs", lambda: 2)
    assert pool.idle_cpus() == 2
    monkeypatch.setattr(pool.os, "getloadavg", lambda: (2.5, 0.0, 0.0))
    assert pool.idle_cpus() == 1


def _naive_alias_links(items, prefilter) -> list:
    """`_alias_links` as its docstring defines it, every pair of files compared (what it was before it was
    made near-linear): the reference the fast search must equal."""
    import os

    from fsdp_unpatch.analysis.byte_search import imports_from
    from fsdp_unpatch.project.identity import module_name
    from fsdp_unpatch.run.batch import _package_folder

    links = []
    for i, item in enumerate(items):
        module = module_name(item.candidate.path, real=True)[0]
        if not item.named_fsdp or not module or module.split(".")[0] == "torch":
            continue
        names = prefilter.fsdp2_bindings(item.source.data)
        if not names:
            continue
        base = _package_folder(item.candidate.path, module)
        importers = [
            j
            for j, other in enumerate(items)
            if j != i
            and other.named_fsdp
            and base in Path(os.path.abspath(other.candidate.path)).parents
            and imports_from(other.source.data, module.rsplit(".", 1)[-1], names)
        ]
        if importers:
            links.append((i, importers))
    return links


def test_alias_links_equal_the_pairwise_search(tmp_path: Path) -> None:
    """Copies of one alias module side by side share a search, and a folder whose name extends the package
    folder's (`a` and `a2`) is outside it: the fast search finds exactly the pairs of the plain one."""
    from fsdp_unpatch.analysis.prefilter import prefilter_for
    from fsdp_unpatch.files.reading import read_source
    from fsdp_unpatch.run.batch import _alias_links, _Item

    case = ROOT / "tests" / "rules" / "FSU101" / "module_alias_from_another_file"
    for copy in ("proj/a", "proj/b", "proj2/c", "proj/nested/d"):
        shutil.copytree(case, tmp_path / copy)
    (tmp_path / "proj" / "a2").mkdir()  # `proj/a2/` is not inside `proj/a/`
    (tmp_path / "proj" / "a2" / "hooks_outside.py").write_bytes((case / "npu_stack" / "hooks.py").read_bytes())
    prefilter = prefilter_for(load_catalog())
    items = []
    for index, candidate in enumerate(discover([str(tmp_path / "proj"), str(tmp_path / "proj2")])):
        source = read_source(candidate.path, candidate.display)
        items.append(_Item(index, candidate, source, named_fsdp=prefilter.has_token(source.data)))
    found = _alias_links(items, prefilter)
    assert len(found) >= 4, "every copy's compat.py links its hooks.py"
    assert found == _naive_alias_links(items, prefilter)


# phase 1 in worker processes ----------------------------------------------------------------------
PATCH_TEXT = (
    "import torch.distributed.fsdp._fully_shard._fsdp_param_group as g\n\n\n"
    'def install(f):\n    setattr(g.FSDPParamGroup, "post_backward", f)\n'
)


def _odd_tree(root: Path) -> Path:
    """A tree with findings (cross-file ones, FSU306's) among files that are odd in every way a run meets:
    syntax errors, NUL bytes, bytes that are not text, encoding cookies, links (broken, looping, a second name
    for a file), a named pipe, an empty file, and plain files in between (the prefilter drops them)."""
    import os

    tree = expanded_copy(FIXTURES / "downstream", root)
    shutil.copytree(ROOT / "tests" / "rules" / "FSU306" / "installer_import_left_behind", tree / "left")
    odd = tree / "odd"
    odd.mkdir()
    files = {
        "a_syntax_error.py": b"import torch.distributed.fsdp as f\n\ndef broken(:\n    pass\n",
        "b_nul.py": b"from torch.distributed.fsdp import fully_shard\x00\nx = 1\n",
        "c_not_text.py": b"import torch.distributed.fsdp\nx = '\xff\xfe\xfa'\n",
        "d_latin.py": b"# -*- coding: latin-1 -*-\nimport torch.distributed.fsdp\n# caf\xe9\nx = 1\n",
        "e_unknown_cookie.py": b"# -*- coding: klingon -*-\nimport torch.distributed.fsdp\n",
        "f_empty.py": b"",
        "g_patch.py": PATCH_TEXT.encode(),
        "h_bom.py": b"\xef\xbb\xbfimport torch.distributed.fsdp._fully_shard as fs\nfs.x = 1\n",
        "i_tab_error.py": b"import torch.distributed.fsdp\nif True:\n\tx = 1\n        y = 2\n",
    }
    for number in range(12):  # plain files: every verdict in a chunk of its own, and chunks of several kinds
        files[f"plain_{number:02d}.py"] = f"def train_{number}(model):\n    return model\n".encode()
    for name, data in files.items():
        (odd / name).write_bytes(data)
    os.symlink("nowhere.py", odd / "j_broken_link.py")
    os.symlink("k_loop.py", odd / "k_loop.py")
    os.symlink("g_patch.py", odd / "l_second_name.py")
    os.mkfifo(odd / "m_pipe.py")
    (odd / "n_unreadable.py").write_bytes(b"import torch.distributed.fsdp\n")
    (odd / "n_unreadable.py").chmod(0)  # unreadable but as root (the folder's walk still lists it)
    return tree


def _phase_one(items: list) -> list:
    return [
        (
            item.index,
            item.candidate.display,
            item.named_fsdp,
            item.cache_key,
            item.source is not None and item.source.data,
            item.error is not None and json.dumps(item.error.to_dict(), sort_keys=True),
        )
        for item in items
    ]


def _cache_files(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def small_chunks(always_pool, monkeypatch: pytest.MonkeyPatch) -> list:
    """Phase 1 in forked workers on any tree, two files a job, one job ahead per worker (every way
    a merge can go wrong shows); the list receives one entry per stream of jobs (proof the workers were used)."""
    from fsdp_unpatch.run import batch

    monkeypatch.setattr(batch, "JUDGE_MIN_BYTES", 0)
    monkeypatch.setattr(batch, "JUDGE_MIN_FILES", 1)
    monkeypatch.setattr(batch, "JUDGE_CHUNK", 2)
    monkeypatch.setattr(pool, "AHEAD_PER_WORKER", 1)
    streams: list = []
    real = batch.forked_stream

    def counted(function, *args):
        streams.append(function.__name__)
        return real(function, *args)

    monkeypatch.setattr(batch, "forked_stream", counted)
    return streams


@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix-diff"])
def test_phase_one_in_workers_gives_what_one_process_gives(fix: bool, tmp_path: Path, small_chunks: list) -> None:
    """Findings, their order, errors of unreadable and undecodable files, each file's phase-1 verdict and
    cache key: the same with one job (all in this process) and two (read and judged in forked workers)."""
    tree = _odd_tree(tmp_path / "tree")
    catalog, options = load_catalog(), _options(fix=fix, unsafe_fixes=True)
    runs = {}
    for jobs in (1, 2):
        items: list = []
        small_chunks.clear()
        runs[jobs] = (_plain(run(discover([str(tree)]), catalog, options, jobs=jobs, phase_one=items)), items)
        assert small_chunks == (["_judge"] if jobs == 2 else [])
    (one, one_items), (two, two_items) = runs[1], runs[2]
    assert two == one
    assert _phase_one(two_items) == _phase_one(one_items)
    codes = {json.loads(f)["code"] for _, findings, *_ in one[:-1] for f in findings}
    assert {"FSU306", "FSU901", "FSU902"} <= codes, codes  # a broken import, files that cannot be parsed or read
    messages = " ".join(json.loads(f)["message"] for _, findings, *_ in one[:-1] for f in findings)
    for problem in ("NUL byte", "cannot decode", "unknown encoding", "broken symbolic link", "loop", "named pipe"):
        assert problem in messages, problem
    assert sum(1 for _, findings, *_ in one[:-1] if findings) >= 10


def test_phase_one_in_workers_writes_the_same_cache(
    tmp_path: Path, small_chunks: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache a cold run writes (each file's entry, the index of unchanged files, FSU306's facts), and what
    a warm run reads from it, are byte for byte the same with one and two jobs."""
    monkeypatch.setattr("fsdp_unpatch.run.cache.RACY_NS", -(10**12))  # files just written are trusted
    monkeypatch.setattr("fsdp_unpatch.project.import_facts.RACY_NS", -(10**12))
    tree = _odd_tree(tmp_path / "tree")
    options, settings = _options(), Settings()
    written, results = {}, {}
    for jobs in (1, 2):
        folder = tree / CACHE_DIR
        shutil.rmtree(folder, ignore_errors=True)
        cold = _cache(tree, settings, options)
        small_chunks.clear()
        first = _plain(run(discover([str(tree)]), load_catalog(), options, jobs=jobs, cache=cold))
        assert ("_judge" in small_chunks) == (jobs == 2)
        written[jobs] = _cache_files(folder)
        warm = _cache(tree, settings, options)
        second = _plain(run(discover([str(tree)]), load_catalog(), options, jobs=jobs, cache=warm))
        results[jobs] = (first, second, cold.hits, cold.misses, warm.hits, warm.misses)
    assert written[2] == written[1]
    kinds = {_kind(tree / CACHE_DIR / name) for name in written[1] if name.startswith("entries/")}
    assert {"outcome", "unchanged", "imports"} <= kinds, kinds
    assert results[2] == results[1]
    assert results[1][0] == results[1][1]  # warm gives what cold gave


def test_a_small_tree_or_a_busy_machine_judges_in_one_process(tmp_path: Path, monkeypatch) -> None:
    """Phase 1 forks only with files enough to read (JUDGE_MIN_FILES, JUDGE_MIN_BYTES) and a free CPU."""
    from fsdp_unpatch.run import batch

    streams: list = []
    real = batch.forked_stream
    monkeypatch.setattr(batch, "forked_stream", lambda f, *a: streams.append(f.__name__) or real(f, *a))
    tree = _odd_tree(tmp_path / "tree")
    options = _options()
    monkeypatch.setattr(pool, "idle_cpus", lambda: 2)
    run(discover([str(tree)]), load_catalog(), options, jobs=2)
    assert streams == []  # a small tree
    monkeypatch.setattr(batch, "JUDGE_MIN_BYTES", 0)
    monkeypatch.setattr(batch, "JUDGE_MIN_FILES", 1)
    run(discover([str(tree)]), load_catalog(), options, jobs=1)
    assert streams == []  # --jobs 1
    monkeypatch.setattr(pool, "idle_cpus", lambda: 1)
    run(discover([str(tree)]), load_catalog(), options, jobs=2)
    assert streams == []  # the other CPU is busy
    monkeypatch.setattr(pool, "idle_cpus", lambda: 2)
    run(discover([str(tree)]), load_catalog(), options, jobs=2)
    assert streams == ["_judge"]
