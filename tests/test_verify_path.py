"""`fsdp-unpatch verify PATH`: the installers found by the analysis, the migrated copy made by `fix`, both
trainings run; and `--plot FILE.png`."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from fsdp_unpatch.cli import main
from fsdp_unpatch.verification.autodetect import DetectError, detect, migrated_copy
from fsdp_unpatch.verification.compare import Comparison, StepRow, Tolerance
from fsdp_unpatch.verification.plot import PlotError, check_plot_target, write_plot
from tests.training_memo import trainings_made_once  # noqa: F401  (autouse: each training once)

pytestmark = pytest.mark.slow  # runs FSDP2 training jobs

ROOT = Path(__file__).resolve().parents[1]
LEGACY = ROOT / "examples" / "legacy_project"
MIGRATED = ROOT / "examples" / "migrated_project"
PATCH_MODULE = "legacy_npu.distributed.fsdp._add_fsdp_patch"


def verify(*args: str):
    return CliRunner().invoke(main, ["verify", "--device", "cpu", *args], catch_exceptions=False)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_detect_finds_the_installers_of_the_example() -> None:
    detected = detect(str(LEGACY))
    assert [str(i.spec) for i in detected.enhance] == [f"{PATCH_MODULE}:_apply_fsdp_enhance_patch"]
    assert [str(i.spec) for i in detected.removed] == [f"{PATCH_MODULE}:_apply_fsdp_patch"]
    assert detected.roots == (LEGACY.resolve(),)


def test_migrated_copy_is_what_fix_makes(tmp_path: Path) -> None:
    source = tmp_path / "legacy_project"
    shutil.copytree(LEGACY, source)
    copies = migrated_copy(str(source), detect(str(source)), tmp_path / "work")
    copy = copies[source.resolve()]
    for expected in sorted(MIGRATED.rglob("*.py")):
        relative = expected.relative_to(MIGRATED)
        assert (copy / relative).read_bytes() == expected.read_bytes(), relative
    assert (source / "legacy_npu" / "_api_patches.py").read_bytes() == (
        LEGACY / "legacy_npu" / "_api_patches.py"
    ).read_bytes()


def test_a_tree_without_a_removable_installer_is_a_usage_problem(tmp_path: Path) -> None:
    with pytest.raises(DetectError, match="no installer that the migration removes"):
        detect(str(MIGRATED))
    result = verify(str(MIGRATED))
    assert result.exit_code == 2 and "--patch MODULE:FUNCTION" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        ((str(LEGACY), "--patch", f"{PATCH_MODULE}:_apply_fsdp_patch"), "either PATH or --patch"),
        ((str(LEGACY), "--plot", "curves.gif"), "must end in .png"),
        (("no/such/folder",), "does not exist"),
    ],
)
def test_usage_errors(args, message) -> None:
    result = verify(*args)
    assert result.exit_code == 2 and message in result.output


def test_plot_file_has_both_curves_and_the_difference(tmp_path: Path) -> None:
    import matplotlib.image

    rows = [
        StepRow(config, step, [1.0 / step, 1.0 / step], [1.0 / step + d, 1.0 / step + d], d, d, d == 0, d == 0)
        for config in ("reshard_after_forward=True", "reshard_after_forward=False")
        for step, d in ((1, 0.0), (2, 0.25), (3, 0.5))
    ]
    target = tmp_path / "curves.png"
    write_plot(Comparison(Tolerance(), rows, []), str(target))
    assert png_size(target) == (1100, 650)  # two columns of plots at 100 dpi
    pixels = matplotlib.image.imread(str(target))
    assert pixels.std() > 0.05  # drawn, not blank
    check_plot_target(str(target))
    with pytest.raises(PlotError):
        check_plot_target(str(tmp_path / "curves.jpg"))


def test_verify_path_runs_both_trainings_and_plots(tmp_path: Path) -> None:
    plot = tmp_path / "verify.png"
    result = verify(str(LEGACY), "--steps", "2", "--plot", str(plot), "--output-format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["matched"] is True and report["exit_code"] == 0 and len(report["steps"]) == 4
    assert report["runs"]["patched"]["paths"] == [str(LEGACY.resolve())]
    assert report["runs"]["migrated"]["paths"][0] != str(MIGRATED)  # a temporary copy, migrated by `fix`
    assert report["runs"]["patched"]["installers"] == [
        f"{PATCH_MODULE}:_apply_fsdp_enhance_patch",
        f"{PATCH_MODULE}:_apply_fsdp_patch",
    ]
    assert report["runs"]["migrated"]["installers"] == [f"{PATCH_MODULE}:_apply_fsdp_enhance_patch"]
    assert png_size(plot) == (1100, 650)
