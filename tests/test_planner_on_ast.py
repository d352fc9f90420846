"""The planner decides install sites on the `ast` model (`analysis/site_judging.py`) and places nodes one
top-level statement at a time (`analysis/positions.py`): no libcst codegen of a function for the comparison
with upstream, no position pass over the whole module. The rule cases, tier and excerpt tests prove the
findings unchanged; these tests prove the work is not done the old way, and that a file the model cannot
judge gets no fix."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fsdp_unpatch.analysis import plan
from fsdp_unpatch.analysis.patterns import descendants
from fsdp_unpatch.analysis.positions import Positions
from fsdp_unpatch.catalog import load_catalog
from fsdp_unpatch.catalog.versions import Version
from fsdp_unpatch.config.options import Options
from tests.upstream import expand

ROOT = Path(__file__).resolve().parent.parent
PROVEN = ROOT / "tests/rules/FSU001/override_of_a_covered_target/npu_adapter.py"
WRAPPER = ROOT / "tests/rules/FSU101/wrapper_calling_the_original/memory_log.py"


def _analyse(text: str, data: bytes | None = None) -> plan.FileAnalysis:
    module = cst.parse_module(text)
    options = Options(Version.parse("2.9"))
    return plan.analyze_module(module, "project.patch", False, load_catalog(), options, data=data)


def _findings(analysis: plan.FileAnalysis) -> list[tuple[str, int, int, str]]:
    found = []
    for planned in analysis.planned:
        where = analysis.position(planned.node)
        found.append((planned.code, where.start.line, where.start.column, planned.message))
    return found


@pytest.mark.parametrize("path", [PROVEN, WRAPPER], ids=["proven", "wraps-original"])
def test_install_sites_are_judged_without_generating_function_code_or_whole_module_positions(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = expand(path.read_text(encoding="utf-8"))
    reference = _findings(_analyse(text))  # before the spies: what the planner reports
    generated: list[str] = []
    code_for_node = cst.Module.code_for_node

    def spy_code(self: cst.Module, node: cst.CSTNode) -> str:
        generated.append(type(node).__name__)
        return code_for_node(self, node)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a position pass over the whole module")

    monkeypatch.setattr(cst.Module, "code_for_node", spy_code)
    monkeypatch.setattr(MetadataWrapper, "resolve", refuse)
    analysis = _analyse(text, text.encode())
    assert analysis.unjudged is None
    assert _findings(analysis) == reference
    assert any(code in ("FSU001", "FSU101") for code, *_ in reference)
    assert "FunctionDef" not in generated


def _reviewed_only(analysis: plan.FileAnalysis, why: str) -> None:
    """Every finding of the file is FSU101 with `why`, and none has an edit."""
    assert analysis.planned
    for planned in analysis.planned:
        assert planned.code == "FSU101" and not planned.edits, planned
        assert f"no site of this file is judged ({why})" in planned.message


def test_a_file_whose_model_does_not_pair_or_cannot_be_built_gets_review_never_remove() -> None:
    text = expand(PROVEN.read_text(encoding="utf-8"))
    assert [code for code, *_ in _findings(_analyse(text, text.encode()))].count("FSU001") == 1
    # The model is built from the bytes given: one more install site than the parsed tree holds.
    analysis = _analyse(text, (text + "\nFSDPParamGroup.other = _npu_finalize_backward\n").encode())
    sites = len(analysis.facts.installs)
    why = f"{sites + 1} install sites in the ast model, {sites} in the libcst facts"
    assert analysis.unjudged == why
    _reviewed_only(analysis, why)
    assert not analysis.replacements  # the replacement stays with its site
    broken = _analyse(text, b"def (:\n")
    assert (broken.unjudged or "").startswith("its module uses syntax Python ")
    _reviewed_only(broken, broken.unjudged or "")


def test_an_unjudged_file_gets_no_fix_from_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the planner's model cannot be built, `check` says FSU101 with the reason and `fix` leaves the
    file as it is."""
    from fsdp_unpatch.analysis import site_judging
    from fsdp_unpatch.cli import main
    from tests.helpers import cli_runner

    def refuse(*args: object, **kwargs: object) -> None:
        raise SyntaxError("refused by the test")

    monkeypatch.setattr(site_judging, "build", refuse)
    text = expand(PROVEN.read_text(encoding="utf-8"))
    path = tmp_path / "npu_adapter.py"
    path.write_text(text, encoding="utf-8")
    checked = cli_runner().invoke(main, ["check", "--target-torch", "2.9", "--no-cache", str(path)])
    assert "FSU101" in checked.output and "no site of this file is judged" in checked.output, checked.output
    assert "refused by the test" in checked.output and "FSU001" not in checked.output
    fixed = cli_runner().invoke(main, ["fix", "--unsafe-fixes", "--target-torch", "2.9", "--no-cache", str(path)])
    assert fixed.exit_code in (0, 1), fixed.output
    assert path.read_text(encoding="utf-8") == text


def _sources() -> list[Path]:
    return [
        p for folder in ("tests/rules", "tests/fixtures", "examples") for p in sorted((ROOT / folder).rglob("*.py"))
    ]


def test_positions_one_statement_at_a_time_equal_libcsts_whole_module_pass() -> None:
    from fsdp_unpatch.semantic.model import build

    checked = 0
    for path in _sources():
        try:
            text = path.read_text(encoding="utf-8")
            compile(text, str(path), "exec")
            module = cst.parse_module(text)
        except (UnicodeDecodeError, SyntaxError, ValueError, cst.ParserSyntaxError):
            continue  # cases about unreadable or broken files
        whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        positions = Positions(module, build(text).statement_lines)
        assert positions.starts is not None, path
        outside = {id(n) for line in (*module.header, *module.footer) for n in descendants(line)} | {id(module)}
        for node, where in whole.items():
            if id(node) not in outside:
                assert positions[node] == where, (path, node)
        assert positions.whole is None, path  # the statements placed every node in them
        assert all(positions[node] == where for node, where in whole.items()), path
        checked += 1
    assert checked > 100


COLLECTIVES = "import torch.distributed.fsdp._fully_shard._fsdp_collectives as c\n"


@pytest.mark.parametrize(
    "data",
    [
        ("\ufeff" + COLLECTIVES.rstrip("\n") + "; c.foreach_reduce = f\n").encode("utf-8"),
        ("# -*- coding: latin-1 -*-\n" + COLLECTIVES + "x = 'é'; c.foreach_reduce = f\n").encode("latin-1"),
        (COLLECTIVES + "c.foreach_reduce = f  # ∂\r\nc.foreach_all_gather = (\r\n  f)\r\n").encode("utf-8"),
    ],
    ids=["bom", "latin-1", "crlf"],
)
def test_sites_are_placed_from_the_files_bytes_as_libcst_places_them(data: bytes) -> None:
    from fsdp_unpatch.analysis.source import parse_source
    from fsdp_unpatch.files.reading import SourceFile

    module = parse_source(SourceFile(Path("x.py"), "x.py", data, 0, len(data)))
    analysis = plan.analyze_module(module, "project.x", False, load_catalog(), Options(Version.parse("2.9")), data=data)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert analysis.unjudged is None
    assert analysis.planned
    assert [analysis.position(p.node) for p in analysis.planned] == [whole[p.node] for p in analysis.planned]
