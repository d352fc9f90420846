"""Each `--output-format` by its contract: SARIF against the official schema, GitHub workflow commands by
their exact syntax, JUnit parsed as XML, JSON Lines equal to the JSON list, GitLab code quality against its
documented fields, pylint's parseable template, ruff's grouped layout, and the Markdown summary."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsdp_unpatch.fixes.edits import replacement_regions
from fsdp_unpatch.model import Finding, Replacement, Span
from fsdp_unpatch.reporting import FORMATS
from fsdp_unpatch.reporting.github import annotation, escape_data, escape_property
from tests.integration import cli, make_project

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def findings_json(project: Path) -> list[dict]:
    result = cli("check", "--output-format", "json", cwd=project)
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


def apply(text: str, replacements: list[Replacement]) -> str:
    """Apply line/column replacements the way a SARIF consumer does: last region first."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    for r in sorted(replacements, key=lambda r: (r.line, r.column), reverse=True):
        text = text[: offset(r.line, r.column)] + r.content + text[offset(r.end_line, r.end_column) :]
    return text


def test_every_format_is_registered_and_offered_by_the_cli(project: Path) -> None:
    assert set(FORMATS) == {
        "full",
        "concise",
        "json",
        "json-lines",
        "sarif",
        "github",
        "junit",
        "gitlab",
        "pylint",
        "grouped",
        "markdown",
        "rdjson",
        "azure",
    }
    for name in FORMATS:
        result = cli("check", "--output-format", name, cwd=project)
        assert result.returncode == 1, (name, result.stderr)


def test_sarif_is_valid_against_the_official_schema(project: Path) -> None:
    result = cli("check", "--output-format", "sarif", cwd=project)
    assert result.returncode == 1
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(r["id"] for r in rules)
    assert {"FSU001", "FSU002", "FSU003", "FSU201", "FSU901"} <= {r["id"] for r in rules}
    expected = findings_json(project)
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]] == [
        (f["code"], f["line"]) for f in expected
    ]
    for sarif_result, finding in zip(run["results"], expected):
        assert rules[sarif_result["ruleIndex"]]["id"] == finding["code"]
        location = sarif_result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == finding["path"]
        assert location["region"] == {
            "startLine": finding["line"],
            "startColumn": finding["column"],
            "endLine": finding["end_line"],
            "endColumn": finding["end_column"],
        }
        assert sarif_result["level"] == {"remove": "error", "keep": "note"}[finding["category"]]
        assert ("fixes" in sarif_result) == (finding["fix"] is not None)


def test_sarif_fix_replacements_reproduce_the_fix(project: Path, tmp_path: Path) -> None:
    """The install site's fix needs nothing else: applying its replacements gives what `fix --select` gives."""
    log = json.loads(cli("check", "--output-format", "sarif", cwd=project).stdout)
    install = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "FSU001")
    (change,) = install["fixes"][0]["artifactChanges"]
    replacements = [
        Replacement(
            d["deletedRegion"]["startLine"],
            d["deletedRegion"]["startColumn"],
            d["deletedRegion"]["endLine"],
            d["deletedRegion"]["endColumn"],
            d["insertedContent"]["text"],
        )
        for d in change["replacements"]
    ]
    before = (project / "pkg" / "patch.py").read_text()
    patched = apply(before, replacements)
    assert patched != before
    fixed = cli("fix", "--select", "FSU001", "pkg/patch.py", cwd=project)
    assert fixed.returncode == 0, fixed.stderr
    assert patched == (project / "pkg" / "patch.py").read_text()


@given(
    st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "d"]), max_size=8),
    st.lists(st.sampled_from(["a\n", "b\n", "x\n", "\n"]), max_size=8),
)
def test_replacement_regions_turn_before_into_after(before: list[str], after: list[str]) -> None:
    old = "".join(before)
    new = "".join(after)
    if old and not old.endswith("\n") and "d" in old[:-1]:
        return  # "d" without newline only ends a file
    assert apply(old, replacement_regions(old, new)) == new


def test_github_annotations_have_the_exact_workflow_command_syntax(project: Path) -> None:
    result = cli("check", "--output-format", "github", "--show-kept", cwd=project)
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    expected = findings_json(project)
    assert len(lines) == len(expected)
    pattern = re.compile(
        r"::(?P<level>error|warning|notice) file=(?P<file>[^,]+),line=(?P<line>\d+),col=(?P<col>\d+),"
        r"endLine=(?P<end_line>\d+),endColumn=(?P<end_col>\d+),title=fsdp-unpatch \((?P<code>FSU\d{3})\)::"
        r"(?P=code) \[(?P<category>\w+)\] (?P<message>.+)"
    )
    for line, finding in zip(lines, expected):
        match = pattern.fullmatch(line)
        assert match, line
        assert (
            match["file"],
            int(match["line"]),
            int(match["col"]),
            int(match["end_line"]),
            int(match["end_col"]),
            match["code"],
            match["category"],
        ) == (
            finding["path"],
            finding["line"],
            finding["column"],
            finding["end_line"],
            finding["end_column"],
            finding["code"],
            finding["category"],
        )
        assert match["level"] == {"remove": "error", "keep": "notice"}[finding["category"]]
        assert match["message"] == escape_data(finding["message"])


