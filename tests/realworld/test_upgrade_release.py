"""`upgrade --to 2.14` on torch-npu 2.10.0.post7: every override the enhance patch keeps is listed, and what
it says changed is what the two torch wheels' sources say (computed here from the sources themselves)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from fsdp_unpatch.cli import main
from tests.helpers import cli_runner
from tests.realworld.packages import PATCH_MODULE, Unavailable, sources
from tests.torch_sources import torch_sources

pytestmark = pytest.mark.slow
PACKAGE = "torch/distributed/fsdp/_fully_shard"
PREFIXES = ("torch.distributed.fsdp._fully_shard.", "FSDPParamGroup.", "FSDPState.")


def _text(root: Path, function_id: str):
    """The function's text without its docstring, looking through bases of its module; None if absent."""
    module, *rest = function_id.split(".")
    tree = ast.parse((root / PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def method(cls_name: str, name: str):
        cls = classes.get(cls_name)
        if cls is None:
            return None
        own = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name]
        if own:
            return own[0]
        for base in cls.bases:
            found = method(base.id, name) if isinstance(base, ast.Name) else None
            if found is not None:
                return found
        return None

    if len(rest) == 1:
        node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == rest[0]), None)
    else:
        node = method(rest[0], rest[1])
    if node is None:
        return None
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        node.body = body[1:] or [ast.Pass()]
    return ast.unparse(node)


def _enhance_targets(patch: Path) -> set[str]:
    """The FSDP2 functions `_apply_fsdp_enhance_patch` installs over, read from its assignments."""
    tree = ast.parse(patch.read_text(encoding="utf-8"))
    installer = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_apply_fsdp_enhance_patch")
    found = set()
    for node in ast.walk(installer):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute):
            dotted = ast.unparse(node.targets[0])
            if dotted.startswith("FSDPParamGroup."):
                dotted = "_fsdp_param_group." + dotted
            elif dotted.startswith("FSDPState."):
                dotted = "_fsdp_state." + dotted
            found.add(dotted.removeprefix("torch.distributed.fsdp._fully_shard."))
    return found


def test_upgrade_to_2_14_lists_every_kept_override_with_what_the_sources_say_changed():
    try:
        npu = sources("2.10.0.post7")
    except Unavailable as error:
        pytest.skip(str(error))
    old_root, new_root = torch_sources("2.10.0"), torch_sources("2.14.1")
    done = cli_runner().invoke(
        main, ["upgrade", "--isolated", "--from", "2.10", "--to", "2.14", "--output-format", "json", str(npu)]
    )
    assert done.exit_code in (0, 1), done.output
    report = json.loads(done.stdout)
    assert (report["from"], report["to"]) == ("2.10.0", "2.14.1")
    listed = {v["target"] for v in report["overrides"] if v["role"] != "imports"}
    # the same function through another module's name (`_fsdp_param_group.foreach_reduce`) is listed by its home
    expected = {
        t if _text(old_root, t) is not None else "_fsdp_collectives." + t.split(".", 1)[1]
        for t in _enhance_targets(npu / PATCH_MODULE)
    }
    assert listed == expected
    for verdict in report["overrides"]:
        if verdict["role"] == "imports":
            continue
        old, new = _text(old_root, verdict["target"]), _text(new_root, verdict["target"])
        assert old is not None and new is not None
        assert verdict["body_changed"] == (old != new), verdict["target"]
        kinds = {c["kind"] for c in verdict["changes"]}
        if old == new:  # no change claimed where the sources are equal
            assert kinds <= {"unchanged", "signature", "attribute"} and not kinds & {"drops", "inherits"}
        else:
            assert kinds & {"drops", "inherits", "unchanged"}, verdict
    # torch 2.14 changed post_backward (it runs under `_spmd_no_typecheck()`): the wrapper inherits that
    [post_backward] = [v for v in report["overrides"] if v["target"].endswith("FSDPParamGroup.post_backward")]
    assert any("_spmd_no_typecheck" in c["message"] for c in post_backward["changes"])
