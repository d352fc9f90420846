"""ruff's habits, issue 24 item 5: `--config KEY=VALUE`, a standalone `fsdp-unpatch.toml`, `--ignore-noqa`,
`--fixable`/`--unfixable`, the JSON `url` and SARIF `helpUri` of a rule's docs section, and the `rdjson` and
`azure` formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fsdp_unpatch.model import Finding, Span
from tests.integration import cli, make_project
from tests.test_docs import anchors

ROOT = Path(__file__).resolve().parent.parent
RULES_PAGE = ROOT / "docs" / "rules.md"
INSTALL_SITE = "    C._get_param_all_gather_inputs = _patched_inputs\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def codes(project: Path, *args: str, expect: tuple = (0, 1)) -> list[str]:
    result = cli("check", "--no-cache", "--output-format", "json", *args, "pkg", cwd=project)
    assert result.returncode in expect, result.stderr
    return sorted(f["code"] for f in json.loads(result.stdout))


def fail(project: Path, *args: str) -> str:
    result = cli("check", "--no-cache", *args, "pkg", cwd=project)
    assert result.returncode == 2, (result.stdout, result.stderr)
    return result.stderr.decode()


ALL = ["FSU001", "FSU002", "FSU003", "FSU201"]


# --config KEY=VALUE


def test_inline_config_overrides_the_file_and_a_path_still_works(project: Path, tmp_path: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nselect = ["FSU2"]\n')
    assert codes(project) == ["FSU201"]
    assert codes(project, "--config", 'select = ["FSU001", "FSU003"]') == ["FSU001", "FSU003"]
    other = tmp_path / "other.toml"
    other.write_text('select = ["FSU002"]\nignore = ["FSU003"]\n')
    assert codes(project, "--config", str(other)) == ["FSU002"]
    # a file and settings over it, in any order
    assert codes(project, "--config", "select=['FSU0']", "--config", str(other)) == ["FSU001", "FSU002"]
    # flags win over both
    assert codes(project, "--config", "select=['FSU0']", "--select", "FSU2") == ["FSU201"]


def test_inline_config_applies_with_isolated_too(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nselect = ["FSU2"]\n')
    assert codes(project, "--isolated", "--config", "ignore = ['FSU2']") == ["FSU001", "FSU002", "FSU003"]


@pytest.mark.parametrize(
    "value, says",
    [
        ("selct = ['FSU1']", "--config 'selct = ['FSU1']': unknown key `selct`"),
        ("select = 'FSU1'", "--config 'select = 'FSU1'': `select` must be a list of rule codes or prefixes"),
        ("select = ['XYZ9']", "unknown rule code or prefix 'XYZ9'"),
        ("select = [", "--config 'select = [': neither a file nor a valid `KEY = VALUE` TOML setting"),
        ("nothing-here.toml", "--config nothing-here.toml: no such file"),
        ("pkg", "--config pkg: a folder, not a configuration file"),
        ("select = ['FSU1']\nignore = ['FSU2']", "one `KEY = VALUE` setting a --config"),
    ],
)
def test_bad_inline_config_names_the_option_and_the_problem(project: Path, value: str, says: str) -> None:
    assert says in fail(project, "--config", value)


def test_two_configuration_files_are_refused(project: Path, tmp_path: Path) -> None:
    for name in ("a.toml", "b.toml"):
        (tmp_path / name).write_text("")
    message = fail(project, "--config", str(tmp_path / "a.toml"), "--config", str(tmp_path / "b.toml"))
    assert "one configuration file" in message and "a.toml" in message and "b.toml" in message


# a standalone fsdp-unpatch.toml


def test_a_standalone_file_is_found_upward_and_wins_over_pyproject(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nselect = ["FSU2"]\n')
    (project / "fsdp-unpatch.toml").write_text('select = ["FSU001"]\n')
    assert codes(project) == ["FSU001"]
    result = cli("check", "--no-cache", "--output-format", "json", ".", cwd=project / "pkg")  # upward from pkg
    assert sorted(f["code"] for f in json.loads(result.stdout)) == ["FSU001"]
    (project / ".fsdp-unpatch.toml").write_text('select = ["FSU003"]\n')  # ruff's `.ruff.toml` before `ruff.toml`
    assert codes(project) == ["FSU003"]
    settings = cli("check", "--show-settings", "pkg", cwd=project).stdout.decode()
    assert f'config = "{project / ".fsdp-unpatch.toml"}"' in settings


def test_a_nearer_pyproject_table_wins_over_a_farther_standalone_file(project: Path) -> None:
    (project / "fsdp-unpatch.toml").write_text('select = ["FSU001"]\n')
    (project / "pkg" / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nselect = ["FSU2"]\n')
    assert codes(project) == ["FSU201"]


def test_an_empty_standalone_file_is_a_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nselect = ["FSU2"]\n')
    (project / "fsdp-unpatch.toml").write_text("")
    assert codes(project) == ALL


def test_a_bad_standalone_file_names_the_file_and_the_key(project: Path) -> None:
    path = project / "fsdp-unpatch.toml"
    path.write_text('selct = ["FSU1"]\n')
    message = fail(project)
    assert f"{path}: unknown key `selct` (known:" in message and "[tool." not in message
    path.write_text('fixable = "FSU0"\n')
    assert f"{path}: `fixable` must be a list of rule codes or prefixes" in fail(project)


# --ignore-noqa


def test_ignore_noqa_reports_what_a_noqa_suppresses(project: Path) -> None:
    patch = project / "pkg" / "patch.py"
    patch.write_text(patch.read_text().replace(INSTALL_SITE, INSTALL_SITE.rstrip("\n") + "  # noqa: FSU001\n"))
    assert "FSU001" not in codes(project)
    assert codes(project, "--ignore-noqa") == ALL


# --fixable / --unfixable


def fixes(project: Path, *args: str) -> dict[str, bool]:
    result = cli("check", "--no-cache", "--output-format", "json", *args, "pkg", cwd=project)
    return {f["code"]: f["fix"] is not None for f in json.loads(result.stdout)}


def test_unfixable_rules_have_no_fix_to_apply_or_count(project: Path) -> None:
    assert fixes(project) == {"FSU001": True, "FSU002": True, "FSU003": True, "FSU201": False}
    # the replacement and the installer go only with their install site: none of the three is fixable alone
    assert not any(fixes(project, "--unfixable", "FSU001").values())
    assert not any(fixes(project, "--fixable", "FSU002,FSU003").values())
    assert fixes(project, "--fixable", "FSU0", "--unfixable", "FSU1") == fixes(project)
    summary = cli("check", "--no-cache", "--unfixable", "FSU0", "pkg", cwd=project).stdout.decode()
    assert "3 remove" in summary and "fixable" not in summary.splitlines()[-1]
    before = (project / "pkg" / "patch.py").read_bytes()
    result = cli("fix", "--unfixable", "FSU001", "pkg", cwd=project)
    assert result.returncode == 1 and (project / "pkg" / "patch.py").read_bytes() == before


def test_fixable_and_unfixable_from_the_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nunfixable = ["FSU001"]\n')
    assert not any(fixes(project).values())
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nfixable = ["FSU4"]\n')
    assert not any(fixes(project).values())
    assert fixes(project, "--fixable", "ALL") == {"FSU001": True, "FSU002": True, "FSU003": True, "FSU201": False}
    (project / "pyproject.toml").write_text('[tool.fsdp-unpatch]\nfixable = ["FSU0"]\n')
    assert fixes(project)["FSU001"]
    # the installer is left (emptied to `pass`) when its own fix is unfixable; the install site still goes
    assert fixes(project, "--config", "unfixable = ['FSU003']") == {
        "FSU001": True,
        "FSU002": True,
        "FSU003": False,
        "FSU201": False,
    }
    settings = cli("check", "--show-settings", "--unfixable", "FSU003", "pkg", cwd=project).stdout.decode()
    assert 'fixable = ["FSU0"]\n' in settings and 'unfixable = ["FSU003"]\n' in settings


def test_fixable_takes_only_known_codes(project: Path) -> None:
    assert "--unfixable: unknown rule code or prefix 'FSX1'" in fail(project, "--unfixable", "FSX1")


# url, helpUri


def rule_url(code: str) -> str:
    from fsdp_unpatch import RULES_URL

    return f"{RULES_URL}#{code.lower()}"


def test_json_findings_link_their_rule_section_and_the_section_exists(project: Path) -> None:
    from fsdp_unpatch.rules.registry import all_rules

    findings = json.loads(cli("check", "--no-cache", "--output-format", "json", "pkg", cwd=project).stdout)
    assert [f["url"] for f in findings] == [rule_url(f["code"]) for f in findings]
    assert all(f["url"].startswith("https://") and "/docs/rules.md#fsu" in f["url"] for f in findings)
    edits = next(f for f in findings if f["code"] == "FSU001")["fix"]["edits"]
    assert edits and {"path", "line", "column", "end_line", "end_column", "content"} <= set(edits[0])
    page = anchors(RULES_PAGE.read_text(encoding="utf-8"))
    missing = [code for code in all_rules() if rule_url(code).partition("#")[2] not in page]
    assert missing == [], "docs/rules.md has no section for these rules"


def test_sarif_rules_have_a_help_uri(project: Path) -> None:
    sarif = json.loads(cli("check", "--no-cache", "--output-format", "sarif", "pkg", cwd=project).stdout)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rules and all(rule["helpUri"] == rule_url(rule["id"]) for rule in rules)


# rdjson, azure


def test_rdjson_is_reviewdogs_diagnostic_format(project: Path) -> None:
    result = cli("check", "--no-cache", "--output-format", "rdjson", "pkg", cwd=project)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["source"]["name"] == "fsdp-unpatch"
    by_code = {d["code"]["value"]: d for d in report["diagnostics"]}
    assert sorted(by_code) == ALL
    assert {d["severity"] for d in by_code.values()} == {"ERROR", "INFO"}
    site = by_code["FSU001"]
    assert site["code"]["url"] == rule_url("FSU001")
    assert site["location"]["path"] == "pkg/patch.py"
    assert site["location"]["range"]["start"] == {"line": 59, "column": 5}
    assert site["message"].startswith("`C._get_param_all_gather_inputs` overrides")
    # Its fix through reviewdog's suggestions (regions of its own file) is what `fix` writes when only it applies.
    text = (project / "pkg" / "patch.py").read_text()
    suggested = _apply_suggestions(text, site["suggestions"])
    assert suggested != text
    assert cli("fix", "--unfixable", "FSU002,FSU003", "pkg", cwd=project).returncode == 1
    assert suggested == (project / "pkg" / "patch.py").read_text()


def _apply_suggestions(text: str, suggestions: list[dict]) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line.encode()))
    data = text.encode()

    def offset(position: dict) -> int:  # rdjson columns count UTF-8 bytes
        return starts[position["line"] - 1] + position["column"] - 1

    for s in sorted(suggestions, key=lambda s: (s["range"]["start"]["line"], s["range"]["start"]["column"]))[::-1]:
        data = data[: offset(s["range"]["start"])] + s["text"].encode() + data[offset(s["range"]["end"]) :]
    return data.decode()


def test_rdjson_columns_count_utf8_bytes(tmp_path: Path) -> None:
    from fsdp_unpatch.reporting.rdjson import byte_column

    assert byte_column("ab\n", 2) == 2
    assert byte_column("é = x\n", 3) == 4  # `é` is two bytes: code point column 3 is byte column 4
    assert byte_column("短\n", 2) == 4


def test_azure_logs_an_issue_a_finding(project: Path) -> None:
    result = cli("check", "--no-cache", "--output-format", "azure", "pkg", cwd=project)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 3  # the keep finding is no issue: Azure has only errors and warnings
    assert lines[-1].startswith(
        "##vso[task.logissue type=error;sourcepath=pkg/patch.py;linenumber=59;columnnumber=5;code=FSU001;]"
        "`C._get_param_all_gather_inputs` overrides"
    )


def test_azure_escapes_what_would_end_a_property_or_the_line() -> None:
    from fsdp_unpatch.reporting.azure import azure_line

    finding = Finding("FSU101", "review", "a;b]c.py", Span(3, 1, 3, 2), "100% sure\nnot]; really\r")
    assert azure_line(finding) == (
        "##vso[task.logissue type=warning;sourcepath=a%3Bb%5Dc.py;linenumber=3;columnnumber=1;code=FSU101;]"
        "100%AZP25 sure%0Anot]; really%0D"
    )


def test_the_cache_keeps_ignore_noqa_and_unfixable_apart(project: Path) -> None:
    patch = project / "pkg" / "patch.py"
    patch.write_text(patch.read_text().replace(INSTALL_SITE, INSTALL_SITE.rstrip("\n") + "  # noqa: FSU001\n"))

    def cached(*args: str) -> dict[str, bool]:
        result = cli("check", "--output-format", "json", *args, "pkg", cwd=project)
        return {f["code"]: f["fix"] is not None for f in json.loads(result.stdout)}

    assert "FSU001" not in cached()
    assert cached("--ignore-noqa") == {"FSU001": True, "FSU002": True, "FSU003": True, "FSU201": False}
    assert cached("--ignore-noqa", "--unfixable", "FSU0") == dict.fromkeys(ALL, False)
    assert "FSU001" not in cached()