def test_github_escaping_of_data_and_properties() -> None:
    assert escape_data("50% done\r\nnext: a,b") == "50%25 done%0D%0Anext: a,b"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    finding = Finding(
        code="FSU101",
        category="review",
        path="odd,name:1.py",
        span=Span(2, 3, 4, 5),
        message="line one\nline two: 100%",
    )
    assert annotation(finding) == (
        "::warning file=odd%2Cname%3A1.py,line=2,col=3,endLine=4,endColumn=5,title=fsdp-unpatch (FSU101)"
        "::FSU101 [review] line one%0Aline two: 100%25"
    )


def test_junit_is_xml_with_a_case_per_finding_and_per_clean_file(project: Path) -> None:
    result = cli("check", "--output-format", "junit", cwd=project)
    assert result.returncode == 1
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"pkg/__init__.py", "pkg/clean.py", "pkg/enhance.py", "pkg/patch.py"}
    patch_cases = suites["pkg/patch.py"].findall("testcase")
    assert [c.find("failure").get("type") for c in patch_cases] == ["FSU002", "FSU003", "FSU001"]
    assert suites["pkg/patch.py"].get("failures") == "3"
    enhance = suites["pkg/enhance.py"].findall("testcase")
    assert len(enhance) == 1 and enhance[0].find("failure") is None and "FSU201" in enhance[0].find("system-out").text
    clean = suites["pkg/clean.py"].findall("testcase")
    assert [c.get("name") for c in clean] == ["no findings"]
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "3", "0")


def test_junit_reports_unparsable_files_as_errors(project: Path) -> None:
    (project / "pkg" / "broken.py").write_text("import torch\ndef oops(:\n    pass\ntorch.ops.fsdp.x = None\n")
    result = cli("check", "--output-format", "junit", cwd=project)
    assert result.returncode == 1  # a syntax error is a finding, as in ruff (exit 2: a usage or read error)
    suite = next(s for s in ET.fromstring(result.stdout).findall("testsuite") if s.get("name") == "pkg/broken.py")
    assert suite.find("testcase/error").get("type") == "FSU901"
    assert suite.get("errors") == "1"


def test_json_lines_is_the_json_list_one_object_a_line(project: Path) -> None:
    result = cli("check", "--output-format", "json-lines", cwd=project)
    assert result.returncode == 1
    assert [json.loads(line) for line in result.stdout.decode().splitlines()] == findings_json(project)


GITLAB_SCHEMA = json.loads((Path(__file__).parent / "data" / "gitlab-code-quality.schema.json").read_text())
# pylint's own `parseable` template, as a pattern (pylint/reporters/text.py: ParseableTextReporter)
PYLINT = re.compile(r"(?P<path>[^:]+):(?P<line>\d+): \[(?P<code>FSU\d{3})\((?P<symbol>[a-z0-9-]+)\), \] (?P<msg>.+)")


