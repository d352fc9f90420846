"""`fsdp-unpatch upgrade` and `catalog`: what a torch upgrade does to the overrides that stay."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from fsdp_unpatch.cli import main
from fsdp_unpatch.fingerprint.releases import Release, bundled, pick
from fsdp_unpatch.upgrade.analysis import judge, statement_changes
from tests.helpers import cli_runner

OLD_REDUCE = """\
def foreach_reduce(fsdp_params, unsharded_grads, reduce_scatter_group, reduce_scatter_stream, reduce_scatter_comm, orig_dtype):
    return reduce_scatter_comm(unsharded_grads)
"""
# a parameter inserted before `reduce_scatter_comm`: position 4 is now `all_reduce_group`
MOVED_REDUCE = OLD_REDUCE.replace("reduce_scatter_stream, ", "reduce_scatter_stream, all_reduce_group, ")

POSITIONAL_WRAPPER = """\
def _wrap(original):
    def wrapper(*args, **kwargs):
        comm = args[4]
        comm.prepare()
        return original(*args, **kwargs)
    return wrapper
"""


def _release(version: str, text: str) -> Release:
    return Release(version, {"_fsdp_collectives.foreach_reduce": text}, {"_fsdp_collectives": frozenset()}, "test")


def _wrapper():
    import ast

    factory = ast.parse(POSITIONAL_WRAPPER).body[0]
    return factory.body[0], frozenset({"original"})  # type: ignore[attr-defined]


def test_a_positional_argument_wrapper_over_a_moved_signature_is_a_break_with_its_line():
    wrapper, originals = _wrapper()
    old, new = _release("2.10.0", OLD_REDUCE), _release("2.99.0", MOVED_REDUCE)
    verdict = judge("_fsdp_collectives.foreach_reduce", wrapper, "p.py", 9, old, new, {}, originals=originals)
    assert verdict.role == "wrapper"
    signature = [c for c in verdict.changes if c.kind == "signature"]
    assert len(signature) == 1 and verdict.breaks
    assert "`reduce_scatter_comm`" in signature[0].message and "`all_reduce_group`" in signature[0].message
    assert signature[0].line == 3  # `comm = args[4]`


def test_the_same_wrapper_over_an_unmoved_signature_is_no_break():
    wrapper, originals = _wrapper()
    old, new = _release("2.10.0", OLD_REDUCE), _release("2.11.0", OLD_REDUCE)
    verdict = judge("_fsdp_collectives.foreach_reduce", wrapper, "p.py", 9, old, new, {}, originals=originals)
    assert not verdict.breaks and not verdict.body_changed
    assert [c.kind for c in verdict.changes] == ["unchanged"]


def test_a_target_gone_from_the_new_release_is_a_break():
    wrapper, originals = _wrapper()
    old = _release("2.10.0", OLD_REDUCE)
    new = Release("2.99.0", {}, {}, "test")
    verdict = judge("_fsdp_collectives.foreach_reduce", wrapper, "p.py", 9, old, new, {}, originals=originals)
    assert [c.kind for c in verdict.changes] == ["gone"] and verdict.breaks


def test_statement_changes_name_what_was_added_and_removed():
    old = "def f(x):\n    a = 1\n    return a\n"
    new = "def f(x):\n    a = 1\n    with guard():\n        b = a\n    return a\n"
    assert statement_changes(old, new) == ([], ["with guard():", "b = a"])
    assert statement_changes(old, old) == ([], [])


# A project whose enhance patch installs a copy of FSDPParamGroup.post_backward taken from an older release.
COPY_PROJECT = """\
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


{copy}

def _apply_fsdp_enhance_patch():
    FSDPParamGroup.post_backward = _npu_post_backward
