"""JUnit XML, for CI systems that show test reports: a test suite per scanned file, a test case per finding.

remove and review findings are failures, errors are errors, keep findings pass (they never fail a run);
a file without findings is one passing test case, so the report shows everything that was checked.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from fsdp_unpatch.model import Finding, RunResult
from fsdp_unpatch.quoting import printable, quoted_path, xml_safe
from fsdp_unpatch.reporting import ReportContext


def _case(suite: ET.Element, finding: Finding) -> tuple[int, int]:
    span = finding.span
    path, message = xml_safe(finding.path), xml_safe(finding.message)
    case = ET.SubElement(
        suite,
        "testcase",
        name=f"{finding.code} {path}:{span.line}:{span.column}",
        classname=path,
        file=path,
        line=str(span.line),
    )
    # the text is one line, as `concise` prints it: a raw newline would start a line a CI runner may read
    one_line = f"{quoted_path(finding.path)}:{span.line}:{span.column}: {finding.code} [{finding.category}]"
    text = xml_safe(f"{one_line} {printable(finding.message)}")
    if finding.category == "error":
        ET.SubElement(case, "error", message=message, type=finding.code).text = text
        return 0, 1
    if finding.category in ("remove", "review"):
        ET.SubElement(case, "failure", message=message, type=finding.code).text = text
        return 1, 0
    ET.SubElement(case, "system-out").text = text
    return 0, 0


def junit_report(result: RunResult, context: ReportContext) -> str:
    root = ET.Element("testsuites", name="fsdp-unpatch")
    totals = [0, 0, 0]
    for file in result.files:
        display = xml_safe(file.display)
        suite = ET.SubElement(root, "testsuite", name=display)
        findings = sorted((f for f in file.findings if not f.fixed), key=Finding.sort_key)
        failures = errors = 0
        for finding in findings:
            failed, errored = _case(suite, finding)
            failures, errors = failures + failed, errors + errored
        if not findings:
            ET.SubElement(suite, "testcase", name="no findings", classname=display, file=display)
        tests = max(len(findings), 1)
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        totals = [totals[0] + tests, totals[1] + failures, totals[2] + errors]
    root.set("tests", str(totals[0]))
    root.set("failures", str(totals[1]))
    root.set("errors", str(totals[2]))
    root.set("time", f"{context.elapsed:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