def test_gitlab_code_quality_has_the_documented_fields(project: Path) -> None:
    expected = findings_json(project)
    result = cli("check", "--output-format", "gitlab", cwd=project)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    jsonschema.Draft7Validator(GITLAB_SCHEMA).validate(report)
    assert [(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in report] == [
        (f["code"], f["path"], f["line"]) for f in expected
    ]
    assert len({i["fingerprint"] for i in report}) == len(report)
    severities = {i["check_name"]: i["severity"] for i in report}
    assert severities["FSU001"] == "major" and severities["FSU201"] == "info"


def test_gitlab_fingerprints_survive_moved_lines(project: Path) -> None:
    before = {
        i["check_name"]: i["fingerprint"]
        for i in json.loads(cli("check", "--output-format", "gitlab", cwd=project).stdout)
    }
    patch = project / "pkg" / "patch.py"
    patch.write_text("# a new first line\n\n" + patch.read_text())
    after = {
        i["check_name"]: i["fingerprint"]
        for i in json.loads(cli("check", "--output-format", "gitlab", cwd=project).stdout)
    }
    assert after == before


def test_pylint_format_is_pylints_parseable_template(project: Path) -> None:
    expected = findings_json(project)
    lines = cli("check", "--output-format", "pylint", cwd=project).stdout.decode().splitlines()
    matches = [PYLINT.fullmatch(line) for line in lines]
    assert all(matches), lines
    assert [(m["path"], int(m["line"]), m["code"]) for m in matches] == [
        (f["path"], f["line"], f["code"]) for f in expected
    ]
    assert {m["symbol"] for m in matches if m["code"] == "FSU001"} == {"collective-override"}


def test_grouped_format_has_a_heading_per_file(project: Path) -> None:
    expected = findings_json(project)
    text = cli("check", "--output-format", "grouped", "--show-kept", cwd=project).stdout.decode()
    blocks = [b for b in text.split("\n\n") if b.strip() and not b.startswith("Found ")]
    seen = []
    for block in blocks:
        heading, *rows = block.strip("\n").splitlines()
        assert heading.endswith(":") and not heading.startswith(" ")
        for row in rows:
            match = re.fullmatch(r"  (\d+):(\d+) +(FSU\d{3}) \[(\w+)\] .+", row)
            assert match, row
            seen.append((heading[:-1], int(match[1]), int(match[2]), match[3]))
    assert seen == [(f["path"], f["line"], f["column"], f["code"]) for f in expected]
    assert text.rstrip().splitlines()[-1].startswith("Found ")


def test_markdown_summary_counts_links_and_fixes(project: Path) -> None:
    expected = findings_json(project)
    env = {"GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": "org/repo", "GITHUB_SHA": "abc123"}
    text = cli("check", "--output-format", "markdown", cwd=project, env=env).stdout.decode()
    assert text.startswith("## fsdp-unpatch\n")
    counts = dict(re.findall(r"^\| \S+ (remove|review|keep|error) \| (\d+) \| \d+ \| \d+ \|$", text, re.MULTILINE))
    assert counts == {c: str(sum(f["category"] == c for f in expected)) for c in ("remove", "review", "keep", "error")}
    for f in expected:
        link = f"[{f['path']}:{f['line']}:{f['column']}](https://github.example/org/repo/blob/abc123/{f['path']}#L{f['line']})"
        assert link in text, link
    assert "<details><summary>1 kept on purpose" in text  # the enhance patch, folded away
    safe = sum(1 for f in expected if f["fix"] and f["fix"]["applicability"] == "safe")
    assert f"- {safe} safe fixes: `fsdp-unpatch fix`" in text
    assert (
        "](pkg/patch.py#L" in cli("check", "--output-format", "markdown", cwd=project).stdout.decode()
    )  # no CI: relative


def test_markdown_cells_escape_pipes() -> None:
    from fsdp_unpatch.reporting.markdown import cell

    assert cell("a | b\nc") == "a \\| b c"


def test_sarif_information_uri_is_the_readme(project: Path) -> None:
    from fsdp_unpatch import README_URL

    log = json.loads(cli("check", "--output-format", "sarif", cwd=project).stdout)
    assert log["runs"][0]["tool"]["driver"]["informationUri"] == README_URL
    assert README_URL.endswith("#readme") and "pypi.org" not in README_URL


def test_a_fix_shows_the_imports_of_its_own_file_only(tmp_path: Path) -> None:
    """The vendored patch's FSU002 requires FSU301 rewrites in two other files, which add imports there; the
    regions shown for it (`--show-fixes`, SARIF) add none to the patch module (they used to: the other files'
    import edits were applied to it)."""
    from fsdp_unpatch.catalog import load_catalog
    from fsdp_unpatch.catalog.versions import Version
    from fsdp_unpatch.config.discovery import discover
    from fsdp_unpatch.config.options import Options
    from fsdp_unpatch.model import RunOptions
    from fsdp_unpatch.run.batch import run
    from tests.test_tiers import ROOT
    from tests.upstream import expanded_copy

    copy = expanded_copy(ROOT / "tests" / "fixtures" / "downstream", tmp_path / "downstream")
    options = RunOptions(analysis=Options(target_torch=Version.parse("2.13")), replacements=True)
    result = run(discover([str(copy)]), load_catalog(), options)
    finding = next(
        f
        for f in result.findings
        if f.code == "FSU002" and f.path.endswith("patch.py") and "_get_param_all_gather_inputs" in f.message
    )
    assert finding.fix is not None and finding.fix.replacements
    assert not any("import" in r.content for r in finding.fix.replacements)


def test_extra_outputs_are_the_formats_of_the_same_run(project: Path) -> None:
    """One run, several reports (the GitHub Action's annotations, SARIF, summary and counts): each extra file
    holds what that format alone prints."""
    result = cli(
        "check",
        "--no-cache",
        "--output-format",
        "github",
        "--extra-output",
        "sarif:out/report.sarif",
        "--extra-output",
        "markdown:summary.md",
        "--extra-output",
        "json:findings.json",
        cwd=project,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout == cli("check", "--no-cache", "--output-format", "github", cwd=project).stdout
    for name, path in (("sarif", "out/report.sarif"), ("json", "findings.json"), ("markdown", "summary.md")):
        alone = cli("check", "--no-cache", "--output-format", name, cwd=project).stdout.decode()
        written = (project / path).read_text(encoding="utf-8")
        took = re.compile(r"Took \d+\.\d+ s")
        assert took.sub("Took N s", written) == took.sub("Took N s", alone), name
    assert (
        "--extra-output: expected FORMAT:FILE" in cli("check", "--extra-output", "sarif", cwd=project).stderr.decode()
    )
    unknown = cli("check", "--extra-output", "yaml:x.yml", cwd=project)
    assert unknown.returncode == 2 and b"--extra-output: unknown format 'yaml'" in unknown.stderr
