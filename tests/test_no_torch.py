"""Evidence without torch: a CI lint step has no torch installed, and the upstream fingerprints shipped in
the package must still prove a copy of `_get_param_all_gather_inputs` with only the NPU tweak removable,
however the tweak is spelled. The fixture text is produced here (with torch); the check runs in a
subprocess where torch can be neither found nor imported."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.upstream import expand

HEAD = """\
import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as C
from torch.distributed.fsdp._fully_shard._fsdp_param import FSDPParam, ShardedState
from typing import cast

# @upstream _fsdp_collectives._get_param_all_gather_inputs _patched_inputs {tweak}

C._get_param_all_gather_inputs = _patched_inputs
"""

# Hide torch from this process: no spec, no metadata, no import. Then run the CLI.
PRELUDE = """\
import importlib.metadata, importlib.util, sys
_find_spec, _version = importlib.util.find_spec, importlib.metadata.version
def _hidden(name):
    return name == "torch" or name.startswith("torch.")
importlib.util.find_spec = lambda name, *a, **k: None if _hidden(name) else _find_spec(name, *a, **k)
def _no_torch_version(name):
    if name == "torch":
        raise importlib.metadata.PackageNotFoundError(name)
    return _version(name)
importlib.metadata.version = _no_torch_version
from fsdp_unpatch.catalog import versions
versions._dist_info_version = lambda name: (False, None)  # not the dist-info on disk: importlib.metadata, above
class _Block:
    def find_spec(self, name, path=None, target=None):
        if _hidden(name):
            raise ImportError("torch is hidden in this test")
sys.meta_path.insert(0, _Block())
from fsdp_unpatch.fingerprint import upstream
assert upstream._installed_torch() is None, "torch must be invisible"
from fsdp_unpatch.cli import main
main(sys.argv[1:])
"""


def _renamed(text: str) -> str:
    """Other local names and comments around the tweak."""
    for old, new in (("splits", "chunks"), ("foreach_copy_inputs", "copy_sources"), ("fsdp_params", "params")):
        text = re.sub(rf"\b{old}\b", new, text)
    return re.sub(
        r"^(\s*)(if chunks\[0\]\.device)",
        r"\1# NPU: a same-device copy may run non-blocking\n\1\2",
        text,
        count=1,
        flags=re.MULTILINE,
    )


def _positional(text: str) -> str:
    assert "non_blocking=True" in text
    return text.replace("non_blocking=True", "True")


VARIANTS = {
    "plain": (lambda t: t, "same-device"),
    "renamed_and_commented": (_renamed, "same-device"),
    "branches_swapped": (lambda t: t, "same-device-ne"),
    "positional_flag": (_positional, "same-device"),
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("no_torch")
    for name, (transform, tweak) in VARIANTS.items():
        text = transform(expand(HEAD.format(tweak=tweak)))
        compile(text, name, "exec")
        (root / f"{name}.py").write_text(text)
    return root


def test_fixtures_differ_in_spelling(tree: Path) -> None:
    texts = {p.name: p.read_text() for p in tree.glob("*.py")}
    assert len(set(texts.values())) == len(VARIANTS)
    assert "chunks" in texts["renamed_and_commented.py"] and "!=" in texts["branches_swapped.py"]


def test_removed_without_torch(tree: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE, "check", "--isolated", "--output-format", "json", str(tree)],
        capture_output=True,
        text=True,
        cwd=tree,
    )
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    by_file: dict[str, list[str]] = {}
    for finding in findings:
        by_file.setdefault(Path(finding["path"]).stem, []).append(finding["code"])
    assert {name: sorted(codes) for name, codes in by_file.items()} == {name: ["FSU001", "FSU002"] for name in VARIANTS}
    assert all(f["category"] == "remove" and f["fix"]["applicability"] == "safe" for f in findings)
