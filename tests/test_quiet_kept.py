"""Quiet by default where people read (issue 24, item 4): the findings kept on purpose are counted in the
summary but listed by the human formats (`full`, `concise`, `grouped`, `github`) only with `--show-kept`
(`-v`); the machine formats list every finding. What is expected is read off the JSON report of the run."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.integration import cli

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "legacy_project"
CODE = re.compile(r"\b(FSU\d{3}) \[(\w+)\]")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("quiet") / "project"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".fsdp_unpatch_cache"))
    return root


@pytest.fixture(scope="module")
def everything(project: Path) -> list[dict]:
    findings = json.loads(cli("check", "--no-cache", "--output-format", "json", cwd=project).stdout)
    assert {f["category"] for f in findings} == {"remove", "keep"}  # the example has both kinds
    return findings


def _listed(project: Path, *args: str) -> list[tuple[str, str]]:
    out = cli("check", "--no-cache", "--no-color", *args, cwd=project).stdout.decode()
    return CODE.findall(out)


@pytest.mark.parametrize("output_format", ["full", "concise", "grouped"])
def test_text_formats_list_kept_findings_only_when_asked(project: Path, everything, output_format: str) -> None:
    kept = [f for f in everything if f["category"] == "keep"]
    default = _listed(project, "--output-format", output_format)
    assert [c for c, category in default if category == "keep"] == []
    assert len(default) == len(everything) - len(kept)
    for flag in ("--show-kept", "-v", "--verbose"):
        shown = _listed(project, "--output-format", output_format, flag)
        assert sorted(shown) == sorted((f["code"], f["category"]) for f in everything)


def test_the_summary_counts_what_it_does_not_list(project: Path, everything) -> None:
    kept = sum(f["category"] == "keep" for f in everything)
    out = cli("check", "--no-cache", "--no-color", cwd=project).stdout.decode()
    summary = out.splitlines()[-1]
    assert f"Found {len(everything)} findings" in summary and f"{kept} keep" in summary
    assert f"{kept} kept on purpose not listed (`--show-kept` lists them)." in summary
    shown = cli("check", "--no-cache", "--no-color", "--show-kept", cwd=project).stdout.decode()
    assert "not listed" not in shown.splitlines()[-1]


def test_github_annotates_no_kept_finding_unless_asked(project: Path, everything) -> None:
    quiet = cli("check", "--no-cache", "--output-format", "github", cwd=project).stdout.decode().splitlines()
    assert not [line for line in quiet if line.startswith("::notice")]
    assert len(quiet) == sum(f["category"] != "keep" for f in everything)
    loud = cli("check", "--no-cache", "--output-format", "github", "-v", cwd=project).stdout.decode().splitlines()
    assert len([line for line in loud if line.startswith("::notice")]) == sum(
        f["category"] == "keep" for f in everything
    )


@pytest.mark.parametrize("output_format", ["json", "json-lines", "sarif", "gitlab", "junit", "pylint"])
def test_machine_formats_list_every_finding(project: Path, everything, output_format: str) -> None:
    out = cli("check", "--no-cache", "--output-format", output_format, cwd=project).stdout.decode()
    kept = [f for f in everything if f["category"] == "keep"]
    # every kept finding's line is reported (each format names it in its own way)
    for finding in kept:
        assert f"{finding['line']}" in out
    assert out.count("FSU201") >= len([f for f in kept if f["code"] == "FSU201"])
    if output_format == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        assert len(results) == len(everything)
        assert {r["level"] for r in results if r["properties"]["category"] == "keep"} == {"note"}
