"""What `check` knows of torch releases (issue 33): the bundled data reaches torch 2.14.1, a target torch newer
than every known release says so in the summary, releases learnt with `catalog add` are known to `check` and
`fix` too (target and proofs), and an override of a target no proof covers gets a release verdict."""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path

import pytest

from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.cli import main
from fsdp_unpatch.config import target_torch
from fsdp_unpatch.fingerprint.releases import bundled, pick
from fsdp_unpatch.fingerprint.upstream import default_upstream
from tests.helpers import cli_runner

NEWER_NOTE = (
    "newer than every release known (2.14.1): judged as 2.14.1; `fsdp-unpatch catalog add` teaches a newer one."
)


@pytest.fixture
def no_torch(monkeypatch):
    """As in a lint job: no torch installed (the declared or requested torch decides)."""
    monkeypatch.setattr(target_torch, "installed_version", lambda: None)


def _project(tmp_path: Path, dependencies: str = "[]", name: str = "project") -> Path:
    project = tmp_path / name
    project.mkdir()
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "x"\nversion = "0"\ndependencies = {dependencies}\n', encoding="utf-8"
    )
    (project / "clean.py").write_text("import os\n", encoding="utf-8")
    return project


# --- the bundled data reaches the newest release ---------------------------------------------------------


def test_the_bundled_data_reaches_the_newest_release_the_catalog_names():
    catalog = load_catalog()
    releases = [r.version for r in bundled()]
    assert catalog.newest_release == releases[-1] == "2.14.1"
    assert catalog.newest_torch == "2.14"
    upstream = default_upstream()
    # every target the proofs compare is there for both 2.14 releases (ids as the generator's TARGETS)
    assert len(upstream.functions) == 13
    assert all({"2.14.0", "2.14.1"} <= set(versions) for versions in upstream.functions.values())


POST_FORWARD_PROJECT = """\
from typing import Any

import torch.nn as nn
from torch.distributed import _spmd_no_typecheck
from torch.distributed.fsdp._fully_shard._fsdp_common import TrainingState, is_bw
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup, logger
from torch.profiler import record_function


{copy}

def install_tracing():
    FSDPParamGroup.post_forward = _npu_post_forward
"""


def test_a_copy_of_a_body_torch_2_14_changed_is_proven_against_2_14(tmp_path):
    """torch 2.14 runs `post_forward` under `_spmd_no_typecheck()`: a copy of 2.14.1's body matches 2.14.1
    (before, the proofs stopped at 2.13 and said it differs from torch 2.13.0)."""
    target = "_fsdp_param_group.FSDPParamGroup.post_forward"
    texts = default_upstream().functions[target]
    assert texts["2.13.0"].source != texts["2.14.1"].source and "_spmd_no_typecheck" in texts["2.14.1"].source
    copy = texts["2.14.1"].source.replace("def post_forward(", "def _npu_post_forward(", 1)
    (tmp_path / "tracing.py").write_text(POST_FORWARD_PROJECT.format(copy=copy), encoding="utf-8")

    def said(torch: str) -> str:
        args = ["check", "--isolated", "--no-cache", "--target-torch", torch, "--output-format", "json"]
        done = cli_runner().invoke(main, [*args, str(tmp_path)])
        [finding] = [f for f in json.loads(done.stdout) if f["target"] == target]
        return finding["message"]

    assert "`_npu_post_forward` matches torch 2.14.1 `post_forward` exactly" in said("2.14")
    # a target newer than every release known is judged as the newest: its match is no "outside the target"
    assert "`_npu_post_forward` matches torch 2.14.1 `post_forward` exactly" in said("2.16")
    # on 2.13 the body is not the target's own
    assert "`_npu_post_forward` matches torch 2.14.1 `post_forward` (outside the target torch) exactly" in said("2.13")


# --- a target torch newer than every release known -------------------------------------------------------


def test_the_summary_names_a_target_torch_newer_than_every_release_known(tmp_path, no_torch):
    project = _project(tmp_path, '["torch==2.16"]')
    runner = cli_runner()
    flag = runner.invoke(main, ["check", "--no-cache", "--target-torch", "2.16", str(project)])
    assert f"Target torch 2.16 (--target-torch), {NEWER_NOTE}" in flag.stdout
    declared = runner.invoke(main, ["check", "--no-cache", str(project)])
    # the declaration decides, as for a known release: no fallback to the newest known, no warning on stderr
    assert f"Target torch 2.16 (pyproject.toml: torch==2.16), {NEWER_NOTE}" in declared.stdout
    assert "allows no torch release" not in declared.stderr and "warning" not in declared.stderr
    shown = runner.invoke(main, ["check", "--show-settings", str(project)])
    assert 'target-torch = "2.16 (pyproject.toml: torch==2.16; newer than every release known: judged as 2.14.1)"' in (
        shown.stdout
    )
    markdown = runner.invoke(main, ["check", "--no-cache", "--output-format", "markdown", str(project)])
    assert "target torch 2.16 (newer than every release known, 2.14.1: judged as 2.14.1)" in markdown.stdout
    # a known release says nothing more
    known = runner.invoke(main, ["check", "--no-cache", "--target-torch", "2.14", str(project)])
    assert "Target torch 2.14 (--target-torch). Took" in known.stdout
    chinese = runner.invoke(main, ["--lang", "zh-CN", "check", "--no-cache", "--target-torch", "2.16", str(project)])
    assert (
        "2.14.1" in chinese.stdout
        and "newer than" not in chinese.stdout
        and "`fsdp-unpatch catalog add`" in (chinese.stdout)
    )


