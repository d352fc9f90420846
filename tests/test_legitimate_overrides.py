"""Legitimate overrides (fixtures `unchanged/legit_*.py`): review with a message naming the difference,
never remove, and `fix` leaves them byte-identical (the byte check is test_unchanged_fixtures.py).

Each fixture lists the message fragments it expects with `# message: TEXT` lines.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import check_tree
from tests.upstream import expand

FIXTURES = Path(__file__).parent / "fixtures" / "unchanged"
CASES = sorted(p.name for p in FIXTURES.glob("legit_*.py"))


def test_every_legitimate_override_of_the_issue_has_a_fixture() -> None:
    assert CASES == [
        "legit_custom_all_gather.py",
        "legit_dtype_fixing_reduce.py",
        "legit_premul_sum_reduce_copy.py",
        "legit_root_pre_forward_device_list.py",
        "legit_unused_grad_post_backward.py",
    ]


@pytest.mark.parametrize("case", CASES)
def test_review_with_the_difference_named(case: str, tmp_path: Path) -> None:
    source = expand((FIXTURES / case).read_text())
    expected = re.findall(r"^# message: (.*)$", source, re.MULTILINE)
    assert expected, "each legit fixture names the message fragments it expects"
    (tmp_path / case).write_text(source)
    findings = check_tree(tmp_path).findings
    assert findings and all(f.category == "review" and f.fix is None for f in findings)
    assert not any(f.category == "remove" for f in findings)
    for fragment in expected:
        assert any(fragment in f.message for f in findings), (fragment, [f.message for f in findings])


def test_fsdp2_own_kernel_registrations_are_not_overrides(tmp_path) -> None:
    """torch's `_fsdp_collectives` defines the fsdp ops: its registrations are native; a plugin's are not."""
    from tests.helpers import check_tree

    registration = (
        'import torch\nlib = torch.library.Library("fsdp", "DEF")\n\n\n'
        '@torch.library.impl(lib, "all_gather_copy_in", "PrivateUse1")\ndef all_gather_copy_in_cuda(a):\n    return a\n'
    )
    package = tmp_path / "torch" / "distributed" / "fsdp" / "_fully_shard"
    package.mkdir(parents=True)
    for folder in (package, *list(package.parents)[:3]):
        (folder / "__init__.py").write_text("")
    (package / "_fsdp_collectives.py").write_text(registration)
    (tmp_path / "plugin.py").write_text(registration)
    findings = check_tree(tmp_path).findings
    assert [(f.code, f.path.rsplit("/", 1)[-1]) for f in findings] == [("FSU103", "plugin.py")]


def test_a_kernel_registered_for_a_dispatch_key_held_in_a_variable(tmp_path) -> None:
    """`lib.impl("op", fn, KEY)` with the key in a variable: reported for "a dispatch key" (it crashed the run
    with a TypeError before: the unknown keys were None)."""
    (tmp_path / "plugin.py").write_text(
        'from torch.library import Library\n\n_lib = Library("fsdp", "IMPL")\nKEY = "PrivateUse1"\n\n\n'
        "def _copy_in(*args):\n    return None\n\n\n"
        '_lib.impl("all_gather_copy_in", _copy_in, KEY)\n'
    )
    findings = check_tree(tmp_path).findings
    assert [(f.code, f.span.line) for f in findings] == [("FSU103", 11)]
    assert "for a dispatch key of FSDP op `fsdp::all_gather_copy_in`" in findings[0].message


def test_a_vendored_fsdp2_copy_gets_no_override_findings(tmp_path) -> None:
    """A framework's own copy of FSDP2 (it defines the fsdp ops and FSDP2's classes) is recognised by what it
    does, not by its path: one FSU203 per file, no override findings; a patch of torch's own FSDP2 in such a
    file is still one."""
    import shutil

    case = Path(__file__).parent / "rules" / "FSU203" / "vendored_collectives"
    shutil.copytree(case, tmp_path / "case")
    findings = check_tree(tmp_path / "case").findings
    assert sorted((f.code, f.path.rsplit("/", 1)[-1]) for f in findings) == [
        ("FSU203", "collectives.py"),
        ("FSU203", "param_group.py"),
    ]
    shim = tmp_path / "case" / "otherfw" / "torch_shim" / "fsdp" / "param_group.py"
    shim.write_text(
        shim.read_text()
        + "\n\nimport torch.distributed.fsdp._fully_shard._fsdp_param_group as torch_group\n"
        + "torch_group.FSDPParamGroup.finalize_backward = FSDPParamGroup.finalize_backward\n"
    )
    codes = sorted(f.code for f in check_tree(tmp_path / "case").findings)
    assert "FSU203" in codes and any(code.startswith("FSU1") for code in codes), codes