"""


def _copy_of(version: str, target: str) -> str:
    text = pick({r.version: r for r in bundled()}, version).functions[target]  # type: ignore[union-attr]
    return text.replace(f"def {target.rsplit('.', 1)[1]}(", "def _npu_post_backward(", 1)


def test_a_copy_made_from_an_older_release_names_the_upstream_statements_it_drops(tmp_path):
    target = "_fsdp_param_group.FSDPParamGroup.post_backward"
    releases = {r.version: r for r in bundled()}
    old, new = pick(releases, "2.10"), pick(releases, "2.14")
    assert old is not None and new is not None and old.functions[target] != new.functions[target]
    (tmp_path / "patch.py").write_text(COPY_PROJECT.format(copy=_copy_of("2.10", target)))
    done = cli_runner().invoke(
        main, "upgrade --isolated --from 2.10 --to 2.14 --output-format json".split() + [str(tmp_path)]
    )
    assert done.exit_code == 1, done.output
    report = json.loads(done.stdout)
    [verdict] = [v for v in report["overrides"] if v["target"] == target]
    assert verdict["role"] == "copy"
    # the release it was copied from: one whose text is the copy's
    assert releases[verdict["closest_release"]].functions[target] == old.functions[target]
    [drops] = [c for c in verdict["changes"] if c["kind"] == "drops"]
    # each statement named is one 2.14 has and 2.10 has not (computed here from the two texts)
    _, added = statement_changes(old.functions[target], new.functions[target])
    assert added and f"+ {added[0][:60]}" in drops["message"]


def _future_wheel(tmp_path: Path) -> Path:
    """A "future" torch 2.99.0 wheel made from 2.14.1's FSDP2 sources, `foreach_reduce` with a parameter
    inserted before `reduce_scatter_comm`."""
    from tests.torch_sources import torch_sources

    root = torch_sources("2.14.1")
    wheel = tmp_path / "torch-2.99.0-cp311-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as out:
        for path in sorted((root / "torch").rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if path.name == "_fsdp_collectives.py":
                assert "    reduce_scatter_comm: ReduceScatter," in text
                text = text.replace(
                    "    reduce_scatter_comm: ReduceScatter,",
                    "    future_group: Any,\n    reduce_scatter_comm: ReduceScatter,",
                    1,
                )
            out.writestr(str(path.relative_to(root)), text)
        out.writestr("torch-2.99.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.99.0\n\n")
    return wheel


POSITIONAL_PROJECT = """\
from torch.distributed.fsdp._fully_shard import _fsdp_collectives


def _patched_foreach_reduce(original):
    def wrapper(*args, **kwargs):
        comm = args[4]
        comm.prepare()
        return original(*args, **kwargs)
    return wrapper


def _apply_fsdp_enhance_patch():
    _fsdp_collectives.foreach_reduce = _patched_foreach_reduce(_fsdp_collectives.foreach_reduce)