def test_a_range_reaching_past_the_newest_release_is_the_known_part_of_it(tmp_path, no_torch):
    project = _project(tmp_path, '["torch>=2.12"]')
    done = cli_runner().invoke(main, ["check", "--no-cache", str(project)])
    assert "Target torch 2.12 to 2.14 (pyproject.toml: torch>=2.12). Took" in done.stdout


# --- releases learnt with `catalog add` are known to check and fix ----------------------------------------

FUTURE = "2.99.0"
# torch 2.99's `_get_param_all_gather_inputs`: 2.14.1's with one statement changed
OLD_LINE = "            foreach_copy_input_numels.append(all_gather_input.numel())"
NEW_LINE = "            foreach_copy_input_numels.append(int(all_gather_input.numel()))"


def _future_wheel(tmp_path: Path) -> Path:
    """A "future" torch 2.99.0 wheel: 2.14.1's FSDP2 sources, `_get_param_all_gather_inputs` with one change."""
    from tests.torch_sources import torch_sources

    root = torch_sources("2.14.1")
    wheel = tmp_path / f"torch-{FUTURE}-cp311-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as out:
        for path in sorted((root / "torch").rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if path.name == "_fsdp_collectives.py":
                assert text.count(OLD_LINE) == 1
                text = text.replace(OLD_LINE, NEW_LINE)
            out.writestr(str(path.relative_to(root)), text)
        out.writestr(f"torch-{FUTURE}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {FUTURE}\n\n")
    return wheel


COPY_PROJECT = """\
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
from typing import cast

{copy}

C._get_param_all_gather_inputs = _patched_inputs
"""


def test_catalog_add_makes_check_and_fix_use_that_release(tmp_path, monkeypatch, no_torch):
    from tests.upstream import upstream_copy

    store = tmp_path / "store"
    runner = cli_runner()
    added = runner.invoke(main, ["catalog", "add", str(_future_wheel(tmp_path)), "--catalog-dir", str(store)])
    assert added.exit_code == 0, added.output
    learnt = json.loads((store / f"torch-{FUTURE}.json").read_text(encoding="utf-8"))
    target = "_fsdp_collectives._get_param_all_gather_inputs"
    assert (
        "int(all_gather_input.numel())"
        in learnt["upstream"]["bodies"][learnt["upstream"]["targets"][target][FUTURE]]["source"]
    )

    # the project: a copy of torch 2.99's function with the NPU tweak, declaring torch 2.99
    monkeypatch.setenv("FSDP_UNPATCH_CATALOG_DIR", str(store))
    copy = upstream_copy(f"{target}@{FUTURE}", "_patched_inputs", "same-device")  # the learnt release's text
    monkeypatch.delenv("FSDP_UNPATCH_CATALOG_DIR")
    project = _project(tmp_path, f'["torch=={FUTURE}"]')
    (project / "npu_patch.py").write_text(COPY_PROJECT.format(copy=copy), encoding="utf-8")

    # without the learnt release: 2.99 is newer than every release known, and the copy differs from 2.14.1
    unknown = runner.invoke(main, ["check", "--no-cache", "--output-format", "json", str(project)])
    [finding] = [f for f in json.loads(unknown.stdout) if f["target"] == target]
    assert finding["code"] == "FSU101" and "differs from torch 2.14.1" in finding["message"], finding
    summary = runner.invoke(main, ["check", "--no-cache", str(project)]).stdout
    assert f"Target torch 2.99 (pyproject.toml: torch=={FUTURE}), newer than every release known (2.14.1)" in summary

    # with it (`--catalog-dir`, or the environment): 2.99 is known, and the copy is proven against it
    learnt_run = runner.invoke(main, ["check", "--no-cache", "--catalog-dir", str(store), str(project)])
    assert f"Target torch 2.99 (pyproject.toml: torch=={FUTURE}). Took" in learnt_run.stdout, learnt_run.output
    assert f"matches torch {FUTURE} `_get_param_all_gather_inputs`" in learnt_run.stdout
    monkeypatch.setenv("FSDP_UNPATCH_CATALOG_DIR", str(store))
    fixed = runner.invoke(main, ["fix", "--no-cache", str(project)])
    assert fixed.exit_code == 0, fixed.output
    assert "_get_param_all_gather_inputs" not in (project / "npu_patch.py").read_text(encoding="utf-8")


def test_a_bad_learnt_release_is_a_warning_naming_it_and_check_goes_on(tmp_path, monkeypatch):
    store = tmp_path / "store"
    store.mkdir()
    (store / "torch-3.0.0.json").write_text("{not json", encoding="utf-8")
    project = _project(tmp_path)
    done = cli_runner().invoke(main, ["check", "--no-cache", "--catalog-dir", str(store), str(project)])
    assert done.exit_code == 0 and "Traceback" not in done.stderr
    assert "torch-3.0.0.json: cannot read the release data" in done.stderr
    assert "Target torch 3.0" not in done.stdout


# --- a release verdict for overrides of targets no proof covers ------------------------------------------

REVIEW_PROJECT = """\
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam
from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup


{reset}

{dtypes}

def _apply_vendor_patch():
    FSDPParam.reset_sharded_param = _vendor_reset
    FSDPParamGroup._init_mp_dtypes = _vendor_init_mp_dtypes
"""
RESET = "_fsdp_param.FSDPParam.reset_sharded_param"
DTYPES = "_fsdp_param_group.FSDPParamGroup._init_mp_dtypes"


def _review_project(tmp_path: Path) -> tuple[Path, dict]:
    releases = {r.version: r for r in bundled()}
    old = pick(releases, "2.10")
    assert old is not None
    reset = old.functions[RESET].replace("def reset_sharded_param(", "def _vendor_reset(", 1)
    dtypes = old.functions[DTYPES].replace("def _init_mp_dtypes(", "def _vendor_init_mp_dtypes(", 1)
    (tmp_path / "vendor.py").write_text(REVIEW_PROJECT.format(reset=reset, dtypes=dtypes), encoding="utf-8")
    return tmp_path, releases


def _statement_heads(text: str) -> list[str]:
    """Each statement's first line, nested ones too, in order (read here with `ast`, independently)."""
    tree = ast.parse(text).body[0]
    return [ast.unparse(n).splitlines()[0] for n in ast.walk(tree) if isinstance(n, ast.stmt) and n is not tree]


def test_an_override_of_a_target_no_proof_covers_gets_a_release_verdict(tmp_path):
    project, releases = _review_project(tmp_path)
    done = cli_runner().invoke(
        main, ["check", "--isolated", "--no-cache", "--target-torch", "2.14", "--output-format", "json", str(project)]
    )
    findings = {f["target"]: f for f in json.loads(done.stdout)}
    # the releases whose text is the copy's (2.10.0's), read from the bundled data here
    same_reset = [v for v, r in releases.items() if r.functions.get(RESET) == releases["2.10.0"].functions[RESET]]
    same_dtypes = [v for v, r in releases.items() if r.functions.get(DTYPES) == releases["2.10.0"].functions[DTYPES]]
    assert same_reset[-1] == "2.14.1" and same_dtypes[-1] == "2.13.0"  # 2.14 changed `_init_mp_dtypes` only
    reset = findings[RESET]
    assert reset["code"] == "FSU101"
    assert (
        f"`_vendor_reset` is closest to the body of torch {same_reset[0]}-{same_reset[-1]}, which torch 2.14.1 "
        "still has" in reset["message"]
    )
    dtypes = findings[DTYPES]
    assert (
        f"`_vendor_init_mp_dtypes` is closest to the body of torch {same_dtypes[0]}-2.13.0; against torch 2.14.1"
        in (dtypes["message"])
    )
    # what it drops: statements 2.14.1 has and 2.13.0 has not, named in the line and in the detail's diff
    new, old = (
        _statement_heads(releases["2.14.1"].functions[DTYPES]),
        _statement_heads(releases["2.13.0"].functions[DTYPES]),
    )
    dropped = [s for s in new if s not in old]
    assert dropped and f"it drops: + `{dropped[0]}`" in dtypes["message"]
    assert f"+    {dropped[0]}" in dtypes["detail"] and dtypes["detail"].startswith("--- torch 2.13.0 _init_mp_dtypes")
    # on 2.13, which has the copy's body, nothing is dropped
    on_2_13 = cli_runner().invoke(
        main, ["check", "--isolated", "--no-cache", "--target-torch", "2.13", "--output-format", "json", str(project)]
    )
    [dtypes_2_13] = [f for f in json.loads(on_2_13.stdout) if f["target"] == DTYPES]
    assert "which torch 2.13.0 still has" in dtypes_2_13["message"] and not dtypes_2_13.get("detail")


def test_the_release_verdict_in_chinese_keeps_the_statements_and_translates_the_rest(tmp_path):
    project, _ = _review_project(tmp_path)
    done = cli_runner().invoke(
        main, ["--lang", "zh-CN", "check", "--isolated", "--no-cache", "--target-torch", "2.14", str(project)]
    )
    line = next(line for line in done.stdout.splitlines() if "_vendor_init_mp_dtypes" in line and "2.13.0" in line)
    assert "is closest to" not in line and "it drops" not in line, line
    assert "`if trainable_params:`" in line