"""


def test_catalog_add_of_a_wheel_teaches_upgrade_a_future_release(tmp_path):
    wheel = _future_wheel(tmp_path)
    store = tmp_path / "store"
    runner = cli_runner()
    added = runner.invoke(main, ["catalog", "add", str(wheel), "--catalog-dir", str(store)])
    assert added.exit_code == 0, added.output
    listed = runner.invoke(main, ["catalog", "list", "--catalog-dir", str(store)])
    assert listed.exit_code == 0
    lines = listed.stdout.splitlines()
    assert any(line.startswith("2.99.0\t") and str(store) in line for line in lines)
    assert any(line.startswith("2.14.1\tbundled") for line in lines)
    project = tmp_path / "project"
    project.mkdir()
    (project / "patch.py").write_text(POSITIONAL_PROJECT)
    args = ["upgrade", "--isolated", "--catalog-dir", str(store), "--from", "2.14", "--output-format", "json"]
    done = runner.invoke(main, [*args, "--to", "2.99", str(project)])
    assert done.exit_code == 1, done.output
    [verdict] = json.loads(done.stdout)["overrides"]
    assert [c["kind"] for c in verdict["changes"]][0] == "signature"
    assert verdict["changes"][0]["line"] == 6
    # without the learnt release, 2.99 is unknown: a clear error, not a crash
    unknown = runner.invoke(main, [*args[:2], "--catalog-dir", str(tmp_path / "empty"), "--to", "2.99", str(project)])
    assert unknown.exit_code == 2 and "2.99" in unknown.stderr and "catalog add" in unknown.stderr


def test_bad_catalog_data_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "torch-3.0.0.json").write_text('{"format": 1, "releases": ["3.0.0"]}')
    (tmp_path / "torch-3.1.0.json").write_text("{not json")
    done = cli_runner().invoke(main, ["catalog", "list", "--catalog-dir", str(tmp_path)])
    assert done.exit_code == 2
    assert "torch-3.0.0.json" in done.stderr and "torch-3.1.0.json" in done.stderr
    assert "Traceback" not in done.stderr and "2.14.1\tbundled" in done.stdout


def test_catalog_add_of_something_that_is_not_torch_names_it(tmp_path):
    (tmp_path / "junk.whl").write_bytes(b"not a zip")
    done = cli_runner().invoke(main, ["catalog", "add", str(tmp_path / "junk.whl"), "--catalog-dir", str(tmp_path)])
    assert done.exit_code == 2 and "junk.whl" in done.stderr
    done = cli_runner().invoke(main, ["catalog", "add", str(tmp_path), "--catalog-dir", str(tmp_path / "s")])
    assert done.exit_code == 2 and "no torch with FSDP2" in done.stderr


def test_a_copy_of_a_target_beyond_the_compared_thirteen_gets_a_release_verdict_and_a_checklist(tmp_path):
    target = "_fsdp_param.FSDPParam.reset_sharded_param"
    releases = {r.version: r for r in bundled()}
    text = pick(releases, "2.10").functions[target]  # type: ignore[union-attr]
    copy = text.replace("def reset_sharded_param(", "def _npu_post_backward(", 1)
    project = COPY_PROJECT.format(copy=copy).replace(
        "_fsdp_param_group import FSDPParamGroup", "_fsdp_param import FSDPParam"
    )
    (tmp_path / "patch.py").write_text(project.replace("FSDPParamGroup.post_backward", "FSDPParam.reset_sharded_param"))
    report = tmp_path / "upgrade.md"
    done = cli_runner().invoke(
        main, ["upgrade", "--isolated", "--from", "2.10", "--to", "2.14", "--report", str(report), str(tmp_path)]
    )
    assert done.exit_code in (0, 1), done.output
    assert f"{target} [copy] (closest upstream: torch " in done.stdout
    closest = done.stdout.split("closest upstream: torch ")[1].split(")")[0]
    assert releases[closest].functions[target] == text
    checklist = report.read_text(encoding="utf-8")
    assert checklist.startswith("# Upgrade torch 2.10.0 to 2.14.1") and f"`{target}` (copy)" in checklist


def test_the_json_report_names_both_releases_and_where_they_came_from(tmp_path):
    target = "_fsdp_param_group.FSDPParamGroup.post_backward"
    (tmp_path / "patch.py").write_text(COPY_PROJECT.format(copy=_copy_of("2.10", target)))
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\ndependencies = ["torch==2.10.0"]\n')
    runner = cli_runner()
    flagged = runner.invoke(
        main, ["upgrade", "--from", "2.10", "--to", "2.14", "--output-format", "json", str(tmp_path)]
    )
    report = json.loads(flagged.stdout)
    assert (report["from"], report["to"], report["from_chosen_by"]) == ("2.10.0", "2.14.1", "--from")
    assert (report["from_source"], report["to_source"]) == ("bundled", "bundled")
    # without --from: the torch the project declares, as `check` names it
    declared = runner.invoke(main, ["upgrade", "--to", "2.14.0", "--output-format", "json", str(tmp_path)])
    report = json.loads(declared.stdout)
    assert (report["from"], report["to"]) == ("2.10.0", "2.14.0")
    assert report["from_chosen_by"] == "pyproject.toml: torch==2.10.0"
